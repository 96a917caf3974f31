//! Everyday command output read for its parts (issue 34): `git log -p` of a
//! repository made here and of this project, `git diff`, `grep -rn` and
//! `grep -rc` over the Python standard library, `find` over a real tree.
//! The numbers the recovery section states are recounted with `git log
//! --oneline | wc -l`, `git diff --numstat`, `grep -c`, `find | wc -l`; every
//! suggested read of a part returns exactly the promised lines of the stored
//! output; the view keeps the output's head and only verbatim lines of it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use regex::Regex;
use serde_json::{Value, json};
use toolcap::store::tools::{Dispatch, RecoveryTools};
use toolcap::{
    Config, MemoryStore, Processed, ResultStore, SaveWhen, ToolCall, ToolResultProcessor,
};

fn sh(cmd: &str) -> Option<String> {
    let out = Command::new("bash").arg("-c").arg(cmd).output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn stdlib() -> Option<PathBuf> {
    sh("python3 -c 'import sysconfig;print(sysconfig.get_paths()[\"stdlib\"])'")
        .map(|s| PathBuf::from(s.trim()))
        .filter(|p| p.join("email").is_dir())
}

fn num(s: &str) -> usize {
    s.replace(',', "").parse().expect("a number")
}

/// Lines `a..=b` (1-based) of `text`, with their line ends.
fn lines_of(text: &str, a: usize, b: usize) -> String {
    text.split_inclusive('\n')
        .skip(a - 1)
        .take(b + 1 - a)
        .collect()
}

/// The output of `cmd` processed as a shell result, stored; also streamed
/// in pieces: both views must be the same.
fn process(cmd: &str, text: &str, extra: Value) -> (Processed, Arc<dyn ResultStore>) {
    let mut args = json!({ "command": cmd });
    if let (Some(a), Some(e)) = (args.as_object_mut(), extra.as_object()) {
        a.extend(e.clone());
    }
    let store: Arc<dyn ResultStore> = Arc::new(MemoryStore::new());
    let p = ToolResultProcessor::new(Config::defaults()).with_store(store.clone(), SaveWhen::Cut);
    let mut call = ToolCall::new("shell", &args);
    call.id = Some("everyday_1");
    let out = p.process_call(&call, text);
    let streamed_store: Arc<dyn ResultStore> = Arc::new(MemoryStore::new());
    let q = ToolResultProcessor::new(Config::defaults()).with_store(streamed_store, SaveWhen::Cut);
    let (streamed, _) = q
        .process_chunks(&call, |sink| {
            for piece in text.as_bytes().chunks(4093) {
                sink(piece);
            }
            Ok(())
        })
        .expect("streamed");
    assert_eq!(
        streamed.text, out.text,
        "{cmd}: streamed and in-memory views differ"
    );
    (out, store)
}

/// Every suggested read of the stored output returns exactly its lines;
/// returns how many were checked.
fn reads_return_their_lines(out: &Processed, store: &Arc<dyn ResultStore>, text: &str) -> usize {
    let tools = RecoveryTools::for_default_dialog(store.clone());
    let mut n = 0;
    let chars = Regex::new(r"([\d,]+) chars?$").unwrap();
    for s in &out.suggestions {
        let get = |k: &str| s.args.get(k).and_then(Value::as_u64).map(|v| v as usize);
        let (Some(a), Some(b)) = (get("start_line"), get("end_line")) else {
            continue;
        };
        let Dispatch::Handled(r) = tools.dispatch(&s.tool, &Value::Object(s.args.clone())) else {
            panic!("{}: not served", s.render());
        };
        assert!(!r.is_error, "{}: {}", s.render(), r.text);
        let want = lines_of(text, a, b);
        assert_eq!(
            r.text.trim_end_matches('\n'),
            want.trim_end_matches('\n'),
            "{} does not return lines {a}-{b}",
            s.render()
        );
        if let Some(m) = chars.captures(&s.purpose) {
            assert_eq!(num(&m[1]), want.chars().count(), "{}", s.render());
        }
        n += 1;
    }
    n
}

/// The kept lines (markers and the recovery section left out) are each a
/// line of the output.
fn shown_lines_are_verbatim(out: &Processed, text: &str) {
    let body = out
        .text
        .split("\n--- Recovery Options ---")
        .next()
        .unwrap_or_default();
    let lines: std::collections::HashSet<&str> = text.lines().collect();
    for l in body.lines() {
        if l.is_empty() || l.starts_with("[... ") {
            continue;
        }
        assert!(
            lines.contains(l),
            "not a line of the output: {l:?}\n{}",
            out.text
        );
    }
}

fn git(dir: &Path, args: &str) {
    let ok = Command::new("bash")
        .arg("-c")
        .arg(format!("git {args}"))
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .status()
        .expect("git")
        .success();
    assert!(ok, "git {args}");
}

/// A repository whose commit subjects and diffs are full of error words.
fn repo_with_error_words() -> tempfile::TempDir {
    let d = tempfile::tempdir().expect("tmp");
    git(d.path(), "init -q -b main .");
    let src = stdlib();
    for i in 0..14 {
        let body: String = match &src {
            // real code with its `raise ValueError(...)` lines
            Some(s) => std::fs::read_to_string(s.join("configparser.py"))
                .expect("configparser.py")
                .lines()
                .skip(i * 40)
                .take(60)
                .map(|l| format!("{l}\n"))
                .collect(),
            None => (0..60)
                .map(|k| format!("raise ValueError('error {i} {k}')\n"))
                .collect(),
        };
        std::fs::write(d.path().join(format!("m{}.py", i % 4)), body).expect("write");
        git(
            d.path(),
            &format!(
                "add -A && git commit -q -m 'fix Error {i}: TypeError raised when the parser fails'"
            ),
        );
    }
    d
}

#[test]
fn a_git_log_shows_its_commits_not_the_error_words_in_its_diffs() {
    let repo = repo_with_error_words();
    let dir = repo.path().display().to_string();
    let cmd = format!("git -C {dir} log -p");
    let text = sh(&cmd).expect("git log -p");
    let commits = num(sh(&format!("git -C {dir} log --oneline | wc -l"))
        .unwrap()
        .trim());
    let listed = Regex::new(r"(?m)^  ([0-9a-f]{7}) (.*) \(lines (\d+)-(\d+)").unwrap();
    let hashes: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("commit "))
        .collect();
    for extra in [json!({}), json!({"exit_code": 0})] {
        let (out, store) = process(&cmd, &text, extra.clone());
        assert!(out.truncated);
        // the head: the newest commit's header and subject
        assert!(
            out.text.starts_with(text.lines().next().unwrap()),
            "{extra}:\n{}",
            out.text
        );
        assert!(
            out.text.contains("    fix Error 13: TypeError"),
            "{}",
            out.text
        );
        assert!(!out.text.contains("error-looking lines"), "{}", out.text);
        shown_lines_are_verbatim(&out, &text);
        // the numbers, recounted
        let numstat = sh(&format!("git -C {dir} log --numstat --format=")).unwrap();
        let (files, added, removed) =
            numstat
                .lines()
                .filter(|l| !l.is_empty())
                .fold((0, 0, 0), |(f, a, r), l| {
                    let mut w = l.split('\t');
                    let x: usize = w.next().unwrap().parse().unwrap();
                    let y: usize = w.next().unwrap().parse().unwrap();
                    (f + 1, a + x, r + y)
                });
        let fact = format!("Diff: {commits} commits, {files} files changed, +{added} −{removed}");
        assert!(out.text.contains(&fact), "want {fact:?}:\n{}", out.text);
        // every commit listed is the one on those lines
        let mut seen = 0;
        for m in listed.captures_iter(&out.text) {
            let (a, b) = (num(&m[3]), num(&m[4]));
            let part = lines_of(&text, a, b);
            assert!(part.starts_with(&format!("commit {}", &m[1])), "{}", &m[0]);
            let next = lines_of(&text, b + 1, b + 1);
            assert!(next.is_empty() || next.starts_with("commit "), "{}", &m[0]);
            seen += 1;
        }
        // spread over the log: its last commit among them
        assert!(seen >= 5, "{seen} commits listed:\n{}", out.text);
        assert!(
            out.text
                .contains(&format!("  {} ", &hashes.last().unwrap()[..7])),
            "the last commit is not listed:\n{}",
            out.text
        );
        // every commit's header, searched in the stored output, unless every
        // commit is named in the view already
        let Some(search) = out
            .suggestions
            .iter()
            .find(|s| s.tool == "search_tool_output")
        else {
            for h in &hashes {
                assert!(out.text.contains(&h[..7]), "{h} not named:\n{}", out.text);
            }
            assert!(
                reads_return_their_lines(&out, &store, &text) >= 1,
                "{}",
                out.text
            );
            continue;
        };
        assert!(
            search.purpose.contains(&format!("({commits} lines)")),
            "{}",
            search.purpose
        );
        let tools = RecoveryTools::for_default_dialog(store.clone());
        let Dispatch::Handled(r) =
            tools.dispatch(&search.tool, &Value::Object(search.args.clone()))
        else {
            panic!("not served")
        };
        assert!(r.text.starts_with(&format!("{commits} of ")), "{}", r.text);
        assert!(
            reads_return_their_lines(&out, &store, &text) >= 2,
            "{}",
            out.text
        );
    }
}

#[test]
fn the_projects_own_log_and_a_diff_are_counted_as_git_counts() {
    let root = env!("CARGO_MANIFEST_DIR");
    // up to a fixed commit: later diffs quote toolcap's own structure lines (docs,
    // snapshots), which a count of the listed files would take for this output's
    let at = "37c3bc8";
    let Some(text) = sh(&format!("git -C {root} log -p -n 30 --no-merges {at}")) else {
        eprintln!("no git history here: skipped");
        return;
    };
    let cmd = format!("git -C {root} log -p -n 30 --no-merges {at}");
    let (out, store) = process(&cmd, &text, json!({}));
    let commits = sh(&format!(
        "git -C {root} log --oneline -n 30 --no-merges {at} | wc -l"
    ))
    .unwrap();
    assert!(
        out.text
            .contains(&format!("Diff: {} commits,", commits.trim())),
        "{}",
        out.text
    );
    reads_return_their_lines(&out, &store, &text);
    // a diff between two commits: files with their +/−
    let range = "37c3bc8~20..37c3bc8";
    let Some(diff) = sh(&format!("git -C {root} diff {range}")) else {
        return;
    };
    if diff.chars().count() < 5000 {
        return;
    }
    let (out, store) = process(&format!("git -C {root} diff {range}"), &diff, json!({}));
    let numstat = sh(&format!("git -C {root} diff --numstat {range}")).unwrap();
    let listed = Regex::new(r"(?m)^  (\S+) \+([\d,]+) −([\d,]+) \(lines? (\d+)").unwrap();
    let mut checked = 0;
    for m in listed.captures_iter(&out.text) {
        let want = numstat
            .lines()
            .find(|l| l.ends_with(&format!("\t{}", &m[1])))
            .unwrap_or_else(|| panic!("{} not in numstat", &m[1]));
        let mut w = want.split('\t');
        assert_eq!(w.next().unwrap(), m[2].replace(',', ""), "{want}");
        assert_eq!(w.next().unwrap(), m[3].replace(',', ""), "{want}");
        checked += 1;
    }
    assert!(checked > 0, "{}", out.text);
    reads_return_their_lines(&out, &store, &diff);
}

#[test]
fn grep_results_are_counted_per_file_and_keep_their_line_numbers() {
    let Some(lib) = stdlib() else {
        eprintln!("no Python stdlib here: skipped");
        return;
    };
    let lib = lib.display().to_string();
    // matches that mention errors, as grep prints them
    let cmd = format!("grep -rn --include=*.py -e 'raise ' {lib}/email {lib}/asyncio");
    let text = sh(&cmd).expect("grep");
    let (out, store) = process(&cmd, &text, json!({}));
    let files = num(sh(&format!(
        "grep -rl --include=*.py -e 'raise ' {lib}/email {lib}/asyncio | wc -l"
    ))
    .unwrap()
    .trim());
    let fact = format!(
        "Matches: {} in {files} files",
        toolcap_thousands(text.lines().count())
    );
    assert!(out.text.contains(&fact), "want {fact:?}:\n{}", out.text);
    assert!(!out.text.contains("error-looking"), "{}", out.text);
    // per-file counts are grep -c's
    let per_file = Regex::new(r"(?m)^  (\S+) ([\d,]+) match(?:es)? \(lines? (\d+)").unwrap();
    let mut checked = 0;
    for m in per_file.captures_iter(&out.text) {
        let c = sh(&format!("grep -c -e 'raise ' {}", &m[1])).unwrap();
        assert_eq!(num(c.trim()), num(&m[2]), "{}", &m[0]);
        checked += 1;
    }
    assert!(checked >= 5, "{}", out.text);
    // no line of the view is a folded `*` line: grep's line numbers stay
    shown_lines_are_verbatim(&out, &text);
    assert!(
        reads_return_their_lines(&out, &store, &text) >= 1,
        "{}",
        out.text
    );
}

fn toolcap_thousands(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[test]
fn grep_count_output_is_read_as_counts() {
    let Some(lib) = stdlib() else {
        eprintln!("no Python stdlib here: skipped");
        return;
    };
    let lib = lib.display().to_string();
    let cmd = format!(
        "grep -rc --include=*.py -e 'def ' {lib}/email {lib}/asyncio {lib}/json {lib}/unittest"
    );
    let text = sh(&cmd).expect("grep -c");
    let (out, _) = process(&cmd, &text, json!({}));
    let (sum, with, files) = text.lines().fold((0, 0, 0), |(s, w, f), l| {
        let k: usize = l.rsplit(':').next().unwrap().parse().unwrap();
        (s + k, w + usize::from(k > 0), f + 1)
    });
    let want = format!(
        "Counts: {} matching lines in {} files",
        toolcap_thousands(sum),
        toolcap_thousands(with)
    );
    assert!(out.text.contains(&want), "want {want:?}:\n{}", out.text);
    if files > with {
        assert!(
            out.text
                .contains(&format!("({} files searched", toolcap_thousands(files)))
        );
    }
    // the file with the most is listed first with its count
    let top = text
        .lines()
        .map(|l| {
            let (p, k) = l.rsplit_once(':').unwrap();
            (k.parse::<usize>().unwrap(), p)
        })
        .max_by_key(|&(k, p)| (k, std::cmp::Reverse(p)))
        .unwrap();
    assert!(
        out.text.contains(&format!(
            "  {} {} matching lines",
            top.1,
            toolcap_thousands(top.0)
        )),
        "{top:?}:\n{}",
        out.text
    );
}

#[test]
fn a_find_listing_counts_the_entries_of_each_directory() {
    let Some(lib) = stdlib() else {
        eprintln!("no Python stdlib here: skipped");
        return;
    };
    let lib = lib.display().to_string();
    let cmd = format!("cd {lib} && find . -path ./site-packages -prune -o -print");
    let text = sh(&cmd).expect("find");
    let (out, store) = process(&cmd, &text, json!({}));
    assert!(out.text.starts_with(".\n"), "{}", out.text);
    // each directory with entries left out: the entries directly in it, as
    // `find -maxdepth 1` counts them, and the names left out, each one of them
    let per_dir = Regex::new(r"(?m)^  (\.|\./\S+)/ \(([\d,]+)\): (.+)$").unwrap();
    let mut checked = 0;
    for m in per_dir.captures_iter(&out.text) {
        let n = sh(&format!(
            "cd {lib} && find {} -mindepth 1 -maxdepth 1 -not -path ./site-packages | wc -l",
            &m[1]
        ))
        .unwrap();
        assert_eq!(num(n.trim()), num(&m[2]), "{}", &m[0]);
        for name in m[3].split(", ").filter(|f| *f != "…") {
            let path = format!("{}/{name}", &m[1]);
            assert!(text.lines().any(|l| l == path), "{path} is not listed");
        }
        checked += 1;
    }
    assert!(checked >= 3, "{}", out.text);
    let total = text.lines().count() - 1;
    assert!(
        out.text
            .contains(&format!("Listing: {} entries", toolcap_thousands(total))),
        "{}",
        out.text
    );
    shown_lines_are_verbatim(&out, &text);
    assert!(
        reads_return_their_lines(&out, &store, &text) >= 1,
        "{}",
        out.text
    );
}

#[test]
fn an_ls_r_listing_counts_each_directorys_entries() {
    let Some(lib) = stdlib() else {
        eprintln!("no Python stdlib here: skipped");
        return;
    };
    let lib = lib.display().to_string();
    let cmd = format!("cd {lib} && ls -laR email json");
    let text = sh(&cmd).expect("ls -laR");
    let (out, store) = process(&cmd, &text, json!({}));
    // each section with entries left out: its own entries, as `ls -A` counts
    // them, and the names left out, each one of them
    let per_dir = Regex::new(r"(?m)^  (\S+)/ \(([\d,]+)\): (.+)$").unwrap();
    let mut checked = 0;
    for m in per_dir.captures_iter(&out.text) {
        let n = sh(&format!("cd {lib} && ls -A {} | wc -l", &m[1])).unwrap();
        assert_eq!(num(n.trim()), num(&m[2]), "{}", &m[0]);
        for name in m[3].split(", ").filter(|f| *f != "…") {
            assert!(
                Path::new(&lib).join(&m[1]).join(name).exists(),
                "{name} is not in {}",
                &m[1]
            );
        }
        checked += 1;
    }
    assert!(checked >= 2, "{}", out.text);
    reads_return_their_lines(&out, &store, &text);
}

#[test]
fn grep_with_context_and_file_lists_are_told_apart() {
    let Some(lib) = stdlib() else {
        eprintln!("no Python stdlib here: skipped");
        return;
    };
    let lib = lib.display().to_string();
    // context lines (`file-N-text`) and `--` separators are not matches
    let cmd = format!("grep -rn -C 2 -e 'raise TypeError' {lib}/json {lib}/email");
    let text = sh(&cmd).expect("grep -C");
    let (out, store) = process(&cmd, &text, json!({}));
    let matches = sh(&format!(
        "grep -rn -e 'raise TypeError' {lib}/json {lib}/email | wc -l"
    ))
    .unwrap();
    let files = sh(&format!(
        "grep -rlI -e 'raise TypeError' {lib}/json {lib}/email | wc -l"
    ))
    .unwrap();
    let want = format!("Matches: {} in {} files,", matches.trim(), files.trim());
    assert!(out.text.contains(&want), "want {want:?}:\n{}", out.text);
    reads_return_their_lines(&out, &store, &text);
    // `-l`: a list of files, counted by directory
    let cmd = format!("grep -rl -e 'import' {lib}/email {lib}/json {lib}/asyncio");
    let text = sh(&cmd).expect("grep -l");
    let (out, _) = process(&cmd, &text, json!({}));
    let n = text.lines().count();
    assert!(
        out.text.contains(&format!("Listing: {n} entries")),
        "{}",
        out.text
    );
}

#[test]
fn one_commit_and_a_plain_unified_diff_list_their_files() {
    let Some(lib) = stdlib() else {
        eprintln!("no Python stdlib here: skipped");
        return;
    };
    let d = tempfile::tempdir().expect("tmp");
    let a = d.path().join("a.py");
    let b = d.path().join("b.py");
    let orig = std::fs::read_to_string(lib.join("configparser.py")).unwrap();
    std::fs::write(&a, &orig).unwrap();
    // every tenth line changed, some lines that read like diff headers
    let changed: String = orig
        .lines()
        .enumerate()
        .map(|(i, l)| match i % 10 {
            3 => format!("-- {l}\n"),
            7 => format!("++ {l} # changed\n"),
            _ => format!("{l}\n"),
        })
        .collect();
    std::fs::write(&b, changed).unwrap();
    let (ap, bp) = (a.display(), b.display());
    let cmd = format!("diff -u {ap} {bp}");
    let Ok(o) = Command::new("bash").arg("-c").arg(&cmd).output() else {
        return;
    };
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let (out, store) = process(&cmd, &text, json!({}));
    let numstat = sh(&format!("git diff --no-index --numstat {ap} {bp} || true")).unwrap();
    let mut w = numstat.split_whitespace();
    let (x, y) = (w.next().unwrap(), w.next().unwrap());
    let want = format!(
        "{bp} +{} −{} (lines 1-",
        toolcap_thousands(num(x)),
        toolcap_thousands(num(y))
    );
    assert!(out.text.contains(&want), "want {want:?}:\n{}", out.text);
    reads_return_their_lines(&out, &store, &text);
    // one commit of this project: its files with git's counts (from a fixed
    // commit, one that moved files: later commits would make the test another)
    let root = env!("CARGO_MANIFEST_DIR");
    let at = "fc2bfe4";
    let Some(rev) = sh(&format!(
        "git -C {root} log --no-merges --format=%h -n 40 {at} | while read h; do n=$(git -C {root} show --format= --numstat $h | wc -l); [ $n -ge 3 ] && echo $h && break; done"
    )) else {
        return;
    };
    let rev = rev.trim();
    if rev.is_empty() {
        return;
    }
    let cmd = format!("git -C {root} show {rev}");
    let text = sh(&cmd).unwrap();
    if text.chars().count() < 4000 {
        return;
    }
    let (out, _) = process(&cmd, &text, json!({}));
    assert!(
        out.text.contains(&format!("Files of commit {rev}")),
        "{}",
        out.text
    );
    let numstat = sh(&format!("git -C {root} show --format= --numstat {rev}")).unwrap();
    let listed = out
        .text
        .lines()
        .skip_while(|l| !l.starts_with("Files of commit"))
        .skip(1)
        .take_while(|l| l.starts_with("  ") && !l.starts_with("  ..."))
        .count();
    let total = numstat.lines().count();
    assert!(listed > 0, "{}", out.text);
    if listed < total {
        let more = format!("... and {} more files", total - listed);
        assert!(out.text.contains(&more), "want {more:?}:\n{}", out.text);
    }
    for l in numstat.lines().take(listed) {
        let mut w = l.split('\t');
        let (x, y, path) = (w.next().unwrap(), w.next().unwrap(), w.next().unwrap());
        if x == "-" {
            continue;
        }
        // a renamed file: numstat writes `{old => new}/name`; the view names it
        // by its new path
        let path = renamed_to(path);
        // a file that changed type (a file replaced by a symlink) is two diffs
        // of one path, listed apart; numstat adds their counts up
        if text
            .matches(&format!("diff --git a/{path} b/{path}\n"))
            .count()
            > 1
        {
            continue;
        }
        let want = format!(
            "  {path} +{} −{} (",
            toolcap_thousands(num(x)),
            toolcap_thousands(num(y))
        );
        assert!(out.text.contains(&want), "want {want:?}:\n{}", out.text);
    }
}

/// The new path of a `git --numstat` path: `a/{old => new}/b` is `a/new/b`,
/// `old => new` is `new`.
fn renamed_to(path: &str) -> String {
    match (path.find('{'), path.find(" => "), path.find('}')) {
        (Some(open), Some(arrow), Some(close)) if open < arrow && arrow < close => {
            let new = &path[arrow + 4..close];
            let joined = format!("{}{new}{}", &path[..open], &path[close + 1..]);
            joined.replace("//", "/")
        }
        (_, Some(arrow), _) => path[arrow + 4..].to_string(),
        _ => path.to_string(),
    }
}

#[test]
fn a_log_is_counted_by_level() {
    // cargo's own debug log (CARGO_LOG) of a real crate's build
    let Some(krate) = sh("ls -d ~/.cargo/registry/src/*/strsim-0.11.1 2>/dev/null | head -n 1")
    else {
        return;
    };
    let krate = krate.trim().to_string();
    if krate.is_empty() {
        eprintln!("no strsim in the cargo registry: skipped");
        return;
    }
    let tmp = tempfile::tempdir().expect("tmp");
    let cmd = format!(
        "cd {krate} && CARGO_LOG=trace CARGO_TARGET_DIR={} cargo metadata --offline --format-version 1 2>&1 >/dev/null",
        tmp.path().display()
    );
    let Some(text) = sh(&cmd) else { return };
    if text.chars().count() < 4000 {
        return;
    }
    let (out, _) = process(&cmd, &text, json!({}));
    let count = |w: &str| {
        text.lines()
            .filter(|l| l.split_whitespace().nth(1) == Some(w))
            .count()
    };
    for w in ["TRACE", "DEBUG"] {
        let n = count(w);
        if n == 0 {
            continue;
        }
        let first = text
            .lines()
            .position(|l| l.split_whitespace().nth(1) == Some(w))
            .unwrap()
            + 1;
        let want = format!("{w} {} (first at line {first}", toolcap_thousands(n));
        assert!(out.text.contains(&want), "want {want:?}:\n{}", out.text);
    }
}

#[test]
fn a_log_that_printed_fine_still_shows_its_errors() {
    // a service log made by the repository's script: a quarter of its lines
    // are ERROR or WARN lines; `cat` of it succeeds
    let d = tempfile::tempdir().expect("tmp");
    let log = d.path().join("app.log");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/dense_log.py");
    if sh(&format!("python3 {script} {} 300000", log.display())).is_none() {
        eprintln!("no python3 here: skipped");
        return;
    }
    let text = std::fs::read_to_string(&log).unwrap();
    let (out, _) = process("cat app.log", &text, json!({"exit_code": 0}));
    let errors = text
        .lines()
        .filter(|l| l.split(' ').nth(1) == Some("ERROR"))
        .count();
    let first = text
        .lines()
        .position(|l| l.split(' ').nth(1) == Some("ERROR"))
        .unwrap()
        + 1;
    let want = format!("ERROR {} (first at line {first}", toolcap_thousands(errors));
    assert!(out.text.contains(&want), "want {want:?}:\n{}", out.text);
    // error lines kept from the middle, not only the head and the tail
    let body = out.text.split("\n--- Recovery Options ---").next().unwrap();
    let kept_errors = body.lines().filter(|l| l.contains(" ERROR ")).count();
    assert!(
        kept_errors >= 8,
        "{kept_errors} error lines shown:\n{}",
        out.text
    );
}
