//! What one step of a drain does with the text left, and whether the drain goes on after a
//! cut: the pure decisions of OpenClaw's `drain` loop. [`Cutter`](super::cutter::Cutter) carries
//! them out.

/// The settings one drain runs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Drain {
    /// The drain empties the buffer.
    pub force: bool,
    /// `flush_on_paragraph` of the options.
    pub flush_on_paragraph: bool,
    /// `min_chars`, at least 1.
    pub min: usize,
    /// `max_chars`, at least `min`.
    pub max: usize,
}

/// What a step does with the text left (reopened fence line included).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    /// Keep the text buffered and end the drain.
    Wait,
    /// Flush the next complete paragraph; without one, break in the `max` window when
    /// `or_break`, else wait.
    Paragraph {
        /// The text left reaches `max`, so it cannot wait for a paragraph.
        or_break: bool,
    },
    /// Forward search for a break, the text left fitting in `max` (a forced drain's last
    /// chunks).
    SoftBreak,
    /// Backward search in the `max` window, with the hard break as the last resort.
    Break,
}

impl Drain {
    /// The step for `remaining` chars left.
    pub(super) fn step(&self, remaining: usize) -> Step {
        if !self.force && remaining < self.min {
            return Step::Wait;
        }
        if self.flush_on_paragraph && !self.force {
            return Step::Paragraph {
                or_break: remaining >= self.max,
            };
        }
        if self.force && remaining <= self.max {
            Step::SoftBreak
        } else {
            Step::Break
        }
    }

    /// `true` when the drain looks for another chunk after a cut that left `left` chars.
    /// Without `flush_on_paragraph` a non-forced drain cuts only what exceeds `max`.
    pub(super) fn goes_on_after_cut(&self, left: usize) -> bool {
        self.force || (left >= self.min && (left >= self.max || self.flush_on_paragraph))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(force: bool, flush_on_paragraph: bool) -> Drain {
        Drain {
            force,
            flush_on_paragraph,
            min: 10,
            max: 20,
        }
    }

    #[test]
    fn step_table() {
        let paragraph = |or_break| Step::Paragraph { or_break };
        // (force, flush_on_paragraph, remaining, step)
        let rows = [
            (false, false, 9, Step::Wait),
            (false, true, 9, Step::Wait),
            (false, false, 10, Step::Break),
            (false, false, 25, Step::Break),
            (false, true, 10, paragraph(false)),
            (false, true, 19, paragraph(false)),
            (false, true, 20, paragraph(true)),
            (true, false, 0, Step::SoftBreak),
            (true, true, 5, Step::SoftBreak),
            (true, false, 20, Step::SoftBreak),
            (true, false, 21, Step::Break),
            (true, true, 21, Step::Break),
        ];
        for (force, flush, remaining, step) in rows {
            assert_eq!(
                drain(force, flush).step(remaining),
                step,
                "force {force}, flush {flush}, remaining {remaining}"
            );
        }
    }

    #[test]
    fn goes_on_after_cut_table() {
        // (force, flush_on_paragraph, left, goes on)
        let rows = [
            (true, false, 0, true),
            (true, false, 5, true),
            (false, false, 9, false),
            (false, true, 9, false),
            (false, false, 10, false),
            (false, false, 19, false),
            (false, false, 20, true),
            (false, true, 10, true),
            (false, true, 19, true),
        ];
        for (force, flush, left, goes_on) in rows {
            assert_eq!(
                drain(force, flush).goes_on_after_cut(left),
                goes_on,
                "force {force}, flush {flush}, left {left}"
            );
        }
    }
}
