//! The per-tool figures of `toolcap stats` and `/metrics`, counted from the raw
//! record ([`Usage`]) and nothing else.
//!
//! Definitions (docs/stats.md says the same for users):
//! - a tool's *results seen* are its [`Seen`] rows; *cut* those with `truncated`;
//!   *chars saved* the sum of [`Seen::saved_chars`].
//! - a recovery call belongs to the tool of the stored result it asked about
//!   ([`Call::result_tool`]); calls about an id with nothing stored are counted
//!   apart (`calls_not_stored`).
//! - a cut result was *asked back* when a recovery call of its dialog names its
//!   tool call id (the latest [`Seen`] row of that id); its calls, in the order they
//!   were made, are the ones the advice reads.
//! - *read on within 2 calls*: one of the first [`READ_ON_WITHIN`] calls on the cut
//!   result reads its text on ([`Ask::reads_on`]).
//! - the *threshold advice* (tools measured in chars): the candidates are the sizes
//!   of the cut results that were asked back; a threshold `T` would have shown
//!   every cut result of at most `T` chars whole, avoiding the recovery calls made
//!   on them, at the cost of the characters they had saved. The advice is the
//!   smallest candidate that avoids at least half of the calls made on cut results.
//!
//! Percentages and averages are rounded half up from the exact counts, which the
//! report carries beside them.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde_json::{Value, json};

use super::{Ask, Call, Outcome, Seen, Usage};

/// How many first recovery calls on a cut result "read on within" counts.
pub const READ_ON_WITHIN: usize = 2;

/// The figures of one tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ToolStats {
    /// The tool's name.
    pub tool: String,
    /// Results seen.
    pub results_seen: u64,
    /// Of them, cut.
    pub results_cut: u64,
    /// Characters of the full results.
    pub chars_original: u64,
    /// Characters the model was shown of them.
    pub chars_shown: u64,
    /// Characters it did not have to read.
    pub chars_saved: u64,
    /// Characters of the full results that were cut (what `chars_saved` is
    /// saved of, when only cut results count).
    pub chars_original_cut: u64,
    /// Recovery calls on this tool's stored results.
    pub recovery_calls: u64,
    /// Those calls by what they asked for.
    pub asks: BTreeMap<Ask, u64>,
    /// Cut results seen that were asked back at least once.
    pub cut_asked_back: u64,
    /// Recovery calls on cut results seen.
    pub calls_on_cut: u64,
    /// Cut results seen of which one of the first [`READ_ON_WITHIN`] calls read on.
    pub read_on_within: u64,
    /// What the record says about the threshold (tools measured in chars, with a
    /// cut result asked back).
    pub advice: Option<Advice>,
}

/// A threshold that would have avoided most recovery calls, and its cost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Advice {
    /// The threshold in effect (the latest result seen).
    pub current_threshold: u64,
    /// The threshold advised, in chars.
    pub threshold: u64,
    /// Recovery calls on cut results it would have avoided.
    pub avoided_calls: u64,
    /// Recovery calls on cut results in all.
    pub calls_on_cut: u64,
    /// Cut results it would have shown whole.
    pub shown_whole: u64,
    /// Characters more the model would have read, in all.
    pub extra_chars: u64,
}

impl Advice {
    /// Characters more per result shown whole (rounded half up).
    pub fn extra_per_result(&self) -> u64 {
        ratio_rounded(self.extra_chars, self.shown_whole, 1)
    }
}

/// The whole report.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// Per tool, most results seen first (then by name).
    pub tools: Vec<ToolStats>,
    /// Recovery calls naming an id under which nothing was stored.
    pub calls_not_stored: u64,
}

/// `n / d` rounded half up, in units of `1 / scale` (0 when `d` is 0).
pub fn ratio_rounded(n: u64, d: u64, scale: u64) -> u64 {
    if d == 0 {
        return 0;
    }
    let (n, d) = (u128::from(n) * u128::from(scale), u128::from(d));
    u64::try_from((2 * n + d) / (2 * d)).unwrap_or(u64::MAX)
}

impl ToolStats {
    fn new(tool: &str) -> ToolStats {
        ToolStats {
            tool: tool.to_string(),
            results_seen: 0,
            results_cut: 0,
            chars_original: 0,
            chars_shown: 0,
            chars_saved: 0,
            chars_original_cut: 0,
            recovery_calls: 0,
            asks: BTreeMap::new(),
            cut_asked_back: 0,
            calls_on_cut: 0,
            read_on_within: 0,
            advice: None,
        }
    }

    /// Cut results per 100 results seen (rounded half up).
    pub fn cut_rate_pct(&self) -> u64 {
        ratio_rounded(self.results_cut, self.results_seen, 100)
    }

    /// Recovery calls per cut result, in hundredths (rounded half up).
    pub fn calls_per_cut_hundredths(&self) -> u64 {
        ratio_rounded(self.calls_on_cut, self.results_cut, 100)
    }

    /// The figures as `toolcap stats --json` prints them.
    pub fn json(&self) -> Value {
        let asks: serde_json::Map<String, Value> = Ask::ALL
            .iter()
            .map(|a| (a.name().to_string(), json!(self.asks.get(a).unwrap_or(&0))))
            .collect();
        json!({
            "tool": self.tool,
            "results_seen": self.results_seen,
            "results_cut": self.results_cut,
            "cut_rate_pct": self.cut_rate_pct(),
            "chars_original": self.chars_original,
            "chars_shown": self.chars_shown,
            "chars_saved": self.chars_saved,
            "chars_original_cut": self.chars_original_cut,
            "recovery_calls": self.recovery_calls,
            "asks": asks,
            "cut_asked_back": self.cut_asked_back,
            "calls_on_cut": self.calls_on_cut,
            "calls_per_cut": hundredths(self.calls_per_cut_hundredths()),
            "read_on_within_2": self.read_on_within,
            "advice": self.advice.as_ref().map(|a| json!({
                "current_threshold": a.current_threshold,
                "threshold": a.threshold,
                "avoided_calls": a.avoided_calls,
                "calls_on_cut": a.calls_on_cut,
                "shown_whole": a.shown_whole,
                "extra_chars": a.extra_chars,
                "extra_chars_per_result": a.extra_per_result(),
            })),
        })
    }
}

/// Hundredths as a decimal string: `232` → `"2.32"`.
pub fn hundredths(h: u64) -> String {
    format!("{}.{:02}", h / 100, h % 100)
}

impl Report {
    /// The report as `toolcap stats --json` prints it.
    pub fn json(&self) -> Value {
        json!({
            "tools": self.tools.iter().map(ToolStats::json).collect::<Vec<_>>(),
            "calls_not_stored": self.calls_not_stored,
        })
    }
}

type Key<'a> = (&'a str, &'a str);

/// Count the report from the record.
pub fn report(usage: &Usage) -> Report {
    let mut tools: HashMap<&str, ToolStats> = HashMap::new();
    // the latest row seen of each (dialog, id): the result its calls are about
    let mut latest: HashMap<Key<'_>, &Seen> = HashMap::new();
    for s in &usage.seen {
        let t = tools
            .entry(s.tool.as_str())
            .or_insert_with(|| ToolStats::new(&s.tool));
        t.results_seen += 1;
        t.results_cut += u64::from(s.truncated);
        t.chars_original += s.size_chars;
        t.chars_shown += s.shown_chars;
        t.chars_saved += s.saved_chars();
        if s.truncated {
            t.chars_original_cut += s.size_chars;
        }
        if let Some(id) = &s.tool_call_id {
            latest.insert((s.dialog_id.as_str(), id.as_str()), s);
        }
    }
    let mut calls_not_stored = 0;
    // the calls on each cut result seen, in the order they were made
    let mut on_cut: HashMap<Key<'_>, Vec<&Call>> = HashMap::new();
    for c in &usage.calls {
        let Some(tool) = c.result_tool.as_deref() else {
            calls_not_stored += 1;
            continue;
        };
        let t = tools.entry(tool).or_insert_with(|| ToolStats::new(tool));
        t.recovery_calls += 1;
        *t.asks.entry(c.ask).or_insert(0) += 1;
        let key = (c.dialog_id.as_str(), c.tool_call_id.as_str());
        if c.outcome != Outcome::NotStored && latest.get(&key).is_some_and(|s| s.truncated) {
            on_cut.entry(key).or_default().push(c);
        }
    }
    // per tool: its cut results (with their calls), smallest first
    let mut cut_results: HashMap<&str, Vec<(&Seen, usize)>> = HashMap::new();
    for (key, s) in &latest {
        if !s.truncated {
            continue;
        }
        let calls = on_cut.get(key).map_or(&[][..], Vec::as_slice);
        if let Some(t) = tools.get_mut(s.tool.as_str()) {
            t.calls_on_cut += calls.len() as u64;
            t.cut_asked_back += u64::from(!calls.is_empty());
            t.read_on_within +=
                u64::from(calls.iter().take(READ_ON_WITHIN).any(|c| c.ask.reads_on()));
        }
        cut_results
            .entry(s.tool.as_str())
            .or_default()
            .push((s, calls.len()));
    }
    for (tool, mut results) in cut_results {
        let Some(t) = tools.get_mut(tool) else {
            continue;
        };
        results.sort_by_key(|(s, _)| s.size_chars);
        t.advice = advise(&usage.seen, tool, &results);
    }
    let mut tools: Vec<ToolStats> = tools.into_values().collect();
    tools.sort_by(|a, b| {
        b.results_seen
            .cmp(&a.results_seen)
            .then(b.recovery_calls.cmp(&a.recovery_calls))
            .then(a.tool.cmp(&b.tool))
    });
    Report {
        tools,
        calls_not_stored,
    }
}

/// The advice for `tool` from its cut results (smallest first, each with the
/// number of calls made on it).
fn advise(seen: &[Seen], tool: &str, cut: &[(&Seen, usize)]) -> Option<Advice> {
    let mut mine = seen.iter().filter(|s| s.tool == tool);
    if mine.clone().any(|s| s.unit != "chars") {
        return None;
    }
    let current_threshold = mine.next_back()?.threshold;
    let total: usize = cut.iter().map(|(_, n)| n).sum();
    if total == 0 {
        return None;
    }
    let (mut avoided, mut whole, mut extra) = (0, 0, 0);
    // whether a result of the current size was asked back (a candidate)
    let mut asked = false;
    for (i, (s, n)) in cut.iter().enumerate() {
        avoided += n;
        whole += 1;
        extra += s.saved_chars();
        asked |= *n > 0;
        // a threshold of this size shows every result of the same size whole too
        let last_of_size = cut
            .get(i + 1)
            .is_none_or(|(next, _)| next.size_chars > s.size_chars);
        if !last_of_size {
            continue;
        }
        if asked && 2 * avoided >= total {
            return Some(Advice {
                current_threshold,
                threshold: s.size_chars,
                avoided_calls: avoided as u64,
                calls_on_cut: total as u64,
                shown_whole: whole,
                extra_chars: extra,
            });
        }
        asked = false;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Outcome;

    fn seen(id: &str, size: u64, cut: bool) -> Seen {
        Seen {
            at_ms: 1,
            dialog_id: "d".into(),
            tool_call_id: Some(id.into()),
            tool: "read_file".into(),
            family: "read_file".into(),
            reason: if cut { "cut" } else { "under_threshold" }.into(),
            truncated: cut,
            threshold: 3500,
            unit: "chars".into(),
            size_chars: size,
            shown_chars: if cut { 2400 } else { size },
            kept_chars: if cut { 2000 } else { size },
        }
    }

    fn call(id: &str, ask: Ask) -> Call {
        Call {
            at_ms: 2,
            dialog_id: "d".into(),
            tool_call_id: id.into(),
            recovery_tool: "get_continuation".into(),
            ask,
            offset: None,
            start_line: None,
            end_line: None,
            pattern: None,
            symbol: None,
            path: None,
            reply_chars: 2000,
            outcome: Outcome::Answered,
            result_tool: Some("read_file".into()),
            result_chars: None,
            result_truncated: Some(true),
        }
    }

    #[test]
    fn the_advice_is_the_smallest_size_that_avoids_half_the_calls() {
        let usage = Usage {
            seen: vec![
                seen("a", 1000, false),
                seen("b", 5000, true),
                seen("c", 6000, true),
                seen("e", 9000, true),
                seen("f", 50_000, true),
            ],
            calls: vec![
                call("b", Ask::Continuation),
                call("c", Ask::Search),
                call("c", Ask::Continuation),
                call("f", Ask::Search),
                call("f", Ask::Search),
                call("f", Ask::Lines),
                call("nope", Ask::Whole),
            ],
        };
        let r = report(&usage);
        let t = &r.tools[0];
        assert_eq!(
            (t.results_seen, t.results_cut, t.cut_rate_pct()),
            (5, 4, 80)
        );
        // "nope" has a result_tool but no row seen: a call of the tool, not on a cut result
        assert_eq!((t.recovery_calls, t.calls_on_cut), (7, 6));
        assert_eq!((t.cut_asked_back, t.read_on_within), (3, 2));
        assert_eq!(t.calls_per_cut_hundredths(), 150);
        assert_eq!(t.chars_saved, 2600 + 3600 + 6600 + 47_600);
        let a = t.advice.as_ref().expect("advice");
        // 5000 avoids 1 of 6, 6000 avoids 3 of 6: half
        assert_eq!((a.threshold, a.avoided_calls, a.calls_on_cut), (6000, 3, 6));
        assert_eq!(
            (a.shown_whole, a.extra_chars, a.extra_per_result()),
            (2, 6200, 3100)
        );
    }

    #[test]
    fn results_of_one_size_are_one_candidate() {
        // whichever of the two comes first
        for order in [["a", "b"], ["b", "a"]] {
            let usage = Usage {
                seen: order.iter().map(|id| seen(id, 8800, true)).collect(),
                calls: vec![call("a", Ask::Continuation), call("a", Ask::Lines)],
            };
            let r = report(&usage);
            let a = r.tools[0].advice.as_ref().expect("advice");
            assert_eq!((a.threshold, a.avoided_calls, a.shown_whole), (8800, 2, 2));
            assert_eq!(a.extra_chars, 2 * (8800 - 2400));
        }
    }

    #[test]
    fn rounding_is_half_up() {
        assert_eq!(ratio_rounded(1, 3, 100), 33);
        assert_eq!(ratio_rounded(2, 3, 100), 67);
        assert_eq!(ratio_rounded(1, 8, 100), 13);
        assert_eq!(ratio_rounded(5, 0, 100), 0);
        assert_eq!(hundredths(232), "2.32");
        assert_eq!(hundredths(5), "0.05");
    }
}
