//! Real inputs, checked as a new user would check them (issue 17).
//!
//! Real files on this machine (the Python stdlib, crate sources in the cargo
//! registry in several languages, the Rust HTML books), real command output
//! produced here and now (`find`, `grep -rn`, `git log`, `dpkg -l`, JSON printed
//! by `jq -c`), and the real search results under `fixtures/web_search/` go
//! through the processor with the default thresholds. Then:
//!
//! - every number in the omission markers and in the recovery section's size
//!   facts is recounted from the original;
//! - every suggested shell command runs in bash, and what it prints is checked
//!   against what its comment says: the promised lines of the original (`lines
//!   A-B`), the promised size (`3,412 chars`), line counts (`31 lines`) and item
//!   counts (`9 items`), and that it fits under the shell tool's threshold when the
//!   hint sized it;
//! - `grep_content(...)` calls run as `grep -n -E` (so a regex pattern must match
//!   what it names), `glob_files(...)` calls as a bash globstar, `web_fetch(...,
//!   save_to=...)` saves the page (the following commands read the saved copy),
//!   and the stored result's `get_continuation` call goes through
//!   `toolcap::store::tools` dispatch;
//! - what the model sees stays within the threshold that triggered the cut.
//!
//! Each input goes through three setups: with a store (the suggestions that read
//! or search the result are `get_continuation(tool_call_id, start_line,
//! end_line)` / `search_tool_output(tool_call_id, pattern)` calls, run through
//! `toolcap::store::tools` dispatch and checked against the original: the lines,
//! the size, the match count), without one (the shell commands above), and with
//! the `claude-code` and `mcp-filesystem` presets (their `Read`, `Grep`, `Glob`,
//! `Bash`, `read_text_file` and `search_files` calls run as the equivalent `sed`,
//! `grep`, glob, bash and `head`/`tail` commands).
//!
//! Inputs that are missing on a machine are skipped (the count of cases is
//! printed with `--nocapture`); at least 25 cases must be found.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use regex::Regex;
use serde_json::{Value, json};
use toolcap::store::tools::{Dispatch, RecoveryTools};
use toolcap::{Config, MemoryStore, ResultStore, SaveWhen, ToolCall, ToolResultProcessor};

struct Case {
    name: String,
    tool: String,
    args: Value,
    text: String,
    /// The command that printed `text`, when re-running it prints it again.
    rerunnable: bool,
    /// The input's own bytes when they are not UTF-8 (`text` is what they
    /// decode to): processed as bytes, as the CLI reads a file.
    bytes: Option<Vec<u8>>,
}

fn sh(cmd: &str) -> Option<String> {
    let out = Command::new("bash").arg("-c").arg(cmd).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn stdlib() -> Option<PathBuf> {
    sh("python3 -c 'import sysconfig;print(sysconfig.get_paths()[\"stdlib\"])'")
        .map(|s| PathBuf::from(s.trim()))
        .filter(|p| p.is_dir())
}

fn registry() -> Option<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))?;
    let src = home.join("registry").join("src");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&src)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    dirs.sort();
    dirs.into_iter().next()
}

fn read_case(tool: &str, path: &Path) -> Option<Case> {
    let text = std::fs::read_to_string(path).ok()?;
    let p = path.display().to_string();
    Some(Case {
        name: format!("{tool} {p}"),
        tool: tool.to_string(),
        args: json!({ "path": p }),
        text,
        rerunnable: false,
        bytes: None,
    })
}

fn shell_case(command: &str) -> Option<Case> {
    // as the suggestions re-run it: `bash -c 'COMMAND' 2>&1`
    let text = sh(&format!("bash -c {} 2>&1", shell_quote(command)))?;
    Some(Case {
        name: format!("shell {command}"),
        tool: "shell".to_string(),
        args: json!({ "command": command }),
        text,
        rerunnable: true,
        bytes: None,
    })
}

/// Real text in legacy encodings (issue 28 item 9): the machine's translated
/// messages written in Shift_JIS, GBK, EUC-KR (cp949), windows-1251 and
/// windows-1252 by scripts/legacy-text.py into `dir`, read as files.
fn legacy_cases(dir: &Path) -> Vec<Case> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/legacy-text.py");
    let Some(listing) = sh(&format!(
        "python3 {} {} 20000",
        shell_quote(script),
        shell_quote(&dir.display().to_string())
    )) else {
        return Vec::new();
    };
    listing
        .lines()
        .filter_map(|l| l.split(' ').next())
        .filter(|name| ["ja-sjis", "zh-gbk", "ko-cp949", "ru-cp1251", "fr-cp1252"].contains(name))
        .filter_map(|name| {
            let path = dir.join(format!("{name}.txt"));
            let bytes = std::fs::read(&path).ok()?;
            let text = std::fs::read_to_string(dir.join(format!("{name}.utf8.txt"))).ok()?;
            Some(Case {
                name: format!("read_file {name}.txt"),
                tool: "read_file".to_string(),
                args: json!({ "path": path.display().to_string() }),
                text,
                rerunnable: false,
                bytes: Some(bytes),
            })
        })
        .chain(legacy_prints(dir))
        .collect()
}

/// The Shift_JIS text printed by `cat -n` (issue 34): as a text file (a
/// command's output, re-run) and as a Python file of comments (its lines as
/// `# ...`: a file print, re-printed): the output is Shift_JIS bytes, counted
/// decoded, so every suggestion that prints it again pipes it through iconv.
fn legacy_prints(dir: &Path) -> Vec<Case> {
    let txt = dir.join("ja-sjis.txt").display().to_string();
    let utf8 = dir.join("ja-sjis.utf8.txt").display().to_string();
    let py = dir.join("ja_sjis.py").display().to_string();
    let made = sh(&format!(
        "LC_ALL=C sed 's/^/# /' {} > {}",
        shell_quote(&txt),
        shell_quote(&py)
    ));
    if made.is_none() {
        return Vec::new();
    }
    [
        (txt, format!("cat -n {}", shell_quote(&utf8))),
        (py, format!("sed 's/^/# /' {} | cat -n", shell_quote(&utf8))),
    ]
    .into_iter()
    .filter_map(|(file, decoded)| {
        let command = format!("cat -n {file}");
        let out = Command::new("bash").arg("-c").arg(&command).output().ok()?;
        let text = sh(&decoded)?;
        Some(Case {
            name: format!("shell {command}"),
            tool: "shell".to_string(),
            args: json!({ "command": command }),
            text,
            rerunnable: true,
            bytes: Some(out.stdout),
        })
    })
    .collect()
}

fn cases() -> Vec<Case> {
    let mut cases = Vec::new();
    let std_dir = stdlib();
    let reg = registry();
    // Source files read whole: the stdlib, then crate sources by extension.
    if let Some(s) = &std_dir {
        for f in [
            "typing.py",
            "argparse.py",
            "_pydecimal.py",
            "inspect.py",
            "subprocess.py",
            "tarfile.py",
            "email/_header_value_parser.py",
            "pydoc_data/topics.py",
            "collections/__init__.py",
            "unittest/mock.py",
        ] {
            cases.extend(read_case("read_file", &s.join(f)));
        }
    }
    if let Some(r) = &reg {
        let q = shell_quote(&r.display().to_string());
        for ext in [
            "rs", "c", "h", "cc", "js", "ts", "go", "java", "rb", "php", "md", "toml", "json",
            "yml", "sh", "lua",
        ] {
            let list = sh(&format!(
                "find {q} -type f -name '*.{ext}' -size +40k -size -300k | LC_ALL=C sort | head -n 2"
            ))
            .unwrap_or_default();
            for f in list.lines() {
                cases.extend(read_case("read_file", Path::new(f)));
            }
        }
        // minified files: long lines
        let list = sh(&format!(
            "find {q} -type f \\( -name '*.min.js' -o -name '*.min.css' \\) -size +20k | LC_ALL=C sort | head -n 2"
        ))
        .unwrap_or_default();
        for f in list.lines() {
            cases.extend(read_case("read_file", Path::new(f)));
        }
        // raw markdown fetched from the web (setext headings and all)
        let list = sh(&format!(
            "find {q} -type f -name '*.md' -size +20k | LC_ALL=C sort | xargs grep -l -E '^(===+|---+)$' 2>/dev/null | head -n 2"
        ))
        .unwrap_or_default();
        for f in list.lines() {
            if let Some(mut c) = read_case("web_fetch", Path::new(f)) {
                c.args = json!({ "url": format!("https://example.invalid/{}", file_name(f)) });
                c.name = format!("web_fetch {f}");
                cases.push(c);
            }
        }
        // JSON printed by a command, one line
        let list = sh(&format!(
            "find {q} -type f -name 'node-types.json' -size +30k -size -400k | LC_ALL=C sort | head -n 2"
        ))
        .unwrap_or_default();
        for f in list.lines() {
            cases.extend(shell_case(&format!("jq -c . {}", shell_quote(f))));
        }
        let list = sh(&format!(
            "find {q} -type f -name 'grammar.json' -size +60k -size -400k | LC_ALL=C sort | head -n 1"
        ))
        .unwrap_or_default();
        for f in list.lines() {
            cases.extend(shell_case(&format!("jq -c . {}", shell_quote(f))));
        }
        // grep over a real tree, through the shell
        cases.extend(shell_case(&format!(
            "grep -rn -E 'pub fn new' {q} --include=*.rs | LC_ALL=C sort | head -n 400"
        )));
    }
    // The Rust HTML books, fetched as pages.
    if let Some(root) = sh("rustc --print sysroot") {
        let html = PathBuf::from(root.trim()).join("share/doc/rust/html");
        for (page, url) in [
            (
                "book/ch08-02-strings.html",
                "https://doc.rust-lang.org/book/ch08-02-strings.html",
            ),
            (
                "book/ch04-01-what-is-ownership.html",
                "https://doc.rust-lang.org/book/ch04-01-what-is-ownership.html",
            ),
            (
                "std/vec/struct.Vec.html",
                "https://doc.rust-lang.org/std/vec/struct.Vec.html",
            ),
            (
                "reference/expressions.html",
                "https://doc.rust-lang.org/reference/expressions.html",
            ),
        ] {
            if let Some(mut c) = read_case("web_fetch", &html.join(page)) {
                c.args = json!({ "url": url });
                c.name = format!("web_fetch {page}");
                cases.push(c);
            }
        }
    }
    // This project's own history, as a diff and a log (issue 34), up to a fixed
    // commit: the newest commits' diffs hold toolcap's own views (snapshots, docs),
    // whose markers a recount would take for this output's
    let root = shell_quote(env!("CARGO_MANIFEST_DIR"));
    cases.extend(shell_case(&format!(
        "git -C {root} log -p -n 15 --no-merges 37c3bc8"
    )));
    cases.extend(shell_case(&format!("git -C {root} log -n 120 37c3bc8")));
    // Listings and searches over real trees.
    if let Some(s) = &std_dir {
        let q = shell_quote(&s.display().to_string());
        if let Some(text) = sh(&format!("find {q} -name '*.py' | LC_ALL=C sort")) {
            cases.push(Case {
                name: "glob stdlib **/*.py".to_string(),
                tool: "glob_files".to_string(),
                args: json!({ "pattern": "**/*.py", "path": s.display().to_string() }),
                text,
                rerunnable: false,
                bytes: None,
            });
        }
        if let Some(text) = sh(&format!(
            "grep -rn -E 'def __init__' {q}/email | LC_ALL=C sort"
        )) {
            cases.push(Case {
                name: "grep def __init__".to_string(),
                tool: "grep_content".to_string(),
                args: json!({ "pattern": "def __init__", "path": s.join("email").display().to_string() }),
                text,
                rerunnable: false,
                bytes: None,
            });
        }
        cases.extend(shell_case(&format!(
            "grep -rn -F 'raise ' {q}/asyncio | LC_ALL=C sort"
        )));
        // everyday output read for its parts (issue 34): counts, listings
        cases.extend(shell_case(&format!(
            "grep -rc --include=*.py -e 'def ' {q}/email {q}/asyncio {q}/unittest"
        )));
        cases.extend(shell_case(&format!("find {q}/email {q}/asyncio {q}/json")));
        cases.extend(shell_case(&format!("ls -laR {q}/email")));
        // a case-insensitive search (issue 28 item 1): every follow-up
        // carries the case option, and prints what it says
        if let Some(text) = sh(&format!(
            "grep -rn -i xxx {q} --include=*.py | LC_ALL=C sort"
        )) {
            cases.push(Case {
                name: "grep -i xxx".to_string(),
                tool: "grep_content".to_string(),
                args: json!({ "pattern": "xxx", "path": s.display().to_string(), "-i": true }),
                text,
                rerunnable: false,
                bytes: None,
            });
        }
        if let Some(text) = sh(&format!(
            "grep -rn -E -i 'unicodedecodeerror' {q}/encodings | LC_ALL=C sort"
        )) {
            cases.push(Case {
                name: "grep (?i)unicodedecodeerror".to_string(),
                tool: "grep_content".to_string(),
                args: json!({ "pattern": "(?i)unicodedecodeerror", "path": s.join("encodings").display().to_string() }),
                text,
                rerunnable: false,
                bytes: None,
            });
        }
    }
    // narrowing suggestions sized like the shell ranges (issue 28 item 2): a
    // search of the C headers, and one of a minified file (huge lines)
    if let Some(text) = sh("grep -rn -E -e pthread_mutex /usr/include | LC_ALL=C sort") {
        cases.push(Case {
            name: "grep pthread_mutex /usr/include".to_string(),
            tool: "grep_content".to_string(),
            args: json!({ "pattern": "pthread_mutex", "path": "/usr/include" }),
            text,
            rerunnable: false,
            bytes: None,
        });
    }
    if let Some(r) = &reg {
        let q = shell_quote(&r.display().to_string());
        let list = sh(&format!(
            "find {q} -type f -name '*.min.js' -size +20k | LC_ALL=C sort | head -n 1"
        ))
        .unwrap_or_default();
        for f in list.lines() {
            if let Some(text) = sh(&format!("grep -n -E -e 'function' {}", shell_quote(f))) {
                cases.push(Case {
                    name: format!("grep function {f}"),
                    tool: "grep_content".to_string(),
                    args: json!({ "pattern": "function", "path": f }),
                    text,
                    rerunnable: false,
                    bytes: None,
                });
            }
        }
    }
    // a whole tree, directories listed with their files (`x86_64-linux-gnu`)
    if let Some(text) = sh("find /usr/include | LC_ALL=C sort") {
        cases.push(Case {
            name: "glob /usr/include".to_string(),
            tool: "glob_files".to_string(),
            args: json!({ "pattern": "**/*", "path": "/usr/include" }),
            text,
            rerunnable: false,
            bytes: None,
        });
    }
    // Issue 28's kinds of input not found above on every machine:
    // minified files outside the cargo registry (Debian's libjs-* packages),
    // read and searched alone (item 2: a search whose matching line is huge)
    let list = sh(
        "find /usr/share/javascript -type f -name '*.min.js' -size +20k 2>/dev/null | LC_ALL=C sort | head -n 2",
    )
    .unwrap_or_default();
    for f in list.lines() {
        cases.extend(read_case("read_file", Path::new(f)));
        if let Some(text) = sh(&format!("grep -n -E -e 'function' {}", shell_quote(f))) {
            cases.push(Case {
                name: format!("grep function {f}"),
                tool: "grep_content".to_string(),
                args: json!({ "pattern": "function", "path": f }),
                text,
                rerunnable: false,
                bytes: None,
            });
        }
    }
    // code in a language toolcap does not parse, and Python without an
    // extension (item 6: no Markdown outline made of `#` comments)
    let list = sh(
        "ls /usr/share/perl/*/ExtUtils/MM_Unix.pm /usr/bin/py3compile 2>/dev/null | LC_ALL=C sort -u | head -n 3",
    )
    .unwrap_or_default();
    for f in list.lines() {
        cases.extend(read_case("read_file", Path::new(f)));
    }
    // files with real syntax errors for their grammar (item 5): the excerpts of
    // tests/outline_samples/syntax_errors/ and, where pyenv is installed, the
    // whole python-build
    let repo = env!("CARGO_MANIFEST_DIR");
    for f in ["JsonTextReader.cs", "JsonReader.kt"] {
        cases.extend(read_case(
            "read_file",
            &Path::new(repo)
                .join("tests/outline_samples/syntax_errors")
                .join(f),
        ));
    }
    if let Some(home) = std::env::var_os("HOME") {
        let f = PathBuf::from(home).join(".pyenv/plugins/python-build/bin/python-build");
        cases.extend(read_case("read_file", &f));
    }
    // a successful command whose data holds error words (item 4): the head
    // keeps its place
    if let Some(mut c) = shell_case(&format!(
        "git -C {} log --format='%h %ad %an %s' -n 400 37c3bc8",
        shell_quote(repo)
    )) {
        c.args["exit_code"] = json!(0);
        cases.push(c);
    }
    // Real command output that a re-run prints again.
    cases.extend(shell_case(&format!(
        "git -C {} log --stat -n 60 cdf4538",
        shell_quote(repo)
    )));
    cases.extend(shell_case("dpkg -l"));
    cases.extend(shell_case(
        "ls -l --time-style=+%Y /usr/lib/x86_64-linux-gnu",
    ));
    // Real search results (fixtures/web_search: saved from real searches).
    for f in ["interior_mutability.json", "interior_mutability.md"] {
        let p = Path::new(repo).join("fixtures/web_search").join(f);
        if let Some(mut c) = read_case("web_search", &p) {
            c.args = json!({ "query": "interior mutability" });
            cases.push(c);
        }
    }
    cases
}

fn file_name(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn num(s: &str) -> usize {
    s.replace(',', "").parse().unwrap_or(usize::MAX)
}

/// Lines `a..=b` (1-based) of `text`, each with its line ending.
fn lines_of(text: &str, a: usize, b: usize) -> String {
    text.split_inclusive('\n')
        .skip(a - 1)
        .take(b + 1 - a)
        .collect()
}

#[derive(Default)]
struct Tally {
    cases: usize,
    cut: usize,
    numbers: usize,
    ran: usize,
    not_runnable: usize,
    /// Recovery-tool calls run through dispatch.
    recovery: usize,
    /// Suggestions run whose output is over the shell threshold (only those
    /// that do not claim a size: a sized one over it is a failure).
    unsized_over: Vec<String>,
    failures: Vec<String>,
}

impl Tally {
    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        self.numbers += 1;
        if !ok {
            self.failures.push(what());
        }
    }
}

static MARKER: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
    Regex::new(
        r"\[\.\.\. ([\d,]+) chars?, ([\d,]+) lines? (?:of the original output )?omitted \(lines (\d+)-(\d+) of (\d+)\) \.\.\.\]",
    )
    .expect("regex")
});
static IN_LINE: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
    Regex::new(r"\[\.\.\. ([\d,]+) chars omitted \(line (\d+) cut after char ([\d,]+) of ([\d,]+)\) \.\.\.\]")
        .expect("regex")
});
static SIZE_FACT: std::sync::LazyLock<Regex> =
    std::sync::LazyLock::new(|| Regex::new(r"([\d,]+) lines?, ([\d,]+) chars?").expect("regex"));
static JSON_MARKER: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
    Regex::new(
        r"\[\.\.\. JSON shortened to stay valid JSON: ([\d,]+) chars? shown as ([\d,]+) chars?",
    )
    .expect("regex")
});

/// Recount the numbers of the markers and of the recovery section's size fact.
fn check_numbers(t: &mut Tally, c: &Case, shown: &str) {
    let total_lines = c.text.split_inclusive('\n').count();
    let total_chars = c.text.chars().count();
    for m in MARKER.captures_iter(shown) {
        let (chars, n, a, b, of) = (num(&m[1]), num(&m[2]), num(&m[3]), num(&m[4]), num(&m[5]));
        t.check(of == total_lines, || {
            format!("{}: marker says {of} lines, recount {total_lines}", c.name)
        });
        t.check(n == b + 1 - a, || {
            format!("{}: marker {n} lines for lines {a}-{b}", c.name)
        });
        let real = lines_of(&c.text, a, b).chars().count();
        t.check(chars == real, || {
            format!(
                "{}: marker says {chars} chars for lines {a}-{b}, recount {real}",
                c.name
            )
        });
    }
    for m in IN_LINE.captures_iter(shown) {
        let (chars, line, after, of) = (num(&m[1]), num(&m[2]), num(&m[3]), num(&m[4]));
        let l = c.text.split('\n').nth(line - 1).unwrap_or("");
        let l = l.strip_suffix('\r').unwrap_or(l);
        t.check(l.chars().count() == of, || {
            format!(
                "{}: line {line} has {} chars, marker says {of}",
                c.name,
                l.chars().count()
            )
        });
        let rest = lines_of(&c.text, line, total_lines).chars().count() - after;
        t.check(chars == rest, || {
            format!(
                "{}: {chars} chars omitted after char {after} of line {line}, recount {rest}",
                c.name
            )
        });
    }
    for m in JSON_MARKER.captures_iter(shown) {
        t.check(num(&m[1]) == total_chars, || {
            format!(
                "{}: JSON marker says {} chars, recount {total_chars}",
                c.name, &m[1]
            )
        });
    }
    // the view's own section is the last one (a kept line may quote another view's)
    if let Some((_, rec)) = shown.rsplit_once("--- Recovery Options ---")
        && let Some(first) = rec.lines().nth(1)
        && let Some(m) = SIZE_FACT.captures(first)
    {
        t.check(
            num(&m[1]) == total_lines && num(&m[2]) == total_chars,
            || {
                format!(
                    "{}: size fact {} lines, {} chars; recount {total_lines}, {total_chars}",
                    c.name, &m[1], &m[2]
                )
            },
        );
    }
}

static SED: std::sync::LazyLock<Regex> =
    std::sync::LazyLock::new(|| Regex::new(r"sed -n '(\d+),(\d+)p'").expect("regex"));
static CHARS: std::sync::LazyLock<Regex> =
    std::sync::LazyLock::new(|| Regex::new(r"\b([\d,]+) chars?\b").expect("regex"));
static LINES_N: std::sync::LazyLock<Regex> =
    std::sync::LazyLock::new(|| Regex::new(r"\((?:on )?([\d,]+) lines?\b").expect("regex"));
static ITEMS: std::sync::LazyLock<Regex> =
    std::sync::LazyLock::new(|| Regex::new(r": ([\d,]+) items?\b").expect("regex"));
static IN_LISTING: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
    Regex::new(r"\(([\d,]+) (?:files?|paths?)(?:, [\d,]+ chars?)? in this listing\)")
        .expect("regex")
});

fn run(cmd: &str, cwd: &Path) -> Result<String, String> {
    let out = Command::new("bash")
        .arg("-c")
        .arg(cmd)
        .current_dir(cwd)
        .output()
        .map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "exit {:?}: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
                .chars()
                .take(300)
                .collect::<String>()
        ))
    }
}

/// Run one suggestion and check what it prints against its comment.
fn check_suggestion(t: &mut Tally, c: &Case, s: &toolcap::Suggestion, cwd: &Path, budget: usize) {
    let arg = |k: &str| s.args.get(k).and_then(Value::as_str).unwrap_or("");
    let label = format!("{}: {}", c.name, s.render());
    let output = match s.tool.as_str() {
        "shell" | "Bash" if arg("command").starts_with("curl -sL -o ") => {
            // no network here: the page saved is the page this case fetched
            let file = arg("command")["curl -sL -o ".len()..]
                .split(' ')
                .next()
                .unwrap_or_default()
                .trim_matches('\'');
            let ok = std::fs::write(cwd.join(file), &c.text).is_ok();
            t.ran += 1;
            t.check(ok, || format!("{label}: cannot save"));
            return;
        }
        "shell" | "Bash" => {
            let cmd = arg("command");
            // a re-run of a command whose output is not the same again (a
            // listing from a file) cannot be checked against the original
            if !c.rerunnable && c.tool == "shell" {
                t.not_runnable += 1;
                return;
            }
            run(cmd, cwd)
        }
        "grep_content" => {
            // the case option as the call passes it: `-i: true` or `(?i)`
            let icase = s.args.get("-i").and_then(Value::as_bool) == Some(true);
            let (icase, pattern) = match arg("pattern").strip_prefix("(?i)") {
                Some(p) => (true, p),
                None => (icase, arg("pattern")),
            };
            run(
                &format!(
                    "grep -n -E{} -e {} {}",
                    if icase { " -i" } else { "" },
                    shell_quote(pattern),
                    shell_quote(arg("path"))
                ),
                cwd,
            )
        }
        "glob_files" => run(
            &format!(
                "cd {} && shopt -s globstar nullglob && for f in {}; do [ -f \"$f\" ] && echo \"$f\"; done",
                shell_quote(arg("path")),
                arg("pattern")
            ),
            cwd,
        ),
        "web_fetch" if !arg("save_to").is_empty() => {
            // the harness's fetch saves the page: the commands after it read it
            let ok = std::fs::write(cwd.join(arg("save_to")), &c.text).is_ok();
            t.ran += 1;
            t.check(ok, || format!("{label}: cannot save"));
            return;
        }
        _ => {
            t.not_runnable += 1;
            return;
        }
    };
    t.ran += 1;
    let out = match output {
        Ok(o) => o,
        Err(e) => {
            t.failures.push(format!("{label}: {e}"));
            return;
        }
    };
    let p = &s.purpose;
    let out_chars = out.chars().count();
    t.check(!out.is_empty(), || format!("{label}: printed nothing"));
    // `sed -n 'A,Bp'` prints lines A-B of the original (of the saved page,
    // the file read, or the command's output)
    if let Some(m) = SED.captures(arg("command")) {
        let (a, b) = (num(&m[1]), num(&m[2]));
        let want = lines_of(&c.text, a, b);
        t.check(out == want, || {
            format!(
                "{label}: printed {} chars, lines {a}-{b} of the original are {}",
                out_chars,
                want.chars().count()
            )
        });
    }
    // the first `N chars` of the comment is the size of the output
    // (not a listing's own size: `(81 files, 2,666 chars in this listing)`,
    // nor a match's surroundings: `with up to 80 chars either side`)
    let sized = CHARS
        .captures(p)
        .map(|m| num(&m[1]))
        .filter(|_| !p.contains("in this listing") && !p.contains("chars either side"));
    if let Some(n) = sized {
        t.check(out_chars == n, || {
            format!("{label}: says {n} chars, printed {out_chars}")
        });
        t.check(out_chars <= budget, || {
            format!("{label}: printed {out_chars} chars, over the shell budget {budget}")
        });
    } else if out_chars > budget {
        t.unsized_over.push(format!("{label}: {out_chars} chars"));
    }
    if let Some(m) = LINES_N.captures(p) {
        let n = num(&m[1]);
        let got = out.lines().count();
        t.check(got == n, || {
            format!("{label}: says {n} lines, printed {got}")
        });
    }
    if let Some(m) = ITEMS.captures(p) {
        let n = num(&m[1]);
        let got = serde_json::from_str::<Value>(&out)
            .ok()
            .and_then(|v| v.as_array().map(Vec::len));
        t.check(got == Some(n), || {
            format!("{label}: says {n} items, jq printed {got:?}")
        });
    }
    if let Some(m) = IN_LISTING.captures(p) {
        let n = num(&m[1]);
        let got = out.lines().count();
        t.check(got >= n, || {
            format!("{label}: {n} in the listing, the glob finds {got}")
        });
    }
}

static SYMBOL_SPAN: std::sync::LazyLock<Regex> =
    std::sync::LazyLock::new(|| Regex::new(r" (\d+)-(\d+)\b").expect("regex"));
static SYMBOL_WHOLE: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
    Regex::new(r"^[^\n]* \(lines (\d+)-(\d+) of [\d,]+, ([\d,]+) chars?\):\n").expect("regex")
});
static SYMBOL_MEMBER: std::sync::LazyLock<Regex> =
    std::sync::LazyLock::new(|| Regex::new(r"(?m)^(\d+)-(\d+): (.*)$").expect("regex"));

/// A definition asked for by name: the reply's lines are the original's, it ends
/// where the comment says, and the chars it states are exact; a definition larger
/// than a reply lists its members' first lines exactly.
fn check_symbol(t: &mut Tally, c: &Case, s: &toolcap::Suggestion, text: &str, label: &str) {
    let Some(said) = SYMBOL_SPAN.captures(&s.purpose) else {
        t.failures
            .push(format!("{label}: the comment names no lines"));
        return;
    };
    let (a, b) = (num(&said[1]), num(&said[2]));
    if let Some(m) = SYMBOL_WHOLE.captures(text) {
        let (from, to) = (num(&m[1]), num(&m[2]));
        t.check(from <= a && to == b, || {
            format!("{label}: returns lines {from}-{to}, the comment says {a}-{b}")
        });
        let want = lines_of(&c.text, from, to);
        let body = &text[m.get(0).map_or(0, |x| x.end())..];
        let body = body.split("\n[showing lines ").next().unwrap_or_default();
        t.check(want.starts_with(body.trim_end_matches('\n')), || {
            format!("{label}: does not return lines {from}-{to} of the original")
        });
        t.check(num(&m[3]) == want.chars().count(), || {
            format!(
                "{label}: says {} chars, lines {from}-{to} are {}",
                &m[3],
                want.chars().count()
            )
        });
        return;
    }
    let members: Vec<_> = SYMBOL_MEMBER.captures_iter(text).collect();
    t.check(!members.is_empty(), || {
        format!("{label}: neither lines nor members: {text}")
    });
    for m in members {
        let (from, to) = (num(&m[1]), num(&m[2]));
        let want = lines_of(&c.text, from, from);
        t.check(
            from > a && to <= b && want.trim_end_matches('\n') == &m[3],
            || format!("{label}: member line {from} is not the original's"),
        );
    }
}

static SEARCH_COUNT: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(|| {
    Regex::new(r"^([\d,]+) of [\d,]+ lines match |^No line of the").expect("regex")
});
static SAID_LINES: std::sync::LazyLock<Regex> =
    std::sync::LazyLock::new(|| Regex::new(r"\(([\d,]+) lines?\b").expect("regex"));

/// Run a recovery-tool suggestion through dispatch and check what it returns
/// against its comment: a line range returns those lines of the original (and
/// the size said), an offset the chars from there, a search the count said.
fn check_recovery(t: &mut Tally, c: &Case, s: &toolcap::Suggestion, tools: &RecoveryTools) {
    let label = format!("{}: {}", c.name, s.render());
    let reply = match tools.dispatch(&s.tool, &Value::Object(s.args.clone())) {
        Dispatch::Handled(r) => r,
        Dispatch::NotMine => {
            t.failures.push(format!("{label}: not a recovery tool"));
            return;
        }
    };
    t.ran += 1;
    t.recovery += 1;
    if reply.is_error {
        t.failures.push(format!("{label}: {}", reply.text));
        return;
    }
    let n = |k: &str| s.args.get(k).and_then(Value::as_u64).map(|v| v as usize);
    match (s.tool.as_str(), n("start_line"), n("end_line"), n("offset")) {
        ("get_continuation", Some(a), Some(b), _) => {
            let want = lines_of(&c.text, a, b);
            let body = reply
                .text
                .split("\n[showing lines ")
                .next()
                .unwrap_or_default();
            t.check(
                body.trim_end_matches('\n') == want.trim_end_matches('\n'),
                || format!("{label}: does not return lines {a}-{b} of the original"),
            );
            if let Some(m) = CHARS.captures(&s.purpose) {
                let said = num(&m[1]);
                t.check(said == want.chars().count(), || {
                    format!(
                        "{label}: says {said} chars, lines {a}-{b} are {}",
                        want.chars().count()
                    )
                });
            }
            if let Some(m) = MARKER_RANGE.captures(&s.purpose) {
                t.check((num(&m[1]), num(&m[2])) == (a, b), || {
                    format!("{label}: the comment names other lines")
                });
            }
        }
        ("get_continuation", None, None, Some(o)) => {
            let want: String = c.text.chars().skip(o).take(100).collect();
            t.check(reply.text.starts_with(&want), || {
                format!("{label}: does not continue the original at char {o}")
            });
            if let Some(m) = CHARS.captures(&s.purpose) {
                let said = num(&m[1]);
                // (the reply ends with its marker while more remains)
                let got = reply
                    .text
                    .split("\n\n[truncated — showing ")
                    .next()
                    .unwrap_or_default()
                    .chars()
                    .count();
                t.check(said == got, || {
                    format!("{label}: says {said} chars, got {got}")
                });
            }
        }
        ("search_tool_output", ..) => {
            let total = SEARCH_COUNT
                .captures(&reply.text)
                .map(|m| m.get(1).map_or(0, |x| num(x.as_str())));
            match (total, SAID_LINES.captures(&s.purpose)) {
                (Some(got), Some(m)) => {
                    let said = num(&m[1]);
                    t.check(got == said, || {
                        format!("{label}: says {said} lines, the search counts {got}")
                    });
                }
                (None, _) => t.failures.push(format!("{label}: no count in the reply")),
                (Some(_), None) => {}
            }
        }
        ("get_continuation", None, None, None) if s.args.contains_key("symbol") => {
            check_symbol(t, c, s, &reply.text, &label);
        }
        _ => t
            .failures
            .push(format!("{label}: not a line range, offset or search")),
    }
}

static MARKER_RANGE: std::sync::LazyLock<Regex> =
    std::sync::LazyLock::new(|| Regex::new(r"\(lines (\d+)-(\d+)").expect("regex"));

/// A call of one of Claude Code's or the MCP filesystem server's tools as the
/// generic call it stands for (the test runs those): `Read(file_path, offset,
/// limit)` as `sed -n`, `read_text_file(path, head|tail)` as `head`/`tail -n`,
/// `Grep` as `grep_content`, `Glob` and `search_files` as `glob_files`, `Bash`
/// as `shell`.
fn as_generic(s: &toolcap::Suggestion) -> Option<toolcap::Suggestion> {
    let arg = |k: &str| s.args.get(k).cloned();
    let mut args = serde_json::Map::new();
    let tool = match s.tool.as_str() {
        "Bash" => {
            args.insert("command".into(), arg("command")?);
            "shell"
        }
        "Read" => {
            let f = arg("file_path")?;
            let (o, l) = (arg("offset")?.as_u64()?, arg("limit")?.as_u64()?);
            args.insert(
                "command".into(),
                Value::String(format!(
                    "sed -n '{o},{}p' {}",
                    o + l - 1,
                    shell_quote(f.as_str()?)
                )),
            );
            "shell"
        }
        "read_text_file" => {
            let f = shell_quote(arg("path")?.as_str()?);
            let cmd = match (arg("head"), arg("tail")) {
                (Some(h), None) => format!("head -n {} {f}", h.as_u64()?),
                (None, Some(t)) => format!("tail -n {} {f}", t.as_u64()?),
                _ => return None,
            };
            args.insert("command".into(), Value::String(cmd));
            "shell"
        }
        "search_files" => {
            args.insert("pattern".into(), arg("pattern")?);
            args.insert("path".into(), arg("path")?);
            "glob_files"
        }
        "Grep" => {
            args.insert("pattern".into(), arg("pattern")?);
            args.insert("path".into(), arg("path")?);
            if let Some(i) = arg("-i") {
                args.insert("-i".into(), i);
            }
            "grep_content"
        }
        "Glob" => {
            args.insert("pattern".into(), arg("pattern")?);
            args.insert("path".into(), arg("path")?);
            "glob_files"
        }
        _ => return None,
    };
    Some(toolcap::Suggestion {
        tool: tool.to_string(),
        args,
        purpose: s.purpose.clone(),
    })
}

#[test]
fn real_inputs_hold_up() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let legacy = tmp.path().join("legacy");
    std::fs::create_dir_all(&legacy).expect("legacy dir");
    let mut cases = cases();
    cases.extend(legacy_cases(&legacy));
    let config = Config::defaults();
    let claude = Config::from_sources(
        Some((
            "[suggest]\npreset = \"claude-code\"\n",
            Path::new("claude.toml"),
        )),
        None,
    )
    .expect("the claude-code preset");
    let mcp_fs = Config::from_sources(
        Some((
            "[suggest]\npreset = \"mcp-filesystem\"\n",
            Path::new("fs.toml"),
        )),
        None,
    )
    .expect("the mcp-filesystem preset");
    let mut t = Tally::default();
    for (i, c) in cases.iter().enumerate() {
        t.cases += 1;
        let store: Arc<dyn ResultStore> = Arc::new(MemoryStore::new());
        let p = ToolResultProcessor::new(config.clone()).with_store(store.clone(), SaveWhen::Cut);
        let id = format!("call_{i}");
        let mut call = ToolCall::new(&c.tool, &c.args);
        call.id = Some(&id);
        let out = match &c.bytes {
            Some(b) => {
                let (out, text) = p.process_bytes(&call, b);
                t.check(text == c.text, || {
                    format!("{}: not decoded as its UTF-8 copy", c.name)
                });
                out
            }
            None => p.process_call(&call, &c.text),
        };
        if !out.truncated {
            continue;
        }
        t.cut += 1;
        // what the model sees stays within the threshold that triggered the cut
        let seen = out.text.chars().count();
        t.check(seen <= out.threshold, || {
            format!(
                "{}: the model sees {seen} chars, threshold {}",
                c.name, out.threshold
            )
        });
        check_numbers(&mut t, c, &out.text);
        let cwd = tmp.path().join(format!("case{i}"));
        std::fs::create_dir_all(&cwd).expect("case dir");
        let budget = config.entry_for("shell").threshold;
        let tools = RecoveryTools::for_default_dialog(store.clone());
        for s in &out.suggestions {
            if matches!(s.tool.as_str(), "get_continuation" | "search_tool_output") {
                check_recovery(&mut t, c, s, &tools);
            } else {
                check_suggestion(&mut t, c, s, &cwd, budget);
            }
        }
        // without a store: the harness's own tools (generic names, then Claude
        // Code's, run as the commands they stand for)
        for (setup, cfg) in [
            ("generic", &config),
            ("claude-code", &claude),
            ("mcp-filesystem", &mcp_fs),
        ] {
            let p = ToolResultProcessor::new(cfg.clone());
            let out = match &c.bytes {
                // (a harness's own read tool decodes a file its own way: the
                // shell commands are what is checked for these)
                Some(_) if setup != "generic" => continue,
                Some(b) => p.process_bytes(&ToolCall::new(&c.tool, &c.args), b).0,
                None => p.process(&c.tool, &c.text, &c.args),
            };
            let cwd = tmp.path().join(format!("case{i}-{setup}"));
            std::fs::create_dir_all(&cwd).expect("case dir");
            for s in &out.suggestions {
                match as_generic(s) {
                    Some(g) => check_suggestion(&mut t, c, &g, &cwd, budget),
                    None => check_suggestion(&mut t, c, s, &cwd, budget),
                }
            }
        }
        // the stored result pages on from where the kept part ends
        if let Some(st) = &out.stored {
            let tools = RecoveryTools::for_default_dialog(store.clone());
            let args = json!({ "tool_call_id": st.tool_call_id, "offset": st.offset });
            t.ran += 1;
            match tools.dispatch("get_continuation", &args) {
                Dispatch::Handled(r) => {
                    let want: String = c.text.chars().skip(st.offset).take(200).collect();
                    t.check(!r.is_error && r.text.starts_with(&want), || {
                        format!(
                            "{}: get_continuation offset {} does not continue the original",
                            c.name, st.offset
                        )
                    });
                }
                Dispatch::NotMine => t
                    .failures
                    .push(format!("{}: get_continuation not served", c.name)),
            }
        }
    }
    eprintln!(
        "real inputs: {} cases, {} cut; {} suggestions ran ({} through the recovery tools; {} not runnable here); {} numbers checked; {} failures",
        t.cases,
        t.cut,
        t.ran,
        t.recovery,
        t.not_runnable,
        t.numbers,
        t.failures.len()
    );
    for o in &t.unsized_over {
        eprintln!("  unsized output over the shell threshold: {o}");
    }
    for f in &t.failures {
        eprintln!("  FAIL {f}");
    }
    assert!(
        t.cases >= 25,
        "only {} real inputs found on this machine",
        t.cases
    );
    // every suggestion followed comes back whole (issue 17 item 11)
    assert!(
        t.unsized_over.is_empty(),
        "{} suggestions print more than the shell threshold (see above)",
        t.unsized_over.len()
    );
    assert!(
        t.failures.is_empty(),
        "{} checks failed (see above)",
        t.failures.len()
    );
}

// ---------------------------------------------------------------------------
// Issue 34: every failure named

/// A shell fixture made by `fixtures/shell/generate.sh` and its call.
fn shell_fixture(name: &str) -> (String, Value) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/shell");
    let text = std::fs::read_to_string(dir.join(name)).expect("fixture");
    let call: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join(format!("{name}.call.json"))).expect("call"),
    )
    .expect("call JSON");
    (text, call["args"].clone())
}

/// Whether `line` is a whole line of what the model sees.
fn shows(view: &str, line: &str) -> bool {
    view.lines().any(|l| l == line)
}

/// Lines `A-B` a suggestion's comment says it reads (`omitted lines A-B of N`).
fn reads(s: &toolcap::Suggestion) -> Option<(usize, usize)> {
    let rx = Regex::new(r"lines (\d+)-(\d+) of \d+").expect("regex");
    let c = rx.captures(&s.purpose)?;
    Some((num(&c[1]), num(&c[2])))
}

/// A failing `cargo test` of a real crate (strsim 0.11.1 with one bug put in
/// by fixtures/shell/generate.sh: 8 of 88 tests fail), with and without
/// backtraces: the view holds every failed test's panic line (its name and
/// where it failed) with its assertion and `left:`/`right:` values, and the
/// first failure's frame in the crate; the first suggestion reads what the
/// view left out after the passing tests, never lines 1-N of compiling and
/// passing tests. The run without backtraces is 6.6 KB: less than every
/// agent's own limit, so the model must not see less of it than without
/// toolcap.
#[test]
fn a_failed_cargo_test_names_every_failure_with_its_values() {
    for name in ["cargo_test_strsim.log", "cargo_test_strsim_backtrace.log"] {
        let (text, args) = shell_fixture(name);
        let p = ToolResultProcessor::new(Config::defaults()).process("shell", &text, &args);
        assert!(p.truncated, "{name}");
        let lines: Vec<&str> = text.lines().collect();
        // the failed tests, as cargo lists them at the end
        let listed = lines
            .iter()
            .rposition(|l| *l == "failures:")
            .expect("a list");
        let failed: Vec<&str> = lines[listed + 1..]
            .iter()
            .take_while(|l| l.starts_with("    "))
            .map(|l| l.trim())
            .collect();
        assert_eq!(failed.len(), 8, "{name}");
        for id in &failed {
            let at = lines
                .iter()
                .position(|l| {
                    l.starts_with(&format!("thread '{id}' ")) && l.contains(" panicked at ")
                })
                .expect("a panic line");
            // the panic line, the assertion and its values
            for l in &lines[at..at + 4] {
                assert!(shows(&p.text, l), "{name}: {l:?} not shown:\n{}", p.text);
            }
            assert!(lines[at + 2].trim_start().starts_with("left:"), "{name}");
        }
        // never `tests::osa_* (×8)`: no collapsed line stands for failures
        assert!(
            !p.text
                .lines()
                .any(|l| l.contains("(×") && l.contains("tests::")),
            "{name}: {}",
            p.text
        );
        if name.contains("backtrace") {
            // the first failure's frame in the crate
            let first = lines
                .iter()
                .position(|l| l.contains(" panicked at "))
                .expect("panic");
            let frame = lines[first..]
                .iter()
                .find(|l| l.trim_start().starts_with("at ./src/"))
                .expect("a frame in the crate");
            assert!(shows(&p.text, frame), "{name}: {frame} not shown");
        }
        let first_block = lines
            .iter()
            .position(|l| l.starts_with("---- "))
            .expect("a block")
            + 1;
        let s = p.suggestions.first().expect("a suggestion");
        if let Some((a, _)) = reads(s) {
            assert!(
                a >= first_block,
                "{name}: the first suggestion reads the passing head: {}",
                s.render()
            );
        }
    }
}

/// pytest on a real project's parametrized tests (humanize 4.12.1, three
/// bugs put in by fixtures/shell/generate.sh: 8 failures with ids such as
/// `test_ordinal[11-11th]`): every failed test's id is in the view, none
/// collapsed into a `test_ordinal[*] (×4)` line, and the first failure's
/// `E   AssertionError` line and its `tests/test_number.py:38:` location are
/// shown; the first suggestion does not read the session's head.
#[test]
fn pytest_with_parametrized_failures_names_every_id() {
    let (text, args) = shell_fixture("pytest_humanize.log");
    let p = ToolResultProcessor::new(Config::defaults()).process("shell", &text, &args);
    assert!(p.truncated);
    let ids: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("FAILED "))
        .filter_map(|l| l.split(" - ").next())
        .filter_map(|l| l.split("::").nth(1))
        .collect();
    assert_eq!(ids.len(), 8);
    for id in &ids {
        assert!(
            p.text
                .lines()
                .any(|l| l.contains(&format!("::{id} ")) || l.contains(&format!(" {id} "))),
            "{id} not named:\n{}",
            p.text
        );
    }
    assert!(!p.text.lines().any(|l| l.contains("(×")), "{}", p.text);
    let lines: Vec<&str> = text.lines().collect();
    let first = lines
        .iter()
        .position(|l| l.starts_with("E   "))
        .expect("an E line");
    let location = lines[first..]
        .iter()
        .find(|l| l.starts_with("tests/") && l.ends_with(": AssertionError"))
        .expect("a location");
    for l in [lines[first], location] {
        assert!(shows(&p.text, l), "{l:?} not shown:\n{}", p.text);
    }
    let s = p.suggestions.first().expect("a suggestion");
    if let Some((a, _)) = reads(s) {
        assert!(
            a > 15,
            "the first suggestion reads the session's head: {}",
            s.render()
        );
    }
}

/// A Python build log with two syntax errors (`python3 -m compileall` over
/// nine standard-library packages, two errors put in): each error's
/// `***   File "...", line N` location is shown with its `SyntaxError:` line.
#[test]
fn a_python_build_log_keeps_each_syntax_errors_location() {
    let (text, args) = shell_fixture("python_compile_errors.log");
    let p = ToolResultProcessor::new(Config::defaults()).process("shell", &text, &args);
    assert!(p.truncated);
    let lines: Vec<&str> = text.lines().collect();
    let errors: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("***   File \""))
        .collect();
    assert_eq!(errors.len(), 2);
    for &i in &errors {
        let message = lines[i..]
            .iter()
            .find(|l| l.starts_with("SyntaxError: "))
            .expect("message");
        for l in [lines[i], message] {
            assert!(shows(&p.text, l), "{l:?} not shown:\n{}", p.text);
        }
    }
}

/// Python's own outline of `path` (tests/ast_outline.py): (name, line, end_line).
fn ast_symbols(path: &Path) -> Vec<(String, usize, usize)> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ast_outline.py");
    let out = sh(&format!(
        "python3 {} {}",
        shell_quote(script),
        shell_quote(&path.display().to_string())
    ))
    .expect("ast_outline.py runs");
    let v: Value = serde_json::from_str(&out).expect("JSON");
    let (_, syms) = v["files"]
        .as_object()
        .expect("files")
        .iter()
        .next()
        .expect("one file");
    syms.as_array()
        .expect("symbols")
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap_or_default().to_string(),
                s["line"].as_u64().unwrap_or(0) as usize,
                s["end_line"].as_u64().unwrap_or(0) as usize,
            )
        })
        .collect()
}

/// Lines printed from inside a file (issue 34): a `sed -n 'A,Bp'` or `awk
/// 'NR>=A && NR<=B'` range of a standard-library module that starts inside a
/// docstring (the line after one opens) and ends wherever it ends gets every
/// definition inside the range, each with the line and end Python's `ast`
/// gives (a definition running on past the range keeps its true end),
/// numbered as the model sees the file; never "no definitions found".
#[test]
fn printed_ranges_inside_a_string_are_outlined_as_the_file_reads() {
    let Some(lib) = stdlib() else { return };
    let mut checked = 0;
    for file in ["argparse.py", "textwrap.py", "difflib.py", "tarfile.py"] {
        let path = lib.join(file);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let lines: Vec<&str> = text.lines().collect();
        // the first line inside a docstring past line 60: the line after one
        // that opens `"""` and does not close it
        let Some(a) = (60..lines.len()).find(|&i| {
            let t = lines[i - 1].trim();
            t.starts_with("\"\"\"") && t.len() > 3 && !t[3..].contains("\"\"\"")
        }) else {
            continue;
        };
        let a = a + 1;
        let b = (a + 399).min(lines.len());
        let truth: Vec<(String, usize, usize)> = ast_symbols(&path)
            .into_iter()
            .filter(|s| (a..=b).contains(&s.1))
            .collect();
        assert!(!truth.is_empty(), "{file} {a}-{b}");
        let p = path.display().to_string();
        for command in [
            format!("sed -n '{a},{b}p' {p}"),
            format!("awk 'NR>={a} && NR<={b}' {p}"),
        ] {
            let printed = sh(&command).expect("prints");
            let args = json!({ "command": command });
            let out =
                ToolResultProcessor::new(Config::defaults()).process("shell", &printed, &args);
            assert!(out.truncated, "{command}");
            assert!(
                !out.text.contains("no definitions found"),
                "{command}:\n{}",
                out.text
            );
            let o = out.outline.as_ref().expect("an outline");
            for (name, line, end) in &truth {
                let found = o
                    .symbols
                    .iter()
                    .find(|s| &s.name == name && s.line + a - 1 == *line);
                let found =
                    found.unwrap_or_else(|| panic!("{command}: {name} at {line} not found"));
                assert_eq!(found.end_line + a - 1, *end, "{command}: {name}'s end");
            }
            checked += 1;
        }
    }
    assert!(checked >= 4, "{checked} ranges checked");
}

/// `printed_file.end_line` is the file's last line printed (issue 34): `sed -n
/// 'A,5000p'` of a standard-library module shorter than 5,000 lines ends at
/// its last line, `head -n 200` at line 200.
#[test]
fn a_printed_files_end_line_is_the_last_line_printed() {
    let Some(lib) = stdlib() else { return };
    let path = lib.join("argparse.py").display().to_string();
    let total = sh(&format!("wc -l < {}", shell_quote(&path)))
        .map(|s| num(s.trim()))
        .expect("wc");
    assert!(total < 5000);
    let a = total - 300;
    for (command, start, end) in [
        (format!("sed -n '{a},5000p' {path}"), a, total),
        (format!("head -n 200 {path}"), 1, 200),
        (format!("cat -n {path}"), 1, total),
    ] {
        let printed = sh(&command).expect("prints");
        let args = json!({ "command": command });
        let out = ToolResultProcessor::new(Config::defaults()).process("shell", &printed, &args);
        let pf = out.printed_file.expect("a printed file");
        assert_eq!(
            (pf.start_line, pf.end_line),
            (Some(start), Some(end)),
            "{command}"
        );
    }
}
