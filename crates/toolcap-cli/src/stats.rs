//! `toolcap stats`: what the store's record says about each tool — results seen,
//! cut rate, characters saved, what agents asked back — and the threshold advice
//! counted from it (`toolcap_store::record::stats`; docs/stats.md).

use std::path::PathBuf;

use clap::Args;
use serde_json::json;
use toolcap_store::record::stats::{self, Report, ToolStats, hundredths, ratio_rounded};
use toolcap_store::record::{Ask, Filter};
use toolcap_store::{format_utc_ms, now_ms};

use super::common::{Failure, other, usage, visible, write_out};
use super::stored::{read_location, store_failure};

#[derive(Args)]
pub struct StatsArgs {
    /// The store: a SQLite file or a postgres:// URL (else $TOOLCAP_STORE, else the
    /// default path).
    #[arg(long, value_name = "PATH")]
    store: Option<PathBuf>,
    /// Only this dialog (thread).
    #[arg(long, value_name = "D")]
    dialog: Option<String>,
    /// Only what happened since: an age (7d, 12h, 30m, 45s, 2w) or a UTC time
    /// (2026-11-25, 2026-11-25T14:00:00Z).
    #[arg(long, value_name = "WHEN")]
    since: Option<String>,
    /// Print one JSON object instead of the text.
    #[arg(long)]
    json: bool,
}

pub fn stats(a: StatsArgs) -> Result<(), Failure> {
    if let Some(d) = &a.dialog {
        toolcap_store::validate_id("dialog id", d).map_err(|e| usage(format!("--dialog: {e}")))?;
    }
    let since_ms = match &a.since {
        None => None,
        Some(s) => Some(since_flag(s, now_ms())?),
    };
    let at = read_location(a.store)?;
    let filter = Filter {
        dialog_id: a.dialog.clone(),
        since_ms,
    };
    let record = match at.open_existing().map_err(store_failure)? {
        None => None,
        Some(s) => s.usage(&filter).map_err(|e| other(e.to_string()))?,
    };
    let report = record.as_ref().map(stats::report).unwrap_or_default();
    let seen = record.as_ref().map_or(0, |u| u.seen.len());
    let calls = record.as_ref().map_or(0, |u| u.calls.len());
    if a.json {
        let mut v = report.json();
        if let Some(obj) = v.as_object_mut() {
            obj.insert("store".into(), json!(at.to_string()));
            obj.insert("dialog".into(), json!(a.dialog));
            obj.insert("since".into(), json!(since_ms.map(format_utc_ms)));
            obj.insert("record_kept".into(), json!(record.is_some()));
            obj.insert("results_seen".into(), json!(seen));
            obj.insert("recovery_calls".into(), json!(calls));
        }
        return write_out(format!("{v}\n").as_bytes());
    }
    let scope = format!(
        "{}, {}",
        a.dialog.as_deref().map_or_else(
            || "all dialogs".to_string(),
            |d| format!("dialog {}", json!(d))
        ),
        since_ms.map_or_else(
            || "the whole record".to_string(),
            |ms| format!("since {}", format_utc_ms(ms))
        ),
    );
    let text = if record.is_none() {
        format!("no result store at {at}: nothing recorded yet\n")
    } else if seen == 0 && calls == 0 {
        format!(
            "nothing recorded in {at} ({scope}): the record fills as toolcap processes results with this store and answers recovery calls from it\n"
        )
    } else {
        render(&report, &format!("{at} ({scope})"), seen, calls)
    };
    // tool names and commands are the model's: shown, never sent to the terminal
    write_out(visible(&text).as_bytes())
}

/// `--since` as given, or the usage error: what is wrong with a date or time
/// (`2025-02-29`: the day must be in 1..=28), and the forms it takes.
pub(super) fn since_flag(s: &str, now_ms: i64) -> Result<i64, Failure> {
    since(s, now_ms).map_err(|why| {
        usage(match why {
            Some(why) => format!(
                "--since {s:?}: not a valid UTC time ({why}); write one like 2026-11-25 or 2026-11-25T14:00:00Z, or an age (a number and a unit: s, m, h, d, w, like 7d)"
            ),
            None => format!(
                "--since {s:?}: expected an age (a number and a unit: s, m, h, d, w, like 7d) or a UTC time like 2026-11-25 or 2026-11-25T14:00:00Z"
            ),
        })
    })
}

/// `--since`: an age before `now_ms`, or a UTC date or time. The error says what
/// is wrong with something written as a date (four digits and a dash); anything
/// else is neither an age nor a time (`None`).
fn since(s: &str, now_ms: i64) -> Result<i64, Option<String>> {
    if let Some(age) = toolcap_store::parse_age(s) {
        let ms = i64::try_from(age.as_millis()).unwrap_or(i64::MAX);
        return Ok(now_ms.saturating_sub(ms));
    }
    let datelike = s
        .trim()
        .as_bytes()
        .get(..5)
        .is_some_and(|p| p[..4].iter().all(u8::is_ascii_digit) && p[4] == b'-');
    toolcap_store::parse_utc_ms(s).map_err(|e| datelike.then_some(e))
}

fn n(x: u64) -> String {
    toolcap_text::text::thousands(usize::try_from(x).unwrap_or(usize::MAX))
}

fn plural(k: u64, one: &str, many: &str) -> String {
    format!("{} {}", n(k), if k == 1 { one } else { many })
}

fn pct(part: u64, whole: u64) -> u64 {
    ratio_rounded(part, whole, 100)
}

/// The text report.
fn render(report: &Report, scope: &str, seen: usize, calls: usize) -> String {
    let mut out = format!(
        "Record of {scope}: {} seen, {}\n",
        plural(seen as u64, "result", "results"),
        plural(calls as u64, "recovery call", "recovery calls")
    );
    for t in &report.tools {
        out.push('\n');
        out.push_str(&tool_block(t));
    }
    if report.calls_not_stored > 0 {
        out.push_str(&format!(
            "\n{} recovery calls named an id with nothing stored under it (never stored, or pruned)\n",
            n(report.calls_not_stored)
        ));
    }
    let advice: Vec<String> = report.tools.iter().filter_map(advice_line).collect();
    if !advice.is_empty() {
        out.push_str("\nAdvice:\n");
        for a in advice {
            out.push_str(&format!("  {a}\n"));
        }
    }
    out
}

fn tool_block(t: &ToolStats) -> String {
    let mut s = format!("{}\n", t.tool);
    s.push_str(&format!(
        "  results seen   {}, cut {} ({}%)\n",
        n(t.results_seen),
        n(t.results_cut),
        t.cut_rate_pct()
    ));
    s.push_str(&format!(
        "  chars saved    {} of {} ({} shown)\n",
        n(t.chars_saved),
        n(t.chars_original),
        n(t.chars_shown)
    ));
    if t.results_cut > 0 {
        s.push_str(&format!(
            "  asked back     {} of {} cut results, {} on them ({} per cut result)\n",
            n(t.cut_asked_back),
            n(t.results_cut),
            plural(t.calls_on_cut, "recovery call", "recovery calls"),
            hundredths(t.calls_per_cut_hundredths())
        ));
    }
    if t.recovery_calls > 0 {
        let kinds: Vec<String> = Ask::ALL
            .iter()
            .filter_map(|a| {
                let k = t.asks.get(a).copied().unwrap_or(0);
                (k > 0).then(|| format!("{} {}", a.name(), n(k)))
            })
            .collect();
        s.push_str(&format!(
            "  asked for      {} ({})\n",
            kinds.join(", "),
            plural(t.recovery_calls, "recovery call", "recovery calls")
        ));
    }
    s
}

/// The advice line of a tool with cut results.
fn advice_line(t: &ToolStats) -> Option<String> {
    if t.results_cut == 0 {
        return None;
    }
    let read_on = format!(
        "{}% of cut results ({} of {}) were read on within {} calls",
        pct(t.read_on_within, t.results_cut),
        n(t.read_on_within),
        n(t.results_cut),
        stats::READ_ON_WITHIN
    );
    Some(match &t.advice {
        Some(a) => format!(
            "{}: {read_on}; a threshold of {} chars (now {}) would have avoided {} of {} recovery calls at +{} chars per result ({} shown whole, +{} chars in all)",
            t.tool,
            n(a.threshold),
            n(a.current_threshold),
            n(a.avoided_calls),
            n(a.calls_on_cut),
            n(a.extra_per_result()),
            plural(a.shown_whole, "more result", "more results"),
            n(a.extra_chars),
        ),
        None if t.calls_on_cut == 0 => format!(
            "{}: no cut result was asked back; the threshold costs the model nothing it asked for",
            t.tool
        ),
        None => format!(
            "{}: {read_on}; no threshold advice (the tool is measured in tokens)",
            t.tool
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn since_reads_ages_dates_and_times() {
        let parse_since = |s: &str, now: i64| since(s, now).ok();
        assert_eq!(parse_since("1h", 10_000_000), Some(10_000_000 - 3_600_000));
        assert_eq!(parse_since("1970-01-02", 0), Some(86_400_000));
        assert_eq!(
            parse_since("2024-02-29T23:59:59Z", 0).map(format_utc_ms),
            Some("2024-02-29T23:59:59.000Z".to_string())
        );
        assert_eq!(
            parse_since("2026-11-25T14:00", 0).map(format_utc_ms),
            Some("2026-11-25T14:00:00.000Z".to_string())
        );
        // a year's last minute and the next year's first day; a leap day
        assert_eq!(
            parse_since("2025-12-31T23:59", 0).map(format_utc_ms),
            Some("2025-12-31T23:59:00.000Z".to_string())
        );
        assert_eq!(
            parse_since("2026-01-01", 0).map(format_utc_ms),
            Some("2026-01-01T00:00:00.000Z".to_string())
        );
        assert_eq!(
            parse_since("2028-02-29", 0).map(format_utc_ms),
            Some("2028-02-29T00:00:00.000Z".to_string())
        );
        assert_eq!(parse_since("2026-13-01", 0), None);
        assert_eq!(parse_since("yesterday", 0), None);
    }

    #[test]
    fn a_bad_since_names_the_flag_the_problem_and_the_forms() {
        // 2025 is not a leap year: the day the month lacks is named, with its range
        let e = since_flag("2025-02-29", 0).unwrap_err().message;
        assert!(
            e.starts_with("--since \"2025-02-29\": not a valid UTC time ("),
            "{e}"
        );
        assert!(e.contains("1..=28"), "{e}");
        assert!(
            e.contains("write one like 2026-11-25 or 2026-11-25T14:00:00Z"),
            "{e}"
        );
        let e = since_flag("2026-11-25T25:00", 0).unwrap_err().message;
        assert!(e.contains("not a valid UTC time"), "{e}");
        let e = since_flag("yesterday", 0).unwrap_err().message;
        assert!(
            e.starts_with("--since \"yesterday\": expected an age"),
            "{e}"
        );
    }
}
