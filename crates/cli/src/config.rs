//! Where the clawloop home is and what its `config.toml` says (SPEC §2, §10).

use std::fmt;
use std::path::{Path, PathBuf};

use clawloop_runner::config::Config;
use serde_json::Value;

/// The environment variable that moves the clawloop home.
pub const HOME_ENV: &str = "CLAWLOOP_HOME";

/// The configuration file's name inside the home.
pub const CONFIG_FILE: &str = "config.toml";

/// Why the configuration could not be loaded. Each variant names the file.
#[derive(Debug)]
pub enum LoadError {
    /// Neither `$CLAWLOOP_HOME` nor `$HOME` is set.
    NoHome,
    /// The file exists but could not be read.
    Read {
        /// The file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
    /// The file is not valid TOML.
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message, with line and column.
        message: String,
    },
    /// The file is TOML, but a key has a value the configuration refuses.
    Invalid {
        /// The file.
        path: PathBuf,
        /// The dotted key, e.g. `agents.defaults.maxConcurrent`.
        key: String,
        /// What is wrong with it.
        message: String,
    },
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::NoHome => write!(f, "cannot find the clawloop home: set {HOME_ENV} or HOME"),
            LoadError::Read { path, source } => {
                write!(f, "cannot read {}: {source}", path.display())
            }
            LoadError::Parse { path, message } => {
                write!(
                    f,
                    "{} is not valid TOML: {}",
                    path.display(),
                    message.trim_end()
                )
            }
            LoadError::Invalid { path, key, message } if key.is_empty() || key == "." => {
                write!(f, "{}: {message}", path.display())
            }
            LoadError::Invalid { path, key, message } => {
                write!(f, "{}: key `{key}`: {message}", path.display())
            }
        }
    }
}

impl std::error::Error for LoadError {}

/// The clawloop home: `$CLAWLOOP_HOME`, else `~/.clawloop`.
pub fn home_dir() -> Result<PathBuf, LoadError> {
    home_from(|name| std::env::var_os(name))
}

fn home_from(lookup: impl Fn(&str) -> Option<std::ffi::OsString>) -> Result<PathBuf, LoadError> {
    if let Some(home) = lookup(HOME_ENV).filter(|value| !value.is_empty()) {
        return Ok(PathBuf::from(home));
    }
    match lookup("HOME").filter(|value| !value.is_empty()) {
        Some(user_home) => Ok(PathBuf::from(user_home).join(".clawloop")),
        None => Err(LoadError::NoHome),
    }
}

/// Loads `<home>/config.toml`; a missing file means the defaults.
pub fn load_config(home: &Path) -> Result<Config, LoadError> {
    let path = home.join(CONFIG_FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return config_from_value(&path, Value::Object(serde_json::Map::new()));
        }
        Err(source) => return Err(LoadError::Read { path, source }),
    };
    let value: Value = toml::from_str(&text).map_err(|err| LoadError::Parse {
        path: path.clone(),
        message: err.to_string(),
    })?;
    config_from_value(&path, value)
}

fn config_from_value(path: &Path, value: Value) -> Result<Config, LoadError> {
    Config::from_value(value).map_err(|err| LoadError::Invalid {
        path: path.to_path_buf(),
        key: err.path,
        message: err.message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn clawloop_home_wins_over_home() {
        let home = home_from(|name| match name {
            HOME_ENV => Some("/srv/claw".into()),
            "HOME" => Some("/home/u".into()),
            _ => None,
        });
        assert_eq!(home.ok(), Some(PathBuf::from("/srv/claw")));
        let fallback = home_from(|name| (name == "HOME").then(|| "/home/u".into()));
        assert_eq!(fallback.ok(), Some(PathBuf::from("/home/u/.clawloop")));
        assert!(matches!(home_from(|_| None), Err(LoadError::NoHome)));
    }

    #[test]
    fn missing_file_is_the_defaults_and_bad_values_name_file_and_key() -> Result<(), String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let config = load_config(dir.path()).map_err(|e| e.to_string())?;
        assert_eq!(
            config.defaults().max_concurrent,
            Config::default().defaults().max_concurrent
        );

        std::fs::write(
            dir.path().join(CONFIG_FILE),
            "[agents.defaults]\nmaxConcurrent = \"many\"\n",
        )
        .map_err(|e| e.to_string())?;
        let err = match load_config(dir.path()) {
            Ok(_) => return Err("a string maxConcurrent was accepted".to_owned()),
            Err(err) => err.to_string(),
        };
        let file = dir.path().join(CONFIG_FILE);
        assert!(
            err.starts_with(&format!(
                "{}: key `agents.defaults.maxConcurrent`: ",
                file.display()
            )),
            "{err}"
        );

        std::fs::write(&file, "[agents\n").map_err(|e| e.to_string())?;
        let err = match load_config(dir.path()) {
            Ok(_) => return Err("broken TOML was accepted".to_owned()),
            Err(err) => err.to_string(),
        };
        assert!(
            err.starts_with(&format!("{} is not valid TOML: ", file.display())),
            "{err}"
        );
        Ok(())
    }
}
