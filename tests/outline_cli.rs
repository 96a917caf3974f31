//! `toolcap outline` and `toolcap langs` as a user runs them.

use assert_cmd::Command;

fn toolcap() -> Command {
    Command::cargo_bin("toolcap").expect("binary")
}

#[test]
fn langs_lists_every_compiled_language_with_its_query() {
    let out = toolcap().arg("langs").output().expect("run");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let mut lines = text.lines();
    let header = lines.next().expect("header");
    assert!(header.starts_with("language"), "{header}");
    assert!(header.trim_end().ends_with("query"), "{header}");
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), toolcap::Language::all().len());
    for (row, lang) in rows.iter().zip(toolcap::Language::all()) {
        assert!(row.starts_with(lang.name()), "{row}");
        for q in lang.query_files() {
            assert!(row.contains(q), "{row} lacks {q}");
        }
    }
}

#[cfg(feature = "lang-go")]
#[test]
fn outline_json_says_what_it_covers() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/outline_samples");
    let out = toolcap()
        .args(["outline", "--json", &format!("{dir}/sample.go")])
        .output()
        .expect("run");
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["language"], "go");
    assert_eq!(v["lines"], 32);
    assert_eq!(v["partial"], false);
    assert_eq!(v["covered_lines"], 32);
    assert_eq!(v["stopped_by"], serde_json::Value::Null);
    assert_eq!(v["syntax_errors"], false);
    let start = &v["symbols"][8];
    assert_eq!(start["kind"], "method");
    assert_eq!(start["name"], "Start");
    assert_eq!(start["parent"], "Server");
    assert_eq!(start["depth"], 0);
    assert_eq!(start["line"], 23);
    assert_eq!(start["end_line"], 26);

    // The text names the receiver.
    let out = toolcap()
        .args(["outline", &format!("{dir}/sample.go")])
        .output()
        .expect("run");
    let text = String::from_utf8(out.stdout).expect("utf-8");
    assert!(
        text.contains("\nmethod Server.Start (lines 23-26)\n"),
        "{text}"
    );
}

#[cfg(feature = "lang-c")]
#[test]
fn a_size_cap_makes_a_partial_outline_that_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("many.c");
    let body: String = (1..=2000)
        .map(|i| format!("int f{i}(void)\n{{\n    return {i};\n}}\n\n"))
        .collect();
    std::fs::write(&path, &body).expect("write");
    let out = toolcap()
        .args(["outline", "--max-bytes", "1000", "--budget-ms", "0"])
        .arg(&path)
        .output()
        .expect("run");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let first = text.lines().next().expect("first line");
    // The first 29 functions (5 lines each) take 968 bytes, 30 would take
    // 1,002: the cap keeps lines 1-145.
    assert!(
        first.ends_with(
            "c, 10,000 lines, 29 symbols (partial: lines 1-145 of 10,000; the size cap stopped it)"
        ),
        "{first}"
    );
    assert!(text.contains("\nfunction f29 (lines 141-144)\n"), "{text}");
    assert!(!text.contains("function f30 "), "{text}");
}

/// `toolcap outline` on a text format: by `--lang` (any name the format
/// goes by) or by the file name, the non-code outline; `--json` too.
#[test]
fn outline_lists_text_formats() {
    let dir = tempfile::tempdir().expect("tempdir");
    let md = dir.path().join("notes.txt");
    std::fs::write(
        &md,
        "# Install\n\nrun it\n\n## From source\n\ncargo build\n\n# Use\n",
    )
    .expect("write");
    for lang in ["markdown", "md"] {
        let out = toolcap()
            .args(["outline", "--lang", lang])
            .arg(&md)
            .output()
            .expect("run");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).expect("utf-8");
        assert_eq!(
            text,
            format!(
                "{}: markdown, 9 lines\nHeadings (3)\n# Install (lines 1-8)\n  ## From source (lines 5-8)\n# Use (lines 9-9)\n",
                md.display()
            )
        );
    }
    let json = dir.path().join("config.json");
    std::fs::write(&json, "{\"name\": \"x\", \"deps\": [1, 2, 3]}\n").expect("write");
    let out = toolcap()
        .args(["outline", "--json"])
        .arg(&json)
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["format"], "json");
    assert_eq!(v["lines"], 1);
    assert_eq!(v["title"], "JSON structure (to depth 3)");
    let entries: Vec<&str> = v["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|e| e.as_str())
        .collect();
    assert_eq!(
        entries,
        [
            "- object (2 keys)",
            "  - \"name\": string (1 char)",
            "  - \"deps\": array[3] of number"
        ]
    );
    // Neither a code language nor a text format: the error names both lists.
    let plain = dir.path().join("plain.txt");
    std::fs::write(&plain, "just words\n").expect("write");
    let out = toolcap().arg("outline").arg(&plain).output().expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("or a text format: markdown, json, yaml"),
        "{err}"
    );
}

/// A C++ method defined after its class inside a namespace is listed under
/// the namespace and names its class, as one defined at file level does.
#[cfg(feature = "lang-cpp")]
#[test]
fn outline_names_the_class_of_a_method_defined_in_a_namespace() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("status.cc");
    std::fs::write(
        &path,
        "namespace leveldb {\nclass Status {\n  Status();\n};\ninline Status::Status() {}\n}  // namespace leveldb\nvoid Env::Run() {}\n",
    )
    .expect("write");
    let out = toolcap().arg("outline").arg(&path).output().expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let body: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(
        body,
        [
            "module leveldb (lines 1-6)",
            "  class Status (lines 2-4)",
            "    method Status (lines 3-3)",
            "  method Status.Status (lines 5-5)",
            "method Env.Run (lines 7-7)",
        ]
    );
}
