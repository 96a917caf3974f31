//! toolcap's result store: the full result kept under its tool call id and read
//! back by the recovery tools (the `toolcap-store` crate; `toolcap::store` is its
//! public face and documents it).
//!
//! The API every store backend implements ([`ResultStore`], [`OutputWriter`],
//! [`Meta`], [`Record`], [`StoreError`]), [`MemoryStore`], [`LazyStore`]; the
//! recovery tools ([`continuation`], [`lines`], [`query`], [`symbols`],
//! [`tools`]); [`retention`]; [`record`]; and [`backend`], the kit the SQL
//! backends share. The backends are crates of their own (`toolcap-store-sqlite`,
//! `toolcap-store-postgres`); `toolcap-stores` holds the table of backends and
//! opens a store from what the user typed (`open`, `open_existing`, `Location`).

#![warn(missing_docs)]

// the floors below, under the paths these modules used in the one crate
use toolcap_config as config;
use toolcap_cut as cut;
use toolcap_outline as outline;
use toolcap_render as render;
use toolcap_text::{quote, text};

pub mod backend;
pub mod continuation;
mod error;
pub mod lazy;
pub mod lines;
pub mod listing;
pub mod memory;
pub mod private;
pub mod query;
pub mod record;
pub mod retention;
#[cfg(unix)]
pub mod signals;
pub mod symbols;
pub mod tools;

use std::fmt;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::Serialize;
use serde_json::Value;

use crate::cut::index::{LineIndex, Totals};

pub use error::{Cause, ConnectFailure, StoreError, StoreErrorKind};
pub use lazy::LazyStore;
pub use listing::{ListCursor, ListPage};
pub use memory::MemoryStore;
pub use retention::{Expired, Expiry, ExpiryReason, Retention};

/// The dialog (thread) id used when a caller names none.
pub const DEFAULT_DIALOG: &str = "default";

/// Longest accepted tool call id or dialog id, in characters.
pub const MAX_ID_CHARS: usize = 256;

/// Which results the processor saves when a store is attached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, strum::EnumString)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum SaveWhen {
    /// Only results it cut (the default): the ones the model may need the rest of.
    #[default]
    Cut,
    /// Every result that is not bypassed, cut or not.
    All,
}

impl SaveWhen {
    /// `cut` or `all`.
    pub fn parse(s: &str) -> Option<SaveWhen> {
        s.parse().ok()
    }
}

/// What is known about a stored result without loading its output.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Meta {
    /// The tool call id the result is kept under.
    pub tool_call_id: String,
    /// The dialog (thread) it belongs to.
    pub dialog_id: String,
    /// The tool that produced it.
    pub tool_name: String,
    /// The tool call's arguments (JSON).
    pub tool_args: Value,
    /// Size of the full output: bytes (UTF-8), characters, lines.
    pub size: Totals,
    /// Whether the processor cut the result the model saw.
    pub truncated: bool,
    /// Character offset right after what the model was shown first: the end of the
    /// kept head for a cut result (where reading on starts), the total length for an
    /// uncut one.
    pub shown_chars: usize,
    /// Creation time, milliseconds since the Unix epoch.
    pub created_at_ms: i64,
}

impl Meta {
    /// Metadata for `output`, created now.
    pub fn new(
        dialog_id: &str,
        tool_call_id: &str,
        tool_name: &str,
        tool_args: &Value,
        output: &str,
    ) -> Meta {
        Meta::with_size(
            dialog_id,
            tool_call_id,
            tool_name,
            tool_args,
            LineIndex::new(output).totals(),
        )
    }

    /// Metadata for an output of `size`, created now, not truncated, shown whole.
    pub fn with_size(
        dialog_id: &str,
        tool_call_id: &str,
        tool_name: &str,
        tool_args: &Value,
        size: Totals,
    ) -> Meta {
        Meta {
            tool_call_id: tool_call_id.to_string(),
            dialog_id: dialog_id.to_string(),
            tool_name: tool_name.to_string(),
            tool_args: tool_args.clone(),
            size,
            truncated: false,
            shown_chars: size.chars,
            created_at_ms: now_ms(),
        }
    }

    /// The creation time as `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC).
    pub fn created_at(&self) -> String {
        format_utc_ms(self.created_at_ms)
    }

    /// The metadata as `toolcap show --meta` prints it: ids, tool, arguments,
    /// sizes, whether it was cut, how much was shown, the creation time.
    pub fn show_json(&self) -> Value {
        serde_json::json!({
            "tool_call_id": self.tool_call_id,
            "dialog_id": self.dialog_id,
            "tool_name": self.tool_name,
            "tool_args": self.tool_args,
            "size_bytes": self.size.bytes,
            "size_chars": self.size.chars,
            "size_lines": self.size.lines,
            "truncated": self.truncated,
            "shown_chars": self.shown_chars,
            "created_at": self.created_at(),
        })
    }
}

/// A stored result: its metadata and the full output.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// What is known about it.
    pub meta: Meta,
    /// The full output.
    pub output: String,
}

impl Record {
    /// A record for `output`, created now, not truncated.
    pub fn new(
        dialog_id: &str,
        tool_call_id: &str,
        tool_name: &str,
        tool_args: &Value,
        output: &str,
    ) -> Record {
        Record {
            meta: Meta::new(dialog_id, tool_call_id, tool_name, tool_args, output),
            output: output.to_string(),
        }
    }
}

/// Where results are kept: see the module docs.
///
/// Every call is scoped by a dialog id: a lookup never sees another dialog's results.
/// Implementations are safe to share between threads.
pub trait ResultStore: Send + Sync + fmt::Debug {
    /// `"memory"`, `"sqlite"` or `"postgres"`: the `storage_type` of a tool message
    /// reference.
    fn storage_type(&self) -> &'static str;

    /// Keep `output` with its metadata, replacing any earlier result with the same
    /// dialog and tool call id. Once this returns `Ok`, the result is committed.
    /// (Borrows the output: a 100 MB result is not copied to be kept.)
    fn put_output(&self, meta: &Meta, output: &str) -> Result<(), StoreError>;

    /// Keep `record`: [`put_output`](Self::put_output) of its parts.
    fn put(&self, record: &Record) -> Result<(), StoreError> {
        self.put_output(&record.meta, &record.output)
    }

    /// Start keeping an output written piece by piece (a stream too large to hold):
    /// see [`OutputWriter`]. By default the pieces are gathered in memory and kept
    /// with [`put_output`](Self::put_output) at commit; the SQLite store (`SqliteStore`) writes them
    /// to the database as they come, holding at most one chunk.
    fn begin_output(&self) -> Result<Box<dyn OutputWriter + '_>, StoreError> {
        Ok(Box::new(Gathered {
            store: self,
            text: String::new(),
        }))
    }

    /// The metadata of a result, without loading its output.
    fn meta(&self, dialog_id: &str, tool_call_id: &str) -> Result<Option<Meta>, StoreError>;

    /// A result with its full output.
    fn get(&self, dialog_id: &str, tool_call_id: &str) -> Result<Option<Record>, StoreError>;

    /// Characters `[offset, offset + len)` of a stored output (fewer at its end), with
    /// the result's metadata, without handing over the rest of the output.
    fn read_range(
        &self,
        dialog_id: &str,
        tool_call_id: &str,
        offset: usize,
        len: usize,
    ) -> Result<Option<(Meta, String)>, StoreError> {
        Ok(self.get(dialog_id, tool_call_id)?.map(|r| {
            let (a, b) = char_span(&r.output, offset, len);
            let part = r.output[a..b].to_string();
            (r.meta, part)
        }))
    }

    /// The full output of a result, handed to `sink` in pieces, in order (a large
    /// output is not loaded whole: the SQLite store hands on one stored chunk at a
    /// time); `sink` returns [`ControlFlow::Break`] to stop early. Returns the
    /// result's metadata, or `None` when nothing is stored under the ids.
    fn stream_output(
        &self,
        dialog_id: &str,
        tool_call_id: &str,
        sink: &mut dyn FnMut(&str) -> ControlFlow<()>,
    ) -> Result<Option<Meta>, StoreError> {
        Ok(self.get(dialog_id, tool_call_id)?.map(|r| {
            let _ = sink(&r.output);
            r.meta
        }))
    }

    /// Metadata of the results of one dialog (or of all), oldest first.
    fn list(&self, dialog_id: Option<&str>) -> Result<Vec<Meta>, StoreError>;

    /// One page of [`list`](Self::list): see [`ListPage`]. The SQL stores page in
    /// the query (keyset pagination), holding only the page's metadata; by
    /// default the whole list is read and the page taken from it.
    fn list_page(&self, page: &ListPage<'_>) -> Result<Vec<Meta>, StoreError> {
        Ok(listing::page_of(
            self.list(page.dialog_id)?.into_iter(),
            page,
        ))
    }

    /// How many results [`list`](Self::list) would return, without reading them.
    fn count(&self, dialog_id: Option<&str>) -> Result<usize, StoreError> {
        Ok(self.list(dialog_id)?.len())
    }

    /// Delete one dialog's results (on thread close), and the records of its expired
    /// ones; returns how many results were deleted.
    fn delete_dialog(&self, dialog_id: &str) -> Result<usize, StoreError>;

    /// Delete results created before `cutoff_ms` (milliseconds since the Unix epoch),
    /// keeping a record of each ([`expired`](Self::expired), reason
    /// [`ExpiryReason::Age`]); returns how many were deleted.
    fn prune_before(&self, cutoff_ms: i64) -> Result<usize, StoreError>;

    /// Add a result the processor saw to the record (see [`record`]). By default
    /// nothing is recorded.
    fn record_seen(&self, seen: &record::Seen) -> Result<(), StoreError> {
        let _ = seen;
        Ok(())
    }

    /// Add a recovery call answered from this store to the record. By default
    /// nothing is recorded.
    fn record_call(&self, call: &record::Call) -> Result<(), StoreError> {
        let _ = call;
        Ok(())
    }

    /// The record, oldest first; `None` when this store keeps none (the default).
    fn usage(&self, filter: &record::Filter) -> Result<Option<record::Usage>, StoreError> {
        let _ = filter;
        Ok(None)
    }

    /// Delete results older than `age`; returns how many were deleted.
    fn prune_older_than(&self, age: Duration) -> Result<usize, StoreError> {
        let age_ms = i64::try_from(age.as_millis()).unwrap_or(i64::MAX);
        self.prune_before(now_ms().saturating_sub(age_ms))
    }

    /// Apply `retention`: results older than `keep` expire, then the oldest until
    /// the outputs left hold at most `max_bytes` (never the newest result); each
    /// leaves a record ([`expired`](Self::expired)), and records older than
    /// [`retention::TOMBSTONE_KEEP`] or past [`retention::MAX_TOMBSTONES`] go. See
    /// [`retention`].
    ///
    /// The built-in stores do all of it in one transaction. This default, for a
    /// store of your own, applies `keep` through
    /// [`prune_before`](Self::prune_before) and refuses a `max_bytes`.
    fn expire(&self, retention: &Retention) -> Result<Expiry, StoreError> {
        if retention.max_bytes.is_some() {
            return Err(StoreError::io(
                self.storage_type(),
                "expire",
                "this store cannot expire results by size".to_string(),
                StoreErrorKind::Unusable,
            ));
        }
        let by_age = match retention.cutoff_ms(now_ms()) {
            Some(cutoff) => self.prune_before(cutoff)?,
            None => 0,
        };
        Ok(Expiry {
            by_age,
            ..Expiry::default()
        })
    }

    /// The record of a result that expired (by age or size), while it is kept;
    /// `None` when nothing under the ids expired (or its record is gone too).
    fn expired(
        &self,
        _dialog_id: &str,
        _tool_call_id: &str,
    ) -> Result<Option<Expired>, StoreError> {
        Ok(None)
    }
}

/// An output being kept piece by piece ([`ResultStore::begin_output`]). Readers
/// see nothing of it until [`commit`](Self::commit); dropping the writer without
/// committing discards what was written.
pub trait OutputWriter {
    /// Append `text` to the output.
    fn write(&mut self, text: &str) -> Result<(), StoreError>;

    /// Keep the output written under `meta`'s dialog and tool call id, replacing any
    /// earlier result with the same ids; `meta.size` is the size of what was
    /// written. Once this returns `Ok`, the result is committed.
    fn commit(self: Box<Self>, meta: &Meta) -> Result<(), StoreError>;
}

/// The default [`OutputWriter`]: the pieces gathered in memory, then
/// [`ResultStore::put_output`].
struct Gathered<'a, S: ResultStore + ?Sized> {
    store: &'a S,
    text: String,
}

impl<S: ResultStore + ?Sized> OutputWriter for Gathered<'_, S> {
    fn write(&mut self, text: &str) -> Result<(), StoreError> {
        self.text.push_str(text);
        Ok(())
    }

    fn commit(self: Box<Self>, meta: &Meta) -> Result<(), StoreError> {
        let (chars, bytes) = (self.text.chars().count(), self.text.len());
        if (chars, bytes) != (meta.size.chars, meta.size.bytes) {
            // as the chunked stores do: the size kept is the size written
            return Err(StoreError::io(
                self.store.storage_type(),
                "write",
                error::size_mismatch(meta, chars, bytes),
                StoreErrorKind::SizeMismatch,
            ));
        }
        self.store.put_output(meta, &self.text)
    }
}

/// Characters `[offset, offset + len)` of `s` as a byte range (clamped to the end).
pub fn char_span(s: &str, offset: usize, len: usize) -> (usize, usize) {
    let start = text::byte_of_char(s, offset);
    let end = start + text::byte_of_char(&s[start..], len);
    (start, end)
}

/// Check a tool call id or dialog id: not empty, at most [`MAX_ID_CHARS`]
/// characters, no control characters.
pub fn validate_id(what: &'static str, id: &str) -> Result<(), StoreError> {
    let bad = |problem: String| StoreError::invalid_id(what, shown_id(id), problem);
    if id.is_empty() {
        return Err(bad("is empty".into()));
    }
    let chars = id.chars().count();
    if chars > MAX_ID_CHARS {
        return Err(bad(format!(
            "is {chars} characters long, more than {MAX_ID_CHARS}"
        )));
    }
    if let Some((i, c)) = id.chars().enumerate().find(|(_, c)| c.is_control()) {
        return Err(bad(format!(
            "holds a control character ({}) at character {}",
            c.escape_unicode(),
            i + 1
        )));
    }
    Ok(())
}

/// An id for display: JSON-escaped, at most 64 characters of it.
fn shown_id(id: &str) -> String {
    let short: String = id.chars().take(64).collect();
    let mut s = quote::json_string(&short);
    if short.len() < id.len() {
        s.push('…');
    }
    s
}

/// Now, in milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Milliseconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC). A time
/// outside the years -9999 to 9999 shows as the nearest end of that range.
pub fn format_utc_ms(ms: i64) -> String {
    let t = jiff::Timestamp::from_millisecond(ms).unwrap_or(if ms < 0 {
        jiff::Timestamp::MIN
    } else {
        jiff::Timestamp::MAX
    });
    t.strftime("%Y-%m-%dT%H:%M:%S.%3fZ").to_string()
}

/// A UTC date or time as a user types it (`2026-11-25`, `2026-11-25T14:00`,
/// `2026-11-25T14:00:00Z`; fractional seconds and an offset like `+02:00` too) in
/// milliseconds since the Unix epoch: the inverse of [`format_utc_ms`]. The error
/// says what is wrong (`parameter 'day' for `2026-02` is invalid, must be in range
/// `1..=28``).
pub fn parse_utc_ms(s: &str) -> Result<i64, String> {
    let s = s.trim();
    if let Ok(t) = s.parse::<jiff::Timestamp>() {
        return Ok(t.as_millisecond());
    }
    // no offset: a civil date and time, read as UTC
    let civil = s
        .parse::<jiff::civil::DateTime>()
        .map_err(|e| e.to_string())?;
    jiff::tz::TimeZone::UTC
        .to_timestamp(civil)
        .map(jiff::Timestamp::as_millisecond)
        .map_err(|e| e.to_string())
}

/// Parse an age like `7d`, `12h`, `30m`, `45s`, `2w` (a number and one unit).
pub fn parse_age(s: &str) -> Option<Duration> {
    text::parse_age(s)
}

/// The default database file: `$XDG_DATA_HOME/toolcap/results.db`, else
/// `~/.local/share/toolcap/results.db` (Linux and other Unix),
/// `~/Library/Application Support/toolcap/results.db` (macOS),
/// `%LOCALAPPDATA%\toolcap\results.db` (Windows). `None` when no home is known.
pub fn default_store_path() -> Option<PathBuf> {
    let env = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = if cfg!(windows) {
        env("LOCALAPPDATA").or_else(|| env("APPDATA"))
    } else if cfg!(target_os = "macos") {
        env("HOME").map(|h| h.join("Library").join("Application Support"))
    } else {
        env("XDG_DATA_HOME")
            .filter(|p| p.is_absolute())
            .or_else(|| env("HOME").map(|h| h.join(".local").join("share")))
    }?;
    Some(base.join("toolcap").join("results.db"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_capped_and_free_of_control_characters() {
        assert!(validate_id("tool_call_id", "call_abc123").is_ok());
        assert!(validate_id("tool_call_id", &"x".repeat(256)).is_ok());
        let long = validate_id("tool_call_id", &"x".repeat(257)).unwrap_err();
        assert!(
            long.to_string()
                .contains("is 257 characters long, more than 256")
        );
        let ctl = validate_id("tool_call_id", "call\n1").unwrap_err();
        assert_eq!(
            ctl.to_string(),
            "tool_call_id \"call\\n1\": holds a control character (\\u{a}) at character 5; \
             pass the id the harness gave (at most 256 characters, no control characters)"
        );
        assert!(validate_id("dialog id", "").is_err());
    }

    #[test]
    fn times_format_as_utc() {
        assert_eq!(format_utc_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_utc_ms(1_709_251_199_999), "2024-02-29T23:59:59.999Z");
        assert_eq!(format_utc_ms(951_782_400_000), "2000-02-29T00:00:00.000Z");
        // the last millisecond of a year, the one before the epoch, the first of
        // year 1
        assert_eq!(format_utc_ms(1_767_225_599_999), "2025-12-31T23:59:59.999Z");
        assert_eq!(format_utc_ms(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(
            format_utc_ms(-62_135_596_800_000),
            "0001-01-01T00:00:00.000Z"
        );
        // a damaged row's time: the end of the range, not a panic
        assert!(format_utc_ms(i64::MAX).starts_with("9999-12-"));
        assert!(format_utc_ms(i64::MIN).starts_with("-9999-"));
    }

    #[test]
    fn utc_times_read_back_as_typed() {
        for t in [
            "1970-01-01T00:00:00.000Z",
            "2024-02-29T23:59:59.999Z",
            "2025-12-31T23:59:59.999Z",
            "2026-01-01T00:00:00.000Z",
        ] {
            assert_eq!(parse_utc_ms(t).map(format_utc_ms).as_deref(), Ok(t));
        }
        assert_eq!(parse_utc_ms("2026-01-01"), Ok(1_767_225_600_000));
        assert_eq!(parse_utc_ms("2025-12-31T23:59"), Ok(1_767_225_540_000));
        assert_eq!(parse_utc_ms(" 2024-02-29T12 "), Ok(1_709_208_000_000));
        assert_eq!(
            parse_utc_ms("2026-11-28T04:47:00+02:00"),
            parse_utc_ms("2026-11-28T02:47:00Z")
        );
        // a day the month does not have: the error says which range it must be in
        let e = parse_utc_ms("2025-02-29").unwrap_err();
        assert!(e.contains("1..=28"), "{e}");
        assert!(parse_utc_ms("2026-13-01").is_err());
        assert!(parse_utc_ms("yesterday").is_err());
    }

    #[test]
    fn ages_parse_with_one_unit() {
        assert_eq!(parse_age("7d"), Some(Duration::from_secs(604_800)));
        assert_eq!(parse_age("12h"), Some(Duration::from_secs(43_200)));
        assert_eq!(parse_age("0s"), Some(Duration::ZERO));
        assert_eq!(parse_age("2w"), Some(Duration::from_secs(1_209_600)));
        assert_eq!(parse_age("7"), None);
        assert_eq!(parse_age("d"), None);
        assert_eq!(parse_age("7days"), None);
    }
}
