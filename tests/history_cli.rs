//! `toolcap history`: a history read as JSON, old results masked, printed as JSON;
//! with --store the masked results are kept and `toolcap continue` reads them back.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/history/openai_chat.json"
);
const POLICY: &str = r#"{"keep_tokens": 20000, "min_prunable_tokens": 10000}"#;

fn toolcap(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_toolcap"));
    c.args(args)
        .env_remove("TOOLCAP_STORE")
        .env_remove("TOOLCAP_DIALOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let mut pipe = child.stdin.take().unwrap();
    pipe.write_all(stdin.unwrap_or_default()).unwrap();
    drop(pipe);
    child.wait_with_output().unwrap()
}

#[test]
fn masked_results_are_kept_and_read_back_through_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("h.db");
    let db = db.to_str().unwrap();
    let args = [
        "history", FIXTURE, "--policy", POLICY, "--store", db, "--dialog", "s1",
    ];
    let out = toolcap(&args, None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    // the object given comes back with its messages masked
    assert_eq!(doc["turns"], 200);
    let messages = doc["messages"].as_array().unwrap();
    let line = messages[3]["content"].as_str().unwrap();
    assert_eq!(
        line,
        "[result of shell 'du -a distutils/command | sort -n | tail -n 40' (tool_call_id \"call_000\", \
         2,048 chars, 40 lines) masked — get_continuation(tool_call_id=\"call_000\", offset=0)  \
         # read it again from the start]"
    );
    // the call it names, as the CLI runs it, gives the original back
    let original: Value = serde_json::from_str(&std::fs::read_to_string(FIXTURE).unwrap()).unwrap();
    let back = toolcap(&["show", "call_000", "--store", db, "--dialog", "s1"], None);
    assert_eq!(
        String::from_utf8_lossy(&back.stdout),
        original["messages"][3]["content"].as_str().unwrap()
    );
    // its own output, given back on stdin, comes out byte for byte
    let again = toolcap(
        &args[..1]
            .iter()
            .chain(&args[2..])
            .copied()
            .collect::<Vec<_>>(),
        Some(&out.stdout),
    );
    assert_eq!(again.stdout, out.stdout);
    // --json: the report
    let report = toolcap(&["history", FIXTURE, "--policy", POLICY, "--json"], None);
    let r: Value = serde_json::from_slice(&report.stdout).unwrap();
    assert_eq!(r["format"], "openai_chat");
    assert_eq!(r["batches"], 9);
    assert_eq!(r["masked"].as_array().unwrap().len(), 103);
}

#[test]
fn bad_input_and_policies_exit_2_naming_the_fix() {
    let out = toolcap(&["history"], Some(b"not json"));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("stdin: not JSON"));
    let out = toolcap(&["history", "--policy", r#"{"keep": 3}"#], Some(b"[]"));
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--policy: history policy: unknown field `keep`"),
        "{err}"
    );
    let out = toolcap(
        &["history"],
        Some(br#"[{"role": "tool", "tool_call_id": "a"}, 3]"#),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("message 1 is not a JSON object"));
}
