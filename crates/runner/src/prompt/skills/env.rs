//! The skills' environment overlay: the variables their `env` maps ask for, as a map the runner
//! puts into [`ToolContext::env`](clawloop_core::ToolContext) so child processes get them. The
//! process environment is never changed (SPEC §1); OpenClaw sets `process.env` and restores it.
//!
//! OpenClaw's rules (`skills/env-overrides.ts`): an empty value is ignored; a variable the
//! inherited environment already sets is left alone (the user's own value wins); the first skill
//! in name order to ask for a variable gets it; variables that change how programs load code or
//! run shells are refused (`isDangerousHostEnvVarName`, `OPENSSL_CONF`), and so are the overrides
//! OpenClaw blocks for exec (`PATH`, `HOME`, `SHELL`, …): a skill file in a cloned repository must
//! not be able to hijack every command the agent runs.

use std::collections::BTreeMap;

use super::Skill;

/// Variables a skill may never set, compared case-insensitively.
const BLOCKED_KEYS: [&str; 19] = [
    "NODE_OPTIONS",
    "NODE_PATH",
    "PYTHONHOME",
    "PYTHONPATH",
    "PERL5LIB",
    "PERL5OPT",
    "RUBYLIB",
    "RUBYOPT",
    "BASH_ENV",
    "ENV",
    "GCONV_PATH",
    "IFS",
    "SSLKEYLOGFILE",
    "OPENSSL_CONF",
    "PATH",
    "HOME",
    "SHELL",
    "PROMPT_COMMAND",
    "PS4",
];
/// Prefixes of variables a skill may never set (dynamic loaders, exported bash functions).
const BLOCKED_PREFIXES: [&str; 3] = ["LD_", "DYLD_", "BASH_FUNC_"];

/// The overlay and what was left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkillEnvOverlay {
    /// The variables to set for tool calls.
    pub vars: BTreeMap<String, String>,
    /// One line per variable refused or shadowed, naming the skill.
    pub warnings: Vec<String>,
}

/// Builds the overlay from the skills' `env` maps. `inherited` answers whether the environment
/// the tools inherit already sets a variable (non-empty); pass `|k| std::env::var_os(k)
/// .is_some_and(|v| !v.is_empty())` for the process's own environment, or a fixed answer in tests.
pub fn skill_env_overlay(skills: &[Skill], inherited: &dyn Fn(&str) -> bool) -> SkillEnvOverlay {
    let mut overlay = SkillEnvOverlay::default();
    let mut owner: BTreeMap<&str, &str> = BTreeMap::new();
    let mut ordered: Vec<&Skill> = skills.iter().collect();
    ordered.sort_by(|a, b| a.name.cmp(&b.name));
    for skill in ordered {
        for (key, value) in &skill.env {
            if value.is_empty() || inherited(key) {
                continue;
            }
            if is_blocked(key) {
                overlay.warnings.push(format!(
                    "skill {}: env {key} is not allowed (it changes how programs load or shells run)",
                    skill.name
                ));
                continue;
            }
            if let Some(first) = owner.get(key.as_str()) {
                if overlay.vars.get(key) != Some(value) {
                    overlay.warnings.push(format!(
                        "skill {}: env {key} already set by skill {first}; keeping that value",
                        skill.name
                    ));
                }
                continue;
            }
            owner.insert(key, &skill.name);
            overlay.vars.insert(key.clone(), value.clone());
        }
    }
    overlay
}

fn is_blocked(key: &str) -> bool {
    let upper = key.to_ascii_uppercase();
    BLOCKED_KEYS.contains(&upper.as_str()) || BLOCKED_PREFIXES.iter().any(|p| upper.starts_with(p))
}
