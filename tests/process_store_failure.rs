//! `toolcap process` when the store cannot keep the result (issue 28, item 16): the
//! model still gets the capped view, without the claim that the result is stored;
//! the store error goes to stderr; the exit status is 1 only with --require-store.
#![cfg(all(feature = "sqlite", unix))]

use std::process::{Command, Output, Stdio};

/// A 1 MB shell result of numbered lines.
fn big_result() -> String {
    (1..=20_000)
        .map(|i| format!("line {i}: compiling module number {i} of the build\n"))
        .collect()
}

/// `toolcap process --tool bash --id call_1 --store STORE ARGS... FILE` with the file
/// size limit (`ulimit -f`, in KiB) set and SIGXFSZ ignored, so a write past it
/// fails with EFBIG as on a full disk.
fn process_with_file_limit(
    store: &std::path::Path,
    input: &std::path::Path,
    kib: u64,
    extra: &str,
) -> Output {
    let script = format!(
        "trap '' XFSZ; ulimit -f {kib}; exec \"$0\" process --tool bash --id call_1 --store \"$1\" {extra} \"$2\""
    );
    Command::new("bash")
        .args(["-c", &script, env!("CARGO_BIN_EXE_toolcap")])
        .arg(store)
        .arg(input)
        .stdin(Stdio::null())
        .output()
        .expect("run toolcap process under bash")
}

fn check_view(out: &Output) -> String {
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        text.contains("--- Recovery Options ---"),
        "the capped view is printed: {text:?}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.len() < 6000, "{} chars printed", text.len());
    assert!(text.contains("line 20000: compiling"), "{text}");
    assert!(
        !text.contains("The full result is stored"),
        "no claim that the result is stored: {text}"
    );
    assert!(!text.contains("call_1"), "{text}");
    text
}

#[test]
fn a_store_that_cannot_grow_still_gives_the_view() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.db");
    let input = dir.path().join("out.txt");
    std::fs::write(&input, big_result()).unwrap();
    // the store exists (created by a small result) but cannot take a 1 MB one
    let small = dir.path().join("small.txt");
    std::fs::write(&small, "ok\n").unwrap();
    let made = Command::new(env!("CARGO_BIN_EXE_toolcap"))
        .args([
            "process", "--tool", "bash", "--id", "call_0", "--save", "all", "--store",
        ])
        .arg(&store)
        .arg(&small)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let limit = std::fs::metadata(&store).unwrap().len() / 1024 + 64;

    let out = process_with_file_limit(&store, &input, limit, "");
    check_view(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("toolcap process: the full result was not kept:")
            && err.contains("pass --require-store to exit 1"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(0), "{err}");

    let out = process_with_file_limit(&store, &input, limit, "--require-store");
    check_view(&out);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the full result was not kept:"), "{err}");

    // the JSON report says why
    let out = process_with_file_limit(&store, &input, limit, "--json");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    assert_eq!(v["truncated"], true);
    assert!(v["store_error"].is_string(), "{v}");
    assert!(v.get("stored").is_none());
}

#[cfg(feature = "postgres")]
#[test]
fn a_database_that_is_down_still_gives_the_view() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("out.txt");
    std::fs::write(&input, big_result()).unwrap();
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_toolcap"))
            .args([
                "process",
                "--tool",
                "bash",
                "--id",
                "call_1",
                "--store",
                "postgres://toolcap@127.0.0.1:1/none",
            ])
            .args(extra)
            .arg(&input)
            .output()
            .unwrap()
    };
    let out = run(&[]);
    check_view(&out);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("the full result was not kept"));
    let out = run(&["--require-store"]);
    check_view(&out);
    assert_eq!(out.status.code(), Some(1));
}
