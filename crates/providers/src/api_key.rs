//! API-key resolution (SPEC §2, pi-mono §3.9): a configured `apiKey` is the name of an
//! environment variable when one by that name is set, else a literal key, or — written
//! `!command` — the trimmed standard output of `sh -c command`. Without a configured value the
//! provider's environment key applies (`OPENAI_API_KEY`, …); Ollama needs none.
//!
//! The environment is a parameter ([`EnvLookup`]), never read behind the caller's back, so
//! tests can run side by side; [`ProcessEnv`] reads the real one. Nothing here writes the
//! environment, and no error or `Debug` output contains a key (nor the command, which may
//! embed one).

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::io::Read;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// pi's timeout for `!command` keys.
pub const DEFAULT_COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// Output kept from a key command; a key is a line, so more than this is not a key and
/// reading on only protects the command from blocking on a full pipe.
const MAX_COMMAND_OUTPUT: usize = 64 * 1024;

/// How much of the command's stderr an error quotes.
const MAX_STDERR_IN_ERROR: usize = 200;

/// How long to wait for the end of the output once the command has exited.
const PIPE_GRACE: Duration = Duration::from_millis(250);

/// How often a running key command is checked.
const POLL_INTERVAL: Duration = Duration::from_millis(5);

/// Environment keys of the built-in providers (SPEC §2).
const PROVIDER_ENV_KEYS: [(&str, &str); 8] = [
    ("anthropic", "ANTHROPIC_API_KEY"),
    ("deepseek", "DEEPSEEK_API_KEY"),
    ("google", "GEMINI_API_KEY"),
    ("groq", "GROQ_API_KEY"),
    ("mistral", "MISTRAL_API_KEY"),
    ("openai", "OPENAI_API_KEY"),
    ("openrouter", "OPENROUTER_API_KEY"),
    ("xai", "XAI_API_KEY"),
];

/// Providers that work without a key (local servers).
const KEYLESS_PROVIDERS: [&str; 1] = ["ollama"];

/// The environment variable holding `provider`'s key, if it has a conventional one.
pub fn provider_env_key(provider: &str) -> Option<&'static str> {
    PROVIDER_ENV_KEYS
        .iter()
        .find(|(id, _)| *id == provider)
        .map(|(_, key)| *key)
}

/// Every built-in provider with its conventional environment key, as `(provider, variable)`,
/// sorted by provider.
pub fn provider_env_keys() -> &'static [(&'static str, &'static str)] {
    &PROVIDER_ENV_KEYS
}

/// Whether `provider` is used without an API key (Ollama).
pub fn is_keyless_provider(provider: &str) -> bool {
    KEYLESS_PROVIDERS.contains(&provider)
}

/// Read access to environment variables.
pub trait EnvLookup {
    /// The value of `name`, if set.
    fn var(&self, name: &str) -> Option<String>;
}

/// The process environment, read at each lookup.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessEnv;

impl EnvLookup for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        // A name the OS cannot hold (empty, `=`, NUL) is simply not set.
        if name.is_empty() || name.contains(['=', '\0']) {
            return None;
        }
        std::env::var(name).ok()
    }
}

impl EnvLookup for HashMap<String, String> {
    fn var(&self, name: &str) -> Option<String> {
        self.get(name).cloned()
    }
}

impl EnvLookup for BTreeMap<String, String> {
    fn var(&self, name: &str) -> Option<String> {
        self.get(name).cloned()
    }
}

/// An environment given as a closure.
pub struct EnvFn<F>(pub F);

impl<F: Fn(&str) -> Option<String>> EnvLookup for EnvFn<F> {
    fn var(&self, name: &str) -> Option<String> {
        (self.0)(name)
    }
}

/// Where a resolved key came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApiKeySource {
    /// The configured value named this environment variable.
    ConfiguredEnv(String),
    /// The configured value itself.
    Literal,
    /// The configured `!command`'s output.
    Command,
    /// The provider's conventional environment variable (no key configured).
    ProviderEnv(String),
}

/// A resolved API key. `Debug` and `Display` never show it.
#[derive(Clone, PartialEq, Eq)]
pub struct ResolvedApiKey {
    value: String,
    source: ApiKeySource,
}

impl ResolvedApiKey {
    /// The key.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// The key, owned.
    pub fn into_value(self) -> String {
        self.value
    }

    /// Where it came from.
    pub fn source(&self) -> &ApiKeySource {
        &self.source
    }
}

impl fmt::Debug for ResolvedApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ResolvedApiKey")
            .field("value", &"<redacted>")
            .field("source", &self.source)
            .finish()
    }
}

/// Why a configured `apiKey` could not be resolved. Messages name the provider and what went
/// wrong, never the key or the command line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApiKeyError {
    /// `apiKey = "!"` with nothing after the `!`.
    #[error("apiKey of provider {provider:?} is an empty command (\"!\" with nothing after it)")]
    EmptyCommand {
        /// The provider.
        provider: String,
    },
    /// `sh` could not be started.
    #[error("apiKey command of provider {provider:?} could not be started: {reason}")]
    Spawn {
        /// The provider.
        provider: String,
        /// The OS error.
        reason: String,
    },
    /// The command exited unsuccessfully.
    #[error(
        "apiKey command of provider {provider:?} failed {}{}",
        exit_text(*.exit_code),
        stderr_text(.stderr)
    )]
    CommandFailed {
        /// The provider.
        provider: String,
        /// Its exit code; `None` when a signal ended it.
        exit_code: Option<i32>,
        /// The start of its standard error, trimmed.
        stderr: String,
    },
    /// The command did not finish in time; it was killed.
    #[error(
        "apiKey command of provider {provider:?} timed out after {}s and was killed",
        .timeout.as_secs_f64()
    )]
    CommandTimedOut {
        /// The provider.
        provider: String,
        /// The limit.
        timeout: Duration,
    },
    /// The command succeeded but printed no key.
    #[error("apiKey command of provider {provider:?} printed nothing on standard output")]
    EmptyOutput {
        /// The provider.
        provider: String,
    },
    /// The command printed something that is not UTF-8.
    #[error("apiKey command of provider {provider:?} printed output that is not UTF-8")]
    NotUtf8 {
        /// The provider.
        provider: String,
    },
}

fn exit_text(code: Option<i32>) -> String {
    match code {
        Some(code) => format!("with exit code {code}"),
        None => "(killed by a signal)".to_owned(),
    }
}

fn stderr_text(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!(": {stderr}")
    }
}

/// Resolves API keys against an environment.
pub struct ApiKeyResolver<'a> {
    env: &'a dyn EnvLookup,
    command_timeout: Duration,
}

impl<'a> ApiKeyResolver<'a> {
    /// A resolver reading `env`, with pi's 10 s command timeout.
    pub fn new(env: &'a dyn EnvLookup) -> Self {
        ApiKeyResolver {
            env,
            command_timeout: DEFAULT_COMMAND_TIMEOUT,
        }
    }

    /// Uses `timeout` for `!command` keys.
    pub fn with_command_timeout(mut self, timeout: Duration) -> Self {
        self.command_timeout = timeout;
        self
    }

    /// The key for `provider`: its configured `apiKey` (`configured`, see
    /// [`resolve_configured`](Self::resolve_configured)) when set and non-blank, else the
    /// provider's environment key. `Ok(None)` when neither gives a key — the caller decides
    /// whether that is an error (pi: `No API key for provider: <provider>`); Ollama needs none.
    ///
    /// Blocks while a `!command` runs (up to the timeout); call it from a blocking context.
    pub fn resolve(
        &self,
        provider: &str,
        configured: Option<&str>,
    ) -> Result<Option<ResolvedApiKey>, ApiKeyError> {
        if let Some(spec) = configured.filter(|s| !s.trim().is_empty()) {
            return self.resolve_configured(provider, spec).map(Some);
        }
        Ok(provider_env_key(provider).and_then(|name| {
            self.non_empty_var(name).map(|value| ResolvedApiKey {
                value,
                source: ApiKeySource::ProviderEnv(name.to_owned()),
            })
        }))
    }

    /// A configured `apiKey` value: `!command` runs `sh -c command` and takes its trimmed
    /// output; a value naming a set (non-empty) environment variable takes its value; anything
    /// else is the key itself. Surrounding whitespace is ignored.
    pub fn resolve_configured(
        &self,
        provider: &str,
        spec: &str,
    ) -> Result<ResolvedApiKey, ApiKeyError> {
        let spec = spec.trim();
        if let Some(command) = spec.strip_prefix('!') {
            let command = command.trim();
            if command.is_empty() {
                return Err(ApiKeyError::EmptyCommand {
                    provider: provider.to_owned(),
                });
            }
            return run_key_command(provider, command, self.command_timeout).map(|value| {
                ResolvedApiKey {
                    value,
                    source: ApiKeySource::Command,
                }
            });
        }
        Ok(match self.non_empty_var(spec) {
            Some(value) => ResolvedApiKey {
                value,
                source: ApiKeySource::ConfiguredEnv(spec.to_owned()),
            },
            None => ResolvedApiKey {
                value: spec.to_owned(),
                source: ApiKeySource::Literal,
            },
        })
    }

    fn non_empty_var(&self, name: &str) -> Option<String> {
        self.env.var(name).filter(|v| !v.trim().is_empty())
    }
}

/// [`ApiKeyResolver::resolve`] against the process environment.
pub fn resolve_api_key_from_process_env(
    provider: &str,
    configured: Option<&str>,
) -> Result<Option<ResolvedApiKey>, ApiKeyError> {
    ApiKeyResolver::new(&ProcessEnv).resolve(provider, configured)
}

/// Runs `sh -c command` and returns its trimmed standard output.
fn run_key_command(
    provider: &str,
    command: &str,
    timeout: Duration,
) -> Result<String, ApiKeyError> {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // Its own process group, so a timeout kills the whole pipeline, not just `sh`.
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = cmd.spawn().map_err(|e| ApiKeyError::Spawn {
        provider: provider.to_owned(),
        reason: e.to_string(),
    })?;
    let stdout = read_in_background(child.stdout.take());
    let stderr = read_in_background(child.stderr.take());
    let deadline = Instant::now() + timeout;
    let Some(status) = wait_until(&mut child, deadline) else {
        // Still running, so its process group is still its own to kill.
        kill(&mut child);
        return Err(ApiKeyError::CommandTimedOut {
            provider: provider.to_owned(),
            timeout,
        });
    };
    // What the command printed is in the pipes by now; a background process it started may
    // keep them open, so wait briefly for the end, then take what arrived (as a shell would).
    let until = deadline.min(Instant::now() + PIPE_GRACE);
    if !status.success() {
        return Err(ApiKeyError::CommandFailed {
            provider: provider.to_owned(),
            exit_code: status.code(),
            stderr: first_line(&drain(&stderr, until)),
        });
    }
    let text = String::from_utf8(drain(&stdout, until)).map_err(|_| ApiKeyError::NotUtf8 {
        provider: provider.to_owned(),
    })?;
    let key = text.trim();
    if key.is_empty() {
        return Err(ApiKeyError::EmptyOutput {
            provider: provider.to_owned(),
        });
    }
    Ok(key.to_owned())
}

/// Polls `child` until it exits or `deadline` passes.
fn wait_until(child: &mut Child, deadline: Instant) -> Option<ExitStatus> {
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < deadline => thread::sleep(POLL_INTERVAL),
            // Timed out, or waiting failed (then the child cannot be trusted to finish either).
            _ => return None,
        }
    }
}

/// Kills the command's process group (Unix) and the child itself, and reaps it.
fn kill(child: &mut Child) {
    #[cfg(unix)]
    {
        // `kill` the program, not the syscall: no `unsafe` for a best-effort group kill.
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", child.id())])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Reads `pipe` to its end on a thread, so neither pipe can fill up and stall the command.
/// Chunks arrive on the channel as they are read (at most [`MAX_COMMAND_OUTPUT`] bytes in
/// all); the channel closes at end of file.
fn read_in_background(pipe: Option<impl Read + Send + 'static>) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let Some(mut pipe) = pipe else {
            return;
        };
        let mut sent = 0usize;
        let mut buf = [0u8; 8192];
        while let Ok(n) = pipe.read(&mut buf) {
            if n == 0 {
                break;
            }
            let keep = n.min(MAX_COMMAND_OUTPUT.saturating_sub(sent));
            if keep > 0 {
                sent += keep;
                // The receiver may have given up (timeout); keep draining the pipe anyway.
                let _ = tx.send(buf[..keep].to_vec());
            }
        }
    });
    rx
}

/// The chunks received until end of file or `until`, whichever comes first.
fn drain(rx: &mpsc::Receiver<Vec<u8>>, until: Instant) -> Vec<u8> {
    let mut out = Vec::new();
    while let Ok(chunk) = rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
        out.extend_from_slice(&chunk);
    }
    out
}

/// The first non-empty line of `bytes`, trimmed and shortened for an error message.
fn first_line(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    match line.char_indices().nth(MAX_STDERR_IN_ERROR) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}
