//! What toolcap keeps and prints, seen by someone else (issue 44): the store and
//! the pages hold whole command outputs, so another local user must not read them
//! (item 3); a tool name or command the model wrote must not drive the terminal of
//! whoever runs `stats` or `gain`, nor reorder the HTML page (item 11); and a huge
//! stored output is not read whole to draw the page (item 12).
//!
//! On the real file system, with the real `toolcap run`, `process`, `stats`,
//! `gain` and `report`; the other user is `nobody` (via `runuser`, when the tests
//! run as root; else that part is skipped with the reason).
#![cfg(feature = "sqlite")]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .permissions()
        .mode()
        & 0o777
}

/// A world whose root others may enter (a temp dir is 0700 by itself, which
/// would hide everything under it and prove nothing).
struct World {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    state: PathBuf,
    project: PathBuf,
}

fn world() -> World {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    std::fs::set_permissions(&root, std::fs::Permissions::from_mode(0o755)).unwrap();
    let project = root.join("project");
    std::fs::create_dir_all(project.join(".git")).unwrap();
    World {
        state: root.join("state"),
        project,
        root,
        _tmp: tmp,
    }
}

impl World {
    fn toolcap(&self, args: &[&str], stdin: Option<&[u8]>) -> Output {
        let mut c = Command::new(env!("CARGO_BIN_EXE_toolcap"));
        c.current_dir(&self.project)
            .env("XDG_STATE_HOME", &self.state)
            .env("HOME", self.root.join("home"))
            .env_remove("TOOLCAP_STORE")
            .env_remove("TOOLCAP_CONFIG")
            .env_remove("TOOLCAP_DIALOG")
            .args(args);
        match stdin {
            None => c.output().unwrap(),
            Some(bytes) => {
                use std::io::Write;
                c.stdin(std::process::Stdio::piped())
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped());
                let mut child = c.spawn().unwrap();
                let mut input = child.stdin.take().unwrap();
                let bytes = bytes.to_vec();
                let feeder = std::thread::spawn(move || input.write_all(&bytes));
                let out = child.wait_with_output().unwrap();
                feeder.join().unwrap().unwrap();
                out
            }
        }
    }

    /// The project's store (the only `results.db` under the state dir).
    /// A store where `gain` and `report` find it: `<state>/toolcap/p/results.db`.
    fn made_store(&self) -> String {
        let dir = self.state.join("toolcap/p");
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("results.db").display().to_string()
    }

    fn store(&self) -> PathBuf {
        let dir = self.state.join("toolcap");
        let project = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.join("results.db").is_file())
            .unwrap_or_else(|| panic!("no store under {}", dir.display()));
        project.join("results.db")
    }
}

/// Whether user `nobody` can read `path` (None when the test cannot switch user).
fn nobody_reads(path: &Path) -> Option<bool> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 || Command::new("runuser").arg("--help").output().is_err() {
        eprintln!("not root or no runuser: the second user's read is not tried");
        return None;
    }
    let out = Command::new("runuser")
        .args(["-u", "nobody", "--", "cat"])
        .arg(path)
        .output()
        .unwrap();
    Some(out.status.success())
}

#[test]
fn the_store_and_the_page_are_their_owners_alone() {
    let w = world();
    // a command whose output holds a secret, cut and kept by `toolcap run`
    let script = "echo AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI; seq 1 20000";
    let run = w.toolcap(&["run", "--", "sh", "-c", script], None);
    assert!(run.status.success(), "{run:?}");
    assert!(String::from_utf8_lossy(&run.stdout).contains("Recovery Options"));
    let store = w.store();
    assert_eq!(mode(&store), 0o600, "{}", store.display());
    for dir in [store.parent().unwrap(), &w.state.join("toolcap"), &w.state] {
        assert_eq!(mode(dir), 0o700, "{}", dir.display());
    }
    for side in ["results.db-wal", "results.db-shm"] {
        let p = store.with_file_name(side);
        if p.exists() {
            assert_eq!(mode(&p), 0o600, "{}", p.display());
        }
    }
    // the page quotes the commands and their outputs
    let page = w.root.join("report.html");
    let out = w.toolcap(&["report", "--html", page.to_str().unwrap()], None);
    assert!(out.status.success(), "{out:?}");
    assert!(
        std::fs::read_to_string(&page)
            .unwrap()
            .contains("seq 1 20000")
    );
    assert_eq!(mode(&page), 0o600);
    // a second local user can read neither, though a 0644 file beside them is
    // readable to it (so the check itself works)
    let open = w.root.join("open.txt");
    std::fs::write(&open, "x").unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o644)).unwrap();
    if let Some(read_open) = nobody_reads(&open) {
        assert!(read_open, "the control file is readable to nobody");
        assert_eq!(nobody_reads(&store), Some(false));
        assert_eq!(nobody_reads(&page), Some(false));
    }
    // a page the user already keeps keeps its mode
    std::fs::set_permissions(&page, std::fs::Permissions::from_mode(0o640)).unwrap();
    let out = w.toolcap(&["report", "--html", page.to_str().unwrap()], None);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(mode(&page), 0o640);
}

/// A tool name with an OSC title sequence, a clear-screen, a BEL and a bidi
/// override, stored by `toolcap process`: `stats` and `gain` show them, the HTML
/// page shows them escaped.
#[test]
fn a_models_escapes_are_shown_not_sent() {
    let w = world();
    let tool = "read_file\u{1b}]0;pwned\u{7}\u{1b}[2J\u{202e}\u{9b}6n";
    let big: String = (1..=3000)
        .map(|i| format!("line {i} of a file\n"))
        .collect();
    let out = w.toolcap(
        &[
            "process",
            "--tool",
            tool,
            "--id",
            "call_1",
            "--store",
            &w.made_store(),
        ],
        Some(big.as_bytes()),
    );
    assert!(out.status.success(), "{out:?}");
    let store = w.store();
    let stats = w.toolcap(&["stats", "--store", store.to_str().unwrap()], None);
    assert!(stats.status.success(), "{stats:?}");
    let gain = w.toolcap(&["gain"], None);
    assert!(gain.status.success(), "{gain:?}");
    for (what, out) in [("stats", &stats), ("gain", &gain)] {
        let text = String::from_utf8(out.stdout.clone()).unwrap();
        assert!(
            !text.contains(['\u{1b}', '\u{7}', '\u{202e}', '\u{9b}']),
            "{what} sent a control character: {text:?}"
        );
        assert!(
            text.contains("read_file␛]0;pwned␇␛[2J<U+202E><U+009B>6n"),
            "{what}: {text}"
        );
    }
    let page = w.root.join("report.html");
    let out = w.toolcap(&["report", "--html", page.to_str().unwrap()], None);
    assert!(out.status.success(), "{out:?}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains(['\u{1b}', '\u{7}', '\u{202e}', '\u{9b}']));
    assert!(
        html.contains("␛[2J&lt;U+202E&gt;"),
        "the name shown escaped"
    );
}

/// A cut output over the page's replay limit is not read whole: the page shows
/// its start and says the view was not replayed; a smaller one is replayed.
#[test]
fn the_page_does_not_replay_a_huge_output() {
    let w = world();
    // 17 MiB: over the 16 MiB replay limit
    let line = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n";
    let huge = line.repeat((17 << 20) / line.len());
    let out = w.toolcap(
        &[
            "process",
            "--tool",
            "bash",
            "--id",
            "call_huge",
            "--store",
            &w.made_store(),
        ],
        Some(huge.as_bytes()),
    );
    assert!(out.status.success(), "{out:?}");
    let out = w.toolcap(
        &[
            "process",
            "--tool",
            "bash",
            "--id",
            "call_small",
            "--store",
            &w.made_store(),
        ],
        Some(huge[..200_000].as_bytes()),
    );
    assert!(out.status.success(), "{out:?}");
    let page = w.root.join("report.html");
    let out = w.toolcap(&["report", "--html", page.to_str().unwrap()], None);
    assert!(out.status.success(), "{out:?}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("the view (not replayed)")
            && html.contains(&format!(
                "The output is {} bytes, more than the 16,777,216 the page replays.",
                toolcap_text::text::thousands(huge.len())
            )),
        "the huge output's view is said not replayed"
    );
    assert_eq!(
        html.matches("replayed from the stored output").count(),
        1,
        "the small one is replayed"
    );
    // the page holds the start of each output, not the outputs
    assert!(html.len() < 1_000_000, "{} bytes", html.len());
}
