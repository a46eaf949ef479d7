//! `TurnEnvBuilder::approval`: under `on-request` the built-in `bash` offers the model
//! `sandbox: "off"`, the embedder's approver decides, and the model reads what came of it;
//! without an approval the schema has no such argument.

#![allow(clippy::unwrap_used, clippy::panic)]

use std::sync::{Arc, Mutex};

use clawloop_core::approval::{
    ApprovalDecision, ApprovalPolicy, ApprovalRequest, Approver, ToolApproval,
};
use clawloop_core::sandbox::{
    CommandOutcome, CommandSandbox, ConfinedCommand, SandboxCommand, SandboxError, SandboxMode,
    SandboxPolicy, StopBy, ToolSandbox,
};
use clawloop_core::tool::BoxFuture;
use clawloop_runner::config::Config;
use clawloop_runner::turn::{
    AgentRunLoopResult, TurnEnv, TurnEnvBuilder, TurnIo, TurnRequest, run_agent_turn_with_fallback,
};
use clawloop_testkit::{ProviderScriptServer, ScriptedExchange};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

/// Runs the command as asked, with `CONFINED=yes` in its environment.
#[derive(Debug)]
struct MarkingSandbox;

impl CommandSandbox for MarkingSandbox {
    fn confine(
        &self,
        command: &SandboxCommand,
        _policy: &SandboxPolicy,
    ) -> Result<ConfinedCommand, SandboxError> {
        Ok(ConfinedCommand {
            program: command.program.clone(),
            args: command.args.clone(),
            cwd: command.cwd.clone(),
            env: vec![
                ("PATH".into(), "/usr/bin:/bin".into()),
                ("CONFINED".into(), "yes".into()),
            ],
            stop: StopBy::KillGroup,
        })
    }

    fn denial_note(&self, _: &CommandOutcome<'_>, _: &SandboxPolicy) -> Option<String> {
        None
    }

    fn describe(&self, _policy: &SandboxPolicy) -> Result<String, SandboxError> {
        Ok("marking".into())
    }
}

#[derive(Debug)]
struct Recording {
    decision: ApprovalDecision,
    asked: Mutex<Vec<ApprovalRequest>>,
}

impl Approver for Recording {
    fn decide<'a>(&'a self, request: &'a ApprovalRequest) -> BoxFuture<'a, ApprovalDecision> {
        self.asked.lock().unwrap().push(request.clone());
        Box::pin(async move { self.decision.clone() })
    }
}

const OFFER: &str = "to run this one command outside the sandbox";
const SHOW: &str = "echo confined=${CONFINED:-no}";

fn exchange(value: Value) -> ScriptedExchange {
    serde_json::from_value(value).unwrap()
}

fn builder(server: &ProviderScriptServer, dir: &std::path::Path) -> TurnEnvBuilder {
    let config = Config::from_value(json!({
        "agents": {"defaults": {"model": {"primary": "acme/m1"}}},
        "models": {"providers": {"acme": {
            "api": "openai-completions",
            "apiKey": "sk-test",
            "baseUrl": format!("{}/v1", server.provider_url("acme")),
            "models": [{"id": "m1", "contextWindow": 128000, "maxTokens": 4096}],
        }}},
    }))
    .unwrap();
    TurnEnv::builder(dir.join("home"), dir.join("ws"))
        .config(config)
        .sandbox(ToolSandbox::new(
            Arc::new(MarkingSandbox),
            SandboxPolicy::new(SandboxMode::WorkspaceWrite),
        ))
}

async fn answered(env: &TurnEnv) -> String {
    let request = TurnRequest {
        session_key: "main:1".to_owned(),
        prompt: "Fetch it".to_owned(),
        ..TurnRequest::default()
    };
    match run_agent_turn_with_fallback(env, request, TurnIo::default()).await {
        AgentRunLoopResult::Success(success) => success.run_result.reply_text(),
        AgentRunLoopResult::Final { payload, .. } => panic!("the turn failed: {payload:?}"),
    }
}

async fn turn_asking_out(
    decision: ApprovalDecision,
    result_contains: &str,
) -> Vec<ApprovalRequest> {
    let server = ProviderScriptServer::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let approver = Arc::new(Recording {
        decision,
        asked: Mutex::new(Vec::new()),
    });
    let env = builder(&server, dir.path())
        .approval(ToolApproval::new(
            ApprovalPolicy::OnRequest,
            approver.clone(),
        ))
        .build()
        .unwrap();
    server.begin_turn(vec![
        exchange(json!({
            "expectRequest": {"bodyContains": [OFFER]},
            "reply": {"toolCalls": [{"name": "bash",
                "arguments": {"command": SHOW, "sandbox": "off"}}]}
        })),
        exchange(json!({
            "expectRequest": {"bodyContains": [result_contains]},
            "reply": {"text": "Done."}
        })),
    ]);
    assert_eq!(answered(&env).await, "Done.");
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
    approver.asked.lock().unwrap().clone()
}

#[tokio::test]
async fn on_request_the_approved_command_runs_outside_the_sandbox() {
    let asked = turn_asking_out(ApprovalDecision::Approve, "confined=no").await;
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].command, SHOW);
    assert!(asked[0].unsandboxed);
    assert!(asked[0].cwd.ends_with("ws"), "{:?}", asked[0].cwd);
}

#[tokio::test]
async fn a_denial_reaches_the_model_and_the_turn_goes_on() {
    let asked = turn_asking_out(
        ApprovalDecision::Deny("the user denied it".into()),
        "Command not run: the user denied it",
    )
    .await;
    assert_eq!(asked.len(), 1);
}

#[tokio::test]
async fn without_an_approval_bash_offers_no_way_out() {
    let server = ProviderScriptServer::start().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let env = builder(&server, dir.path()).build().unwrap();
    server.begin_turn(vec![
        exchange(json!({
            "expectRequest": {"toolNamesInclude": ["bash"], "bodyNotContains": [OFFER]},
            "reply": {"toolCalls": [{"name": "bash", "arguments": {"command": SHOW}}]}
        })),
        exchange(json!({
            "expectRequest": {"bodyContains": ["confined=yes"]},
            "reply": {"text": "Done."}
        })),
    ]);
    assert_eq!(answered(&env).await, "Done.");
    assert_eq!(server.end_turn().problems(), Vec::<String>::new());
}
