//! shell: a command's output was cut (head + tail + error lines were shown).
//!
//! **What it does.** States the command, its exit code when the arguments carry it,
//! the output's size and how many error-looking lines it has, and suggests ways to
//! see the omitted part, each sized to come back whole from the shell tool and
//! saying its size: the first omitted lines, the error lines (with a shorter
//! pattern than the one that counts them, so the call costs less of the kept
//! part), the last lines — each of which says plainly that the command runs
//! again — plus saving the output once and paging the saved file. When the
//! full output is stored, the same lines are read and searched through the
//! recovery tools instead, and nothing runs again.
//!
//! **Why.** Build and test logs put their errors and summaries at the end and their
//! first failure somewhere in the middle; a model that only sees "output truncated"
//! re-runs the whole thing and gets the same cut.
//!
//! **Example.** `cargo test 2>&1 | sed -n '13,23p'  # re-runs the command; omitted lines 13-23 of 159, 412 chars ...`

use super::{Context, ErrorCount, Fact, Intent, Note, Pattern, Purpose, RecoveryModel, Source};
use crate::text::static_regex;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::cut::error_lines::{STRIP_COLOUR_SED, is_error_line};
use crate::quote;

/// What the suggested search for error lines looks for: the very pattern that
/// decides which lines are counted as error-looking
/// ([`crate::cut::error_lines::ERROR_PATTERN`]), so the count a fact states is the
/// count its search finds. Valid both as a Rust regex and as a `grep -E`
/// pattern, with the same lines matching under `LC_ALL=C` (ASCII classes, no
/// back-references).
pub const GREP_PATTERN: &str = crate::cut::error_lines::ERROR_PATTERN;

static GREP_RE: LazyLock<Regex> = LazyLock::new(|| static_regex(GREP_PATTERN));

/// The suggested error search (over one line), for a tally of the whole output.
pub fn grep_regex() -> &'static Regex {
    &GREP_RE
}

/// The command string of an argv array that runs one through a shell
/// (`["bash", "-lc", "cargo test"]`, as Codex sends; `sh -c`, `zsh -c`,
/// `bash -l -c`).
pub(crate) fn shell_c_command<'a>(words: &[&'a str]) -> Option<&'a str> {
    let (first, rest) = words.split_first()?;
    let shell = first.rsplit('/').next().unwrap_or(first);
    if !matches!(shell, "bash" | "sh" | "zsh" | "dash") {
        return None;
    }
    match rest {
        [flag, cmd] if matches!(*flag, "-c" | "-lc" | "-cl") => Some(cmd),
        [l, c, cmd] if *l == "-l" && *c == "-c" => Some(cmd),
        _ => None,
    }
}

/// The shell command an argument value carries: a string as it is; an argv
/// array running one command string through a shell, that string; any other
/// argv array, its words quoted and joined (`sed -n 1,5p 'my file.py'`).
pub(crate) fn command_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        Value::Array(a) => {
            let words: Vec<&str> = a.iter().map(Value::as_str).collect::<Option<_>>()?;
            if let Some(cmd) = shell_c_command(&words) {
                return Some(cmd.to_string()).filter(|c| !c.trim().is_empty());
            }
            let quoted: Vec<String> = words
                .iter()
                .map(|w| quote::shell_word(w))
                .collect::<Option<_>>()?;
            Some(quoted.join(" ")).filter(|c| !c.is_empty())
        }
        _ => None,
    }
}

/// The command of a shell call: the first of the entry's command keys that
/// carries one (see [`command_string`]).
pub(crate) fn command(ctx: &Context<'_>) -> Option<String> {
    let obj = ctx.args.as_object()?;
    ctx.entry
        .args
        .command
        .iter()
        .find_map(|k| command_string(obj.get(k)?))
}

/// The omitted range the first suggestion reads (see [`build`]), in the
/// original's line numbers: the first that holds key lines of a failure
/// (its name, message or where it failed; a compiler's error),
/// else the first past the first lines (those before the first failure) that
/// holds an error line, else (in output with failure blocks) the first past
/// the first lines, else the first;
/// and whether it is the first lines of output with failure blocks.
fn first_gap_to_read(ctx: &Context<'_>) -> Option<((usize, usize), bool)> {
    let mut gaps = ctx.gaps().filter_map(|g| g.lines).peekable();
    let first = *gaps.peek()?;
    let a = ctx.analysis();
    let classes = crate::cut::blocks::classify(a);
    // original line numbers of the failures' key lines (names, messages,
    // where they failed; a compiler's errors) and of the error lines; and
    // whether the output has a failure at all (a compiler's warning is none)
    use crate::cut::blocks::Rank;
    let mut failure = Vec::new();
    let mut error = Vec::new();
    // lines that are neither a backtrace's frames nor blank
    let mut substance = Vec::new();
    let mut failed: Option<usize> = None;
    for i in (0..a.len()).filter(|&i| !a.blocked(i)) {
        let n = a.orig_line_no(i);
        let c = classes[i];
        if c.in_block && c.rank != Rank::Warning {
            failed.get_or_insert(n);
        }
        let frame = backtrace_line(a.line(i));
        if !frame {
            substance.push(n);
        }
        if frame {
            // a frame says again where a shown failure happened
        } else if c.in_block
            && matches!(c.rank, Rank::FailureKey | Rank::FailureWhere | Rank::Error)
        {
            failure.push(n);
        } else if !c.in_block && is_error_line(a.line(i)) {
            error.push(n);
        }
    }
    let holds = |v: &[usize], (s, e): (usize, usize)| {
        let k = v.partition_point(|&n| n < s);
        v.get(k).is_some_and(|&n| n <= e)
    };
    // a gap of backtrace frames alone is read last (the failures' names,
    // messages and locations are what the next read is for)
    let gaps: Vec<(usize, usize)> = gaps.filter(|&g| holds(&substance, g)).collect();
    // (the first lines: before the first failure, else line 1)
    let past_head = |g: &(usize, usize)| g.0 > failed.unwrap_or(1);
    gaps.iter()
        .copied()
        .find(|&g| holds(&failure, g))
        .or_else(|| {
            gaps.iter()
                .copied()
                .find(|&g| past_head(&g) && holds(&error, g))
        })
        // (in a run with failures, the first lines are its build and passing
        // tests: what the view left out after them comes first)
        .or_else(|| {
            failed
                .is_some()
                .then(|| gaps.iter().copied().find(past_head))
                .flatten()
        })
        .map(|g| (g, false))
        .or(Some((first, failed.is_some() && !past_head(&first))))
}

/// A line of a Rust backtrace that only repeats where a failure happened:
/// its `  4: crate::f` and `at ./src/lib.rs:9:5` frames, `stack backtrace:`
/// and `note: ... backtrace` lines, cargo test's `---- name stdout ----`
/// headers (the `panicked` line names the test), or a blank line. (Java's and
/// Node's `    at f (file:line)` say where a failure happened: not these.)
fn backtrace_line(line: &str) -> bool {
    let t = line.trim();
    if t.is_empty() || t == "stack backtrace:" {
        return true;
    }
    if t.starts_with("note: ") && t.contains("backtrace") {
        return true;
    }
    if t.starts_with("---- ") && t.ends_with(" ----") {
        return true;
    }
    let indented = line.starts_with(' ') || line.starts_with('\t');
    if indented && t.starts_with("at ") && !t.contains('(') {
        return true;
    }
    // `  12: path::to::fn`
    indented
        && t.split_once(": ").is_some_and(|(k, rest)| {
            !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()) && !rest.is_empty()
        })
}

/// How the save-once suggestion opens its file: a new one on every run, made
/// by `mktemp` in the user's temporary directory (mode 0600, a name no other
/// call or user has, never an existing file or link), its name in `$out`.
/// `wc -l "$out"` prints the name with the line count.
pub const SAVE_INTO: &str = r#"out=$(mktemp "${TMPDIR:-/tmp}/toolcap-output.XXXXXX") && "#;

/// How the save-once suggestion's comment names its file.
pub const SAVE_FILE: &str = "FILE (the name wc -l prints)";

/// The save-once command around `run` (the command, or its `bash -c` form).
fn save_once(run: &str) -> String {
    format!(r#"{SAVE_INTO}{run} > "$out" 2>&1; wc -l "$out""#)
}

/// The recovery section of a command's cut output as typed values: the
/// command, its error lines, and the reads of the omitted lines.
pub(crate) fn model(ctx: &Context<'_>) -> RecoveryModel {
    let mut r = RecoveryModel::default();
    let command = command(ctx);
    r.facts.push(Fact::Command {
        command: command.clone(),
        exit: ctx.arg(|a| &a.exit_code),
        size: ctx.size(),
    });
    let stats = error_stats(ctx);
    // everyday output (a diff, grep results, a listing) is content: the
    // error words inside it are not how the command went
    let content = ctx.everyday.is_some_and(|e| e.kind.is_content());
    if let (Some(first), Some(last)) = (stats.first, stats.last)
        && !content
    {
        r.facts.push(Fact::ErrorLines {
            count: stats.count,
            not_shown: stats.count - shown_errors(ctx).min(stats.count),
            first,
            last,
        });
    }
    let Some(cmd) = command else {
        r.notes.push(Note::NoCommand);
        return r;
    };
    let saved = saved_file(ctx);
    let src = match &saved {
        Some(path) => Source::File(path),
        None => Source::Rerun(&cmd),
    };
    let room = ctx.lines_room(src);
    // (the first lines of a run with failures, when they are all that is left
    // out, are offered after the error lines: they are its build and passing
    // tests)
    let first_at = r.suggestions.len();
    let head_later = omitted_lines(ctx, src, room, &mut r);
    error_lines(ctx, src, room, content, stats.count, &mut r);
    if head_later && r.suggestions.len() > first_at + 1 {
        let head = r.suggestions.remove(first_at);
        r.suggestions.push(head);
    }
    last_lines(ctx, src, room, &mut r);
    if reruns(ctx) {
        let save = if quote::is_plain_command(&cmd) {
            Some(save_once(cmd.trim()))
        } else {
            quote::bash_c(&cmd).map(|b| save_once(&b))
        };
        if let Some(c) = save {
            r.suggestions.extend(ctx.offer(
                src,
                Intent::Shell(c),
                Purpose::SaveOnce { file: SAVE_FILE },
            ));
        }
    }
    r
}

/// The file the whole output was saved to, when the call's arguments name one
/// (a path argument of the shell entry: a hook that caps a result after the
/// command ran keeps it where the harness's read tool reads it): the way back
/// reads that file, and nothing runs again.
fn saved_file(ctx: &Context<'_>) -> Option<String> {
    ctx.arg(|a| &a.path)
}

/// Whether the way back runs the command again: the output is neither stored
/// nor saved to a file.
fn reruns(ctx: &Context<'_>) -> bool {
    !ctx.stored() && saved_file(ctx).is_none()
}

/// Error-looking lines the model saw, counted in the cleaned output (colour
/// codes hide words from a grep), numbered in the original.
fn shown_errors(ctx: &Context<'_>) -> usize {
    let a = ctx.analysis();
    (0..a.len())
        .filter(|&i| !a.blocked(i) && ctx.line_shown(a.orig_line_no(i) - 1))
        .filter(|&i| is_error_line(a.line(i)))
        .count()
}

/// Error-looking lines of the whole output: the scan's count, else counted here.
fn error_stats(ctx: &Context<'_>) -> crate::cut::scan::ErrorStats {
    ctx.errors.unwrap_or_else(|| {
        let a = ctx.analysis();
        let mut s = crate::cut::scan::ErrorStats::default();
        for i in (0..a.len()).filter(|&i| is_error_line(a.line(i))) {
            s.count += 1;
            s.first.get_or_insert(a.orig_line_no(i));
            s.last = Some(a.orig_line_no(i));
        }
        s
    })
}

/// The first wholly omitted range that holds failure lines (a failed test's
/// block, a compiler's error), else the first one that holds an error line
/// past the first lines (a failed run's first lines are its build and passing
/// tests), else the first: as many of its lines as come back whole. Whether
/// it is the run's passing head, offered after the error lines.
fn omitted_lines(ctx: &Context<'_>, src: Source<'_>, room: usize, r: &mut RecoveryModel) -> bool {
    let Some(((a, b), passing_head)) = first_gap_to_read(ctx) else {
        return false;
    };
    let rerun = reruns(ctx);
    let total = ctx.totals.lines;
    let read = match ctx.tally {
        Some(t) => t
            .lines_within(a, b, room)
            .map(|(end, chars)| (end, Some(chars))),
        // the output's lines were not tallied: a page of at most 200 lines
        None => Some((b.min(a + 199), None)),
    };
    if let Some((end, chars)) = read {
        r.suggestions.extend(ctx.offer(
            src,
            Intent::Lines { start: a, end },
            Purpose::OmittedLines {
                rerun,
                start: a,
                end,
                total,
                chars,
            },
        ));
    }
    passing_head
}

/// The error lines. Re-run, counted as the suggested pipeline sees them
/// (colour codes stripped when the output had some); stored, as
/// search_tool_output sees the stored output.
fn error_lines(
    ctx: &Context<'_>,
    src: Source<'_>,
    room: usize,
    content: bool,
    errors: usize,
    r: &mut RecoveryModel,
) {
    let colour = ctx.cleaning.is_some_and(|c| c.ansi_sequences > 0);
    let mut filter = format!("LC_ALL=C grep -n -E '{GREP_PATTERN}'");
    if colour {
        filter = format!("LC_ALL=C {STRIP_COLOUR_SED} | {filter}");
    }
    let found = ctx.tally.map(|t| {
        if colour && reruns(ctx) {
            &t.stripped
        } else {
            &t.raw
        }
    });
    let what = match found {
        // (a count that stopped before the end, at a giant line, is not stated)
        // (a search of the whole output, stored or saved: every match)
        Some(f) if !reruns(ctx) && !f.complete => None,
        Some(f) if !reruns(ctx) => Some((f.count > 0, ErrorCount::Stored { lines: f.count })),
        Some(f) => {
            let (k, c) = f.within(room);
            if k < f.count || !f.complete {
                // more than come back whole: the first of them
                filter.push_str(&format!(" | head -n {k}"));
                Some((
                    k > 0,
                    ErrorCount::First {
                        first: k,
                        of: f.complete.then_some(f.count),
                        chars: c,
                    },
                ))
            } else {
                Some((
                    f.count > 0,
                    ErrorCount::All {
                        lines: f.count,
                        chars: c,
                    },
                ))
            }
        }
        // the output's lines were not tallied: no count
        None => None,
    };
    let some = !content && what.as_ref().map_or(errors > 0, |(s, _)| *s);
    if some {
        r.suggestions.extend(ctx.offer(
            src,
            Intent::Search(Pattern {
                regex: GREP_PATTERN.to_string(),
                shell: Some(filter),
            }),
            Purpose::ErrorLinesOf {
                rerun: reruns(ctx),
                count: what.map(|(_, w)| w),
                stripped: colour && reruns(ctx),
            },
        ));
    }
}

/// The last lines: as many as come back whole, when some of them were not
/// shown (a view that ends with the output's last lines verbatim needs no
/// call to read them again).
fn last_lines(ctx: &Context<'_>, src: Source<'_>, room: usize, r: &mut RecoveryModel) {
    let total = ctx.totals.lines;
    let rerun = reruns(ctx);
    match ctx.tally.map(|t| t.tail_within(total, room)) {
        Some(Some((start, _))) if (start.saturating_sub(1)..total).all(|i| ctx.line_shown(i)) => {}
        // the output's end is shown after a collapsed run the read would
        // start inside: the lines it adds are the run's last ones, the rest
        // the model has; the run's own last lines alone, as many as fit
        Some(Some((start, _)))
            if let Some((a, b)) = collapsed_before_shown_end(ctx)
                && a < start
                && start <= b =>
        {
            if let Some((first, chars)) = ctx
                .tally
                .and_then(|t| t.tail_within_before(total, (a, b), room))
            {
                r.suggestions.extend(ctx.offer(
                    src,
                    Intent::Lines {
                        start: first,
                        end: b,
                    },
                    Purpose::OmittedLines {
                        rerun,
                        start: first,
                        end: b,
                        total,
                        chars: Some(chars),
                    },
                ));
            }
        }
        Some(Some((start, chars))) => {
            let n = total + 1 - start;
            r.suggestions.extend(ctx.offer(
                src,
                Intent::Tail { n },
                Purpose::LastLines {
                    rerun,
                    lines: n,
                    span: Some((start, total, chars)),
                },
            ));
        }
        Some(None) => {}
        None => r.suggestions.extend(ctx.offer(
            src,
            Intent::Tail { n: 200 },
            Purpose::LastLines {
                rerun,
                lines: 200,
                span: None,
            },
        )),
    }
}

/// The lines of the last omitted part when it is a collapsed run (near-duplicate
/// lines shown as one) and every line after it is shown.
fn collapsed_before_shown_end(ctx: &Context<'_>) -> Option<(usize, usize)> {
    let total = ctx.totals.lines;
    let last = ctx
        .gaps()
        .filter_map(|g| Some((g.lines?, g)))
        .max_by_key(|((_, b), _)| *b)?;
    let ((a, b), g) = last;
    (g.collapsed.is_some() && b < total && (b..total).all(|i| ctx.line_shown(i))).then_some((a, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hints of a real failed build's output (cargo, 225 lines) cut
    /// after its first `kept` lines, not tallied.
    fn cut_after(kept: usize, args: Value) -> RecoveryModel {
        let text = crate::test_fixture("shell/cargo_build_errors.log");
        crate::hints::head_cut("shell", text, kept, &args, None, None, model)
    }

    #[test]
    fn a_cut_build_states_its_command_and_error_lines_as_data() {
        let text = crate::test_fixture("shell/cargo_build_errors.log");
        let args = serde_json::json!({"command": "cargo build --offline", "exit_code": 101});
        let m = cut_after(30, args);
        // the error lines, numbered from 1, counted here from the text
        let errors: Vec<usize> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| is_error_line(l))
            .map(|(i, _)| i + 1)
            .collect();
        assert!(errors.len() > 1 && errors.iter().any(|&n| n > 30));
        assert_eq!(
            m.facts,
            [
                Fact::Command {
                    command: Some("cargo build --offline".into()),
                    exit: Some("101".into()),
                    size: crate::hints::Size {
                        lines: text.lines().count(),
                        chars: text.chars().count(),
                    },
                },
                Fact::ErrorLines {
                    count: errors.len(),
                    not_shown: errors.iter().filter(|&&n| n > 30).count(),
                    first: errors[0],
                    last: errors[errors.len() - 1],
                }
            ]
        );
        assert!(m.notes.is_empty());
        // not stored: the last call runs the command once more, saving it
        let r = m.render();
        assert_eq!(
            r.suggestions.last().map(|s| s.purpose.as_str()),
            Some(
                "re-runs the command once, saving all output to a new file; then page it with \
                 sed -n 'A,Bp' FILE (the name wc -l prints)"
            )
        );
    }

    /// A real failed build's output processed as `run_shell_command` with the
    /// gemini-cli preset; `saved`: the file the whole output was saved to, named
    /// by a path argument the entry takes.
    fn processed(saved: Option<&str>) -> crate::Processed {
        let text = crate::test_fixture("shell/cargo_build_errors.log");
        let mut config = crate::config::Config::defaults();
        if let Some(p) = crate::config::presets::preset("gemini-cli") {
            config.suggest = p.suggest("gemini-cli");
        }
        let mut args = serde_json::json!({"command": "cargo build --offline", "exit_code": 101});
        if let Some(path) = saved {
            let key = config.entry_for("run_shell_command").key.clone();
            for t in config.tools.iter_mut().filter(|t| t.key == key) {
                t.args.path.insert(0, "saved_output".into());
            }
            args["saved_output"] = serde_json::json!(path);
        }
        let call = crate::ToolCall::new("run_shell_command", &args);
        crate::ToolResultProcessor::new(config)
            .try_process_call(&call, text)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_saved_output_is_read_back_from_its_file_not_run_again() {
        let out = processed(Some("/t/views/run-1-output.txt"));
        assert!(out.truncated);
        let rec = &out.text[out.text.find("--- Recovery Options ---").unwrap_or(0)..];
        // the omitted lines read from the file with the harness's read tool
        assert!(
            rec.contains("read_file(file_path=\"/t/views/run-1-output.txt\", start_line="),
            "{rec}"
        );
        // the error lines searched there too, every one of them
        assert!(rec.contains("grep_search("), "{rec}");
        assert!(
            rec.contains("include_pattern=\"run-1-output.txt\""),
            "{rec}"
        );
        // nothing runs the command again
        assert!(!rec.contains("re-runs"), "{rec}");
        assert!(!rec.contains("cargo build --offline 2>&1"), "{rec}");
        assert!(rec.contains("exit code 101"), "{rec}");
        // without the file: the command again
        let again = processed(None);
        assert!(again.text.contains("re-runs"), "{}", again.text);
        assert!(!again.text.contains("read_file("), "{}", again.text);
    }

    #[test]
    fn a_command_not_in_the_arguments_is_said_and_nothing_is_run() {
        let m = cut_after(30, serde_json::json!({}));
        assert_eq!(m.notes, [Note::NoCommand]);
        assert!(m.suggestions.is_empty());
        assert!(matches!(
            &m.facts[0],
            Fact::Command {
                command: None,
                exit: None,
                ..
            }
        ));
    }

    #[test]
    fn argv_commands_are_read_as_the_shell_runs_them() {
        use serde_json::json;
        let c = |v: Value| command_string(&v);
        assert_eq!(
            c(json!(["bash", "-lc", "cargo test"])).as_deref(),
            Some("cargo test")
        );
        assert_eq!(
            c(json!(["/bin/sh", "-c", "ls | wc"])).as_deref(),
            Some("ls | wc")
        );
        assert_eq!(
            c(json!(["sed", "-n", "1,5p", "my file.py"])).as_deref(),
            Some("sed -n 1,5p 'my file.py'")
        );
        assert_eq!(c(json!("make -j4")).as_deref(), Some("make -j4"));
        assert_eq!(c(json!(["bash", "-lc", " "])), None);
        assert_eq!(c(json!([])), None);
        assert_eq!(c(json!([1, 2])), None);
        assert_eq!(c(json!(3)), None);
    }

    /// `grep -n -E GREP_PATTERN` under `LC_ALL=C` prints the numbers of `text`'s
    /// lines.
    fn grep_lines(text: &str) -> Vec<usize> {
        toolcap_testkit::grep_line_numbers(GREP_PATTERN, text).expect("grep runs")
    }

    #[test]
    fn the_regex_and_grep_pick_the_same_lines() {
        let cases = [
            ("error: could not compile `x`", true),
            ("E       AssertionError: assert 1 == 2", true),
            ("json.decoder.JSONDecodeError: Expecting value", true),
            ("Build error.", true),
            ("test result: FAILED. 1 passed", true),
            ("dpkg: error processing package x (--configure):", true),
            ("Failed to fetch http://x", true),
            (
                "E: Sub-process /usr/bin/dpkg returned an error code (1)",
                true,
            ),
            ("thread 'main' panicked at src/main.rs:2:5", true),
            ("libgpg-error-dev is already the newest version", false),
            ("src/error.py:12: def f():", false),
            ("log.error(\"x\")", false),
            ("/api/errors/", false),
            ("no_errors_here", false),
            ("terrorism", false),
            ("ErrorKind::NotFound", false),
            ("café error", true),
            ("Cannot open file", true),
            ("line with \r", false),
            ("fatal: not a git repository\r", true),
        ];
        let mut text: String = cases.iter().map(|(l, _)| format!("{l}\n")).collect();
        // and every line of the shell fixtures
        let dir = crate::test_fixture_path("shell");
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .expect("fixtures")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "log"))
            .collect();
        names.sort();
        for p in names {
            let t = std::fs::read_to_string(&p).expect("fixture");
            // a tally counts the lines one by one would (a small limit: most
            // of the text takes the many-lines path)
            for limit in [40, 100_000] {
                let tally = super::super::tally::LineTally::of(&t, limit, &GREP_RE, true);
                let lines: Vec<&str> = t
                    .split_inclusive('\n')
                    .map(|l| l.strip_suffix('\n').unwrap_or(l))
                    .collect();
                let raw = lines.iter().filter(|l| GREP_RE.is_match(l)).count();
                let stripped = lines
                    .iter()
                    .filter(|l| GREP_RE.is_match(&crate::cut::error_lines::strip_csi(l)))
                    .count();
                assert_eq!(
                    (tally.raw.count, tally.stripped.count),
                    (raw, stripped),
                    "{p:?}"
                );
            }
            text.push_str(&t);
            if !t.ends_with('\n') {
                text.push('\n');
            }
        }
        let want: Vec<usize> = text
            .split_inclusive('\n')
            .enumerate()
            .filter(|(_, l)| GREP_RE.is_match(l.strip_suffix('\n').unwrap_or(l)))
            .map(|(i, _)| i + 1)
            .collect();
        assert_eq!(grep_lines(&text), want);

        for (i, (l, is)) in cases.iter().enumerate() {
            assert_eq!(want.contains(&(i + 1)), *is, "{l:?}");
        }
    }
}
