//! A project directory (with a `.git`, so toolcap takes it for a project root) and
//! a state directory of its own, for the tests of `toolcap run` and the hooks: the
//! per-project store goes under the sandbox's `XDG_STATE_HOME`, never the user's.

use std::ffi::OsStr;
use std::path::PathBuf;
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use tempfile::TempDir;

pub struct Sandbox {
    _tmp: TempDir,
    /// The project directory (commands run here).
    pub proj: PathBuf,
    /// `XDG_STATE_HOME` (`HOME` is its `home/`).
    pub state: PathBuf,
}

pub fn sandbox() -> Sandbox {
    let tmp = tempfile::tempdir().expect("temp dir");
    let proj = tmp.path().join("proj");
    std::fs::create_dir_all(proj.join(".git")).expect("project dir");
    let state = tmp.path().join("state");
    Sandbox {
        proj,
        state,
        _tmp: tmp,
    }
}

impl Sandbox {
    /// `program` in the project, with the sandbox's state and home and none of
    /// toolcap's variables from the caller's environment.
    pub fn cmd(&self, program: impl AsRef<OsStr>) -> Command {
        let mut c = Command::new(program);
        self.isolate(&mut c);
        c
    }

    /// The `toolcap` binary under test, isolated as [`Sandbox::cmd`].
    pub fn toolcap(&self) -> Command {
        let mut c = Command::cargo_bin("toolcap").expect("binary builds");
        self.isolate(&mut c);
        c
    }

    fn isolate(&self, c: &mut Command) {
        c.current_dir(&self.proj)
            .env("XDG_STATE_HOME", &self.state)
            .env("HOME", self.state.join("home"))
            .env_remove("TOOLCAP_STORE")
            .env_remove("TOOLCAP_CONFIG")
            .env_remove("TOOLCAP_DIALOG");
    }
}
