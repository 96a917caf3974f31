//! `toolcap report --html FILE [--project DIR] [--since AGE]`: one
//! self-contained HTML page over the project stores `toolcap gain` reads (or
//! the one of `--project`): characters saved per day and per tool, the largest
//! results, the recovery calls, the calls the agents' own logs show toolcap
//! missed (`toolcap discover`), and each cut result's view beside its full
//! output. Nothing is loaded from the network: inline CSS and SVG, no script
//! but a JSON block (the figures, as `toolcap gain --json` prints them), and a
//! Content-Security-Policy that forbids any fetch. docs/report.md.

mod html;
mod svg;
mod text;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use serde_json::Value;
use toolcap_config::Config;
use toolcap_core::{ToolCall, ToolResultProcessor};
use toolcap_store::record::{Call, Filter};
use toolcap_store::{ListCursor, ListPage, Meta};
use toolcap_store::{MemoryStore, SaveWhen};
use toolcap_stores::Location;

use super::common::{Failure, load_config, other};
use super::discover::{self, Agent, Found, Scope};
use super::gain::{gain_json, gain_json_of};
use super::project::project_key;

#[derive(Args)]
pub struct ReportArgs {
    /// Write the page to FILE (`-` for standard output).
    #[arg(long, value_name = "FILE")]
    html: PathBuf,
    /// Only this project's store (and its sessions in the agents' logs).
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
    /// Only what happened since: an age (7d, 12h, 30m) or a UTC time.
    #[arg(long, value_name = "WHEN")]
    since: Option<String>,
    /// The config whose thresholds the replays use (else the usual lookup).
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
}

/// At most this many of the largest results, recovery calls and cut results.
const LARGEST: usize = 15;
const CALLS: usize = 200;
const CUT: usize = 40;
/// Stored results listed a page at a time.
const PAGE: usize = 500;
/// A full output on the page is cut after this many characters (said so).
const FULL_CHARS: usize = 60_000;
/// A stored output larger than this (UTF-8 bytes) is not read whole to replay
/// its view: the page shows its first [`FULL_CHARS`] and says so (a page over
/// the latest cut results, or `serve`'s `/report` under several requests, holds
/// at most this much of one output at a time).
pub const REPLAY_MAX_BYTES: usize = 16 << 20;

/// A stored result the page lists.
pub struct Stored {
    pub project: String,
    pub meta: Meta,
}

/// A cut result with the view and (the start of) its full output.
pub struct Cut {
    pub project: String,
    /// The store it is kept in.
    pub store: PathBuf,
    pub meta: Meta,
    /// The view replayed from the stored output; `None` when the output is over
    /// [`REPLAY_MAX_BYTES`].
    pub view: Option<String>,
    pub full: String,
    /// What the record says the model was shown, when it has the row.
    pub shown_recorded: Option<u64>,
}

/// Everything the page shows.
pub struct Page {
    pub gain: Value,
    pub scope: String,
    pub largest: Vec<Stored>,
    pub calls: Vec<(String, Call)>,
    pub calls_total: usize,
    pub cut: Vec<Cut>,
    pub cut_total: usize,
    pub agents: Vec<Found>,
    pub skipped: Vec<String>,
}

pub fn report(a: ReportArgs) -> Result<(), Failure> {
    let scope = Scope::parse(a.since.as_deref(), a.project.as_deref())?;
    let config = load_config(a.config.as_deref())?;
    // the project's store is its root's: the nearest directory up holding .git
    let only = scope
        .project
        .as_deref()
        .map(|p| project_key(p.ancestors().find(|d| d.join(".git").exists()).unwrap_or(p)));
    let (gain, stores) = gain_json(scope.since_ms, only.as_deref())?;
    let page = gather(gain, &stores, &scope, &config);
    write_page(&a.html, &html::page(&page))?;
    if a.html != Path::new("-") {
        let said = format!(
            "{}: {} read, {}, {}, the logs of {}; it holds commands and outputs: read it before sharing it (docs/report.md)\n",
            a.html.display(),
            count(stores.len(), "project store", "project stores"),
            count(page.cut_total, "cut result", "cut results"),
            count(page.calls_total, "recovery call", "recovery calls"),
            count(page.agents.len(), "agent", "agents"),
        );
        super::common::write_out(said.as_bytes())?;
    }
    Ok(())
}

/// The page over one SQLite store (what `toolcap serve` answers `GET /report`
/// with): its figures, results and recovery calls, and the agents' logs.
#[cfg_attr(not(feature = "server"), allow(dead_code))]
pub fn page_for_store(db: &Path, config: &Config) -> String {
    let name = db.parent().and_then(Path::file_name).map_or_else(
        || db.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let dir = db.parent().unwrap_or(Path::new("."));
    let (gain, stores) = gain_json_of(vec![(name, db.to_path_buf())], dir, None);
    let scope = Scope {
        since_ms: None,
        project: None,
    };
    html::page(&gather(gain, &stores, &scope, config))
}

/// Everything the page shows, read from `stores` and the agents' logs.
fn gather(gain: Value, stores: &[(String, PathBuf)], scope: &Scope, config: &Config) -> Page {
    let mut page = Page {
        gain,
        scope: describe(scope),
        largest: Vec::new(),
        calls: Vec::new(),
        calls_total: 0,
        cut: Vec::new(),
        cut_total: 0,
        agents: Vec::new(),
        skipped: Vec::new(),
    };
    let mut stored: Vec<Stored> = Vec::new();
    for (name, db) in stores {
        if let Err(e) = read_store(name, db, scope, config, &mut page, &mut stored) {
            page.skipped.push(format!("{}: {e}", db.display()));
        }
    }
    stored.sort_by_key(|s| std::cmp::Reverse(s.meta.size.chars));
    stored.truncate(LARGEST);
    page.largest = stored;
    page.calls.sort_by_key(|c| std::cmp::Reverse(c.1.at_ms));
    page.calls_total = page.calls.len();
    page.calls.truncate(CALLS);
    page.cut
        .sort_by_key(|c| std::cmp::Reverse(c.meta.created_at_ms));
    page.cut.truncate(CUT);
    for &agent in Agent::ALL {
        // an agent whose logs cannot be read is named, never fatal
        match discover::collect(agent, scope, config) {
            Ok(f) if f.results > 0 => page.agents.push(f),
            Ok(_) => {}
            Err(e) => page
                .skipped
                .push(format!("{} logs: {}", agent.display(), e.message)),
        }
    }
    page
}

fn count(k: usize, one: &str, many: &str) -> String {
    format!("{k} {}", if k == 1 { one } else { many })
}

fn describe(scope: &Scope) -> String {
    let project = scope.project.as_ref().map_or_else(
        || "every project".to_string(),
        |p| format!("the project {}", p.display()),
    );
    let since = scope.since_ms.map_or_else(
        || "the whole record".to_string(),
        |ms| format!("since {}", toolcap_store::format_utc_ms(ms)),
    );
    format!("{project}, {since}")
}

/// One store's results, recovery calls and cut results, added to the page.
fn read_store(
    name: &str,
    db: &Path,
    scope: &Scope,
    config: &Config,
    page: &mut Page,
    stored: &mut Vec<Stored>,
) -> Result<(), String> {
    let store = Location::parse(db)
        .and_then(|l| l.open_existing())
        .map_err(|e| e.to_string())?
        .ok_or_else(|| "no toolcap tables in the file".to_string())?;
    let filter = Filter {
        dialog_id: None,
        since_ms: scope.since_ms,
    };
    let usage = store
        .usage(&filter)
        .map_err(|e| e.to_string())?
        .unwrap_or_default();
    page.calls
        .extend(usage.calls.into_iter().map(|c| (name.to_string(), c)));
    // the results a page at a time (bounded memory): the largest kept, the latest
    // cut ones noted; only those are read whole and replayed
    let kept = |m: &Meta| scope.since_ms.is_none_or(|s| m.created_at_ms >= s);
    let mut latest_cut: Vec<Meta> = Vec::new();
    let mut after: Option<ListCursor> = None;
    loop {
        let metas = store
            .list_page(&ListPage {
                dialog_id: None,
                after: after.as_ref(),
                offset: 0,
                limit: PAGE,
            })
            .map_err(|e| e.to_string())?;
        let Some(last) = metas.last() else { break };
        after = Some(ListCursor::after(last));
        let full_page = metas.len() == PAGE;
        for meta in metas.into_iter().filter(kept) {
            if meta.truncated {
                page.cut_total += 1;
                latest_cut.push(meta.clone());
                if latest_cut.len() > CUT * 2 {
                    latest_cut.sort_by_key(|m| std::cmp::Reverse(m.created_at_ms));
                    latest_cut.truncate(CUT);
                }
            }
            stored.push(Stored {
                project: name.to_string(),
                meta,
            });
            if stored.len() > LARGEST * 4 {
                stored.sort_by_key(|s| std::cmp::Reverse(s.meta.size.chars));
                stored.truncate(LARGEST);
            }
        }
        if !full_page {
            break;
        }
    }
    latest_cut.sort_by_key(|m| std::cmp::Reverse(m.created_at_ms));
    latest_cut.truncate(CUT);
    for meta in latest_cut {
        let recorded = usage
            .seen
            .iter()
            .rev()
            .find(|s| {
                s.dialog_id == meta.dialog_id
                    && s.tool_call_id.as_deref() == Some(meta.tool_call_id.as_str())
            })
            .map(|s| s.shown_chars);
        let read = if meta.size.bytes > REPLAY_MAX_BYTES {
            // too large to replay: only its start is read
            store
                .read_range(&meta.dialog_id, &meta.tool_call_id, 0, FULL_CHARS)
                .map(|r| r.map(|(m, head)| head_only(name, m, head, recorded)))
        } else {
            store
                .get(&meta.dialog_id, &meta.tool_call_id)
                .map(|r| r.map(|rec| replay(name, config, &rec.meta, &rec.output, recorded)))
        };
        if let Ok(Some(mut c)) = read {
            c.store = db.to_path_buf();
            page.cut.push(c);
        }
    }
    // keep the latest cut results only, a store at a time
    if page.cut.len() > CUT {
        page.cut
            .sort_by_key(|c| std::cmp::Reverse(c.meta.created_at_ms));
        page.cut.truncate(CUT);
    }
    Ok(())
}

/// The view toolcap renders for a stored output now (through a memory store, so
/// the recovery section names the same id), and the start of the output.
fn replay(project: &str, config: &Config, meta: &Meta, output: &str, recorded: Option<u64>) -> Cut {
    let mut config = config.clone();
    // a shell command's output kept by `toolcap run` (the agents' shell hooks
    // and prefix run it): its view suggests `toolcap continue`, as run's did
    if meta.tool_args.get("exit_code").is_some() {
        super::project::use_cli_recovery(&mut config, &meta.tool_name, None, None);
    }
    let p =
        ToolResultProcessor::new(config).with_store(Arc::new(MemoryStore::new()), SaveWhen::Cut);
    let mut call = ToolCall::new(&meta.tool_name, &meta.tool_args);
    call.id = Some(&meta.tool_call_id);
    call.dialog = Some(&meta.dialog_id);
    let view = Some(p.process_call(&call, output).text);
    let full: String = output.chars().take(FULL_CHARS).collect();
    Cut {
        project: project.to_string(),
        store: PathBuf::new(),
        meta: meta.clone(),
        view,
        full,
        shown_recorded: recorded,
    }
}

/// A cut result too large to replay: its start, and no view.
fn head_only(project: &str, meta: Meta, head: String, recorded: Option<u64>) -> Cut {
    Cut {
        project: project.to_string(),
        store: PathBuf::new(),
        meta,
        view: None,
        full: head,
        shown_recorded: recorded,
    }
}

/// Write the page to `path` (`-`: standard output). The page quotes the
/// commands and their outputs: a new file is made `0600`.
fn write_page(path: &Path, text: &str) -> Result<(), Failure> {
    if path == Path::new("-") {
        return super::common::write_out(text.as_bytes());
    }
    toolcap_store::private::write(path, text).map_err(|e| {
        other(format!(
            "--html {}: {e}; name a file in a directory you can write",
            path.display()
        ))
    })?;
    Ok(())
}
