//! Finding and reading `SKILL.md` files (the loader's I/O) and turning frontmatter into a
//! [`Skill`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::frontmatter::{Frontmatter, FrontmatterValue, parse_flow_map, parse_frontmatter};
use super::{LoadedSkills, Skill, SkillSource};
use crate::prompt::confined_read::{NotRead, read_confined};

/// OpenClaw's `DEFAULT_MAX_SKILL_FILE_BYTES`: a larger `SKILL.md` is skipped unread.
pub const MAX_SKILL_FILE_BYTES: u64 = 256_000;
/// OpenClaw's `DEFAULT_MAX_CANDIDATES_PER_ROOT`: directories looked at per `skills/` root.
const MAX_CANDIDATES_PER_ROOT: usize = 300;

/// The two places skills are looked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillRoots {
    /// The workspace; its `skills/` directory wins on a name clash.
    pub workspace_dir: PathBuf,
    /// The clawloop home (`$CLAWLOOP_HOME`, default `~/.clawloop`), if known.
    pub home_dir: Option<PathBuf>,
}

/// Loads `<home>/skills/*/SKILL.md` then `<workspace>/skills/*/SKILL.md`; a workspace skill
/// replaces a home skill of the same name. Directories are visited in name order, hidden ones and
/// `node_modules` skipped. A workspace skill directory or `SKILL.md` that is a link leading out of
/// the workspace's `skills/` directory is refused (a cloned repository must not point the model
/// at files elsewhere); the home is the user's own and may link where it likes.
pub fn load_skills(roots: &SkillRoots) -> LoadedSkills {
    let mut warnings = Vec::new();
    let mut by_name: BTreeMap<String, Skill> = BTreeMap::new();
    let mut sources = Vec::new();
    if let Some(home) = &roots.home_dir {
        sources.push((home.join("skills"), SkillSource::Home));
    }
    sources.push((roots.workspace_dir.join("skills"), SkillSource::Workspace));
    for (dir, source) in sources {
        for skill in load_root(&dir, source, &mut warnings) {
            by_name.insert(skill.name.clone(), skill);
        }
    }
    let mut skills: Vec<Skill> = by_name.into_values().collect();
    // OpenClaw sorts with `localeCompare(…, "en")`; case-folded order with the exact name as
    // tie-break is that order for the ASCII names skills use.
    skills.sort_by(|a, b| {
        a.name
            .to_lowercase()
            .cmp(&b.name.to_lowercase())
            .then_with(|| a.name.cmp(&b.name))
    });
    LoadedSkills { skills, warnings }
}

fn load_root(dir: &Path, source: SkillSource, warnings: &mut Vec<String>) -> Vec<Skill> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Vec::new(),
        Err(err) => {
            warnings.push(format!("skills: cannot list {}: {err}", dir.display()));
            return Vec::new();
        }
    };
    let root = match std::fs::canonicalize(dir) {
        Ok(root) => root,
        Err(err) => {
            warnings.push(format!("skills: cannot resolve {}: {err}", dir.display()));
            return Vec::new();
        }
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| !name.starts_with('.') && name != "node_modules")
        .collect();
    names.sort();
    if names.len() > MAX_CANDIDATES_PER_ROOT {
        warnings.push(format!(
            "skills: {} has {} entries; only the first {MAX_CANDIDATES_PER_ROOT} are looked at",
            dir.display(),
            names.len()
        ));
        names.truncate(MAX_CANDIDATES_PER_ROOT);
    }
    let containment = match source {
        SkillSource::Workspace => Some(root.as_path()),
        SkillSource::Home => None,
    };
    let mut skills = Vec::new();
    for name in names {
        let base_dir = dir.join(&name);
        if !base_dir.is_dir() {
            continue;
        }
        let file_path = base_dir.join("SKILL.md");
        let text = match read_confined(&file_path, containment, MAX_SKILL_FILE_BYTES) {
            Ok(file) => file.text,
            Err(NotRead::Missing) => continue,
            Err(NotRead::Refused(why) | NotRead::Failed(why)) => {
                warnings.push(format!("skill {} skipped: {why}", file_path.display()));
                continue;
            }
        };
        match skill_from_text(&text, &name, file_path.clone(), base_dir, source) {
            Ok(skill) => skills.push(skill),
            Err(why) => warnings.push(format!("skill {} skipped: {why}", file_path.display())),
        }
    }
    skills
}

/// Builds a skill from its `SKILL.md` text; the error says what is wrong (the caller names the
/// file).
pub(crate) fn skill_from_text(
    text: &str,
    dir_name: &str,
    file_path: PathBuf,
    base_dir: PathBuf,
    source: SkillSource,
) -> Result<Skill, String> {
    let frontmatter = parse_frontmatter(text)
        .map_err(|err| err.to_string())?
        .unwrap_or_default();
    let description = frontmatter
        .text("description")?
        .filter(|d| !d.is_empty())
        .ok_or_else(|| "description is required in the frontmatter".to_owned())?
        .to_owned();
    let name = match frontmatter.text("name")? {
        Some(name) if !name.is_empty() => name.to_owned(),
        _ => dir_name.to_owned(),
    };
    if name.chars().any(char::is_control) {
        return Err(format!("name {name:?} contains control characters"));
    }
    let env = skill_env(&frontmatter)?;
    let disable_model_invocation = match frontmatter.text("disable-model-invocation")? {
        None | Some("" | "false") => false,
        Some("true") => true,
        Some(other) => {
            return Err(format!(
                "`disable-model-invocation` must be true or false, not {other:?}"
            ));
        }
    };
    Ok(Skill {
        name,
        description,
        file_path,
        base_dir,
        source,
        env,
        disable_model_invocation,
        frontmatter,
    })
}

fn skill_env(frontmatter: &Frontmatter) -> Result<BTreeMap<String, String>, String> {
    let env = match frontmatter.fields.get("env") {
        None => return Ok(BTreeMap::new()),
        Some(FrontmatterValue::Text(text)) if text.is_empty() => return Ok(BTreeMap::new()),
        Some(FrontmatterValue::Map(map)) => map.clone(),
        Some(FrontmatterValue::Raw(raw)) if raw.starts_with('{') => {
            parse_flow_map(raw).map_err(|why| format!("`env`: {why}"))?
        }
        Some(_) => return Err("`env` must be a mapping of NAME: value lines".to_owned()),
    };
    for (key, value) in &env {
        if !is_env_name(key) {
            return Err(format!(
                "`env` key {key:?} is not a variable name (letters, digits, `_`; not starting with a digit)"
            ));
        }
        if value.contains('\0') {
            return Err(format!("`env` value of {key} contains a NUL byte"));
        }
    }
    Ok(env)
}

/// OpenClaw's `PORTABLE_ENV_VAR_KEY`: `^[A-Za-z_][A-Za-z0-9_]*$`.
fn is_env_name(key: &str) -> bool {
    let mut bytes = key.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}
