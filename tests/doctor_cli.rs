//! `toolcap doctor`: per agent installed where, active, program found; the
//! project's store writable; the last cut result.

use std::path::Path;
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use serde_json::Value;

fn toolcap(home: &Path, state: &Path, dir: &Path, args: &[&str]) -> std::process::Output {
    Command::cargo_bin("toolcap")
        .expect("binary builds")
        .current_dir(dir)
        .env("HOME", home)
        .env("XDG_STATE_HOME", state)
        .env_remove("CODEX_HOME")
        .env_remove("XDG_CONFIG_HOME")
        .args(args)
        .output()
        .expect("toolcap runs")
}

fn doctor(home: &Path, state: &Path, proj: &Path) -> Value {
    let out = toolcap(home, state, proj, &["doctor", "--json"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn agent<'a>(v: &'a Value, name: &str) -> &'a Value {
    v["agents"]
        .as_array()
        .and_then(|a| a.iter().find(|x| x["agent"] == name))
        .expect("the agent's entry")
}

#[test]
fn doctor_tells_installed_active_missing_and_untrusted() {
    let tmp = tempfile::tempdir().expect("tmp");
    let (home, state, proj) = (
        tmp.path().join("h"),
        tmp.path().join("s"),
        tmp.path().join("p"),
    );
    for d in [&home, &state, &proj] {
        std::fs::create_dir_all(d).expect("mkdir");
    }
    let v = doctor(&home, &state, &proj);
    assert_eq!(agent(&v, "claude-code")["installed"], false);
    assert_eq!(v["store"]["writable"], true);
    assert!(v["store"]["last_cut"].is_null());

    // a copy of toolcap, installed for Claude Code and Codex
    let copy = tmp.path().join("bin/toolcap");
    std::fs::create_dir_all(copy.parent().expect("dir")).expect("mkdir");
    std::fs::copy(env!("CARGO_BIN_EXE_toolcap"), &copy).expect("copy");
    let p = proj.to_str().expect("utf-8");
    let c = copy.to_str().expect("utf-8");
    for a in ["claude-code", "codex"] {
        let out = toolcap(
            &home,
            &state,
            &proj,
            &["install", a, "--project", p, "--toolcap", c],
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        if a == "codex" {
            // install says the one step Codex leaves to the user
            assert!(String::from_utf8_lossy(&out.stdout).contains("Trust all and continue"));
        }
    }
    let v = doctor(&home, &state, &proj);
    let cc = agent(&v, "claude-code");
    assert_eq!(cc["installed"], true);
    assert_eq!(cc["active"], true, "{cc}");
    assert_eq!(cc["programs"][0]["path"], c);
    assert_eq!(cc["programs"][0]["found"], true);
    let cx = agent(&v, "codex");
    assert_eq!(cx["active"], false, "untrusted hooks: {cx}");
    assert!(
        cx["note"].as_str().is_some_and(|n| n.contains("/hooks")),
        "{cx}"
    );

    // the program removed: installed, not active, the program missing
    std::fs::remove_file(&copy).expect("rm");
    let v = doctor(&home, &state, &proj);
    let cc = agent(&v, "claude-code");
    assert_eq!(cc["active"], false);
    assert_eq!(cc["programs"][0]["found"], false);

    // a store that cannot be written is said so
    let out = toolcap(&home, Path::new("/proc/nope"), &proj, &["doctor", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["store"]["writable"], false, "{v}");
}
