//! Retention: results expire by age and by size, and what expired says so.
//!
//! A [`Retention`] names how long results are kept (`keep`) and how many bytes of
//! output a store holds at most (`max_bytes`); [`ResultStore::expire`] applies it:
//! results older than `keep` go, then the oldest results (by creation time) go
//! until the outputs left hold at most `max_bytes`, never the newest one (a single
//! result larger than the limit stays, alone, until a newer one comes). The CLI
//! reads both from the `[store]` section of the configuration and applies them
//! when it opens a store to write and every [`DEFAULT_EXPIRE_EVERY`] while
//! `serve`, `mcp-proxy` or `run` keep it open ([`Ticker`]).
//!
//! For each result that expires the store keeps a small [`Expired`] record (a
//! tombstone: dialog, tool call id, tool name, size, when and why), so the
//! recovery tools answer "expired at ... because ..." instead of "no cached
//! result". Tombstones are bounded: each is kept [`TOMBSTONE_KEEP`] (30 days) after
//! the result expired, and a store keeps at most [`MAX_TOMBSTONES`] (the newest);
//! deleting a dialog ([`ResultStore::delete_dialog`]) deletes its tombstones too.

use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

use serde::Serialize;

use super::{ResultStore, StoreError, format_utc_ms};
use crate::text::thousands;

/// How long the record of an expired result is kept after it expired: 30 days.
pub const TOMBSTONE_KEEP: Duration = Duration::from_secs(30 * 86_400);

/// Most records of expired results a store keeps (the newest).
pub const MAX_TOMBSTONES: usize = 10_000;

#[doc(no_inline)]
pub use crate::config::{DEFAULT_EXPIRE_EVERY, parse_size};

/// How long and how much a store keeps. `None`: no limit of that kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Retention {
    /// Results older than this expire.
    pub keep: Option<Duration>,
    /// The most bytes (UTF-8) of output kept in all; past it the oldest results
    /// expire first.
    pub max_bytes: Option<u64>,
}

impl Retention {
    /// The `keep` and `max_bytes` of a configuration's `[store]` section.
    pub fn of(config: &crate::config::StoreConfig) -> Retention {
        Retention {
            keep: config.keep,
            max_bytes: config.max_bytes,
        }
    }

    /// No limit at all: [`ResultStore::expire`] only drops old tombstones.
    pub fn is_unlimited(&self) -> bool {
        self.keep.is_none() && self.max_bytes.is_none()
    }

    /// The age cutoff at `now_ms`: results created before it expire.
    pub fn cutoff_ms(&self, now_ms: i64) -> Option<i64> {
        self.keep.map(|k| now_ms.saturating_sub(duration_ms(k)))
    }
}

/// Why a result expired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr, strum::EnumString)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum ExpiryReason {
    /// It was older than the store keeps results (`keep`, or `prune --older-than`).
    Age,
    /// The store held more than `max_bytes` of output and it was among the oldest.
    Size,
}

impl ExpiryReason {
    /// `age` or `size`, as the stores keep it.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The reason named `s` (`age` or `size`).
    pub fn parse(s: &str) -> Option<ExpiryReason> {
        s.parse().ok()
    }
}

/// What is left of an expired result (a tombstone).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Expired {
    /// The dialog it belonged to.
    pub dialog_id: String,
    /// The tool call id it was kept under.
    pub tool_call_id: String,
    /// The tool that produced it.
    pub tool_name: String,
    /// Its output's size in bytes (UTF-8).
    pub size_bytes: u64,
    /// Its output's size in characters.
    pub size_chars: u64,
    /// When it was stored, milliseconds since the Unix epoch.
    pub created_at_ms: i64,
    /// When it expired, milliseconds since the Unix epoch.
    pub expired_at_ms: i64,
    /// Why.
    pub reason: ExpiryReason,
    /// The limit it crossed: the age limit in milliseconds ([`ExpiryReason::Age`]) or
    /// `max_bytes` ([`ExpiryReason::Size`]).
    pub limit: i64,
}

impl Expired {
    /// What the model reads instead of the result (the text of an
    /// [`ReplyError::Expired`](super::continuation::ReplyError::Expired) reply), e.g. `The result of tool_call_id 'call_1'
    /// (bash, 68,893 chars, stored 2026-11-17T10:00:00.000Z) expired at
    /// 2026-11-25T10:00:00.000Z: the store keeps results for 7d. Run the tool again
    /// if you still need its output.`
    pub fn message(&self) -> String {
        let why = match self.reason {
            ExpiryReason::Age => {
                format!("the store keeps results for {}", format_age_ms(self.limit))
            }
            ExpiryReason::Size => format!(
                "the store holds at most {} bytes of results and newer ones took its place",
                thousands(usize::try_from(self.limit).unwrap_or(usize::MAX))
            ),
        };
        format!(
            "The result of tool_call_id '{}' ({}, {} chars, stored {}) expired at {}: {why}. \
             Run the tool again if you still need its output.",
            self.tool_call_id,
            self.tool_name,
            thousands(usize::try_from(self.size_chars).unwrap_or(usize::MAX)),
            format_utc_ms(self.created_at_ms),
            format_utc_ms(self.expired_at_ms),
        )
    }
}

/// What one [`ResultStore::expire`] (or a prune) did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Expiry {
    /// Results that expired for their age.
    pub by_age: usize,
    /// Results that expired to bring the store under `max_bytes`.
    pub by_size: usize,
    /// Bytes of output they held.
    pub bytes: u64,
}

impl Expiry {
    /// Results that expired, for either reason.
    pub fn total(&self) -> usize {
        self.by_age + self.by_size
    }
}

/// A duration in milliseconds (saturating).
pub fn duration_ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// The age limit of a prune with cutoff `cutoff_ms` at `now_ms`, to the nearest
/// second (`prune_older_than(7 days)` records exactly 7d, not 7d and the
/// milliseconds between taking the cutoff and pruning).
pub fn age_limit_ms(now_ms: i64, cutoff_ms: i64) -> i64 {
    let ms = now_ms.saturating_sub(cutoff_ms).max(0);
    ms.saturating_add(500) / 1000 * 1000
}

/// The time before which tombstones are dropped, at `now_ms`.
pub fn tombstone_cutoff_ms(now_ms: i64) -> i64 {
    now_ms.saturating_sub(duration_ms(TOMBSTONE_KEEP))
}

pub use crate::text::format_age_ms;

/// A background thread applying a [`Retention`] to a store every `every`, until
/// dropped: the periodic expiry of `serve`, `mcp-proxy` and `run`. Each round's
/// outcome goes to `report` (a failure is reported and the next round tries again).
pub struct Ticker {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Ticker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ticker").finish_non_exhaustive()
    }
}

impl Ticker {
    /// Start applying `retention` to `store` every `every` (the first round after
    /// one interval: apply it yourself on open). Nothing runs when the retention
    /// has no limit and `every` is zero.
    pub fn start(
        store: Arc<dyn ResultStore>,
        retention: Retention,
        every: Duration,
        mut report: impl FnMut(Result<Expiry, StoreError>) + Send + 'static,
    ) -> std::io::Result<Ticker> {
        let (stop, stopped) = mpsc::channel::<()>();
        let every = every.max(Duration::from_millis(10));
        let thread = std::thread::Builder::new()
            .name("toolcap-expiry".into())
            .spawn(move || {
                leave_signals_to_others();
                loop {
                    match stopped.recv_timeout(every) {
                        Err(RecvTimeoutError::Timeout) => report(store.expire(&retention)),
                        // dropped or told to stop
                        _ => return,
                    }
                }
            })?;
        Ok(Ticker {
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The expiry thread takes no termination signal: SIGTERM, SIGINT and SIGHUP go to
/// a thread of the program that handles them (the MCP proxy waits for them with
/// `sigwait` once it has blocked them in its own threads; a thread that left them
/// unblocked would take them and the process would die without passing them on).
fn leave_signals_to_others() {
    #[cfg(unix)]
    let _ = crate::signals::block_termination();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_print_in_their_largest_exact_unit() {
        assert_eq!(format_age_ms(7 * 86_400_000), "7d");
        assert_eq!(format_age_ms(36 * 3_600_000), "36h");
        assert_eq!(format_age_ms(90 * 60_000), "90m");
        assert_eq!(format_age_ms(1500), "1500ms");
        assert_eq!(format_age_ms(0), "0ms");
    }

    #[test]
    fn an_expired_result_says_when_and_why() {
        let gone = Expired {
            dialog_id: "d".into(),
            tool_call_id: "call_1".into(),
            tool_name: "bash".into(),
            size_bytes: 68_893,
            size_chars: 68_893,
            created_at_ms: 1_709_251_199_999,
            expired_at_ms: 1_709_856_000_000,
            reason: ExpiryReason::Age,
            limit: 7 * 86_400_000,
        };
        assert_eq!(
            gone.message(),
            "The result of tool_call_id 'call_1' (bash, 68,893 chars, stored \
             2024-02-29T23:59:59.999Z) expired at 2024-03-08T00:00:00.000Z: the store keeps \
             results for 7d. Run the tool again if you still need its output."
        );
        let size = Expired {
            reason: ExpiryReason::Size,
            limit: 1_048_576,
            ..gone
        };
        assert!(size.message().contains(
            "the store holds at most 1,048,576 bytes of results and newer ones took its place"
        ));
    }
}
