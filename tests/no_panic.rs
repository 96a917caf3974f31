//! The binary on the hostile corpus: no panic reaches the user, and every failure
//! exits non-zero with a message that names the thing and the fix.

use crate::corpus;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use assert_cmd::Command;

fn toolcap() -> Command {
    let mut c = Command::cargo_bin("toolcap").expect("binary builds");
    c.env_remove("TOOL_RESULT_BYPASS_TOOLS")
        .env_remove("TOOLCAP_CONFIG");
    c
}

/// Run and return (exit code, stdout, stderr); stderr never mentions a panic.
fn run(mut c: Command) -> (i32, Vec<u8>, String) {
    let out = c.output().expect("runs");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{c:?} panicked: {err}"
    );
    (out.status.code().unwrap_or(-1), out.stdout, err)
}

const TOOLS: [&str; 8] = [
    "read_file",
    "grep_content",
    "shell",
    "web_search",
    "web_fetch",
    "glob_files",
    "mcp__x__y",
    "get_continuation",
];

#[test]
fn odd_results_through_every_command_never_panic() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, bytes) in corpus::odd_results() {
        let f = dir.path().join("input.dat");
        std::fs::write(&f, &bytes).expect("write");
        let mut c = toolcap();
        c.arg("preview").arg(&f);
        let (code, out, _) = run(c);
        assert_eq!(code, 0, "{name}: preview");
        assert!(
            bytes.is_empty() || !out.is_empty(),
            "{name}: preview printed nothing"
        );
        for tool in TOOLS {
            let mut c = toolcap();
            c.args([
                "process",
                "--tool",
                tool,
                "--json",
                "--arg",
                "path=input.dat",
            ])
            .write_stdin(bytes.clone());
            let (code, out, _) = run(c);
            assert_eq!(code, 0, "{name}: process --tool {tool}");
            let v: serde_json::Value = serde_json::from_slice(&out).expect("one JSON object");
            assert_eq!(v["original"]["bytes"].as_u64().map(|_| ()), Some(()));
        }
        for lang in ["rust", "python"] {
            let mut c = toolcap();
            c.arg("outline").arg(&f).args(["--lang", lang, "--json"]);
            let (code, _, _) = run(c);
            assert_eq!(code, 0, "{name}: outline --lang {lang}");
        }
        let mut c = toolcap();
        c.arg("outline").arg(&f);
        let (code, _, err) = run(c);
        assert!(
            code == 0 || (code == 2 && err.contains("pass --lang")),
            "{name}: outline: {code} {err}"
        );
    }
}

#[test]
fn hostile_values_as_names_paths_and_options_never_panic() {
    let dir = tempfile::tempdir().expect("tempdir");
    let input = dir.path().join("in.txt");
    std::fs::write(&input, "x\n".repeat(3000)).expect("write");
    for raw in corpus::values() {
        if raw.contains(&0) {
            continue; // no argv element can hold a NUL
        }
        let v = OsStr::from_bytes(&raw);
        let shown: String = String::from_utf8_lossy(&raw).chars().take(40).collect();
        // as a tool name, an id and an argument key
        let mut c = toolcap();
        let opt = |name: &str| {
            let mut a = format!("--{name}=").into_bytes();
            a.extend(&raw);
            std::ffi::OsString::from(OsStr::from_bytes(&a))
        };
        c.args(["process", "--json"])
            .arg(opt("tool"))
            .arg("--arg")
            .arg({
                let mut a = b"k".to_vec();
                a.extend(&raw);
                a.push(b'=');
                a.extend(&raw);
                std::ffi::OsString::from(OsStr::from_bytes(&a))
            })
            .arg(&input);
        let (code, _, err) = run(c);
        if std::str::from_utf8(&raw).is_ok() {
            assert_eq!(code, 0, "{shown:?}: {err}");
        } else {
            assert_eq!(code, 2, "{shown:?}: non-UTF-8 arguments are a usage error");
            assert!(err.contains("UTF-8"), "{err}");
        }
        // as a tool call id: taken, or refused with the rule it breaks
        let mut c = toolcap();
        c.args(["process", "--tool", "shell"])
            .arg(opt("id"))
            .arg(&input);
        let (code, _, err) = run(c);
        assert!(
            code == 0
                || (code == 2 && err.contains("--id") && err.contains("pass the id"))
                || (code == 2 && err.contains("invalid UTF-8")),
            "{shown:?}: {code} {err}"
        );
        // as a language
        let mut c = toolcap();
        c.arg("outline").arg(&input).arg(opt("lang"));
        let (code, _, err) = run(c);
        if code != 0 {
            assert_eq!(code, 2, "{shown:?}");
            assert!(
                err.contains("unknown language") && err.contains("python") || err.contains("UTF-8"),
                "{err}"
            );
        }
        // as a missing input file and a missing config file
        let missing = dir.path().join(v);
        let mut c = toolcap();
        c.arg("preview").arg(&missing);
        let (code, _, err) = run(c);
        if !missing.exists() {
            assert_eq!(code, 1, "{shown:?}: {err}");
            assert!(err.contains("cannot read the input") && err.contains("pass an existing"));
        }
        let mut c = toolcap();
        c.arg("config").arg("--config").arg(&missing);
        let (code, _, err) = run(c);
        if !missing.exists() {
            assert_eq!(code, 2, "{shown:?}: {err}");
            assert!(err.contains("fix:"), "{err}");
        }
    }
}

/// Every user-facing failure: non-zero exit, a message naming the file, key or
/// argument, and what to do about it.
#[test]
fn every_failure_names_the_thing_and_the_fix() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let write = |name: &str, body: &[u8]| {
        let p = d.join(name);
        std::fs::write(&p, body).expect("write");
        p
    };
    let bad_toml = write("bad.toml", b"[tools.shell\nthreshold = 9000\n");
    let not_utf8 = write("latin1.toml", b"# caf\xe9\nmax_kept_chars = 100\n");
    let wrong_type = write("type.toml", b"max_kept_chars = \"lots\"\n");
    let unknown_family = write(
        "family.toml",
        b"[tools.mine]\nfamily = \"database\"\nnames = [\"db_*\"]\n",
    );
    let bad_unit = write("unit.toml", b"[tools.shell]\nunit = \"words\"\n");
    let bad_encoding = write(
        "enc.toml",
        b"[tools.shell]\nunit = \"tokens\"\nencoding = \"gpt2\"\n",
    );
    let input = write("in.py", b"def f():\n    pass\n");
    let unknown_ext = write("notes.xyz", b"just some words\n");
    let cases: Vec<(Vec<&OsStr>, i32, Vec<String>)> = vec![
        (
            vec!["config".as_ref(), "--config".as_ref(), bad_toml.as_os_str()],
            2,
            vec![bad_toml.display().to_string(), "fix:".into()],
        ),
        (
            vec!["config".as_ref(), "--config".as_ref(), not_utf8.as_os_str()],
            2,
            vec![not_utf8.display().to_string(), "fix:".into()],
        ),
        (
            vec![
                "config".as_ref(),
                "--config".as_ref(),
                wrong_type.as_os_str(),
            ],
            2,
            vec!["max_kept_chars".into(), "fix:".into()],
        ),
        (
            vec![
                "config".as_ref(),
                "--config".as_ref(),
                unknown_family.as_os_str(),
            ],
            2,
            vec!["tools.mine.family".into(), "fix:".into()],
        ),
        (
            vec!["config".as_ref(), "--config".as_ref(), bad_unit.as_os_str()],
            2,
            vec!["tools.shell.unit".into(), "fix:".into()],
        ),
        (
            vec![
                "config".as_ref(),
                "--config".as_ref(),
                bad_encoding.as_os_str(),
            ],
            2,
            vec!["tools.shell.encoding".into(), "fix:".into()],
        ),
        (
            vec!["config".as_ref(), "--config".as_ref(), d.as_os_str()],
            2,
            vec![d.display().to_string(), "fix:".into()],
        ),
        (
            vec!["preview".as_ref(), d.as_os_str()],
            1,
            vec![
                d.display().to_string(),
                "pass an existing, readable file".into(),
            ],
        ),
        (
            vec![
                "process".as_ref(),
                "--tool".as_ref(),
                "x".as_ref(),
                d.as_os_str(),
            ],
            1,
            vec![
                d.display().to_string(),
                "pass an existing, readable file".into(),
            ],
        ),
        (
            vec![
                "outline".as_ref(),
                input.as_os_str(),
                "--lang".as_ref(),
                "cobol".as_ref(),
            ],
            2,
            vec!["cobol".into(), "use one of: rust, python".into()],
        ),
        (
            vec!["outline".as_ref(), unknown_ext.as_os_str()],
            2,
            vec![unknown_ext.display().to_string(), "pass --lang NAME".into()],
        ),
        (
            vec![
                "process".as_ref(),
                "--tool".as_ref(),
                "x".as_ref(),
                "--args-json".as_ref(),
                "{nope".as_ref(),
                input.as_os_str(),
            ],
            2,
            vec!["--args-json".into(), "pass an object like".into()],
        ),
        (
            vec![
                "process".as_ref(),
                "--tool".as_ref(),
                "x".as_ref(),
                "--arg".as_ref(),
                "noequals".as_ref(),
                input.as_os_str(),
            ],
            2,
            vec!["noequals".into(), "expected KEY=VALUE".into()],
        ),
        (
            vec![
                "process".as_ref(),
                "--tool".as_ref(),
                OsStr::from_bytes(b"\xff\xfe"),
                input.as_os_str(),
            ],
            2,
            vec!["UTF-8".into()],
        ),
        (
            vec!["process".as_ref(), "--frobnicate".as_ref()],
            2,
            vec!["--frobnicate".into(), "--help".into()],
        ),
        (
            // (a tool named `-n` is a name like any other: `--tool -n` works)
            vec!["process".as_ref(), "--tool".as_ref()],
            2,
            vec!["'--tool <TOOL>'".into(), "--help".into()],
        ),
        (
            vec!["summon".as_ref()],
            2,
            vec!["summon".into(), "--help".into()],
        ),
    ];
    for (args, want, needles) in cases {
        let mut c = toolcap();
        c.args(&args).write_stdin("");
        let (code, _, err) = run(c);
        assert_eq!(code, want, "{args:?}: {err}");
        for n in needles {
            assert!(err.contains(&n), "{args:?}: {n:?} not in: {err}");
        }
    }
    // the result store
    let bad_db = write("bad.db", b"not a database at all\n");
    let log_text: String = (0..2000).map(|i| format!("step {i} ok\n")).collect();
    let log = write("log.txt", log_text.as_bytes());
    let ok_db = d.join("ok.db");
    let mut c = toolcap();
    c.args(["process", "--tool", "shell", "--id", "c1", "--store"])
        .arg(&ok_db)
        .arg(&log);
    assert_eq!(run(c).0, 0);
    let store_cases: Vec<(Vec<&OsStr>, i32, Vec<String>)> = vec![
        (
            vec![
                "process".as_ref(),
                "--tool".as_ref(),
                "shell".as_ref(),
                "--id".as_ref(),
                "c1".as_ref(),
                "--store".as_ref(),
                bad_db.as_os_str(),
                log.as_os_str(),
            ],
            1,
            vec![
                bad_db.display().to_string(),
                "fix:".into(),
                "move it away".into(),
            ],
        ),
        (
            vec![
                "continue".as_ref(),
                "c1".as_ref(),
                "--store".as_ref(),
                bad_db.as_os_str(),
            ],
            1,
            vec![bad_db.display().to_string(), "fix:".into()],
        ),
        (
            vec![
                "process".as_ref(),
                "--tool".as_ref(),
                "shell".as_ref(),
                "--id".as_ref(),
                "c1".as_ref(),
                "--store".as_ref(),
                d.as_os_str(),
                log.as_os_str(),
            ],
            1,
            vec![
                d.display().to_string(),
                "it is a directory".into(),
                "fix:".into(),
            ],
        ),
        (
            vec![
                "process".as_ref(),
                "--tool".as_ref(),
                "shell".as_ref(),
                "--store".as_ref(),
                ok_db.as_os_str(),
                log.as_os_str(),
            ],
            2,
            vec!["--store needs --id".into()],
        ),
        (
            vec![
                "continue".as_ref(),
                "nope".as_ref(),
                "--store".as_ref(),
                ok_db.as_os_str(),
            ],
            1,
            vec![
                "\"nope\"".into(),
                ok_db.display().to_string(),
                "check the id".into(),
            ],
        ),
        (
            vec![
                "continue".as_ref(),
                "c1".as_ref(),
                "--offset".as_ref(),
                "99999999".as_ref(),
                "--store".as_ref(),
                ok_db.as_os_str(),
            ],
            1,
            vec![
                "--offset".into(),
                "\"c1\"".into(),
                "pass a smaller offset".into(),
            ],
        ),
        (
            vec![
                "fetch".as_ref(),
                "c1".as_ref(),
                "--limit".as_ref(),
                "-5".as_ref(),
                "--store".as_ref(),
                ok_db.as_os_str(),
            ],
            2,
            vec!["-5".into()],
        ),
        (
            vec![
                "show".as_ref(),
                "c1".as_ref(),
                "--dialog".as_ref(),
                "a\nb".as_ref(),
                "--store".as_ref(),
                ok_db.as_os_str(),
            ],
            2,
            vec!["--dialog".into(), "pass the id".into()],
        ),
        (
            vec![
                "prune".as_ref(),
                "--older-than".as_ref(),
                "soon".as_ref(),
                "--store".as_ref(),
                ok_db.as_os_str(),
            ],
            2,
            vec!["soon".into()],
        ),
    ];
    for (args, want, needles) in store_cases {
        let mut c = toolcap();
        c.args(&args).write_stdin("");
        let (code, _, err) = run(c);
        assert_eq!(code, want, "{args:?}: {err}");
        for n in needles {
            assert!(err.contains(&n), "{args:?}: {n:?} not in: {err}");
        }
    }
    // the config file named by the environment
    let mut c = toolcap();
    c.env("TOOLCAP_CONFIG", Path::new("/nonexistent/toolcap.toml"))
        .args(["process", "--tool", "x"])
        .write_stdin("hi");
    let (code, _, err) = run(c);
    assert_eq!(code, 2);
    assert!(
        err.contains("/nonexistent/toolcap.toml") && err.contains("TOOLCAP_CONFIG"),
        "{err}"
    );
}
