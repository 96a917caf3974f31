//! Issue 43 item 2: line-numbered reads are file reads. Every common read form
//! — `cat -n`, `nl`, `nl -ba`, `cat -n F | sed -n 'A,Bp'`, `nl -ba F | sed -n
//! 'A,Bp'`, `sed -n`, `head`, `tail -n +N`, `awk 'NR..'`, Claude Code's Read
//! (now and before 2.1), SWE-agent's `open` window and its
//! `str_replace_editor view`, opencode's read, Copilot CLI's `view`, Gemini
//! CLI's truncated `read_file` and Pi's read from an offset — of a real file
//! (Python's typing.py, clap_builder's command.rs) is outlined as the plain
//! file is: the same definitions with the same spans, in the file's own line
//! numbers (a read from line 400 lists 400-based spans), the kept part a head
//! of whole lines (never lines chosen for error words such as `raise
//! TypeError`), a read from inside the file names the definitions it starts
//! and ends inside, and the first suggestion reads the file's next lines by
//! the file's numbers, exactly as many chars as it says. The shell forms are
//! run for real; the agents' forms are printed by tests/numbered_reads.py as
//! each agent's source writes them (cited there).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use regex::Regex;
use serde_json::{Value, json};
use toolcap::outline::{Language, Symbol, outline};
use toolcap::{Config, Processed, ToolResultProcessor};

fn run(program: &str, args: &[&str]) -> String {
    let out = Command::new(program).args(args).output().unwrap();
    assert!(out.status.success(), "{program} {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// typing.py of the running Python, when there is one.
fn typing_py() -> Option<PathBuf> {
    let dir = run(
        "python3",
        &[
            "-c",
            "import sysconfig;print(sysconfig.get_paths()['stdlib'])",
        ],
    );
    Some(PathBuf::from(dir.trim()).join("typing.py")).filter(|p| p.is_file())
}

/// A real Rust file of a crate (clap_builder's command.rs, kept in fixtures/).
fn command_rs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/read_file/command.rs")
}

type Def = (String, String, usize, usize);

fn def(s: &Symbol) -> Def {
    (
        s.kind.as_str().to_string(),
        s.name.clone(),
        s.line,
        s.end_line,
    )
}

/// One form of reading lines `a..=b` of `path`: the tool, its arguments, the
/// result, and the result's row holding line `a`.
struct Read {
    form: &'static str,
    tool: &'static str,
    args: Value,
    output: String,
    first_row: usize,
    /// The last line read (opencode stops at 50 KB).
    last: usize,
}

fn q(path: &str) -> String {
    format!("'{}'", path.replace('\'', r"'\''"))
}

fn script(form: &str, path: &str, a: usize, b: usize) -> String {
    let s = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/numbered_reads.py");
    run(
        "python3",
        &[
            s.to_str().unwrap(),
            form,
            path,
            &a.to_string(),
            &b.to_string(),
        ],
    )
}

/// Every form of reading lines `a..=b` of `path` (`whole`: `b` is the file's
/// last line, and the forms that print a whole file are read too).
fn reads(path: &str, a: usize, b: usize, whole: bool) -> Vec<Read> {
    let shell = |form: &'static str, cmd: String| Read {
        form,
        tool: "bash",
        args: json!({ "command": cmd }),
        output: run("bash", &["-c", &cmd]),
        first_row: 1,
        last: b,
    };
    let f = q(path);
    let n = b + 1 - a;
    let mut v = vec![
        shell("sed -n", format!("sed -n '{a},{b}p' {f}")),
        shell("awk NR", format!("awk 'NR>={a} && NR<={b}' {f}")),
        shell("cat -n | sed", format!("cat -n {f} | sed -n '{a},{b}p'")),
        shell("nl -ba | sed", format!("nl -ba {f} | sed -n '{a},{b}p'")),
        shell("tail -n +", format!("tail -n +{a} {f} | head -n {n}")),
    ];
    // `tail -n +A F | head -n N` is a pipeline toolcap does not read: the
    // plain `tail -n +A F` when it runs to the end
    v.retain(|r| r.form != "tail -n +");
    if whole {
        v.extend([
            shell("tail -n +", format!("tail -n +{a} {f}")),
            shell("cat -n", format!("cat -n {f}")),
            shell("nl", format!("nl {f}")),
            shell("nl -ba", format!("nl -ba {f}")),
            shell("head -n", format!("head -n {b} {f}")),
            shell("cat -n | head", format!("cat -n {f} | head -n {b}")),
        ]);
    }
    let agent = |form: &'static str, tool: &'static str, args: Value, first_row: usize| {
        let output = script(form, path, a, b);
        // opencode's `Showing lines A-K.` when 50 KB stopped it
        let last = Regex::new(r"Output capped at 50 KB\. Showing lines \d+-(\d+)\.")
            .unwrap()
            .captures(&output)
            .map_or(b, |c| c[1].parse().unwrap());
        Read {
            form,
            tool,
            args,
            output,
            first_row,
            last,
        }
    };
    v.extend([
        agent(
            "claude",
            "Read",
            json!({"file_path": path, "offset": a, "limit": n}),
            1,
        ),
        agent(
            "claude-arrow",
            "Read",
            json!({"file_path": path, "offset": a, "limit": n}),
            1,
        ),
        agent(
            "swe-open",
            "bash",
            json!({"command": format!("open {f} {a}")}),
            if a > 1 { 3 } else { 2 },
        ),
        agent(
            "swe-view",
            "bash",
            json!({"command": format!("str_replace_editor view {f} --view_range {a} {b}")}),
            2,
        ),
        agent(
            "opencode",
            "read",
            json!({"filePath": path, "offset": a, "limit": n}),
            4,
        ),
        agent(
            "copilot",
            "view",
            json!({"path": path, "view_range": [a, b]}),
            1,
        ),
        agent(
            "gemini",
            "read_file",
            json!({"file_path": path, "start_line": a, "end_line": b}),
            7,
        ),
    ]);
    if a > 1 {
        v.push(agent(
            "pi",
            "read",
            json!({"path": path, "offset": a, "limit": n}),
            1,
        ));
    }
    v
}

/// The structure section: its title and its `name A-B` entries.
fn structure(text: &str) -> (String, Vec<(String, usize, usize)>) {
    let Some(section) = text.split("\nStructure (").nth(1) else {
        return (String::new(), Vec::new());
    };
    let section = section.split("\n\n").next().unwrap();
    let title = section.lines().next().unwrap().to_string();
    let entry = Regex::new(r"([A-Za-z_][A-Za-z_0-9]*) (\d+)-(\d+)").unwrap();
    let entries = section
        .lines()
        .skip(1)
        .flat_map(|l| {
            entry
                .captures_iter(l)
                .map(|c| {
                    (
                        c[1].to_string(),
                        c[2].parse().unwrap(),
                        c[3].parse().unwrap(),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect();
    (title, entries)
}

/// The structure section's signature lines: the file's line number and what
/// follows it (`: ` and the line, or a numbered row's own separator).
pub fn signature_lines(text: &str) -> Vec<(usize, String)> {
    let Some(section) = text.split("\nStructure (").nth(1) else {
        return Vec::new();
    };
    let section = section.split("\n\n").next().unwrap();
    let re = Regex::new(r"^  (\d+)(\D.*)$").unwrap();
    section
        .lines()
        .filter_map(|l| {
            let c = re.captures(l)?;
            Some((c[1].parse().unwrap(), c[2].to_string()))
        })
        .collect()
}

/// Whether `listed` (what follows a signature line's number) is `line` after
/// one of the separators a listing or a numbered read puts there, whole or
/// shortened with `…`.
pub fn is_line(line: &str, listed: &str) -> bool {
    [": ", ":", "\t", ". ", "→"].iter().any(|sep| {
        listed
            .strip_prefix(sep)
            .is_some_and(|l| l == line || l.strip_suffix('…').is_some_and(|l| line.starts_with(l)))
    })
}

/// The innermost definition of `defs` holding line `at` begun above `a` (or
/// going on past `b`).
fn innermost(all: &[Symbol], pick: impl Fn(&Symbol) -> bool) -> Option<String> {
    all.iter()
        .filter(|s| pick(s))
        .max_by_key(|s| (s.depth, s.line))
        .map(|s| format!("{} (lines {}-{})", s.name, s.line, s.end_line))
}

fn check_file(path: &Path, lang: Language, ranges: &[(usize, usize)]) {
    let p = path.to_str().unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    let file_lines: Vec<&str> = text.split_inclusive('\n').collect();
    let total = file_lines.len();
    let plain = outline(&text, lang).unwrap();
    assert!(!plain.syntax_errors && plain.symbols.len() > 50);
    let processor = ToolResultProcessor::new(Config::defaults());
    let chars_re = Regex::new(r"([\d,]+) chars?\b").unwrap();
    let sed_re = Regex::new(r"sed -n '(\d+),(\d+)p'").unwrap();
    let mut checked = 0;
    for &(a, b) in ranges {
        let whole = b >= total;
        for r in reads(p, a, b.min(total), whole) {
            let b = r.last;
            // the plain file's definitions whose line is among those read
            let want: BTreeSet<Def> = plain
                .symbols
                .iter()
                .filter(|s| (a..=b).contains(&s.line))
                .map(def)
                .collect();
            assert!(want.len() > 5, "{p} {a}-{b}: too few definitions to check");
            let form = format!("{} ({p} lines {a}-{b})", r.form);
            let out: Processed = processor.process(r.tool, &r.output, &r.args);
            assert!(out.truncated, "{form}: not cut");
            // a file's head, whole lines, nothing chosen for error words
            assert_eq!(out.kept.len(), 1, "{form}: {:?}", out.kept);
            assert_eq!(out.kept[0].start_line, 1, "{form}");
            // the same definitions, the same spans, in the file's numbers
            let o = out
                .outline
                .as_ref()
                .unwrap_or_else(|| panic!("{form}: no outline"));
            assert!(!o.syntax_errors, "{form}: syntax errors");
            let got: BTreeSet<Def> = o
                .symbols
                .iter()
                .map(|s| {
                    let mut d = def(s);
                    // rows of the result to lines of the file
                    d.2 = d.2 + a - r.first_row;
                    d.3 = d.3 + a - r.first_row;
                    d
                })
                .collect();
            assert_eq!(got, want, "{form}");
            // the structure the model reads: lines a-b, each entry a true span
            let (title, entries) = structure(&out.text);
            assert!(
                title.starts_with(&format!("lines {a}-{b}")),
                "{form}: {title}\n{}",
                out.text
            );
            // (a definition after the cut is listed by its first line and
            // number, `  1704:     def f(x):`: the file's line, a definition's)
            let signatures = signature_lines(&out.text);
            assert!(
                !entries.is_empty() || !signatures.is_empty(),
                "{form}:\n{}",
                out.text
            );
            for (n, line) in &signatures {
                assert!(
                    want.iter().any(|d| d.2 == *n),
                    "{form}: line {n} begins no definition of the file\n{}",
                    out.text
                );
                let file_line = file_lines[n - 1].trim_end();
                assert!(
                    is_line(file_line, line),
                    "{form}: line {n} is {file_line:?}, listed as {line:?}"
                );
            }
            for (name, s, e) in &entries {
                assert!(
                    want.iter().any(|d| &d.1 == name && (d.2, d.3) == (*s, *e)),
                    "{form}: {name} {s}-{e} is no definition of the file\n{}",
                    out.text
                );
            }
            // a read from inside the file names what it starts and ends inside
            let starts = innermost(&plain.symbols, |s| s.line < a && s.end_line >= a);
            let ends = innermost(&plain.symbols, |s| s.line <= b && s.end_line > b);
            if let Some(d) = &starts {
                assert!(
                    title.contains("; starts inside ") && title.contains(d.as_str()),
                    "{form}: {title}"
                );
            }
            if let Some(d) = ends.filter(|e| Some(e) != starts.as_ref()) {
                assert!(
                    title.contains("; ends inside ") && title.contains(d.as_str()),
                    "{form}: {title}"
                );
            }
            // the first suggestion: the file's next lines, by its numbers, as
            // many chars as it says
            let s = &out.suggestions[0];
            let cmd = s.args["command"].as_str().unwrap_or_default();
            // (a print run again with a filter: its last)
            let c = sed_re
                .captures_iter(cmd)
                .last()
                .unwrap_or_else(|| panic!("{form}: first suggestion {s:?}"));
            let (x, y): (usize, usize) = (c[1].parse().unwrap(), c[2].parse().unwrap());
            let first_omitted = out.omitted.ranges[0].start_line;
            assert_eq!(x, first_omitted + a - r.first_row, "{form}: {cmd}");
            assert!(y <= b, "{form}: {cmd} reads past the lines read");
            let printed = run("bash", &["-c", cmd]);
            if cmd.starts_with("sed") {
                assert_eq!(printed, file_lines[x - 1..y].concat(), "{form}: {cmd}");
            } else {
                // a numbered print of the whole file printed again: its rows
                let rows: Vec<&str> = r.output.split_inclusive('\n').collect();
                assert_eq!(printed, rows[x - 1..y].concat(), "{form}: {cmd}");
            }
            let n: usize = chars_re.captures(&s.purpose).unwrap()[1]
                .replace(',', "")
                .parse()
                .unwrap();
            assert_eq!(printed.chars().count(), n, "{form}: {cmd} # {}", s.purpose);
            checked += 1;
        }
    }
    eprintln!("{p}: {checked} reads outlined as the file");
}

#[test]
fn every_numbered_read_of_a_python_module_is_outlined_as_the_file() {
    let Some(path) = typing_py() else {
        eprintln!("no Python stdlib here: skipped");
        return;
    };
    check_file(
        &path,
        Language::Python,
        &[(1, usize::MAX), (400, 700), (1000, 1300)],
    );
}

#[test]
fn every_numbered_read_of_a_rust_file_is_outlined_as_the_file() {
    check_file(
        &command_rs(),
        Language::Rust,
        &[(1, usize::MAX), (2000, 2400)],
    );
}

/// Claude Code's own Read of typing.py from line 400, with the claude-code
/// preset: the next read is `Read(file_path, offset, limit)` by the file's
/// numbers (the line after the last one shown), never by the result's rows.
#[test]
fn claude_codes_read_from_line_400_suggests_the_files_next_lines() {
    let Some(path) = typing_py() else {
        eprintln!("no Python stdlib here: skipped");
        return;
    };
    let p = path.to_str().unwrap();
    let output = script("claude", p, 400, 700);
    let config = Config::from_sources(
        Some((
            "[suggest]\npreset = \"claude-code\"\n",
            Path::new("claude.toml"),
        )),
        None,
    )
    .unwrap();
    let out = ToolResultProcessor::new(config).process(
        "Read",
        &output,
        &json!({"file_path": p, "offset": 400, "limit": 301}),
    );
    let s = &out.suggestions[0];
    assert_eq!(s.tool, "Read", "{s:?}");
    // the last row shown is file line 400 + k - 1
    let shown = out.kept[0].end_line;
    assert_eq!(s.args["offset"], json!(400 + shown), "{}", out.text);
    assert!(
        out.text.contains("\nStructure (lines 400-700; "),
        "{}",
        out.text
    );
}
