//! `toolcap gain`: what toolcap did across every project store in the state
//! directory (`<state>/toolcap/*/results.db`, where `toolcap run` and the hooks
//! keep outputs): results seen, cut rate, characters seen, shown and saved, cut
//! results asked back and the recovery calls on them, in all, per project, per
//! tool and per UTC day, with a bar chart of characters saved per day.
//!
//! Every figure is counted by the same code as `toolcap stats`
//! ([`stats::report`]) from each store's record, then summed: the totals equal
//! `toolcap stats --json` of each store added up (docs/stats.md).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::{Map, Value, json};
use toolcap_store::record::stats::{self, Report, hundredths, ratio_rounded};
use toolcap_store::record::{Filter, Usage};
use toolcap_store::{format_utc_ms, now_ms};

use super::common::{Failure, usage, visible, write_out};
use super::project::{project_key, project_root, state_dir};
use super::stats::since_flag;

#[derive(Args)]
pub struct GainArgs {
    /// Only what happened since: an age (7d, 12h, 30m, 45s, 2w) or a UTC time
    /// (2026-11-25, 2026-11-25T14:00:00Z).
    #[arg(long, value_name = "WHEN")]
    since: Option<String>,
    /// Print one JSON object instead of the text.
    #[arg(long)]
    json: bool,
}

/// The summed figures of a part of the record (a store, a day, a tool, all).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Figures {
    results_seen: u64,
    results_cut: u64,
    chars_original: u64,
    chars_shown: u64,
    chars_saved: u64,
    cut_asked_back: u64,
    calls_on_cut: u64,
    /// Recovery calls: every call of the part (for a tool: those on its results).
    recovery_calls: u64,
    /// Recovery calls naming an id with nothing stored under it.
    calls_not_stored: u64,
}

impl Figures {
    /// The sum of a report's tools; `calls` is every recovery call it counted.
    fn of(report: &Report, calls: usize) -> Figures {
        let mut f = Figures {
            recovery_calls: calls as u64,
            calls_not_stored: report.calls_not_stored,
            ..Figures::default()
        };
        for t in &report.tools {
            f.results_seen += t.results_seen;
            f.results_cut += t.results_cut;
            f.chars_original += t.chars_original;
            f.chars_shown += t.chars_shown;
            f.chars_saved += t.chars_saved;
            f.cut_asked_back += t.cut_asked_back;
            f.calls_on_cut += t.calls_on_cut;
        }
        f
    }

    fn add(&mut self, o: &Figures) {
        self.results_seen += o.results_seen;
        self.results_cut += o.results_cut;
        self.chars_original += o.chars_original;
        self.chars_shown += o.chars_shown;
        self.chars_saved += o.chars_saved;
        self.cut_asked_back += o.cut_asked_back;
        self.calls_on_cut += o.calls_on_cut;
        self.recovery_calls += o.recovery_calls;
        self.calls_not_stored += o.calls_not_stored;
    }

    fn cut_rate_pct(&self) -> u64 {
        ratio_rounded(self.results_cut, self.results_seen, 100)
    }

    fn saved_pct(&self) -> u64 {
        ratio_rounded(self.chars_saved, self.chars_original, 100)
    }

    fn calls_per_cut(&self) -> String {
        hundredths(ratio_rounded(self.calls_on_cut, self.results_cut, 100))
    }

    /// The figures as JSON fields (named as `toolcap stats --json` names them).
    fn json(&self) -> Map<String, Value> {
        let v = json!({
            "results_seen": self.results_seen,
            "results_cut": self.results_cut,
            "cut_rate_pct": self.cut_rate_pct(),
            "chars_original": self.chars_original,
            "chars_shown": self.chars_shown,
            "chars_saved": self.chars_saved,
            "chars_saved_pct": self.saved_pct(),
            "cut_asked_back": self.cut_asked_back,
            "calls_on_cut": self.calls_on_cut,
            "calls_per_cut": self.calls_per_cut(),
            "recovery_calls": self.recovery_calls,
            "calls_not_stored": self.calls_not_stored,
        });
        match v {
            Value::Object(m) => m,
            _ => Map::new(),
        }
    }
}

/// One project store read.
struct Project {
    /// The store directory's name (`<name>-<hash>`).
    dir: String,
    /// The project's directory, when known (the current project's).
    path: Option<PathBuf>,
    store: PathBuf,
    figures: Figures,
}

/// A store that could not be read, and why.
struct Skipped {
    store: PathBuf,
    error: String,
}

/// Everything `gain` counted.
#[derive(Default)]
struct Gain {
    projects: Vec<Project>,
    skipped: Vec<Skipped>,
    totals: Figures,
    tools: BTreeMap<String, Figures>,
    days: BTreeMap<String, Figures>,
}

pub fn gain(a: GainArgs) -> Result<(), Failure> {
    let since_ms = match &a.since {
        None => None,
        Some(s) => Some(since_flag(s, now_ms())?),
    };
    let dir = state_dir().ok_or_else(|| {
        usage("no state directory: set HOME (or XDG_STATE_HOME) to where toolcap keeps its project stores")
    })?;
    let filter = Filter {
        dialog_id: None,
        since_ms,
    };
    let here = project_root().map(|r| (project_key(&r), r));
    let g = count(store_paths(&dir), &filter, here.as_ref());
    if a.json {
        let mut out = json(&g, &dir, since_ms).to_string();
        out.push('\n');
        return write_out(out.as_bytes());
    }
    // tool names and commands are the model's: shown, never sent to the terminal
    write_out(visible(&render(&g, &dir, since_ms)).as_bytes())
}

/// The project stores under `dir`, by directory name.
fn store_paths(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<(String, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let db = e.path().join("results.db");
            db.is_file()
                .then(|| (e.file_name().to_string_lossy().into_owned(), db))
        })
        .collect();
    found.sort();
    found
}

/// What `toolcap gain --json` prints, over the stores named `only` (all when
/// `None`), with the stores read: what `toolcap report` shows.
pub(super) fn gain_json(
    since_ms: Option<i64>,
    only: Option<&str>,
) -> Result<(Value, Vec<(String, PathBuf)>), Failure> {
    let dir = state_dir().ok_or_else(|| {
        usage("no state directory: set HOME (or XDG_STATE_HOME) to where toolcap keeps its project stores")
    })?;
    let stores = store_paths(&dir)
        .into_iter()
        .filter(|(name, _)| only.is_none_or(|o| o == name))
        .collect();
    Ok(gain_json_of(stores, &dir, since_ms))
}

/// What `toolcap gain --json` prints over `stores` (name, `results.db`), `dir`
/// named as the state directory, with the stores read.
pub(super) fn gain_json_of(
    stores: Vec<(String, PathBuf)>,
    dir: &Path,
    since_ms: Option<i64>,
) -> (Value, Vec<(String, PathBuf)>) {
    let filter = Filter {
        dialog_id: None,
        since_ms,
    };
    let here = project_root().map(|r| (project_key(&r), r));
    let g = count(stores, &filter, here.as_ref());
    let read = g
        .projects
        .iter()
        .map(|p| (p.dir.clone(), p.store.clone()))
        .collect();
    (json(&g, dir, since_ms), read)
}

/// Read every store of `stores` and sum its record.
fn count(
    stores: Vec<(String, PathBuf)>,
    filter: &Filter,
    here: Option<&(String, PathBuf)>,
) -> Gain {
    let mut g = Gain::default();
    for (name, db) in stores {
        let record = match read_record(&db, filter) {
            Ok(u) => u,
            Err(error) => {
                g.skipped.push(Skipped { store: db, error });
                continue;
            }
        };
        let report = stats::report(&record);
        let figures = Figures::of(&report, record.calls.len());
        g.totals.add(&figures);
        for t in &report.tools {
            let f = g.tools.entry(t.tool.clone()).or_default();
            f.add(&Figures {
                results_seen: t.results_seen,
                results_cut: t.results_cut,
                chars_original: t.chars_original,
                chars_shown: t.chars_shown,
                chars_saved: t.chars_saved,
                cut_asked_back: t.cut_asked_back,
                calls_on_cut: t.calls_on_cut,
                recovery_calls: t.recovery_calls,
                calls_not_stored: 0,
            });
        }
        for (day, part) in by_day(&record) {
            let f = Figures::of(&stats::report(&part), part.calls.len());
            g.days.entry(day).or_default().add(&f);
        }
        let path = here.filter(|(key, _)| *key == name).map(|(_, p)| p.clone());
        g.projects.push(Project {
            dir: name,
            path,
            store: db,
            figures,
        });
    }
    g.projects.sort_by(|a, b| {
        b.figures
            .chars_saved
            .cmp(&a.figures.chars_saved)
            .then(a.dir.cmp(&b.dir))
    });
    g
}

/// A store's record, or why it could not be read.
fn read_record(db: &Path, filter: &Filter) -> Result<Usage, String> {
    let at = toolcap_stores::Location::parse(db).map_err(|e| e.to_string())?;
    let s = at
        .open_existing()
        .map_err(|e| e.to_string())?
        .ok_or_else(|| "no toolcap tables in the file".to_string())?;
    s.usage(filter)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| "the store keeps no record".to_string())
}

/// The UTC date of a time: `2026-11-28`.
fn day(ms: i64) -> String {
    format_utc_ms(ms).chars().take(10).collect()
}

/// The record split by UTC day: each result seen on the day it was processed;
/// each recovery call on the day of the result it asked about (the latest seen
/// under its id, the one `stats` counts it against), else on its own day. Each
/// day's report then counts what the whole record's report counts, once.
fn by_day(u: &Usage) -> BTreeMap<String, Usage> {
    let mut latest: HashMap<(&str, &str), String> = HashMap::new();
    let mut days: BTreeMap<String, Usage> = BTreeMap::new();
    for s in &u.seen {
        let d = day(s.at_ms);
        if let Some(id) = &s.tool_call_id {
            latest.insert((s.dialog_id.as_str(), id.as_str()), d.clone());
        }
        days.entry(d).or_default().seen.push(s.clone());
    }
    for c in &u.calls {
        let d = latest
            .get(&(c.dialog_id.as_str(), c.tool_call_id.as_str()))
            .cloned()
            .unwrap_or_else(|| day(c.at_ms));
        days.entry(d).or_default().calls.push(c.clone());
    }
    days
}

fn json(g: &Gain, dir: &Path, since_ms: Option<i64>) -> Value {
    let with = |mut m: Map<String, Value>, first: Vec<(&str, Value)>| {
        let mut out = Map::new();
        for (k, v) in first {
            out.insert(k.to_string(), v);
        }
        out.append(&mut m);
        Value::Object(out)
    };
    json!({
        "state_dir": dir,
        "since": since_ms.map(format_utc_ms),
        "stores": g.projects.len(),
        "stores_skipped": g.skipped.iter().map(|s| json!({
            "store": s.store,
            "error": s.error,
        })).collect::<Vec<_>>(),
        "totals": Value::Object(g.totals.json()),
        "projects": g.projects.iter().map(|p| with(p.figures.json(), vec![
            ("name", json!(p.dir)),
            ("project", json!(p.path)),
            ("store", json!(p.store)),
        ])).collect::<Vec<_>>(),
        "tools": g.tools.iter().map(|(t, f)| {
            let mut m = f.json();
            m.remove("calls_not_stored");
            with(m, vec![("tool", json!(t))])
        }).collect::<Vec<_>>(),
        "days": g.days.iter().map(|(d, f)| with(f.json(), vec![("date", json!(d))])).collect::<Vec<_>>(),
    })
}

fn n(x: u64) -> String {
    toolcap_text::text::thousands(usize::try_from(x).unwrap_or(usize::MAX))
}

fn plural(k: u64, one: &str, many: &str) -> String {
    format!("{} {}", n(k), if k == 1 { one } else { many })
}

/// Most days the text's chart shows (the latest); `--json` has them all.
const CHART_DAYS: usize = 30;

/// The terminal's width: `$COLUMNS` when set, else 80.
fn columns() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|c| *c >= 20)
        .unwrap_or(80)
}

fn render(g: &Gain, dir: &Path, since_ms: Option<i64>) -> String {
    let scope = since_ms.map_or_else(
        || "the whole record".to_string(),
        |ms| format!("since {}", format_utc_ms(ms)),
    );
    let mut out = String::new();
    if g.projects.is_empty() && g.skipped.is_empty() {
        out.push_str(&format!(
            "no project stores in {}: nothing recorded yet (`toolcap run` and the agents' hooks keep one per project there)\n",
            dir.display()
        ));
        return out;
    }
    out.push_str(&format!(
        "Gain across {} in {} ({scope})\n",
        plural(g.projects.len() as u64, "project store", "project stores"),
        dir.display()
    ));
    for s in &g.skipped {
        let line = s.error.lines().next().unwrap_or_default();
        let store = s.store.display().to_string();
        out.push_str(&if line.contains(&store) {
            format!("  skipped: {line}\n")
        } else {
            format!("  skipped {store}: {line}\n")
        });
    }
    let t = &g.totals;
    out.push('\n');
    out.push_str(&format!(
        "results seen    {}, cut {} ({}%)\n",
        n(t.results_seen),
        n(t.results_cut),
        t.cut_rate_pct()
    ));
    out.push_str(&format!(
        "chars           {} seen, {} shown, {} saved ({}%)\n",
        n(t.chars_original),
        n(t.chars_shown),
        n(t.chars_saved),
        t.saved_pct()
    ));
    out.push_str(&format!(
        "asked back      {} of {} cut results, {} on them ({} per cut result)\n",
        n(t.cut_asked_back),
        n(t.results_cut),
        plural(t.calls_on_cut, "recovery call", "recovery calls"),
        t.calls_per_cut()
    ));
    out.push_str(&format!(
        "recovery calls  {} in all{}\n",
        n(t.recovery_calls),
        if t.calls_not_stored > 0 {
            format!(", {} naming nothing stored", n(t.calls_not_stored))
        } else {
            String::new()
        }
    ));
    if t.results_seen == 0 && t.recovery_calls == 0 {
        out.push_str("\nnothing recorded in this window\n");
        return out;
    }
    let rows: Vec<(String, &Figures)> = g
        .projects
        .iter()
        .map(|p| {
            let label = p
                .path
                .as_ref()
                .map_or_else(|| p.dir.clone(), |path| path.display().to_string());
            (label, &p.figures)
        })
        .collect();
    out.push('\n');
    out.push_str(&table("project", &rows));
    let rows: Vec<(String, &Figures)> = g.tools.iter().map(|(k, f)| (k.clone(), f)).collect();
    out.push('\n');
    out.push_str(&table("tool", &rows));
    out.push('\n');
    out.push_str(&chart(&g.days));
    out
}

/// Keep at most `max` characters of `s`, the end of it (paths end with what
/// tells them apart).
fn tail(s: &str, max: usize) -> String {
    let count = s.chars().count();
    if count <= max {
        return s.to_string();
    }
    let mut t = String::from("…");
    t.extend(s.chars().skip(count - (max - 1)));
    t
}

/// A table of figures per project or tool.
fn table(what: &str, rows: &[(String, &Figures)]) -> String {
    let label_w = rows
        .iter()
        .map(|(l, _)| l.chars().count().min(48))
        .chain([what.len()])
        .max()
        .unwrap_or(0);
    let mut out = format!(
        "{what:<label_w$}  {:>9}  {:>9}  {:>13}  {:>10}  {:>9}\n",
        "results", "cut", "chars saved", "asked back", "calls/cut"
    );
    for (label, f) in rows {
        out.push_str(&format!(
            "{:<label_w$}  {:>9}  {:>9}  {:>13}  {:>10}  {:>9}\n",
            tail(label, 48),
            n(f.results_seen),
            n(f.results_cut),
            n(f.chars_saved),
            n(f.cut_asked_back),
            f.calls_per_cut()
        ));
    }
    out
}

/// Characters saved per day as horizontal bars of block characters (eighths),
/// the longest as wide as the terminal allows.
fn chart(days: &BTreeMap<String, Figures>) -> String {
    let mut out = String::from("chars saved per day (UTC)\n");
    let shown: Vec<(&String, &Figures)> = days
        .iter()
        .rev()
        .take(CHART_DAYS)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let earlier = days.len().saturating_sub(shown.len());
    if earlier > 0 {
        let saved: u64 = days.values().take(earlier).map(|f| f.chars_saved).sum();
        out.push_str(&format!(
            "  ({} before these, {} chars saved: see --json)\n",
            plural(earlier as u64, "day", "days"),
            n(saved)
        ));
    }
    let max = shown.iter().map(|(_, f)| f.chars_saved).max().unwrap_or(0);
    let num_w = shown
        .iter()
        .map(|(_, f)| n(f.chars_saved).len())
        .max()
        .unwrap_or(1);
    // "2026-11-28 │" + bar + " " + number
    let width = columns().saturating_sub(10 + 2 + 1 + num_w).clamp(10, 60);
    for (d, f) in shown {
        let b = bar(f.chars_saved, max, width);
        let pad = width - b.chars().count();
        out.push_str(&format!(
            "{d} │{b}{} {:>num_w$}\n",
            " ".repeat(pad),
            n(f.chars_saved)
        ));
    }
    out
}

/// A bar of `value` against `max` in `width` cells, to the eighth of a cell
/// (rounded; a value above 0 shows at least an eighth).
fn bar(value: u64, max: u64, width: usize) -> String {
    const PARTS: [char; 8] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
    if max == 0 || value == 0 {
        return String::new();
    }
    let eighths = ratio_rounded(value, max, width as u64 * 8).max(1);
    let full = usize::try_from(eighths / 8).unwrap_or(width).min(width);
    let part = usize::try_from(eighths % 8).unwrap_or(0);
    let mut s = "█".repeat(full);
    if part > 0 && full < width {
        s.push(PARTS[part]);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bars_are_proportional_to_the_eighth() {
        assert_eq!(bar(100, 100, 10), "█".repeat(10));
        assert_eq!(bar(50, 100, 10), "█".repeat(5));
        assert_eq!(bar(55, 100, 10), format!("{}▌", "█".repeat(5)));
        assert_eq!(bar(1, 1_000_000, 10), "▏");
        assert_eq!(bar(0, 100, 10), "");
        assert_eq!(bar(5, 0, 10), "");
    }

    #[test]
    fn long_labels_keep_their_end() {
        assert_eq!(tail("/home/ana/src/app", 8), "…src/app");
        assert_eq!(tail("app", 8), "app");
    }
}
