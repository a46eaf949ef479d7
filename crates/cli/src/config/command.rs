//! `clawloop config path|show|init`.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use serde_json::{Map, Value};

use super::mask::masked;
use super::starter::starter_toml;
use super::{config_path, home_dir, load_cached};
use crate::failure::Failure;
use crate::render::sanitize::for_stdout;

/// Arguments of `clawloop config`.
#[derive(Debug, Args)]
pub struct ConfigArgs {
    #[command(subcommand)]
    command: ConfigCommand,
}

#[derive(Debug, Subcommand)]
enum ConfigCommand {
    /// Print the config file's path (`$CLAWLOOP_CONFIG`, else `<home>/config.toml`).
    Path,
    /// Print the effective configuration (defaults, file, environment, `--config`), secrets masked.
    Show {
        /// Print JSON instead of TOML.
        #[arg(long)]
        json: bool,
    },
    /// Write a commented starter config file with every default.
    ///
    /// The file is 0600, in a 0700 home; an existing file is kept (exit 1) unless `--force`.
    Init {
        /// Overwrite an existing file.
        #[arg(long)]
        force: bool,
    },
}

/// Runs `clawloop config …`.
pub fn main(args: ConfigArgs) -> ExitCode {
    let result = match args.command {
        ConfigCommand::Path => path(),
        ConfigCommand::Show { json } => show(json),
        ConfigCommand::Init { force } => init(force),
    };
    crate::failure::finish(result)
}

type Outcome = Result<(), Failure>;

fn usage(err: impl ToString) -> Failure {
    Failure::usage(err.to_string())
}

fn path() -> Outcome {
    let home = home_dir().map_err(usage)?;
    println!("{}", for_stdout(&config_path(&home).display().to_string()));
    Ok(())
}

fn show(json: bool) -> Outcome {
    let home = home_dir().map_err(usage)?;
    let loaded = load_cached(&home).map_err(usage)?;
    let value = serde_json::to_value(&loaded.config)
        .map_err(|err| Failure::failed(format!("cannot show the configuration: {err}")))?;
    let value = without_nulls(masked(&value));
    let text = if json {
        serde_json::to_string_pretty(&value)
            .map(|text| text + "\n")
            .map_err(|e| e.to_string())
    } else {
        toml::to_string(&value).map_err(|e| e.to_string())
    }
    .map_err(|err| Failure::failed(format!("cannot show the configuration: {err}")))?;
    // Values are the user's, but a config can come from anywhere.
    print!("{}", for_stdout(&text));
    Ok(())
}

/// TOML has no null: an unset key is left out.
fn without_nulls(value: Value) -> Value {
    match value {
        Value::Object(table) => Value::Object(
            table
                .into_iter()
                .filter(|(_, value)| !value.is_null())
                .map(|(key, value)| (key, without_nulls(value)))
                .collect::<Map<String, Value>>(),
        ),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .filter(|value| !value.is_null())
                .map(without_nulls)
                .collect(),
        ),
        other => other,
    }
}

fn init(force: bool) -> Outcome {
    let home = home_dir().map_err(usage)?;
    let file = config_path(&home);
    if !force && file.exists() {
        return Err(Failure::failed(format!(
            "{} already exists; pass --force to overwrite it",
            file.display()
        )));
    }
    create_private_dir(&home)
        .map_err(|err| Failure::failed(format!("cannot create {}: {err}", home.display())))?;
    if let Some(parent) = file.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .map_err(|err| Failure::failed(format!("cannot create {}: {err}", parent.display())))?;
    }
    write_private(&file, &starter_toml())
        .map_err(|err| Failure::failed(format!("cannot write {}: {err}", file.display())))?;
    println!("{}", file.display());
    Ok(())
}

/// Creates the home readable by its owner only (it holds sessions and credentials).
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)
}

/// Writes the file readable by its owner only: it may come to hold API keys.
fn write_private(file: &Path, text: &str) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut handle = options.open(file)?;
    handle.write_all(text.as_bytes())?;
    handle.sync_all()
}
