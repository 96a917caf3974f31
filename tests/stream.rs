//! Processing a result from a stream with bounded memory gives exactly what
//! processing it in memory gives.

use std::path::Path;

use serde_json::json;
use toolcap::{Config, ToolCall, ToolResultProcessor};

use crate::support::trickle;
use trickle::Trickle;

fn both(text: &str, chunk: usize) {
    let p = ToolResultProcessor::new(Config::defaults());
    let args = json!({"command": "make test"});
    let call = ToolCall::new("bash", &args);
    let mem = p.process_call(&call, text);
    let (st, raw) = p
        .process_stream(
            &call,
            Trickle {
                data: text.as_bytes(),
                n: chunk,
            },
        )
        .unwrap();
    assert_eq!(st.text, mem.text, "chunk {chunk}");
    assert_eq!(
        serde_json::to_value(&st).unwrap(),
        serde_json::to_value(&mem).unwrap(),
        "chunk {chunk}"
    );
    if !mem.truncated && mem.reason != toolcap::Reason::Cleaned {
        assert_eq!(raw.as_deref(), Some(text.as_bytes()));
    }
}

/// A big synthetic build log: colour codes, progress lines, repeated lines,
/// errors (with their context) scattered through the middle, CRLF in places.
fn log(lines: usize) -> String {
    let mut t = String::new();
    for i in 0..lines {
        match i % 9973 {
            0 => t.push_str(&format!("\x1b[1m\x1b[31merror[E0{}]\x1b[0m: mismatched types\n   --> src/lib.rs:{i}:5\n", i % 1000)),
            17 => t.push_str(&format!("   Building [=====>    ] {i}/99\r   Building [=======>  ] {i}/99\r\x1b[K   Compiling crate{i} v0.1.0\n")),
            500..=540 => t.push_str("warning: unused import: `std::fmt`\n"),
            700 => t.push_str("thread 'main' panicked at src/main.rs:3:5:\r\n"),
            _ => t.push_str(&format!("   Compiling crate{i} v0.{}.{}\n", i % 7, i % 13)),
        }
    }
    t.push_str("error: could not compile `app` (bin \"app\") due to 3 previous errors");
    t
}

#[test]
fn streamed_equals_in_memory_on_real_fixtures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/shell");
    for f in std::fs::read_dir(root).unwrap() {
        let f = f.unwrap().path();
        if f.to_string_lossy().ends_with(".call.json") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for chunk in [1, 7, 4096] {
            both(&text, chunk);
        }
    }
}

#[test]
fn streamed_equals_in_memory_on_a_large_log() {
    let t = log(120_000);
    assert!(t.len() > 3_000_000);
    for chunk in [997, 1 << 16] {
        both(&t, chunk);
    }
}

#[test]
fn streamed_equals_in_memory_on_giant_lines() {
    let giant = "x".repeat(9 << 20);
    let t = format!("start\n{giant}\nerror: end\n");
    both(&t, 1 << 20);
    let t = format!("{giant}{giant}");
    both(&t, 1 << 20);
}

#[test]
fn small_results_pass_through_byte_for_byte() {
    let p = ToolResultProcessor::new(Config::defaults());
    let bytes = b"ok \xff\xfe not utf-8\n".to_vec();
    let args = json!({});
    let (out, raw) = p
        .process_stream(&ToolCall::new("bash", &args), &bytes[..])
        .unwrap();
    assert!(!out.truncated);
    assert_eq!(raw.unwrap(), bytes);
}

/// The CLI maps a large input file instead of reading it: the report is the
/// one it gives for the same bytes on stdin, and the file's bytes past the
/// mapped windows (16 MiB each) are all seen.
#[test]
fn a_mapped_file_gives_what_stdin_gives() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let t = log(700_000);
    assert!(t.len() > 17 << 20, "more than one mapped window");
    let dir = std::env::temp_dir().join(format!("toolcap-mapped-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("build.log");
    std::fs::write(&file, &t).unwrap();
    let bin = env!("CARGO_BIN_EXE_toolcap");
    let args = [
        "process",
        "--tool",
        "shell",
        "--arg",
        "command=make",
        "--json",
    ];
    let from_file = Command::new(bin).args(args).arg(&file).output().unwrap();
    let mut child = Command::new(bin)
        .args(args)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(t.as_bytes()).unwrap();
    let from_stdin = child.wait_with_output().unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert!(from_file.status.success() && from_stdin.status.success());
    assert_eq!(
        String::from_utf8_lossy(&from_file.stdout),
        String::from_utf8_lossy(&from_stdin.stdout)
    );
    let report: serde_json::Value = serde_json::from_slice(&from_file.stdout).unwrap();
    assert_eq!(report["original"]["bytes"], t.len());
    assert_eq!(report["original"]["lines"], t.lines().count());
}

/// A large result with invalid UTF-8 streamed reports what processing the same
/// bytes in memory reports: characters and lines of the lossy decoding (what the
/// model and the store see), and the bytes read (issue 28 item 9).
#[test]
fn invalid_utf8_streamed_counts_the_decoded_text() {
    let mut bytes = Vec::new();
    for i in 0..20_000 {
        bytes.extend_from_slice(format!("line {i} ").as_bytes());
        if i % 1000 == 7 {
            bytes.extend_from_slice(b"bad \xff\xfe bytes, error: here");
        }
        bytes.push(b'\n');
    }
    let text = String::from_utf8_lossy(&bytes).into_owned();
    assert_ne!(text.len(), bytes.len());
    let p = ToolResultProcessor::new(Config::defaults());
    let args = json!({"command": "make"});
    let call = ToolCall::new("bash", &args);
    let (mem, decoded) = p.process_bytes(&call, &bytes);
    assert_eq!(decoded, text);
    assert_eq!(mem.original.bytes, bytes.len());
    assert_eq!(mem.original.chars, text.chars().count());
    for n in [3, 4096, 1 << 20] {
        let (st, _) = p
            .process_stream(&call, Trickle { data: &bytes, n })
            .unwrap();
        assert_eq!(
            serde_json::to_value(&st).unwrap(),
            serde_json::to_value(&mem).unwrap(),
            "reads of {n} bytes"
        );
    }
}

/// A mapped input file truncated by another process while it is being read
/// makes toolcap say so and exit 1, not die of SIGBUS.
#[cfg(unix)]
#[test]
fn a_file_truncated_while_mapped_is_an_error_not_a_crash() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Stdio};
    let dir = std::env::temp_dir().join(format!("toolcap-truncated-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("growing.log");
    // a sparse file: 1 GB of lines that cost no disk ("\n" every 64 bytes would;
    // zeros are one giant line, scanned at memory speed for about a second)
    let f = std::fs::File::create(&file).unwrap();
    f.set_len(1 << 30).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_toolcap"))
        .args(["process", "--tool", "shell", "--arg", "command=make"])
        .arg(&file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(150));
    f.set_len(0).unwrap();
    let out = child.wait_with_output().unwrap();
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(
        out.status.signal(),
        None,
        "killed by a signal: {:?}",
        out.status
    );
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1));
        assert!(
            err.contains("growing.log") && err.contains("shrank"),
            "{err}"
        );
    }
}
