//! [`LazyStore`]: a store opened on first use, that stays out of the way when it
//! cannot be used.
//!
//! `toolcap run` wraps every shell command of an agent; most outputs are short
//! and never stored. A lazy store costs nothing for them: the database is opened
//! (its file created, its retention applied) only when a result is to be kept.
//! Once opening it or writing to it failed, every later call fails at once with
//! the same reason, so a locked or full store costs one wait at most, never one
//! per call.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use super::record::{self, Seen};
use super::{
    Expired, Expiry, ListPage, Meta, OutputWriter, Record, ResultStore, Retention, StoreError,
    StoreErrorKind,
};

/// How a [`LazyStore`] opens its store.
type Opener = Box<dyn FnOnce() -> Result<Arc<dyn ResultStore>, StoreError> + Send>;

/// A store opened on the first call that needs it; see the module docs.
///
/// Uncut results are not added to the store's record ([`ResultStore::record_seen`])
/// while the store is not open: recording them would open it for every short
/// output. Given an aside file ([`with_aside`](Self::with_aside)) they are
/// appended there instead ([`record::aside`]).
pub struct LazyStore {
    storage_type: &'static str,
    shown: PathBuf,
    /// Where uncut results are recorded while the store is closed.
    aside: Option<PathBuf>,
    opener: Mutex<Option<Opener>>,
    opened: OnceLock<Arc<dyn ResultStore>>,
    /// Opening or writing failed: the first line of why.
    failed: Mutex<Option<String>>,
}

impl std::fmt::Debug for LazyStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyStore")
            .field("at", &self.shown)
            .field("open", &self.opened.get().is_some())
            .field("failed", &self.failure())
            .finish()
    }
}

impl LazyStore {
    /// A store of `storage_type` (`"sqlite"`, `"postgres"`) at `shown` (its path
    /// or URL without a password, for messages), opened by `open` when first
    /// needed.
    pub fn new(
        storage_type: &'static str,
        shown: impl Into<PathBuf>,
        open: impl FnOnce() -> Result<Arc<dyn ResultStore>, StoreError> + Send + 'static,
    ) -> LazyStore {
        LazyStore {
            storage_type,
            shown: shown.into(),
            aside: None,
            opener: Mutex::new(Some(Box::new(open))),
            opened: OnceLock::new(),
            failed: Mutex::new(None),
        }
    }

    /// Records the uncut results seen while the store is closed in the aside
    /// file at `path` (see [`record::aside`]; a file store's is
    /// [`record::aside::path_for`] its path), so the record counts every result,
    /// not only those that opened the store. A failure to append is not the
    /// store's: the row is lost, nothing else.
    #[must_use]
    pub fn with_aside(mut self, path: impl Into<PathBuf>) -> LazyStore {
        self.aside = Some(path.into());
        self
    }

    /// A store that is known not to work: every call fails with `why` (its first
    /// line).
    pub fn failed(storage_type: &'static str, shown: impl Into<PathBuf>, why: &str) -> LazyStore {
        LazyStore {
            storage_type,
            shown: shown.into(),
            aside: None,
            opener: Mutex::new(None),
            opened: OnceLock::new(),
            failed: Mutex::new(Some(why.lines().next().unwrap_or_default().to_string())),
        }
    }

    /// Mark the store unusable for `why` (its first line), unless it already
    /// failed: every later call fails at once. For a caller that finds out
    /// before the store is used that nothing can be kept (an id that cannot be
    /// stored).
    pub fn fail_with(&self, why: &str) {
        let mut failed = lock(&self.failed);
        if failed.is_none() {
            *failed = Some(why.lines().next().unwrap_or_default().to_string());
        }
    }

    /// Whether the store was opened, or opening it was tried.
    pub fn touched(&self) -> bool {
        self.opened.get().is_some() || self.failure().is_some()
    }

    /// Why the store cannot be used, once opening or writing it failed: the first
    /// line of the error.
    pub fn failure(&self) -> Option<String> {
        lock(&self.failed).clone()
    }

    /// The open store, opening it now if needed.
    fn open_now(&self) -> Result<&dyn ResultStore, StoreError> {
        if let Some(why) = self.failure() {
            return Err(self.gone(&why));
        }
        let mut opener = lock(&self.opener);
        if let Some(s) = self.opened.get() {
            return Ok(&**s);
        }
        let res = match opener.take() {
            Some(f) => f(),
            None => Err(self.gone("the store could not be opened")),
        };
        drop(opener);
        match res {
            Ok(s) => Ok(&**self.opened.get_or_init(|| s)),
            Err(e) => {
                self.fail(&e);
                Err(e)
            }
        }
    }

    fn fail(&self, e: &StoreError) {
        let mut failed = lock(&self.failed);
        if failed.is_none() {
            *failed = Some(first_line(e));
        }
    }

    /// Note that a call on the open store failed: later calls fail at once.
    fn note<T>(&self, res: Result<T, StoreError>) -> Result<T, StoreError> {
        if let Err(e) = &res {
            self.fail(e);
        }
        res
    }

    /// The error of a call made after the store failed.
    fn gone(&self, why: &str) -> StoreError {
        StoreError::io(
            &self.shown,
            "use",
            format!("not used after an earlier failure ({why})"),
            StoreErrorKind::Unusable,
        )
    }

    fn with<T>(
        &self,
        f: impl FnOnce(&dyn ResultStore) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let s = self.open_now()?;
        self.note(f(s))
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // nothing a panic could leave half-done
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The first line of an error's message (the `fix:` lines left out).
fn first_line(e: &StoreError) -> String {
    let s = e.to_string();
    s.lines().next().unwrap_or_default().to_string()
}

/// A writer whose failure marks its lazy store failed.
struct Noted<'a> {
    lazy: &'a LazyStore,
    inner: Box<dyn OutputWriter + 'a>,
}

impl OutputWriter for Noted<'_> {
    fn write(&mut self, text: &str) -> Result<(), StoreError> {
        let res = self.inner.write(text);
        self.lazy.note(res)
    }

    fn commit(self: Box<Self>, meta: &Meta) -> Result<(), StoreError> {
        let Noted { lazy, inner } = *self;
        let res = inner.commit(meta);
        lazy.note(res)
    }
}

impl ResultStore for LazyStore {
    fn storage_type(&self) -> &'static str {
        self.storage_type
    }

    fn put_output(&self, meta: &Meta, output: &str) -> Result<(), StoreError> {
        self.with(|s| s.put_output(meta, output))
    }

    fn put(&self, record: &Record) -> Result<(), StoreError> {
        self.with(|s| s.put(record))
    }

    fn begin_output(&self) -> Result<Box<dyn OutputWriter + '_>, StoreError> {
        let store = self.open_now()?;
        let writer = self.note(store.begin_output())?;
        Ok(Box::new(Noted {
            lazy: self,
            inner: writer,
        }))
    }

    fn meta(&self, dialog_id: &str, tool_call_id: &str) -> Result<Option<Meta>, StoreError> {
        self.with(|s| s.meta(dialog_id, tool_call_id))
    }

    fn get(&self, dialog_id: &str, tool_call_id: &str) -> Result<Option<Record>, StoreError> {
        self.with(|s| s.get(dialog_id, tool_call_id))
    }

    fn read_range(
        &self,
        dialog_id: &str,
        tool_call_id: &str,
        offset: usize,
        len: usize,
    ) -> Result<Option<(Meta, String)>, StoreError> {
        self.with(|s| s.read_range(dialog_id, tool_call_id, offset, len))
    }

    fn stream_output(
        &self,
        dialog_id: &str,
        tool_call_id: &str,
        sink: &mut dyn FnMut(&str) -> ControlFlow<()>,
    ) -> Result<Option<Meta>, StoreError> {
        self.with(|s| s.stream_output(dialog_id, tool_call_id, sink))
    }

    fn list(&self, dialog_id: Option<&str>) -> Result<Vec<Meta>, StoreError> {
        self.with(|s| s.list(dialog_id))
    }

    fn list_page(&self, page: &ListPage<'_>) -> Result<Vec<Meta>, StoreError> {
        self.with(|s| s.list_page(page))
    }

    fn count(&self, dialog_id: Option<&str>) -> Result<usize, StoreError> {
        self.with(|s| s.count(dialog_id))
    }

    fn delete_dialog(&self, dialog_id: &str) -> Result<usize, StoreError> {
        self.with(|s| s.delete_dialog(dialog_id))
    }

    fn prune_before(&self, cutoff_ms: i64) -> Result<usize, StoreError> {
        self.with(|s| s.prune_before(cutoff_ms))
    }

    fn record_seen(&self, seen: &Seen) -> Result<(), StoreError> {
        if !seen.truncated && self.opened.get().is_none() {
            if let Some(path) = &self.aside
                && let Err(e) = record::aside::append(path, seen)
            {
                tracing::debug!("{}: the result was not recorded: {e}", path.display());
            }
            return Ok(());
        }
        self.with(|s| s.record_seen(seen))
    }

    fn record_call(&self, call: &record::Call) -> Result<(), StoreError> {
        self.with(|s| s.record_call(call))
    }

    fn usage(&self, filter: &record::Filter) -> Result<Option<record::Usage>, StoreError> {
        self.with(|s| s.usage(filter))
    }

    fn expire(&self, retention: &Retention) -> Result<Expiry, StoreError> {
        self.with(|s| s.expire(retention))
    }

    fn expired(&self, dialog_id: &str, tool_call_id: &str) -> Result<Option<Expired>, StoreError> {
        self.with(|s| s.expired(dialog_id, tool_call_id))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use serde_json::json;

    use super::*;
    use crate::{MemoryStore, record::Seen};

    fn seen(truncated: bool) -> Seen {
        Seen {
            at_ms: 0,
            dialog_id: "default".into(),
            tool_call_id: Some("c1".into()),
            tool: "shell".into(),
            family: "shell".into(),
            reason: "under_threshold".into(),
            truncated,
            threshold: 3500,
            unit: "chars".into(),
            size_chars: 3,
            shown_chars: 3,
            kept_chars: 3,
        }
    }

    #[test]
    fn opened_only_when_a_result_is_kept() {
        let opened = Arc::new(AtomicUsize::new(0));
        let n = opened.clone();
        let lazy = LazyStore::new("memory", "mem", move || {
            n.fetch_add(1, Ordering::SeqCst);
            Ok(Arc::new(MemoryStore::new()) as Arc<dyn ResultStore>)
        });
        // an uncut result is not recorded: nothing opened
        lazy.record_seen(&seen(false)).unwrap();
        assert!(!lazy.touched());
        let meta = Meta::new("default", "c1", "shell", &json!({}), "out\n");
        lazy.put_output(&meta, "out\n").unwrap();
        lazy.record_seen(&seen(true)).unwrap();
        assert_eq!(lazy.get("default", "c1").unwrap().unwrap().output, "out\n");
        assert_eq!(opened.load(Ordering::SeqCst), 1, "opened once");
    }

    #[test]
    fn a_failure_is_remembered_and_later_calls_fail_at_once() {
        let tries = Arc::new(AtomicUsize::new(0));
        let n = tries.clone();
        let lazy = LazyStore::new("sqlite", "/nowhere/results.db", move || {
            n.fetch_add(1, Ordering::SeqCst);
            Err(StoreError::io(
                "/nowhere/results.db",
                "open",
                "database is locked".into(),
                StoreErrorKind::Io,
            ))
        });
        assert!(lazy.begin_output().is_err());
        let later = lazy.meta("default", "c1").unwrap_err().to_string();
        assert!(later.contains("database is locked"), "{later}");
        assert_eq!(tries.load(Ordering::SeqCst), 1, "not opened again");
        assert_eq!(
            lazy.failure().as_deref(),
            Some("/nowhere/results.db: result store open failed: database is locked")
        );
        let known = LazyStore::failed("memory", "memory", "no way back\nfix: other");
        assert_eq!(known.failure().as_deref(), Some("no way back"));
        assert!(
            known
                .put_output(&Meta::new("d", "i", "t", &json!({}), "x"), "x")
                .is_err()
        );
    }
}
