//! `GET /metrics`: the figures of `toolcap stats`, per tool, in the OpenMetrics text
//! format that Prometheus scrapes, encoded by the Prometheus project's own client
//! (`prometheus-client`).
//!
//! Every value is counted from the store's record at the time of the scrape (so
//! every `toolcap serve` over one store reports the same figures, whoever did the
//! processing). They are gauges, not counters: retention (`toolcap prune`) deletes
//! old rows, and the figures fall with it.

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use toolcap_store::record::Ask;
use toolcap_store::record::stats::{Report, ToolStats};

type Labels = Vec<(String, String)>;

/// A per-tool figure: its name, its help, how to read it.
type Figure = (&'static str, &'static str, fn(&ToolStats) -> u64);

/// The `Content-Type` of the body.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

fn gauge(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The body of `/metrics` for `report`; `kept` is false when the store keeps no
/// record (then only `toolcap_record_kept 0`).
pub fn openmetrics(report: &Report, kept: bool) -> Result<String, std::fmt::Error> {
    let mut reg = Registry::with_prefix("toolcap");
    let record_kept = Gauge::<i64>::default();
    record_kept.set(i64::from(kept));
    reg.register(
        "record_kept",
        "1 when the store keeps the record of results seen and recovery calls",
        record_kept,
    );
    let per_tool: [Figure; 8] = [
        (
            "results_seen",
            "Results processed with this store attached (bypassed ones not counted)",
            |t| t.results_seen,
        ),
        ("results_cut", "Results cut", |t| t.results_cut),
        ("chars_original", "Characters of the full results", |t| {
            t.chars_original
        }),
        (
            "chars_shown",
            "Characters the model was shown of them",
            |t| t.chars_shown,
        ),
        (
            "chars_saved",
            "Characters the model did not have to read (full less shown)",
            |t| t.chars_saved,
        ),
        (
            "cut_results_asked_back",
            "Cut results asked back by at least one recovery call",
            |t| t.cut_asked_back,
        ),
        (
            "recovery_calls_on_cut",
            "Recovery calls on cut results seen",
            |t| t.calls_on_cut,
        ),
        (
            "cut_results_read_on_within_2",
            "Cut results read on within their first 2 recovery calls",
            |t| t.read_on_within,
        ),
    ];
    for (name, help, value) in per_tool {
        let family = Family::<Labels, Gauge>::default();
        for t in &report.tools {
            family
                .get_or_create(&vec![("tool".to_string(), t.tool.clone())])
                .set(gauge(value(t)));
        }
        reg.register(name, help, family);
    }
    let calls = Family::<Labels, Gauge>::default();
    for t in &report.tools {
        for ask in Ask::ALL {
            let n = t.asks.get(&ask).copied().unwrap_or(0);
            if n > 0 {
                calls
                    .get_or_create(&vec![
                        ("tool".to_string(), t.tool.clone()),
                        ("ask".to_string(), ask.name().to_string()),
                    ])
                    .set(gauge(n));
            }
        }
    }
    reg.register(
        "recovery_calls",
        "Recovery calls on the tool's stored results, by what they asked for",
        calls,
    );
    let advised = Family::<Labels, Gauge>::default();
    for t in &report.tools {
        if let Some(a) = &t.advice {
            advised
                .get_or_create(&vec![("tool".to_string(), t.tool.clone())])
                .set(gauge(a.threshold));
        }
    }
    reg.register(
        "advised_threshold_chars",
        "The threshold `toolcap stats` advises (the smallest that avoids half the recovery calls on cut results)",
        advised,
    );
    let not_stored = Gauge::<i64>::default();
    not_stored.set(gauge(report.calls_not_stored));
    reg.register(
        "recovery_calls_not_stored",
        "Recovery calls naming an id under which nothing was stored",
        not_stored,
    );
    let mut body = String::new();
    encode(&mut body, &reg)?;
    Ok(body)
}
