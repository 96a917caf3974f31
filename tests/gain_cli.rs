//! `toolcap gain`: totals across the project stores of a state directory, made
//! here by the real `toolcap run` in two projects (a long `seq`, a long Python
//! traceback) and a suggestion followed with the `toolcap continue` command the
//! output printed; gain's figures must be `toolcap stats --json` of each project
//! added up, and its per-project, per-tool and per-day rows must add up to its
//! totals.
#![cfg(feature = "sqlite")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// Two projects sharing one state directory.
struct World {
    _tmp: tempfile::TempDir,
    state: PathBuf,
    p1: PathBuf,
    p2: PathBuf,
}

fn world() -> World {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let (p1, p2) = (root.join("alpha"), root.join("beta"));
    for p in [&p1, &p2] {
        std::fs::create_dir_all(p.join(".git")).unwrap();
    }
    World {
        state: root.join("state"),
        p1,
        p2,
        _tmp: tmp,
    }
}

impl World {
    fn cmd(&self, program: impl AsRef<std::ffi::OsStr>, dir: &Path) -> Command {
        let mut c = Command::new(program);
        c.current_dir(dir)
            .env("XDG_STATE_HOME", &self.state)
            .env("HOME", self.state.join("home"))
            .env_remove("TOOLCAP_STORE")
            .env_remove("TOOLCAP_CONFIG")
            .env_remove("TOOLCAP_DIALOG")
            .env_remove("COLUMNS");
        c
    }

    fn toolcap(&self, dir: &Path, args: &[&str]) -> Output {
        let out = self
            .cmd(env!("CARGO_BIN_EXE_toolcap"), dir)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "toolcap {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    fn json(&self, dir: &Path, args: &[&str]) -> Value {
        serde_json::from_slice(&self.toolcap(dir, args).stdout).unwrap()
    }
}

/// A Python program that dies 150 distinct frames deep: a real traceback of
/// about 450 lines (distinct functions, so Python does not fold the repeats).
const DEEP: &str = "
src = ''.join(f'def f{i}(n):\\n    return f{i + 1}(n + 1)\\n' for i in range(150))
src += 'def f150(n):\\n    raise RuntimeError(f\"gave up at depth {n}\")\\n'
exec(compile(src, 'deep.py', 'exec'))
f0(0)
";

/// The first `toolcap continue ...` command the output suggests.
fn suggested_continue(out: &str) -> String {
    let line = out
        .lines()
        .find(|l| l.contains("shell(command=\"") && l.contains(" continue "))
        .unwrap_or_else(|| panic!("no continue suggestion in:\n{out}"));
    let start = line.find("command=\"").unwrap() + "command=\"".len();
    let end = start + line[start..].find("\")").unwrap();
    line[start..end].to_string()
}

fn u(v: &Value, k: &str) -> u64 {
    v[k].as_u64()
        .unwrap_or_else(|| panic!("{k} is not a count in {v}"))
}

const SUMMED: [&str; 7] = [
    "results_seen",
    "results_cut",
    "chars_original",
    "chars_shown",
    "chars_saved",
    "cut_asked_back",
    "calls_on_cut",
];

/// `toolcap stats --json` of a project, summed over its tools the way gain sums.
fn stats_totals(w: &World, dir: &Path) -> Vec<(String, u64)> {
    let s = w.json(dir, &["stats", "--json"]);
    let tools = s["tools"].as_array().unwrap();
    let mut out: Vec<(String, u64)> = SUMMED
        .iter()
        .map(|k| (k.to_string(), tools.iter().map(|t| u(t, k)).sum()))
        .collect();
    out.push(("recovery_calls".into(), u(&s, "recovery_calls")));
    out.push(("calls_not_stored".into(), u(&s, "calls_not_stored")));
    out
}

fn fill(w: &World) {
    let seq = w.toolcap(&w.p1, &["run", "--", "seq", "1", "20000"]);
    let seq = String::from_utf8(seq.stdout).unwrap();
    assert!(seq.contains("--- Recovery Options ---"), "{seq}");
    let tb = w
        .cmd(env!("CARGO_BIN_EXE_toolcap"), &w.p2)
        .args(["run", "--", "python3", "-c", DEEP])
        .output()
        .unwrap();
    assert_eq!(tb.status.code(), Some(1), "python's exit status");
    let tb = String::from_utf8(tb.stdout).unwrap();
    assert!(tb.contains("RuntimeError: gave up at depth 150"), "{tb}");
    assert!(tb.contains("--- Recovery Options ---"), "{tb}");
    // the model follows the suggestion, as printed, in the project's shell
    let follow = w
        .cmd("sh", &w.p2)
        .args(["-c", &suggested_continue(&tb)])
        .output()
        .unwrap();
    assert!(follow.status.success(), "{follow:?}");
    assert!(String::from_utf8_lossy(&follow.stdout).contains("in f"));
}

#[test]
fn gain_is_the_projects_stats_added_up() {
    let w = world();
    fill(&w);
    let g = w.json(&w.p2, &["gain", "--json"]);
    assert_eq!(u(&g, "stores"), 2);
    assert_eq!(g["stores_skipped"].as_array().unwrap().len(), 0);
    let (s1, s2) = (stats_totals(&w, &w.p1), stats_totals(&w, &w.p2));
    let totals = &g["totals"];
    for ((k, a), (_, b)) in s1.iter().zip(&s2) {
        assert_eq!(u(totals, k), a + b, "{k}: gain {totals} vs stats");
    }
    // what the two runs did, as a user would count it
    assert_eq!(
        (u(totals, "results_seen"), u(totals, "results_cut")),
        (2, 2)
    );
    assert_eq!(u(totals, "cut_rate_pct"), 100);
    assert_eq!(
        (u(totals, "cut_asked_back"), u(totals, "calls_on_cut")),
        (1, 1)
    );
    assert_eq!(u(totals, "recovery_calls"), 1);
    assert_eq!(totals["calls_per_cut"], "0.50");
    // `seq 1 20000`: 108,894 chars
    let alpha = g["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"].as_str().unwrap().starts_with("alpha-"))
        .unwrap();
    assert_eq!(u(alpha, "chars_original"), 108_894);
    assert_eq!(
        u(alpha, "chars_saved"),
        u(alpha, "chars_original") - u(alpha, "chars_shown")
    );
    // the project gain runs in is named by its path; the other by its store dir
    let beta = g["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"].as_str().unwrap().starts_with("beta-"))
        .unwrap();
    assert_eq!(beta["project"], w.p2.to_str().unwrap());
    assert_eq!(alpha["project"], Value::Null);
    // every breakdown adds up to the totals
    for part in ["projects", "tools", "days"] {
        let rows = g[part].as_array().unwrap();
        assert!(!rows.is_empty(), "{part}");
        for k in SUMMED {
            let sum: u64 = rows.iter().map(|r| u(r, k)).sum();
            assert_eq!(sum, u(totals, k), "{part}.{k}");
        }
    }
    for part in ["projects", "days"] {
        let sum: u64 = g[part]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| u(r, "recovery_calls"))
            .sum();
        assert_eq!(sum, u(totals, "recovery_calls"), "{part}.recovery_calls");
    }

    // the text: the same totals, a table per project and a chart with no colour
    let text = w.toolcap(&w.p1, &["gain"]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(!text.contains('\x1b'), "{text}");
    let saved = toolcap_text::text::thousands(u(totals, "chars_saved") as usize);
    assert!(
        text.contains(&format!("{saved} saved (")),
        "the totals line:\n{text}"
    );
    assert!(text.contains(w.p1.to_str().unwrap()), "{text}");
    let date = g["days"][0]["date"].as_str().unwrap();
    let bar = text
        .lines()
        .find(|l| l.starts_with(date))
        .unwrap_or_else(|| panic!("no chart row for {date}:\n{text}"));
    assert!(bar.contains('█') && bar.ends_with(&saved), "{bar}");
}

#[test]
fn days_split_the_record_and_the_chart_fits_the_terminal() {
    let w = world();
    fill(&w);
    // the traceback (the result asked back) processed three days ago, its
    // recovery call today: the call counts on the result's day
    let store = std::fs::read_dir(w.state.join("toolcap"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("beta-")
        })
        .unwrap()
        .join("results.db");
    let three_days = 3 * 86_400_000_i64;
    let db = rusqlite::Connection::open(&store).unwrap();
    db.execute("UPDATE record_seen SET at = at - ?1", [three_days])
        .unwrap();
    drop(db);
    let g = w.json(&w.p1, &["gain", "--json"]);
    let days = g["days"].as_array().unwrap();
    assert_eq!(days.len(), 2, "{g}");
    let (old, new) = (&days[0], &days[1]);
    assert!(old["date"].as_str() < new["date"].as_str());
    assert_eq!(
        (u(old, "results_seen"), u(old, "cut_asked_back")),
        (1, 1),
        "{old}"
    );
    assert_eq!(
        (u(old, "recovery_calls"), u(old, "calls_on_cut")),
        (1, 1),
        "{old}"
    );
    assert_eq!(
        (u(new, "results_seen"), u(new, "recovery_calls")),
        (1, 0),
        "{new}"
    );
    assert_eq!(u(new, "chars_original"), 108_894);

    // --since two days ago: only today's result, and none of the old one's figures
    let recent = w.json(&w.p1, &["gain", "--since", "2d", "--json"]);
    let t = &recent["totals"];
    assert_eq!((u(t, "results_seen"), u(t, "chars_original")), (1, 108_894));
    // the call was made today, on a result processed before the window
    assert_eq!((u(t, "recovery_calls"), u(t, "cut_asked_back")), (1, 0));

    // two bars in a 40-column terminal, the longer for the day that saved more
    let text = w
        .cmd(env!("CARGO_BIN_EXE_toolcap"), &w.p1)
        .args(["gain"])
        .env("COLUMNS", "40")
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    let bars: Vec<&str> = text.lines().filter(|l| l.contains(" │")).collect();
    assert_eq!(bars.len(), 2, "{text}");
    for b in &bars {
        assert!(b.chars().count() <= 40, "{b:?} is wider than 40 columns");
    }
    let len = |b: &str| b.chars().filter(|c| *c == '█').count();
    let more_saved = u(old, "chars_saved") > u(new, "chars_saved");
    assert_eq!(len(bars[0]) > len(bars[1]), more_saved, "{text}");
}

#[test]
fn a_store_that_cannot_be_read_is_skipped_and_named() {
    let w = world();
    fill(&w);
    let before = w.json(&w.p1, &["gain", "--json"]);
    let bad = w.state.join("toolcap").join("broken-0000000000000000");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(bad.join("results.db"), "not a database\n".repeat(100)).unwrap();
    let after = w.json(&w.p1, &["gain", "--json"]);
    assert_eq!(after["totals"], before["totals"]);
    assert_eq!(u(&after, "stores"), 2);
    let skipped = after["stores_skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{after}");
    assert!(
        skipped[0]["store"]
            .as_str()
            .unwrap()
            .contains("broken-0000000000000000"),
        "{after}"
    );
    let text = w.toolcap(&w.p1, &["gain"]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.lines().any(|l| l.trim_start().starts_with("skipped")
            && l.contains("broken-0000000000000000/results.db")
            && l.contains("not a database")),
        "{text}"
    );
}

#[test]
fn no_stores_is_said_plainly() {
    let w = world();
    let text = w.toolcap(&w.p1, &["gain"]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.starts_with("no project stores in "), "{text}");
    let g = w.json(&w.p1, &["gain", "--json"]);
    assert_eq!((u(&g, "stores"), u(&g["totals"], "results_seen")), (0, 0));
    let bad = w
        .cmd(env!("CARGO_BIN_EXE_toolcap"), &w.p1)
        .args(["gain", "--since", "last tuesday"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--since"));
}

/// Every output that went through `toolcap run` counts (issue 45, item 8): the
/// short ones, passed whole, are recorded beside the store without opening it
/// (no `results.db` is made for them), and `gain` and `stats` state the savings
/// over all outputs and over the cut ones alone. Their totals are what the agent
/// received and what it would have received without toolcap.
#[test]
fn every_output_through_run_counts_short_ones_without_the_store() {
    let w = world();
    for word in ["alpha", "beta", "gamma"] {
        let out = w.toolcap(&w.p1, &["run", "--", "echo", word]);
        assert_eq!(out.stdout, format!("{word}\n").as_bytes(), "byte for byte");
    }
    let stores: Vec<_> = std::fs::read_dir(w.state.join("toolcap"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(stores.len(), 1, "{stores:?}");
    assert!(!stores[0].join("results.db").exists(), "no store opened");
    assert!(stores[0].join("results.db-seen").is_file());
    let g = w.json(&w.p1, &["gain", "--json"]);
    let t = &g["totals"];
    // "alpha\n", "beta\n", "gamma\n": 6 + 5 + 6 chars, shown whole
    assert_eq!(
        (
            u(t, "results_seen"),
            u(t, "results_cut"),
            u(t, "chars_original")
        ),
        (3, 0, 17),
        "{g:#}"
    );
    assert_eq!((u(t, "chars_shown"), u(t, "chars_saved")), (17, 0));
    // then one long output, cut
    let seq = w.toolcap(&w.p1, &["run", "--", "seq", "1", "20000"]);
    let shown = String::from_utf8(seq.stdout).unwrap().chars().count() as u64;
    let g = w.json(&w.p1, &["gain", "--json"]);
    let t = &g["totals"];
    assert_eq!((u(t, "results_seen"), u(t, "results_cut")), (4, 1), "{g:#}");
    assert_eq!(u(t, "chars_original"), 17 + 108_894);
    assert_eq!(u(t, "chars_original_cut"), 108_894);
    assert_eq!(u(t, "chars_shown"), 17 + shown, "what the agent received");
    assert_eq!(u(t, "chars_saved"), 108_894 - shown);
    let pct = |a: u64, b: u64| (200 * a + b) / (2 * b);
    assert_eq!(u(t, "chars_saved_pct"), pct(108_894 - shown, 108_911));
    assert_eq!(
        u(t, "chars_saved_pct_of_cut"),
        pct(108_894 - shown, 108_894)
    );
    // the project's stats say the same
    assert_eq!(
        stats_totals(&w, &w.p1)
            .into_iter()
            .find(|(k, _)| k == "results_seen"),
        Some(("results_seen".to_string(), 4))
    );
    let text = String::from_utf8(w.toolcap(&w.p1, &["gain"]).stdout).unwrap();
    assert!(
        text.contains(&format!(
            "{}% of the 108,894 chars of the cut results)",
            pct(108_894 - shown, 108_894)
        )),
        "{text}"
    );
}
