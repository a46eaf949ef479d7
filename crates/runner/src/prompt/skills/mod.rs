//! Skills (SPEC §8.8): `SKILL.md` files under `<workspace>/skills/*/` and `<home>/skills/*/`,
//! their frontmatter, the `<available_skills>` block for the system prompt, and the environment
//! overlay their `env` maps add to tool calls.
//!
//! A skill is a directory holding a `SKILL.md` whose frontmatter has a `description` (required,
//! as pi and OpenClaw require it), an optional `name` (default: the directory's name), an
//! optional `env` map and anything else (kept in [`Skill::frontmatter`]). The workspace's skill
//! wins over the home's of the same name (OpenClaw's precedence: workspace last). A bad file is a
//! warning naming it and the skill is skipped; nothing here fails the run.

mod discover;
pub mod env;
pub mod frontmatter;
pub mod prompt;

use std::collections::BTreeMap;
use std::path::PathBuf;

pub use discover::{MAX_SKILL_FILE_BYTES, SkillRoots, load_skills};
pub use env::{SkillEnvOverlay, skill_env_overlay};
pub use frontmatter::{Frontmatter, FrontmatterError, FrontmatterValue, parse_frontmatter};
pub use prompt::{SkillsPrompt, SkillsPromptLimits, format_skills_prompt};

/// Where a skill was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SkillSource {
    /// `<home>/skills/` (OpenClaw's managed skills, `~/.openclaw/skills`).
    Home,
    /// `<workspace>/skills/`.
    Workspace,
}

/// One loaded skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// The skill's name: frontmatter `name`, else its directory's name.
    pub name: String,
    /// Frontmatter `description`: what the model reads to decide whether the skill applies.
    pub description: String,
    /// The `SKILL.md` path (the model reads it with the `read` tool).
    pub file_path: PathBuf,
    /// The skill's directory; relative paths inside the skill resolve against it.
    pub base_dir: PathBuf,
    /// Which root it came from.
    pub source: SkillSource,
    /// Frontmatter `env`: variables this skill wants set for tool calls.
    pub env: BTreeMap<String, String>,
    /// Frontmatter `disable-model-invocation: true`: loaded (and its env applied) but left out
    /// of the prompt's list.
    pub disable_model_invocation: bool,
    /// Every frontmatter key, including the ones above.
    pub frontmatter: Frontmatter,
}

/// What [`load_skills`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadedSkills {
    /// The skills, sorted by name, one per name.
    pub skills: Vec<Skill>,
    /// One line per skill skipped or file refused, naming the file and the reason.
    pub warnings: Vec<String>,
}
