//! Which tools a run may offer: an allow list and a deny list of names.
//!
//! Names compare case-insensitively and patterns may use `*` for any run of characters
//! (`"*"`, `"mcp_*"`). Deny wins over allow; no allow list means "everything not denied";
//! an empty allow list allows nothing.

/// An allow/deny policy over tool names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolPolicy {
    /// If set, only names matching one of these patterns are allowed.
    pub allow: Option<Vec<String>>,
    /// Names matching one of these patterns are refused, whatever `allow` says.
    pub deny: Vec<String>,
}

impl ToolPolicy {
    /// A policy that allows every tool.
    pub fn allow_all() -> Self {
        ToolPolicy::default()
    }

    /// A policy that allows only `names` (patterns).
    pub fn allow_only<I, S>(names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        ToolPolicy {
            allow: Some(names.into_iter().map(Into::into).collect()),
            deny: Vec::new(),
        }
    }

    /// This policy with `names` (patterns) denied as well.
    #[must_use]
    pub fn deny<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.deny.extend(names.into_iter().map(Into::into));
        self
    }

    /// Whether the tool `name` may be offered and called.
    pub fn allows(&self, name: &str) -> bool {
        if self.deny.iter().any(|pattern| matches(pattern, name)) {
            return false;
        }
        match &self.allow {
            Some(allow) => allow.iter().any(|pattern| matches(pattern, name)),
            None => true,
        }
    }
}

/// Case-insensitive match of `name` against `pattern`, where `*` matches any run of characters.
pub fn matches(pattern: &str, name: &str) -> bool {
    let pattern: Vec<char> = pattern.trim().to_lowercase().chars().collect();
    let name: Vec<char> = name.to_lowercase().chars().collect();
    wildcard(&pattern, &name)
}

/// Iterative wildcard match with backtracking to the last `*` (linear in practice, no
/// recursion depth to exhaust).
fn wildcard(pattern: &[char], name: &[char]) -> bool {
    let (mut p, mut n) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        if p < pattern.len() && pattern[p] == '*' {
            star = Some((p, n));
            p += 1;
        } else if p < pattern.len() && pattern[p] == name[n] {
            p += 1;
            n += 1;
        } else if let Some((star_p, star_n)) = star {
            p = star_p + 1;
            n = star_n + 1;
            star = Some((star_p, star_n + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_case_insensitively_with_stars() {
        assert!(matches("read", "READ"));
        assert!(matches("*", "anything"));
        assert!(matches("mcp_*", "mcp_fs_read"));
        assert!(matches("*_read", "mcp_fs_read"));
        assert!(matches("a*b*c", "aXXbYYc"));
        assert!(!matches("a*b*c", "aXXbYY"));
        assert!(!matches("read", "readx"));
        assert!(matches("", ""));
    }

    #[test]
    fn deny_wins_and_allow_lists_restrict() {
        let all = ToolPolicy::allow_all();
        assert!(all.allows("bash"));
        let no_bash = ToolPolicy::allow_all().deny(["bash"]);
        assert!(!no_bash.allows("Bash"));
        assert!(no_bash.allows("read"));
        let read_only = ToolPolicy::allow_only(["read", "grep", "find", "ls"]);
        assert!(read_only.allows("grep"));
        assert!(!read_only.allows("write"));
        let nothing = ToolPolicy::allow_only(Vec::<String>::new());
        assert!(!nothing.allows("read"));
        let both = ToolPolicy::allow_only(["*"]).deny(["write", "edit"]);
        assert!(!both.allows("edit"));
        assert!(both.allows("read"));
    }
}
