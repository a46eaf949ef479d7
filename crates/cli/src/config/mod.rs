//! Where the clawloop home is and what the configuration says (SPEC §2, §10).
//!
//! The configuration is layered: built-in defaults < the config file (`<home>/config.toml`, or
//! the file `$CLAWLOOP_CONFIG` names) < environment keys ([`layers::ENV_KEYS`]) < `--config KEY=VALUE`
//! arguments. Unknown keys are warnings on stderr; a bad value is an error naming its layer, the
//! key and the problem.

pub mod command;
pub mod layers;
pub mod mask;
pub mod starter;
pub mod unknown;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};

use clawloop_runner::config::Config;
use serde_json::Value;

use crate::render::sanitize::for_stderr;
use layers::{Layer, Origin};

/// The environment variable that moves the clawloop home.
pub const HOME_ENV: &str = "CLAWLOOP_HOME";

/// The environment variable naming another config file instead of `<home>/config.toml`.
pub const CONFIG_ENV: &str = "CLAWLOOP_CONFIG";

/// The configuration file's name inside the home.
pub const CONFIG_FILE: &str = "config.toml";

/// Why the configuration could not be loaded. Each variant names where the problem is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadError {
    /// Neither `$CLAWLOOP_HOME` nor `$HOME` is set.
    NoHome,
    /// The file exists (or was named by `$CLAWLOOP_CONFIG`) but could not be read.
    Read {
        /// The file.
        path: PathBuf,
        /// The failure.
        message: String,
    },
    /// The file is not valid TOML.
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message, with line and column.
        message: String,
    },
    /// A `--config` argument or an environment key is not a key and a value.
    Layer {
        /// The argument or variable.
        origin: String,
        /// What is wrong with it.
        message: String,
    },
    /// A key has a value the configuration refuses.
    Invalid {
        /// The layer that set it: the file, an environment variable or a `--config` argument.
        origin: String,
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
            LoadError::Read { path, message } => {
                write!(f, "cannot read {}: {message}", path.display())
            }
            LoadError::Parse { path, message } => {
                write!(
                    f,
                    "{} is not valid TOML: {}",
                    path.display(),
                    message.trim_end()
                )
            }
            LoadError::Layer { origin, message } => write!(f, "{origin}: {message}"),
            LoadError::Invalid {
                origin,
                key,
                message,
            } if key.is_empty() || key == "." => write!(f, "{origin}: {message}"),
            LoadError::Invalid {
                origin,
                key,
                message,
            } => write!(f, "{origin}: key `{key}`: {message}"),
        }
    }
}

impl std::error::Error for LoadError {}

/// The configuration as loaded, with what it was made of.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// The effective configuration (defaults filled in).
    pub config: Config,
    /// The config file (which need not exist).
    pub file: PathBuf,
    /// One warning per unknown key, ready to print.
    pub warnings: Vec<String>,
}

/// The `--config KEY=VALUE` arguments of this process, set once by `main`.
static OVERRIDES: OnceLock<Vec<String>> = OnceLock::new();

/// Records the `--config KEY=VALUE` arguments every later [`load_config`] applies.
pub fn set_overrides(overrides: Vec<String>) {
    // Set once from `main`; a second call would be a bug, and the first value stays.
    let _ = OVERRIDES.set(overrides);
}

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

/// The config file: `$CLAWLOOP_CONFIG`, else `<home>/config.toml`.
pub fn config_path(home: &Path) -> PathBuf {
    match std::env::var_os(CONFIG_ENV).filter(|value| !value.is_empty()) {
        Some(path) => PathBuf::from(path),
        None => home.join(CONFIG_FILE),
    }
}

/// Loads the configuration of `home` with this process's environment and `--config` arguments,
/// printing a warning on stderr for each unknown key. Loaded once per home and process: later
/// calls return the same result without warning again.
pub fn load_config(home: &Path) -> Result<Config, LoadError> {
    load_cached(home).map(|loaded| loaded.config)
}

/// [`load_config`] with the file and warnings.
pub fn load_cached(home: &Path) -> Result<Loaded, LoadError> {
    static CACHE: Mutex<Vec<(PathBuf, Result<Loaded, LoadError>)>> = Mutex::new(Vec::new());
    let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, result)) = cache.iter().find(|(cached, _)| cached == home) {
        return result.clone();
    }
    let explicit = std::env::var_os(CONFIG_ENV).is_some_and(|value| !value.is_empty());
    let inputs = Inputs {
        file: config_path(home),
        file_must_exist: explicit,
        env: &|name| std::env::var(name).ok(),
        overrides: OVERRIDES.get().map(Vec::as_slice).unwrap_or_default(),
    };
    let result = load(&inputs);
    if let Ok(loaded) = &result {
        for warning in &loaded.warnings {
            eprintln!("clawloop: warning: {}", for_stderr(&warning.to_string()));
        }
    }
    cache.push((home.to_path_buf(), result.clone()));
    result
}

/// What a load reads, so tests can give it without touching the process.
pub struct Inputs<'a> {
    /// The config file.
    pub file: PathBuf,
    /// Whether a missing file is an error (it was named explicitly).
    pub file_must_exist: bool,
    /// The environment.
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// The `--config KEY=VALUE` arguments, in order.
    pub overrides: &'a [String],
}

/// Loads the configuration from its layers.
pub fn load(inputs: &Inputs<'_>) -> Result<Loaded, LoadError> {
    let layer_error = |(origin, message): (Origin, String)| LoadError::Layer {
        origin: origin.to_string(),
        message,
    };
    let mut layers = Vec::new();
    if let Some(value) = read_file(&inputs.file, inputs.file_must_exist)? {
        layers.push(Layer {
            origin: Origin::File(inputs.file.clone()),
            value,
        });
    }
    layers.extend(layers::env_layers(inputs.env).map_err(layer_error)?);
    for arg in inputs.overrides {
        layers.push(layers::override_layer(arg).map_err(layer_error)?);
    }

    // The compiled-in table, not the schema: generating the schema costs a quarter of a
    // one-shot turn's instructions.
    let tree = clawloop_runner::config::known_keys::known_key_tree();
    let mut warnings = Vec::new();
    for layer in &layers {
        for unknown in unknown::unknown_keys(&tree, &layer.value) {
            let hint = match &unknown.suggestion {
                Some(known) => format!("; did you mean `{known}`?"),
                None => String::new(),
            };
            warnings.push(format!(
                "{}: unknown key `{}`{hint}",
                layer.origin, unknown.key
            ));
        }
    }

    let (merged, provenance) = layers::merge(&layers);
    let origin_of = |key: &str| {
        layers::origin_of(key, &provenance)
            .and_then(|index| layers.get(index))
            .map(|layer| layer.origin.to_string())
            .unwrap_or_else(|| inputs.file.display().to_string())
    };
    let config = Config::from_value(merged).map_err(|err| LoadError::Invalid {
        origin: origin_of(&err.path),
        key: err.path,
        message: err.message,
    })?;
    check_log_level(&config.logging.level).map_err(|message| LoadError::Invalid {
        origin: origin_of("logging.level"),
        key: "logging.level".to_owned(),
        message,
    })?;
    Ok(Loaded {
        config,
        file: inputs.file.clone(),
        warnings,
    })
}

/// Checks a `logging.level` value: a level, or comma-separated `target=level` directives and at
/// most one bare level. (tracing would read a bare word like `chatty` as a target name, so
/// a typo of a level would silently log nothing.)
pub fn check_log_level(level: &str) -> Result<(), String> {
    const LEVELS: [&str; 6] = ["trace", "debug", "info", "warn", "error", "off"];
    let is_level = |word: &str| LEVELS.iter().any(|l| l.eq_ignore_ascii_case(word.trim()));
    let expected = "expected trace, debug, info, warn, error or off, or target=level directives \
                    such as `info,clawloop_runner=debug`";
    for directive in level.split(',') {
        let ok = match directive.split_once('=') {
            Some((target, level)) => !target.trim().is_empty() && is_level(level),
            None => is_level(directive),
        };
        if !ok {
            return Err(format!(
                "`{}` is not a log level: {expected}",
                directive.trim()
            ));
        }
    }
    level
        .parse::<tracing_subscriber::filter::Targets>()
        .map(|_| ())
        .map_err(|err| format!("{err}: {expected}"))
}

/// The file's keys as a JSON-shaped table; `None` when it does not exist and need not.
fn read_file(path: &Path, must_exist: bool) -> Result<Option<Value>, LoadError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound && !must_exist => {
            return Ok(None);
        }
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Err(LoadError::Read {
                path: path.to_path_buf(),
                message: format!("no such file (named by {CONFIG_ENV})"),
            });
        }
        Err(err) => {
            return Err(LoadError::Read {
                path: path.to_path_buf(),
                message: err.to_string(),
            });
        }
    };
    let value: Value = toml::from_str(&text).map_err(|err| LoadError::Parse {
        path: path.to_path_buf(),
        message: err.to_string(),
    })?;
    Ok(Some(value))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn log_levels_are_levels_or_directives() {
        for good in ["info", "DEBUG", "off", "warn,clawloop_runner=trace"] {
            assert_eq!(check_log_level(good), Ok(()), "{good}");
        }
        for bad in ["chatty", "", "info,", "x=loud", "=debug"] {
            assert!(check_log_level(bad).is_err(), "{bad}");
        }
    }

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

    fn load_from(
        file: &Path,
        env: &[(&str, &str)],
        overrides: &[&str],
    ) -> Result<Loaded, LoadError> {
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let lookup = move |name: &str| env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        let overrides: Vec<String> = overrides.iter().map(|s| (*s).to_owned()).collect();
        load(&Inputs {
            file: file.to_path_buf(),
            file_must_exist: false,
            env: &lookup,
            overrides: &overrides,
        })
    }

    #[test]
    fn missing_file_is_the_defaults_and_bad_values_name_file_and_key() -> Result<(), String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let file = dir.path().join(CONFIG_FILE);
        let loaded = load_from(&file, &[], &[]).map_err(|e| e.to_string())?;
        assert_eq!(loaded.config, Config::default());

        std::fs::write(&file, "[agents.defaults]\nmaxConcurrent = \"many\"\n")
            .map_err(|e| e.to_string())?;
        let err = match load_from(&file, &[], &[]) {
            Ok(_) => return Err("a string maxConcurrent was accepted".to_owned()),
            Err(err) => err.to_string(),
        };
        assert!(
            err.starts_with(&format!(
                "{}: key `agents.defaults.maxConcurrent`: ",
                file.display()
            )),
            "{err}"
        );
        // A layer above the file that fixes the key wins, and the error is gone.
        let fixed = load_from(&file, &[], &["agents.defaults.maxConcurrent=2"])
            .map_err(|e| e.to_string())?;
        assert_eq!(fixed.config.defaults().max_concurrent, 2);

        std::fs::write(&file, "[agents\n").map_err(|e| e.to_string())?;
        let err = match load_from(&file, &[], &[]) {
            Ok(_) => return Err("broken TOML was accepted".to_owned()),
            Err(err) => err.to_string(),
        };
        assert!(
            err.starts_with(&format!("{} is not valid TOML: ", file.display())),
            "{err}"
        );
        Ok(())
    }

    #[test]
    fn layers_apply_in_order_and_errors_name_their_layer() -> Result<(), String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let file = dir.path().join(CONFIG_FILE);
        std::fs::write(
            &file,
            "[agents.defaults]\ntimeoutSeconds = 5\nthinkingDefault = \"low\"\n",
        )
        .map_err(|e| e.to_string())?;
        let loaded = load_from(
            &file,
            &[
                ("CLAWLOOP_TIMEOUT", "7"),
                ("CLAWLOOP_MODEL", "openai/gpt-5-mini"),
            ],
            &["agents.defaults.timeoutSeconds=9"],
        )
        .map_err(|e| e.to_string())?;
        let d = loaded.config.defaults();
        assert_eq!(
            (
                d.timeout_seconds,
                d.thinking_default,
                d.model.primary.as_deref()
            ),
            (
                9.0,
                clawloop_core::ThinkLevel::Low,
                Some("openai/gpt-5-mini")
            )
        );

        let env_err = load_from(&file, &[("CLAWLOOP_TIMEOUT", "soon")], &[]).err();
        assert_eq!(
            env_err.map(|e| e.to_string()),
            Some(
                "environment variable CLAWLOOP_TIMEOUT: key `agents.defaults.timeoutSeconds`: \
                 invalid type: string \"soon\", expected f64"
                    .to_owned()
            )
        );
        let arg_err = load_from(&file, &[], &["agents.defaults.thinkingDefault=loud"]).err();
        assert!(
            matches!(&arg_err, Some(LoadError::Invalid { origin, key, .. })
                if origin == "--config `agents.defaults.thinkingDefault=loud`"
                    && key == "agents.defaults.thinkingDefault"),
            "{arg_err:?}"
        );
        let syntax = load_from(&file, &[], &["timeout"]).err();
        assert_eq!(
            syntax.map(|e| e.to_string()),
            Some(
                "--config `timeout`: expected KEY=VALUE, e.g. --config agents.defaults.timeoutSeconds=30"
                    .to_owned()
            )
        );
        Ok(())
    }
}
