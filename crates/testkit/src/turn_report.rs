//! What happened during one scripted turn, and what of it fails a scenario.

use super::ProviderRequest;

/// The requests of a turn and the scripted responses it left unused.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnReport {
    /// The requests that arrived during the turn, in arrival order.
    pub requests: Vec<ProviderRequest>,
    /// Indices of required responses that no request took.
    pub unused: Vec<usize>,
    /// Indices of optional responses that no request took (not a problem).
    pub unused_optional: Vec<usize>,
}

impl TurnReport {
    /// Every problem, in order (FORMAT.md `run`): requests with no scripted response left,
    /// requests whose response's `expectRequest` failed, replies that could not be played, and
    /// required responses left unused. Empty when the turn went as scripted.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for (i, request) in self.requests.iter().enumerate() {
            let label = request.label();
            match request.response {
                None => problems.push(format!(
                    "request {} ({label}): unscripted request (no scripted response left)",
                    i + 1
                )),
                Some(index) => {
                    if let Some(mismatch) = &request.mismatch {
                        problems.push(format!(
                            "request {} ({label}) took responses[{index}]: {mismatch}",
                            i + 1
                        ));
                    }
                    if let Some(problem) = &request.problem {
                        problems.push(format!(
                            "request {} ({label}) took responses[{index}]: {problem}",
                            i + 1
                        ));
                    }
                }
            }
        }
        for index in &self.unused {
            problems.push(format!("responses[{index}] was never requested"));
        }
        problems
    }

    /// Whether the turn went exactly as scripted.
    pub fn is_clean(&self) -> bool {
        self.problems().is_empty()
    }
}
