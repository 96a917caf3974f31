//! `toolcap run` never stands between a command and the agent (issue 33, items
//! 2, 8, 11-17): whatever the store does, the command runs once with its own
//! status and its output arrives; a short output opens no store; a background
//! child keeps its output and its life; killing the wrapper's process group
//! kills the command; any id; the signal state and `$_` of a shell's child.
#![cfg(all(feature = "sqlite", unix))]

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::sandbox::{Sandbox, sandbox};

/// A command that notes each run in `ran` and prints 20,000 lines, then exits 3.
fn long_command(ran: &Path) -> String {
    format!("echo run >> '{}'; seq 1 20000; exit 3", ran.display())
}

/// What a user of the agent must get from a long output whose store failed: the
/// command ran once, its status, the view with its last line, no claim or
/// suggestion that reads a store, none that runs the command again, and one line
/// saying why.
fn check_unstored(out: &Output, ran: &Path, why: &str) {
    let view = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{view}\n{err}");
    assert_eq!(
        std::fs::read_to_string(ran).expect("the command ran"),
        "run\n",
        "the command ran exactly once"
    );
    assert!(view.contains("--- Recovery Options ---"), "{view}");
    assert!(
        view.contains("\n20000\n"),
        "the output's end is shown: {view}"
    );
    assert!(view.len() < 6000, "{} bytes printed", view.len());
    for said in [
        "continue",
        "search",
        "is stored",
        "2>&1 |",
        "toolcap-output.log",
        "expiring",
    ] {
        assert!(!view.contains(said), "{said:?} in {view}");
    }
    let last = view.trim_end().lines().last().unwrap_or_default();
    assert!(
        last.starts_with("[toolcap run: the full output could not be kept: ") && last.contains(why),
        "{last:?} should say {why:?}"
    );
    assert!(err.is_empty(), "nothing on stderr: {err}");
}

/// `echo hi` through the same store: byte for byte, nothing added.
fn check_short(out: &Output) {
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, b"hi\n");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn run_with(e: &Sandbox, prep: impl Fn(&mut Command), args: &[&str]) -> Output {
    let mut c = e.toolcap();
    c.arg("run");
    prep(&mut c);
    c.args(args)
        .stdin(Stdio::null())
        .output()
        .expect("toolcap runs")
}

#[test]
fn a_state_directory_that_cannot_be_created_costs_only_the_stored_claims() {
    let e = sandbox();
    let nope = |c: &mut Command| {
        c.env("XDG_STATE_HOME", "/proc/nope");
    };
    check_short(&run_with(&e, nope, &["--", "echo", "hi"]));
    let ran = e.proj.join("ran");
    let out = run_with(&e, nope, &["--", "bash", "-c", &long_command(&ran)]);
    check_unstored(&out, &ran, "/proc/nope/toolcap/");
}

#[test]
fn a_store_under_a_regular_file_or_damaged_costs_only_the_stored_claims() {
    let e = sandbox();
    let file = e.proj.join("plain-file");
    std::fs::write(&file, "not a directory\n").unwrap();
    let damaged = e.proj.join("damaged.db");
    std::fs::write(&damaged, vec![0x5a; 8192]).unwrap();
    for (store, why) in [
        (file.join("results.db"), "plain-file"),
        (damaged.clone(), "damaged.db"),
    ] {
        let store = store.to_string_lossy().into_owned();
        check_short(&run_with(
            &e,
            |_| {},
            &["--store", &store, "--", "echo", "hi"],
        ));
        let ran = e.proj.join("ran");
        let _ = std::fs::remove_file(&ran);
        let out = run_with(
            &e,
            |_| {},
            &["--store", &store, "--", "bash", "-c", &long_command(&ran)],
        );
        check_unstored(&out, &ran, why);
    }
    // the damaged file is left as it was
    assert_eq!(std::fs::read(&damaged).unwrap(), vec![0x5a; 8192]);
}

#[test]
fn a_locked_store_holds_the_command_up_once_and_briefly() {
    let e = sandbox();
    let store = e.proj.join("locked.db");
    let s = store.to_string_lossy().into_owned();
    // a store with a result in it, then held by another connection
    let made = run_with(&e, |_| {}, &["--store", &s, "--", "seq", "1", "20000"]);
    assert_eq!(made.status.code(), Some(0));
    let conn = rusqlite::Connection::open(&store).expect("open the store");
    conn.execute_batch("BEGIN EXCLUSIVE").expect("lock it");

    let started = Instant::now();
    check_short(&run_with(&e, |_| {}, &["--store", &s, "--", "echo", "hi"]));
    let ran = e.proj.join("ran");
    let out = run_with(
        &e,
        |_| {},
        &["--store", &s, "--", "bash", "-c", &long_command(&ran)],
    );
    // (the store's wait is 2 s, once; SQLite's default would be 30 s per statement)
    let took = started.elapsed();
    check_unstored(&out, &ran, "database is locked");
    assert!(took < Duration::from_secs(20), "held up {took:?}");
    conn.execute_batch("ROLLBACK").unwrap();
}

#[test]
fn a_full_disk_keeps_the_status_and_the_view() {
    let e = sandbox();
    let store = e.proj.join("full.db");
    let s = store.to_string_lossy().into_owned();
    let made = run_with(&e, |_| {}, &["--store", &s, "--", "echo", "hi"]);
    check_short(&made);
    let ran = e.proj.join("ran");
    // writes past 64 KiB fail with EFBIG, as on a full disk (SIGXFSZ ignored)
    let script = "trap '' XFSZ; ulimit -f 64; exec \"$0\" run --store \"$1\" -- bash -c \"$2\"";
    let out = e
        .cmd("bash")
        .args(["-c", script, env!("CARGO_BIN_EXE_toolcap"), &s])
        .arg(long_command(&ran))
        .stdin(Stdio::null())
        .output()
        .expect("bash runs toolcap");
    check_unstored(&out, &ran, "full.db");
}

#[test]
fn a_short_output_opens_no_store() {
    let e = sandbox();
    let out = run_with(&e, |_| {}, &["--", "echo", "hi"]);
    check_short(&out);
    // the output is counted beside where the store would be (issue 45, item 8),
    // the store itself neither made nor opened
    let project: Vec<_> = std::fs::read_dir(e.state.join("toolcap"))
        .expect("the state dir")
        .map(|d| d.expect("an entry").path())
        .collect();
    assert_eq!(project.len(), 1, "{project:?}");
    let names: Vec<_> = std::fs::read_dir(&project[0])
        .expect("the project's dir")
        .map(|d| d.expect("an entry").file_name())
        .collect();
    assert_eq!(
        names,
        ["results.db-seen"],
        "a store was made for a short output"
    );
    // a cut one makes it
    let out = run_with(&e, |_| {}, &["--", "seq", "1", "20000"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(project[0].join("results.db").is_file());
}

#[test]
fn an_id_may_start_with_a_dash() {
    let e = sandbox();
    let out = run_with(&e, |_| {}, &["--id", "-abc", "--", "seq", "1", "20000"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let view = String::from_utf8_lossy(&out.stdout);
    assert!(view.contains("--- Recovery Options ---"), "{view}");
    let shown = e
        .toolcap()
        .args(["show", "--", "-abc"])
        .output()
        .expect("show");
    assert_eq!(shown.status.code(), Some(0));
    assert_eq!(shown.stdout.iter().filter(|b| **b == b'\n').count(), 20000);
}

#[test]
fn a_background_child_keeps_its_output_and_its_life() {
    let e = sandbox();
    let mark = e.proj.join("alive");
    let script = format!(
        "(sleep 1; echo late; touch '{}') & echo early",
        mark.display()
    );
    // `output()` reads the pipe to its end, as an agent reading on would
    let out = run_with(&e, |_| {}, &["--", "bash", "-c", &script]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "early\nlate\n");
    let started = Instant::now();
    while !mark.exists() && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        mark.exists(),
        "the background child died before its last step"
    );
}

/// Whether process `pid` is gone (or a zombie waiting to be reaped).
fn gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(s) => s
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z')),
    }
}

#[cfg(target_os = "linux")]
#[test]
fn killing_the_wrappers_process_group_kills_the_command() {
    use std::os::unix::process::CommandExt;
    let e = sandbox();
    let pidfile = e.proj.join("pid");
    let script = format!("echo $$ > '{}'; exec sleep 30", pidfile.display());
    let mut child = e
        .toolcap()
        .args(["run", "--", "bash", "-c", &script])
        .process_group(0)
        .stdout(Stdio::null())
        .spawn()
        .expect("toolcap starts");
    let started = Instant::now();
    let pid = loop {
        if let Some(p) = std::fs::read_to_string(&pidfile)
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
        {
            break p;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "no pid");
        std::thread::sleep(Duration::from_millis(20));
    };
    let group = i32::try_from(child.id()).unwrap();
    // SAFETY: kill(2) on the process group this test started.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
    let _ = child.wait();
    let started = Instant::now();
    while !gone(pid) && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let alive = !gone(pid);
    if alive {
        // SAFETY: clean up the orphan this test made.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
        }
    }
    assert!(!alive, "the command outlived the wrapper's process group");
}

#[cfg(target_os = "linux")]
#[test]
fn the_command_gets_a_shells_signal_state_and_underscore() {
    let e = sandbox();
    let out = run_with(
        &e,
        |_| {},
        &[
            "--",
            "bash",
            "-c",
            "grep -E '^Sig(Blk|Ign)' /proc/self/status",
        ],
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n"
    );
    // `$_` at the start of a script: the program's path, as a shell sets it (not
    // toolcap's)
    let out = run_with(&e, |_| {}, &["--", "bash", "-c", "echo \"$_\""]);
    let bash = e
        .cmd("bash")
        .args(["-c", "type -P bash"])
        .output()
        .expect("bash");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&bash.stdout)
    );
}

/// The commands a view suggests (`shell(command="...")`), JSON-decoded.
fn suggested(view: &str) -> Vec<String> {
    view.lines()
        .filter_map(|l| l.trim_start().strip_prefix("• shell(command="))
        .filter_map(|l| {
            let end = l.rfind(")  #").unwrap_or(l.len() - 1);
            serde_json::from_str::<String>(&l[..end]).ok()
        })
        .collect()
}

/// bash -c `command` in the sandbox, with the toolcap under test first on PATH.
fn through_bash(e: &Sandbox, command: &str) -> Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_toolcap"))
        .parent()
        .expect("bin dir")
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    e.cmd("bash")
        .args(["-c", command])
        .env("PATH", path)
        .output()
        .expect("bash")
}

#[test]
fn binary_output_is_stored_and_never_run_again() {
    let e = sandbox();
    let ran = e.proj.join("deployed");
    // a deploy step that prints binary data
    let script = format!(
        "echo deploy >> '{}'; for i in $(seq 1 3000); do printf 'payload-%04d\\0\\1\\2' $i; done",
        ran.display()
    );
    let out = run_with(&e, |_| {}, &["--id", "bin1", "--", "bash", "-c", &script]);
    assert_eq!(out.status.code(), Some(0));
    let view = String::from_utf8_lossy(&out.stdout);
    assert!(view.contains("binary result omitted"), "{view}");
    let cmds = suggested(&view);
    assert!(!cmds.is_empty(), "{view}");
    for c in &cmds {
        assert!(c.contains(" show bin1 |"), "reads the store: {c}");
        let got = through_bash(&e, c);
        assert_eq!(got.status.code(), Some(0), "{c}");
        assert!(
            String::from_utf8_lossy(&got.stdout).starts_with("payload-0001\npayload-0002\n"),
            "{c}: {}",
            String::from_utf8_lossy(&got.stdout)
        );
    }
    assert_eq!(
        std::fs::read_to_string(&ran).unwrap(),
        "deploy\n",
        "ran once"
    );
    let shown = e.toolcap().args(["show", "bin1"]).output().expect("show");
    assert_eq!(shown.status.code(), Some(0));
    assert_eq!(shown.stdout.len(), 3000 * 15, "the whole output is kept");
}

#[test]
fn collapsed_repeated_lines_are_stored() {
    let e = sandbox();
    let out = run_with(
        &e,
        |_| {},
        &[
            "--id",
            "rep1",
            "--",
            "bash",
            "-c",
            "for i in $(seq 1 400); do echo 'waiting for the server to start'; done",
        ],
    );
    assert_eq!(out.status.code(), Some(0));
    let view = String::from_utf8_lossy(&out.stdout);
    assert!(view.contains("399 repeated lines removed"), "{view}");
    let said = view
        .split('`')
        .nth(1)
        .unwrap_or_else(|| panic!("a command to read it back: {view}"));
    assert!(said.contains(" continue rep1 --offset 0"), "{said}");
    let got = through_bash(&e, said);
    assert_eq!(got.status.code(), Some(0));
    let text = String::from_utf8_lossy(&got.stdout);
    assert!(
        text.starts_with("waiting for the server to start\nwaiting for the server to start\n"),
        "{text}"
    );
    let whole = e.toolcap().args(["show", "rep1"]).output().expect("show");
    assert_eq!(
        String::from_utf8_lossy(&whole.stdout),
        "waiting for the server to start\n".repeat(400)
    );
}

#[test]
fn stats_show_and_prune_find_the_project_store() {
    let e = sandbox();
    let stats = |e: &Sandbox| {
        let o = e.toolcap().arg("stats").output().expect("stats");
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    // nothing yet: it says which store it read, the project's
    let before = stats(&e);
    let project_store = e.state.join("toolcap");
    assert!(
        before.contains("nothing recorded yet")
            && before.contains(&*project_store.to_string_lossy()),
        "{before}"
    );
    let out = run_with(&e, |_| {}, &["--id", "q1", "--", "seq", "1", "20000"]);
    assert_eq!(out.status.code(), Some(0));
    let after = stats(&e);
    assert!(after.contains("1 result seen"), "{after}");
    assert!(after.contains(&*project_store.to_string_lossy()), "{after}");
    let shown = e.toolcap().args(["show", "q1"]).output().expect("show");
    assert_eq!(shown.status.code(), Some(0));
    assert_eq!(shown.stdout.iter().filter(|b| **b == b'\n').count(), 20000);
    let pruned = e
        .toolcap()
        .args(["prune", "--older-than", "1d"])
        .output()
        .expect("prune");
    assert!(
        String::from_utf8_lossy(&pruned.stdout).contains(&*project_store.to_string_lossy()),
        "{}",
        String::from_utf8_lossy(&pruned.stdout)
    );
}

#[test]
fn cli_replies_read_on_as_cli_commands() {
    let e = sandbox();
    let out = run_with(&e, |_| {}, &["--id", "q2", "--", "seq", "1", "20000"]);
    assert_eq!(out.status.code(), Some(0));
    let tool = env!("CARGO_BIN_EXE_toolcap");
    let o = e
        .toolcap()
        .args(["continue", "q2"])
        .output()
        .expect("continue");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(!text.contains("get_continuation"), "{text}");
    let next = text
        .rsplit_once("Run `")
        .and_then(|(_, r)| r.split_once('`'))
        .map_or_else(
            || panic!("a command to read on: {text}"),
            |(c, _)| c.to_string(),
        );
    assert!(
        next.starts_with(&format!("{tool} continue q2 --offset ")),
        "{next}"
    );
    // it runs as printed and reads on where the reply stopped
    let got = through_bash(&e, &next);
    assert_eq!(got.status.code(), Some(0));
    let from: usize = next.rsplit(' ').next().unwrap().parse().unwrap();
    let all: String = (1..=20000).map(|i| format!("{i}\n")).collect();
    assert!(
        String::from_utf8_lossy(&got.stdout).starts_with(&all[from..from + 1000]),
        "{next}"
    );
    let o = e
        .toolcap()
        .args(["search", "q2", "^1", "--max", "2"])
        .output()
        .expect("search");
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(!text.contains("search_tool_output"), "{text}");
    assert!(
        text.contains(&format!(
            "Run `{tool} search q2 '^1' --max 2 --skip 2` to see them]"
        )),
        "{text}"
    );
    // a bad argument: said once
    let o = e
        .toolcap()
        .args(["continue", "q2", "--start-line", "30000"])
        .output()
        .expect("continue");
    assert_eq!(o.status.code(), Some(2));
    assert!(
        o.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("past the last line").count(), 1, "{err}");
}

#[test]
fn a_symbol_of_a_printed_source_file_comes_back() {
    let e = sandbox();
    let src = Path::new("/root/.pyenv/versions/3.11.7/lib/python3.11/inspect.py");
    let src = if src.is_file() {
        src.to_path_buf()
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/stdlib_meta_test.py")
    };
    std::fs::copy(&src, e.proj.join("mod.py")).expect("copy a Python module");
    let out = run_with(&e, |_| {}, &["--id", "cat1", "--", "cat", "mod.py"]);
    assert_eq!(out.status.code(), Some(0));
    let view = String::from_utf8_lossy(&out.stdout);
    assert!(view.contains("| python"), "outlined: {view}");
    let o = e
        .toolcap()
        .args(["continue", "cat1", "--outline"])
        .output()
        .expect("outline");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // the first definition the outline names comes back by name
    let listed = String::from_utf8_lossy(&o.stdout).into_owned();
    // (asked for in the CLI's words, not the recovery tool's)
    assert!(listed.contains("--symbol Class.name"), "{listed}");
    assert!(!listed.contains("symbol=\""), "{listed}");
    let name = listed
        .lines()
        .find_map(|l| l.strip_prefix("class "))
        .and_then(|r| r.split(' ').next())
        .map_or_else(|| panic!("a definition: {listed}"), str::to_string);
    let o = e
        .toolcap()
        .args(["continue", "cat1", "--symbol", &name])
        .output()
        .expect("symbol");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{name}: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains(&name));
}
