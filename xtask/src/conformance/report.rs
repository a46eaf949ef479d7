//! Output of a conformance run: one line per case, optional JSON objects, the summary line.

use std::io::{self, Write};

use serde_json::json;

/// The result of one case (or of a file that could not be used).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The scenario file as displayed.
    pub file: String,
    /// The case name; `None` for a file-level failure.
    pub name: Option<String>,
    /// `None` when the case passed, else the first difference.
    pub error: Option<String>,
}

impl Outcome {
    /// `file#name`, or just `file` for a file-level outcome.
    pub fn label(&self) -> String {
        match &self.name {
            Some(name) => format!("{}#{}", self.file, name),
            None => self.file.clone(),
        }
    }

    /// The `PASS …` / `FAIL …: …` line (without a newline).
    pub fn line(&self) -> String {
        match &self.error {
            None => format!("PASS {}", self.label()),
            // One case, one line: messages from the crates may hold newlines.
            Some(err) => format!("FAIL {}: {}", self.label(), err.replace('\n', "\\n")),
        }
    }

    /// The `{"file","name","pass","error"}` object of `--json`.
    pub fn json(&self) -> String {
        json!({
            "file": self.file,
            "name": self.name,
            "pass": self.error.is_none(),
            "error": self.error,
        })
        .to_string()
    }
}

/// Writes outcomes as they come and counts them.
pub struct Reporter<W: Write> {
    out: W,
    json: bool,
    /// Cases that passed.
    pub passed: usize,
    /// Cases (and files) that failed.
    pub failed: usize,
}

impl<W: Write> Reporter<W> {
    /// A reporter writing to `out`; `json` adds one JSON object after each line.
    pub fn new(out: W, json: bool) -> Self {
        Reporter {
            out,
            json,
            passed: 0,
            failed: 0,
        }
    }

    /// Records and prints one outcome.
    pub fn record(&mut self, outcome: &Outcome) -> io::Result<()> {
        if outcome.error.is_none() {
            self.passed += 1;
        } else {
            self.failed += 1;
        }
        writeln!(self.out, "{}", outcome.line())?;
        if self.json {
            writeln!(self.out, "{}", outcome.json())?;
        }
        Ok(())
    }

    /// Prints the summary line `N passed, M failed`.
    pub fn finish(&mut self) -> io::Result<()> {
        writeln!(self.out, "{} passed, {} failed", self.passed, self.failed)?;
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_json() {
        let pass = Outcome {
            file: "a.json".into(),
            name: Some("n".into()),
            error: None,
        };
        let fail = Outcome {
            file: "a.json".into(),
            name: None,
            error: Some("bad\nthing".into()),
        };
        assert_eq!(pass.line(), "PASS a.json#n");
        assert_eq!(fail.line(), "FAIL a.json: bad\\nthing");
        assert_eq!(
            pass.json(),
            r#"{"file":"a.json","name":"n","pass":true,"error":null}"#
        );
        let mut buf = Vec::new();
        let mut r = Reporter::new(&mut buf, true);
        r.record(&pass).unwrap();
        r.record(&fail).unwrap();
        r.finish().unwrap();
        let text = String::from_utf8(buf).unwrap();
        assert!(text.ends_with("1 passed, 1 failed\n"), "{text}");
        assert_eq!(text.lines().count(), 5);
    }
}
