//! What every command that runs turns sets up the same way: the home, its configuration, the
//! workspace, and the runner's turn environment with the tool choice of the command line.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clawloop_core::approval::{ApprovalPolicy, ToolApproval};
use clawloop_core::sandbox::{SandboxMode, ToolSandbox};
use clawloop_sandbox::LinuxSandbox;

use clawloop_runner::config::Config;
use clawloop_runner::prompt::PromptProfile;
use clawloop_runner::turn::TurnEnv;

use crate::approval::{ApprovalArgs, TerminalApprover};
use crate::config::{home_dir, load_config};

/// Which built-in tools the model is offered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ToolChoice {
    /// The configured policy (`agents.defaults.tools`).
    #[default]
    Configured,
    /// Only these (`--tools a,b`): they replace `agents.defaults.tools.allow`, so the runner's
    /// tool policy (with the configured `deny`) applies them.
    Only(Vec<String>),
    /// None at all (`--no-tools`).
    None,
}

/// The home, the configuration and the turn environment of one command.
#[derive(Debug)]
pub struct Setup {
    /// The clawloop home.
    pub home: PathBuf,
    /// The environment turns run in.
    pub env: TurnEnv,
    /// Who approves bash commands, when the policy asks: the renderer attaches its terminal.
    pub approver: Option<Arc<TerminalApprover>>,
}

/// Loads the configuration of the home and builds the turn environment over `workspace`
/// (default: the current directory), with the bash tool's sandbox of `sandbox` (default: the
/// configured `sandbox.mode`) and the approvals of `approval` (default: `sandbox.approval`).
/// Every error is a usage or configuration error.
pub fn setup(
    workspace: Option<&PathBuf>,
    tools: &ToolChoice,
    sandbox: Option<SandboxMode>,
    approval: &ApprovalArgs,
) -> Result<Setup, String> {
    let home = home_dir().map_err(|err| err.to_string())?;
    let mut config: Config = load_config(&home).map_err(|err| err.to_string())?;
    let workspace = match workspace {
        Some(dir) => resolve_workspace(dir)?,
        None => std::env::current_dir()
            .map_err(|err| format!("cannot read the current directory: {err}"))?,
    };
    if let ToolChoice::Only(names) = tools {
        config.agents.defaults.tools.allow = names.clone();
    }
    let config_sandbox = config.sandbox.clone();
    let mut builder = TurnEnv::builder(home.clone(), workspace)
        .config(config)
        .prompt_profile(PromptProfile::Coding);
    if *tools == ToolChoice::None {
        builder = builder.tools(Vec::new());
    }
    if let Some(sandbox) = tool_sandbox(&config_sandbox, sandbox)? {
        builder = builder.sandbox(sandbox);
    }
    let policy = match approval.approval {
        Some(policy) => policy,
        None => config_sandbox
            .approval()
            .map_err(|err| format!("sandbox.approval: {err}"))?,
    };
    let approver = (policy != ApprovalPolicy::Never).then(|| TerminalApprover::new(approval.yes));
    if let Some(approver) = &approver {
        builder = builder.approval(ToolApproval::new(policy, approver.clone()));
    }
    let env = builder.build().map_err(|err| err.to_string())?;
    if let ToolChoice::Only(names) = tools {
        let known: Vec<&str> = env.tools.iter().map(|tool| tool.name()).collect();
        if let Some(unknown) = names.iter().find(|name| !known.contains(&name.as_str())) {
            return Err(format!(
                "--tools: there is no built-in tool `{unknown}` (the tools are {})",
                known.join(", ")
            ));
        }
    }
    Ok(Setup {
        home,
        env,
        approver,
    })
}

/// `--workspace DIR` as the absolute path of an existing directory: the turn environment
/// would create a missing one, and a relative one would be joined to itself again by the tools.
fn resolve_workspace(dir: &Path) -> Result<PathBuf, String> {
    let shown = dir.display();
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => std::fs::canonicalize(dir)
            .map_err(|err| format!("--workspace {shown}: cannot resolve it: {err}")),
        Ok(_) => Err(format!("--workspace {shown}: not a directory")),
        Err(err) if err.kind() == ErrorKind::NotFound => {
            Err(format!("--workspace {shown}: no such directory"))
        }
        Err(err) => Err(format!("--workspace {shown}: cannot read it: {err}")),
    }
}

/// `provider/model` checked for its slash.
pub fn check_model_ref(model: &str) -> Result<(), String> {
    if model.contains('/') {
        Ok(())
    } else {
        Err(format!(
            "model `{model}`: expected `provider/model`, e.g. `openai/gpt-4o`"
        ))
    }
}

/// The sandbox of `mode` (else the configured one) with the `[sandbox]` table; `None` for
/// `off`. Where it cannot work, the bash tool's calls fail closed saying so.
fn tool_sandbox(
    config: &clawloop_runner::config::SandboxConfig,
    mode: Option<SandboxMode>,
) -> Result<Option<ToolSandbox>, String> {
    let mode = match mode {
        Some(mode) => mode,
        None => config
            .mode()
            .map_err(|err| format!("sandbox.mode: {err}"))?,
    };
    if mode == SandboxMode::Off {
        return Ok(None);
    }
    Ok(Some(ToolSandbox::new(
        Arc::new(LinuxSandbox::new()),
        config.policy(mode),
    )))
}

/// `--sandbox MODE`.
pub fn parse_sandbox_mode(text: &str) -> Result<SandboxMode, String> {
    text.parse()
        .map_err(|err: clawloop_core::sandbox::UnknownSandboxMode| err.to_string())
}
