//! The sandbox over real processes, the same suite once per backend (a backend that cannot
//! work on this machine is skipped with the reason printed).

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use clawloop_core::sandbox::{
    CommandOutcome, CommandSandbox, SandboxCommand, SandboxMode, SandboxPolicy, StopBy,
};
use clawloop_sandbox::{Backend, LinuxSandbox};

/// A workspace and a clawloop home, outside `/tmp` (which is writable by policy).
struct Scene {
    _dir: tempfile::TempDir,
    ws: PathBuf,
    home: PathBuf,
}

impl Scene {
    fn new() -> Scene {
        let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
        let ws = dir.path().join("ws");
        let home = dir.path().join("home");
        std::fs::create_dir_all(ws.join(".git")).unwrap();
        std::fs::write(ws.join(".git/config"), "[core]\n").unwrap();
        std::fs::create_dir_all(home.join("agents/main/agent")).unwrap();
        std::fs::write(
            home.join("agents/main/agent/auth-profiles.json"),
            "{\"secret\":\"sk-home-secret\"}",
        )
        .unwrap();
        Scene {
            ws: ws.canonicalize().unwrap(),
            home: home.canonicalize().unwrap(),
            _dir: dir,
        }
    }

    fn policy(&self, mode: SandboxMode, network: bool) -> SandboxPolicy {
        let mut policy = SandboxPolicy::new(mode);
        policy.network = network;
        policy.protected = vec![self.home.clone()];
        policy.secret_env = vec!["MY_PROVIDER_VAR".into()];
        policy
    }
}

/// What a confined run produced.
#[derive(Debug)]
struct Ran {
    code: Option<i32>,
    output: String,
    note: Option<String>,
}

fn sandbox(backend: Backend) -> LinuxSandbox {
    LinuxSandbox::new()
        .with_helper(env!("CARGO_BIN_EXE_clawloop-sandbox-helper"))
        .with_backend(backend)
}

/// Whether `backend` works here; prints why not.
fn usable(backend: Backend) -> bool {
    match sandbox(backend).backend(&SandboxPolicy::default()) {
        Ok(_) => true,
        Err(err) => {
            println!(
                "skipped: the {} backend does not work here: {err}",
                backend.name()
            );
            false
        }
    }
}

fn spawn(
    sandbox: &LinuxSandbox,
    scene: &Scene,
    policy: &SandboxPolicy,
    script: &str,
    env: &[(&str, &str)],
) -> (Child, StopBy) {
    let command = SandboxCommand {
        program: "/bin/sh".into(),
        args: vec!["-c".into(), script.into()],
        cwd: scene.ws.clone(),
        workspace_root: scene.ws.clone(),
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>(),
    };
    let confined = sandbox.confine(&command, policy).unwrap();
    let mut cmd = Command::new(&confined.program);
    cmd.args(&confined.args)
        .current_dir(&confined.cwd)
        .env_clear()
        .envs(confined.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    (cmd.spawn().unwrap(), confined.stop)
}

fn run(backend: Backend, scene: &Scene, policy: &SandboxPolicy, script: &str) -> Ran {
    run_env(backend, scene, policy, script, &[])
}

fn run_env(
    backend: Backend,
    scene: &Scene,
    policy: &SandboxPolicy,
    script: &str,
    env: &[(&str, &str)],
) -> Ran {
    let sandbox = sandbox(backend);
    let (child, _) = spawn(&sandbox, scene, policy, script, env);
    let out = child.wait_with_output().unwrap();
    let output = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let outcome = CommandOutcome {
        code: out.status.code(),
        signal: std::os::unix::process::ExitStatusExt::signal(&out.status),
        output_tail: &output,
    };
    let note = sandbox.denial_note(&outcome, policy);
    Ran {
        code: out.status.code(),
        output,
        note,
    }
}

/// Asserts the command failed, with the sandbox line.
fn assert_refused(ran: &Ran) {
    assert_ne!(ran.code, Some(0), "{ran:?}");
    assert!(
        ran.note
            .as_deref()
            .is_some_and(|note| note.starts_with("[clawloop sandbox: ")),
        "{ran:?}"
    );
}

/// Processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains(marker) && !cmdline.contains("/bin/sh -c") {
                found.push(cmdline);
            }
        }
    }
    found
}

/// Waits (hang guard: 10 s) until no process carries `marker`.
fn assert_none_left(marker: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !processes_with(marker).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(processes_with(marker), Vec::<String>::new());
}

fn workspace_builds_and_runs(backend: Backend) {
    let scene = Scene::new();
    let policy = scene.policy(SandboxMode::WorkspaceWrite, true);
    let mut script = String::from("echo hi > note.txt && cat note.txt && mkdir -p sub/dir && ");
    if Path::new("/usr/bin/cc").exists() {
        script
            .push_str("printf 'int main(void){return 7;}' > t.c && cc t.c -o t; ./t; echo cc=$?; ");
    }
    script.push_str("python3 -c 'open(\"p.txt\",\"w\").write(\"py\")' 2>/dev/null; mktemp >/dev/null && echo tmp-ok");
    let ran = run(backend, &scene, &policy, &script);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert!(
        ran.output.contains("hi\n") && ran.output.contains("tmp-ok"),
        "{ran:?}"
    );
    if Path::new("/usr/bin/cc").exists() {
        assert!(ran.output.contains("cc=7"), "{ran:?}");
    }
    assert_eq!(
        std::fs::read_to_string(scene.ws.join("note.txt")).unwrap(),
        "hi\n"
    );
}

fn writes_outside_are_refused(backend: Backend) {
    let scene = Scene::new();
    let policy = scene.policy(SandboxMode::WorkspaceWrite, true);
    let marker = format!("clawloop-sandbox-{}", std::process::id());
    for target in [
        format!("/etc/{marker}"),
        format!("$HOME/{marker}"),
        format!("/var/{marker}"),
    ] {
        let ran = run(backend, &scene, &policy, &format!("touch {target}"));
        assert_refused(&ran);
    }
    assert!(!Path::new(&format!("/etc/{marker}")).exists());
    let home = std::env::var("HOME").unwrap();
    assert!(!Path::new(&home).join(&marker).exists());
}

fn git_hooks_and_config_are_read_only(backend: Backend) {
    let scene = Scene::new();
    let policy = scene.policy(SandboxMode::WorkspaceWrite, true);
    for script in [
        "echo 'rm -rf ~' > .git/hooks/pre-commit",
        "echo '[core] hooksPath=/tmp' >> .git/config",
        "mv .git .git-old",
        "rm -rf .git",
        // Unmounting the read-only bind first (possible for a command run as root, were
        // the mount calls not denied) changes nothing.
        "umount -l .git/hooks; echo 'rm -rf ~' > .git/hooks/pre-commit",
    ] {
        let ran = run(backend, &scene, &policy, script);
        assert_refused(&ran);
    }
    assert!(!scene.ws.join(".git/hooks/pre-commit").exists());
    assert_eq!(
        std::fs::read_to_string(scene.ws.join(".git/config")).unwrap(),
        "[core]\n"
    );
    // The rest of `.git` stays writable: commits work.
    let ran = run(
        backend,
        &scene,
        &policy,
        "echo ref > .git/HEAD.lock && rm .git/HEAD.lock",
    );
    assert_eq!(ran.code, Some(0), "{ran:?}");
}

fn the_home_is_unreadable(backend: Backend) {
    let scene = Scene::new();
    let policy = scene.policy(SandboxMode::WorkspaceWrite, true);
    let file = scene.home.join("agents/main/agent/auth-profiles.json");
    let ran = run(backend, &scene, &policy, &format!("cat {}", file.display()));
    assert_refused(&ran);
    assert!(!ran.output.contains("sk-home-secret"), "{ran:?}");
    let ran = run(
        backend,
        &scene,
        &policy,
        &format!("echo x > {}/new.json", scene.home.display()),
    );
    assert_refused(&ran);
    // Through a symlink in the workspace: no hole either.
    let script = format!(
        "ln -s {} h && cat h/agents/main/agent/auth-profiles.json",
        scene.home.display()
    );
    let ran = run(backend, &scene, &policy, &script);
    assert!(!ran.output.contains("sk-home-secret"), "{ran:?}");
    assert_ne!(ran.code, Some(0), "{ran:?}");
}

/// A clawloop home inside a writable root (`/tmp`, as with `CLAWLOOP_HOME=/tmp/…`) stays
/// unreadable and unwritable, and the root stays writable for new files (`mktemp`).
fn a_home_under_tmp_stays_hidden_and_tmp_writable(backend: Backend) {
    let scene = Scene::new();
    let tmp_home = tempfile::tempdir_in("/tmp").unwrap();
    let home = tmp_home.path().canonicalize().unwrap();
    std::fs::write(
        home.join("auth-profiles.json"),
        "{\"secret\":\"sk-tmp-secret\"}",
    )
    .unwrap();
    let mut policy = scene.policy(SandboxMode::WorkspaceWrite, true);
    policy.protected.push(home.clone());
    let script = format!(
        "f=$(mktemp) && echo tmp-ok && rm \"$f\"; cat {h}/auth-profiles.json; \
         echo x > {h}/new.json || echo write-refused",
        h = home.display()
    );
    let ran = run(backend, &scene, &policy, &script);
    assert!(ran.output.contains("tmp-ok"), "{ran:?}");
    assert!(ran.output.contains("write-refused"), "{ran:?}");
    assert!(!ran.output.contains("sk-tmp-secret"), "{ran:?}");
    assert!(!home.join("new.json").exists());
}

fn symlinks_out_of_the_workspace_are_no_hole(backend: Backend) {
    let scene = Scene::new();
    let policy = scene.policy(SandboxMode::WorkspaceWrite, true);
    let marker = format!("clawloop-sandbox-link-{}", std::process::id());
    let ran = run(
        backend,
        &scene,
        &policy,
        &format!("ln -s /etc out && touch out/{marker}"),
    );
    assert_refused(&ran);
    assert!(!Path::new("/etc").join(&marker).exists());
}

fn provider_keys_are_not_in_the_environment(backend: Backend) {
    let scene = Scene::new();
    let policy = scene.policy(SandboxMode::WorkspaceWrite, true);
    let env = [
        ("OPENAI_API_KEY", "sk-env-secret-1"),
        ("GH_TOKEN", "sk-env-secret-2"),
        ("MY_PROVIDER_VAR", "sk-env-secret-3"),
        ("VISIBLE_SETTING", "plain-value"),
    ];
    let ran = run_env(backend, &scene, &policy, "env", &env);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert!(!ran.output.contains("sk-env-secret"), "{}", ran.output);
    assert!(ran.output.contains("VISIBLE_SETTING=plain-value"));
    assert!(ran.output.contains("CLAWLOOP_SANDBOX=workspace-write"));
    assert!(!ran.output.contains("CLAWLOOP_SANDBOX_NETWORK_DISABLED"));
}

fn ptrace_is_denied(backend: Backend) {
    if !Path::new("/usr/bin/strace").exists() {
        println!("skipped: no strace here to try ptrace with");
        return;
    }
    let scene = Scene::new();
    let policy = scene.policy(SandboxMode::WorkspaceWrite, true);
    // Attaching to the shell itself (strace's parent); success would hang until `timeout`.
    let ran = run(
        backend,
        &scene,
        &policy,
        "timeout 5 strace -p $$ -e trace=none",
    );
    assert_refused(&ran);
    assert!(ran.output.contains("Operation not permitted"), "{ran:?}");
}

fn network_off_blocks_tcp_but_not_unix_sockets(backend: Backend) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    listener.set_nonblocking(true).unwrap();
    let scene = Scene::new();
    let connect = format!(
        "python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5); print('connected')\""
    );
    let policy = scene.policy(SandboxMode::WorkspaceWrite, false);
    let ran = run(backend, &scene, &policy, &connect);
    assert_refused(&ran);
    assert!(!ran.output.contains("connected"), "{ran:?}");
    assert!(listener.accept().is_err(), "a connection arrived");
    let pair = "python3 -c \"import socket, os; a, b = socket.socketpair(); os.write(a.fileno(), b'x'); print(os.read(b.fileno(), 1))\"; env";
    let ran = run(backend, &scene, &policy, pair);
    assert!(ran.output.contains("b'x'"), "{ran:?}");
    assert!(
        ran.output.contains("CLAWLOOP_SANDBOX_NETWORK_DISABLED=1"),
        "{ran:?}"
    );
    // The control: with the network on the same connect works.
    let policy = scene.policy(SandboxMode::WorkspaceWrite, true);
    let ran = run(backend, &scene, &policy, &connect);
    assert_eq!(ran.code, Some(0), "{ran:?}");
}

fn read_only_refuses_every_write(backend: Backend) {
    let scene = Scene::new();
    let policy = scene.policy(SandboxMode::ReadOnly, true);
    let ran = run(backend, &scene, &policy, "cat .git/config && echo read-ok");
    assert_eq!(ran.code, Some(0), "{ran:?}");
    for script in ["echo x > ws-file", "mktemp /tmp/clawloop-ro-XXXXXX"] {
        let ran = run(backend, &scene, &policy, script);
        assert_refused(&ran);
    }
    assert!(!scene.ws.join("ws-file").exists());
}

/// A tag for this process and backend in the `sleep` markers: the backends' suites run at
/// once in this process, and one's processes must not count as the other's.
fn run_tag(backend: Backend) -> String {
    let digit = match backend {
        Backend::Landlock => 1,
        Backend::Bwrap => 2,
    };
    format!("{digit}{}", std::process::id())
}

fn nothing_outlives_the_command(backend: Backend) {
    let scene = Scene::new();
    let policy = scene.policy(SandboxMode::WorkspaceWrite, true);
    let id = run_tag(backend);
    let script = format!("sleep 1001.{id} & (setsid sleep 1002.{id} &) ; echo started");
    let ran = run(backend, &scene, &policy, &script);
    assert_eq!(ran.code, Some(0), "{ran:?}");
    assert_none_left(&format!("100{}.{id}", 1));
    assert_none_left(&format!("sleep 1002.{id}"));
}

fn an_abort_kills_every_descendant(backend: Backend) {
    let scene = Scene::new();
    let policy = scene.policy(SandboxMode::WorkspaceWrite, true);
    let id = run_tag(backend);
    let script = format!("sleep 1003.{id} & (setsid sleep 1004.{id} &) ; sleep 1005.{id}");
    let sandbox = sandbox(backend);
    let (mut child, stop) = spawn(&sandbox, &scene, &policy, &script, &[]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while processes_with(&format!("sleep 1005.{id}")).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(processes_with(&format!("sleep 1004.{id}")).len(), 1);
    let pid = nix::unistd::Pid::from_raw(child.id() as i32);
    match stop {
        StopBy::TerminateLeader => nix::sys::signal::kill(pid, nix::sys::signal::SIGTERM).unwrap(),
        StopBy::KillGroup => nix::sys::signal::killpg(pid, nix::sys::signal::SIGKILL).unwrap(),
    }
    child.wait().unwrap();
    for n in [1003, 1004, 1005] {
        assert_none_left(&format!("sleep {n}.{id}"));
    }
}

macro_rules! suite {
    ($module:ident, $backend:expr) => {
        mod $module {
            use super::*;

            macro_rules! case {
                ($name:ident) => {
                    #[test]
                    fn $name() {
                        if usable($backend) {
                            super::$name($backend);
                        }
                    }
                };
            }

            case!(workspace_builds_and_runs);
            case!(writes_outside_are_refused);
            case!(git_hooks_and_config_are_read_only);
            case!(the_home_is_unreadable);
            case!(a_home_under_tmp_stays_hidden_and_tmp_writable);
            case!(symlinks_out_of_the_workspace_are_no_hole);
            case!(provider_keys_are_not_in_the_environment);
            case!(ptrace_is_denied);
            case!(network_off_blocks_tcp_but_not_unix_sockets);
            case!(read_only_refuses_every_write);
            case!(nothing_outlives_the_command);
            case!(an_abort_kills_every_descendant);
        }
    };
}

suite!(landlock, Backend::Landlock);
suite!(bwrap, Backend::Bwrap);

#[test]
fn a_binary_that_does_not_run_the_helper_fails_closed() {
    // This test binary's main is libtest's: it never calls exec_if_requested.
    let sandbox = LinuxSandbox::new();
    let scene = Scene::new();
    let command = SandboxCommand {
        program: "/bin/sh".into(),
        args: vec!["-c".into(), "true".into()],
        cwd: scene.ws.clone(),
        workspace_root: scene.ws.clone(),
        env: BTreeMap::new(),
    };
    let err = sandbox
        .confine(&command, &SandboxPolicy::default())
        .unwrap_err();
    assert_eq!(
        err.0,
        "sandbox: this program does not call clawloop_sandbox::exec_if_requested() first in \
         main, so commands cannot be confined; call it, or use --sandbox off"
    );
}

#[test]
fn a_backend_that_cannot_work_fails_closed_naming_the_fix() {
    // A helper that is not one: the probe gets no answer.
    let sandbox = LinuxSandbox::new()
        .with_helper("/bin/true")
        .with_backend(Backend::Landlock);
    let err = sandbox.backend(&SandboxPolicy::default()).unwrap_err();
    assert!(
        err.0.starts_with(
            "sandbox: workspace-write needs the landlock backend; it does not work here\n  landlock: "
        ),
        "{err}"
    );
    assert!(
        err.0
            .ends_with("\n  install bubblewrap / allow user namespaces, or use --sandbox off")
    );
}

/// The extra wall time of `true` under each backend (printed; run with --nocapture).
#[test]
fn overhead_of_a_trivial_command() {
    let scene = Scene::new();
    let policy = scene.policy(SandboxMode::WorkspaceWrite, false);
    let rounds = 20;
    let time = |f: &dyn Fn()| {
        let start = Instant::now();
        for _ in 0..rounds {
            f();
        }
        start.elapsed() / rounds
    };
    let off = time(&|| {
        Command::new("/bin/sh")
            .args(["-c", "true"])
            .status()
            .unwrap();
    });
    println!("sandbox overhead of `sh -c true`: off {off:?}");
    for backend in [Backend::Landlock, Backend::Bwrap] {
        if !usable(backend) {
            continue;
        }
        let per = time(&|| {
            let ran = run(backend, &scene, &policy, "true");
            assert_eq!(ran.code, Some(0));
        });
        println!(
            "  {}: {per:?} ({:?} extra)",
            backend.name(),
            per.saturating_sub(off)
        );
    }
}
