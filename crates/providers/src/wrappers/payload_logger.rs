//! The payload logger: one JSONL record per request with every secret redacted, for debugging
//! what was asked of a provider (OpenClaw's payload log).

use std::fmt;
use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use clawloop_core::{
    AssistantEventStream, Clock, Context, LlmStream, Model, StreamOptions, SystemClock,
};
use serde_json::{Map, Value};

use super::redact::{REDACTED, redact_json};
use super::timestamp::iso8601_utc;

/// Writes request records to a file or any [`Write`] sink.
///
/// A record is one line:
/// `{"ts","provider","model","api","baseUrl","headers","options","context"}` where `headers`
/// are the model's and the request's, `options` the stream options (the API key itself never,
/// only `"apiKey":"[REDACTED]"` when one is set) and `context` the request context as pi's JSON.
/// Before writing, the record goes through [`redact_json`](super::redact::redact_json) with the
/// request's API key and every secret given to [`with_secret`](Self::with_secret), and the
/// finished line is checked once more for those literal values.
pub struct PayloadLogger {
    sink: Mutex<Box<dyn Write + Send>>,
    clock: Arc<dyn Clock>,
    secrets: Vec<String>,
    failed_writes: AtomicU64,
}

impl PayloadLogger {
    /// Appends to the file at `path`, creating it (mode 0600 on Unix: records hold whole
    /// conversations).
    pub fn open(path: impl AsRef<Path>) -> io::Result<Self> {
        let mut options = OpenOptions::new();
        options.create(true).append(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        Ok(PayloadLogger::new(options.open(path)?))
    }

    /// Writes to `writer`.
    pub fn new(writer: impl Write + Send + 'static) -> Self {
        PayloadLogger {
            sink: Mutex::new(Box::new(writer)),
            clock: Arc::new(SystemClock),
            secrets: Vec::new(),
            failed_writes: AtomicU64::new(0),
        }
    }

    /// Takes record timestamps from `clock`.
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// Also redacts the literal `secret` wherever it appears (e.g. a configured API key that
    /// a provider sends in a header of its own rather than through `options.api_key`).
    pub fn with_secret(mut self, secret: impl Into<String>) -> Self {
        let secret = secret.into();
        if !secret.is_empty() {
            self.secrets.push(secret);
        }
        self
    }

    /// The redacted record for one request (what [`write`](Self::write) serializes).
    pub fn record(&self, model: &Model, context: &Context, options: &StreamOptions) -> Value {
        let mut headers = Map::new();
        for (name, value) in model.headers.iter().chain(&options.headers) {
            headers.insert(name.clone(), Value::String(value.clone()));
        }
        let context = serde_json::to_value(context)
            .unwrap_or_else(|e| Value::String(format!("<context not serializable: {e}>")));
        let mut record = Map::new();
        record.insert("ts".into(), iso8601_utc(self.clock.now_ms()).into());
        record.insert("provider".into(), model.provider.clone().into());
        record.insert("model".into(), model.id.clone().into());
        record.insert("api".into(), model.api.as_str().into());
        record.insert("baseUrl".into(), model.base_url.clone().into());
        record.insert("headers".into(), Value::Object(headers));
        record.insert("options".into(), options_json(options));
        record.insert("context".into(), context);
        let mut record = Value::Object(record);
        redact_json(&mut record, &self.secrets_for(options));
        record
    }

    /// Appends the record for one request as a line and flushes it.
    pub fn write(
        &self,
        model: &Model,
        context: &Context,
        options: &StreamOptions,
    ) -> io::Result<()> {
        let record = self.record(model, context, options);
        let mut line = serde_json::to_string(&record).map_err(io::Error::other)?;
        // Belt and braces: a secret that survived in an unexpected shape (JSON-escaped, say)
        // is still caught in the serialized line.
        for secret in self.secrets_for(options) {
            for form in [secret.to_owned(), json_escaped(secret)] {
                if !form.is_empty() && line.contains(&form) {
                    line = line.replace(&form, REDACTED);
                }
            }
        }
        line.push('\n');
        // A poisoned lock only means another writer panicked mid-record; the sink is still a
        // sink, and losing the log is worse than a possibly torn line.
        let mut sink = self.sink.lock().unwrap_or_else(|e| e.into_inner());
        sink.write_all(line.as_bytes())?;
        sink.flush()
    }

    /// How many records could not be written (the wrapper never fails a call over its log).
    pub fn failed_writes(&self) -> u64 {
        self.failed_writes.load(Ordering::Relaxed)
    }

    /// Every literal secret for a request, longest first so a secret containing another is
    /// replaced whole.
    fn secrets_for<'a>(&'a self, options: &'a StreamOptions) -> Vec<&'a str> {
        let mut secrets: Vec<&str> = self
            .secrets
            .iter()
            .map(String::as_str)
            .chain(options.api_key.as_deref())
            .filter(|s| !s.is_empty())
            .collect();
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        secrets.dedup();
        secrets
    }
}

impl fmt::Debug for PayloadLogger {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PayloadLogger")
            .field("secrets", &self.secrets.len())
            .field("failed_writes", &self.failed_writes())
            .finish_non_exhaustive()
    }
}

/// The stream options worth logging, without the key's value.
fn options_json(options: &StreamOptions) -> Value {
    let mut out = Map::new();
    let mut put = |name: &str, value: Option<Value>| {
        if let Some(value) = value {
            out.insert(name.to_owned(), value);
        }
    };
    put("temperature", options.temperature.map(Value::from));
    put("maxTokens", options.max_tokens.map(Value::from));
    put("reasoning", options.reasoning.map(|r| r.as_str().into()));
    put(
        "thinkingBudgets",
        serde_json::to_value(options.thinking_budgets).ok(),
    );
    put(
        "cacheRetention",
        options
            .cache_retention
            .and_then(|r| serde_json::to_value(r).ok()),
    );
    put("sessionId", options.session_id.clone().map(Value::from));
    put("apiKey", options.api_key.as_ref().map(|_| REDACTED.into()));
    Value::Object(out)
}

/// `secret` as it appears inside a JSON string (without the quotes).
fn json_escaped(secret: &str) -> String {
    let quoted = serde_json::to_string(secret).unwrap_or_default();
    quoted
        .strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or("")
        .to_owned()
}

/// Logs every request to a [`PayloadLogger`] before passing it on. A failed write is counted
/// ([`PayloadLogger::failed_writes`]) and otherwise ignored: diagnostics must never fail a
/// model call.
#[derive(Clone)]
pub struct LogPayloads {
    inner: Arc<dyn LlmStream>,
    logger: Arc<PayloadLogger>,
}

impl LogPayloads {
    /// Wraps `inner`, logging to `logger` (share one logger between layers and runs).
    pub fn new(inner: Arc<dyn LlmStream>, logger: Arc<PayloadLogger>) -> Self {
        LogPayloads { inner, logger }
    }
}

impl LlmStream for LogPayloads {
    fn stream(
        &self,
        model: &Model,
        context: &Context,
        options: StreamOptions,
    ) -> AssistantEventStream {
        // Written before the request goes out, so the log has the request even when the call
        // hangs or crashes; one small append does not warrant a blocking-pool hop.
        if self.logger.write(model, context, &options).is_err() {
            self.logger.failed_writes.fetch_add(1, Ordering::Relaxed);
        }
        self.inner.stream(model, context, options)
    }
}
