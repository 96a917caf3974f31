//! `TOOL_RESULT_BYPASS_TOOLS` with a name that is not UTF-8 (issue 28, item 18): the
//! other names are still bypassed, and the bad one is named in a warning.
#![cfg(unix)]

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::process::Command;

#[test]
fn a_non_utf8_name_costs_only_itself() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("big.txt");
    let text: String = (1..=2000)
        .map(|i| format!("row {i} of the export\n"))
        .collect();
    std::fs::write(&input, &text).unwrap();
    let env = OsString::from_vec(b"export_rows, bad\xffname ,other".to_vec());
    let out = Command::new(env!("CARGO_BIN_EXE_toolcap"))
        .args(["process", "--tool", "export_rows"])
        .arg(&input)
        .env("TOOL_RESULT_BYPASS_TOOLS", env)
        .env_remove("TOOLCAP_CONFIG")
        .env_remove("TOOLCAP_STORE")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        out.stdout,
        text.as_bytes(),
        "export_rows is bypassed: passed through whole"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("TOOL_RESULT_BYPASS_TOOLS: the name \"bad\u{fffd}name\" is not valid UTF-8 and is skipped; the other names are used"),
        "{err}"
    );
    // with only valid names, nothing is said
    let out = Command::new(env!("CARGO_BIN_EXE_toolcap"))
        .args(["process", "--tool", "other"])
        .arg(&input)
        .env("TOOL_RESULT_BYPASS_TOOLS", "export_rows,other")
        .env_remove("TOOLCAP_CONFIG")
        .env_remove("TOOLCAP_STORE")
        .output()
        .unwrap();
    assert_eq!(out.stdout, text.as_bytes());
    assert!(out.stderr.is_empty());
}
