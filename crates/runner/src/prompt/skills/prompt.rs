//! The skills list for the system prompt in the Agent Skills XML layout OpenClaw and pi use
//! (`skill-contract.ts` `formatSkillsForPrompt`), with OpenClaw's count and size limits
//! (`skills/workspace.ts` `applySkillsPromptLimits`): over the size budget the list drops the
//! descriptions (compact format) and, if still too big, keeps the longest prefix that fits.

use super::Skill;

/// OpenClaw's `DEFAULT_MAX_SKILLS_IN_PROMPT`.
pub const DEFAULT_MAX_SKILLS_IN_PROMPT: usize = 150;
/// OpenClaw's `DEFAULT_MAX_SKILLS_PROMPT_CHARS` (2026.4).
pub const DEFAULT_MAX_SKILLS_PROMPT_CHARS: usize = 30_000;
/// Room kept for the warning line placed before a compact list (`COMPACT_WARNING_OVERHEAD`).
const COMPACT_WARNING_OVERHEAD: usize = 150;

/// Limits on the skills list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SkillsPromptLimits {
    /// The most skills listed.
    pub max_skills: usize,
    /// The most chars the list may take.
    pub max_chars: usize,
}

impl Default for SkillsPromptLimits {
    fn default() -> Self {
        SkillsPromptLimits {
            max_skills: DEFAULT_MAX_SKILLS_IN_PROMPT,
            max_chars: DEFAULT_MAX_SKILLS_PROMPT_CHARS,
        }
    }
}

/// The skills list and how it was shortened.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkillsPrompt {
    /// The text for [`SystemPromptParams::skills_prompt`](crate::prompt::SystemPromptParams);
    /// empty when no skill is listed.
    pub text: String,
    /// Names of the skills listed, in order.
    pub listed: Vec<String>,
    /// How many skills could have been listed (those not hidden from the model).
    pub total: usize,
    /// Whether descriptions were dropped to fit.
    pub compact: bool,
    /// Whether some skills were left out.
    pub truncated: bool,
}

/// Formats the skills the model may pick from: those without `disable-model-invocation`, in the
/// given order (the loader sorts them by name), within `limits`.
pub fn format_skills_prompt(skills: &[Skill], limits: SkillsPromptLimits) -> SkillsPrompt {
    let visible: Vec<&Skill> = skills
        .iter()
        .filter(|s| !s.disable_model_invocation)
        .collect();
    let total = visible.len();
    let mut listed: Vec<&Skill> = visible.iter().copied().take(limits.max_skills).collect();
    let mut truncated = total > listed.len();
    let mut compact = false;
    let compact_budget = limits.max_chars.saturating_sub(COMPACT_WARNING_OVERHEAD);
    let fits_compact = |skills: &[&Skill]| char_len(&format_compact(skills)) <= compact_budget;
    if char_len(&format_full(&listed)) > limits.max_chars {
        compact = true;
        if !fits_compact(&listed) {
            // The longest prefix that fits: the compact text grows with every skill, so the
            // predicate is monotone and a binary search finds the boundary.
            let (mut lo, mut hi) = (0, listed.len());
            while lo < hi {
                let mid = (lo + hi).div_ceil(2);
                if fits_compact(&listed[..mid]) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            listed.truncate(lo);
            truncated = true;
        }
    }
    let note = if truncated {
        format!(
            "⚠️ Skills truncated: included {} of {total}{}.",
            listed.len(),
            if compact {
                " (compact format, descriptions omitted)"
            } else {
                ""
            }
        )
    } else if compact {
        "⚠️ Skills catalog using compact format (descriptions omitted).".to_owned()
    } else {
        String::new()
    };
    let list = if compact {
        format_compact(&listed)
    } else {
        format_full(&listed)
    };
    let text = [note, list]
        .into_iter()
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("\n");
    SkillsPrompt {
        text,
        listed: listed.iter().map(|s| s.name.clone()).collect(),
        total,
        compact,
        truncated,
    }
}

const PREAMBLE_FULL: &str = "\n\nThe following skills provide specialized instructions for specific tasks.\n\
Use the read tool to load a skill's file when the task matches its description.\n";
const PREAMBLE_COMPACT: &str = "\n\nThe following skills provide specialized instructions for specific tasks.\n\
Use the read tool to load a skill's file when the task matches its name.\n";
const RELATIVE_PATHS: &str = "When a skill file references a relative path, resolve it against the skill directory (parent of SKILL.md / dirname of the path) and use that absolute path in tool commands.\n\n<available_skills>";

fn format_full(skills: &[&Skill]) -> String {
    format_list(skills, PREAMBLE_FULL, true)
}

fn format_compact(skills: &[&Skill]) -> String {
    format_list(skills, PREAMBLE_COMPACT, false)
}

fn format_list(skills: &[&Skill], preamble: &str, with_description: bool) -> String {
    if skills.is_empty() {
        return String::new();
    }
    let mut out = format!("{preamble}{RELATIVE_PATHS}");
    for skill in skills {
        out.push_str("\n  <skill>\n    <name>");
        out.push_str(&escape_xml(&skill.name));
        out.push_str("</name>");
        if with_description {
            out.push_str("\n    <description>");
            out.push_str(&escape_xml(&skill.description));
            out.push_str("</description>");
        }
        out.push_str("\n    <location>");
        out.push_str(&escape_xml(&skill.file_path.to_string_lossy()));
        out.push_str("</location>\n  </skill>");
    }
    out.push_str("\n</available_skills>");
    out
}

fn escape_xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            other => out.push(other),
        }
    }
    out
}

fn char_len(text: &str) -> usize {
    text.chars().count()
}
