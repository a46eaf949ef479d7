//! The twelve scenario kinds.

use std::fmt;
use std::str::FromStr;

/// A scenario kind (FORMAT.md "Kinds").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// Streaming block chunker.
    Chunker,
    /// Think/final tag filter.
    Tags,
    /// Error classification.
    Classify,
    /// Thinking-level fallback.
    Thinking,
    /// Context window guard.
    Guard,
    /// Transcript transforms.
    History,
    /// Tool result size control.
    Truncate,
    /// Auth profiles.
    Auth,
    /// JSONL session files.
    Session,
    /// Provider stream decoding.
    Wire,
    /// Agent event subscription.
    Subscribe,
    /// End to end runs.
    Run,
}

impl Kind {
    /// Every kind, in FORMAT.md order.
    pub const ALL: [Kind; 12] = [
        Kind::Chunker,
        Kind::Tags,
        Kind::Classify,
        Kind::Thinking,
        Kind::Guard,
        Kind::History,
        Kind::Truncate,
        Kind::Auth,
        Kind::Session,
        Kind::Wire,
        Kind::Subscribe,
        Kind::Run,
    ];

    /// The name used in scenario files.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Chunker => "chunker",
            Kind::Tags => "tags",
            Kind::Classify => "classify",
            Kind::Thinking => "thinking",
            Kind::Guard => "guard",
            Kind::History => "history",
            Kind::Truncate => "truncate",
            Kind::Auth => "auth",
            Kind::Session => "session",
            Kind::Wire => "wire",
            Kind::Subscribe => "subscribe",
            Kind::Run => "run",
        }
    }

    /// Kinds whose checks live in steps or turns: their top-level `expect` is omitted or `{}`.
    pub fn expect_lives_elsewhere(self) -> bool {
        matches!(self, Kind::Auth | Kind::Run)
    }

    /// All names joined for messages: `chunker, tags, …`.
    pub fn all_names() -> String {
        Kind::ALL.map(Kind::as_str).join(", ")
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The text is not a kind name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKind(pub String);

impl fmt::Display for UnknownKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown kind {:?}, expected one of {}",
            self.0,
            Kind::all_names()
        )
    }
}

impl FromStr for Kind {
    type Err = UnknownKind;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Kind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| UnknownKind(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for k in Kind::ALL {
            assert_eq!(k.as_str().parse::<Kind>().unwrap(), k);
        }
        assert!("Classify".parse::<Kind>().is_err());
    }
}
