//! [`MemoryStore`]: a per-turn cache in memory.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

use super::record::{self, MemoryRecord};
use super::retention::{self, Expired, Expiry, ExpiryReason, Retention};
use super::{ListPage, Meta, Record, ResultStore, StoreError, now_ms, validate_id};

type Key = (String, String);

/// Results kept in memory, dropped with the store (create one per turn, or per
/// dialog, in a harness that calls toolcap in-process). With a limit
/// ([`MemoryStore::with_limit`]), the oldest results are dropped when the
/// outputs held would exceed it; asking for one then gets an "expired" reply
/// (see [`super::retention`]).
#[derive(Debug, Default)]
pub struct MemoryStore {
    inner: Mutex<Inner>,
    /// Most bytes of output held at once (`None`: no limit).
    limit: Option<usize>,
    /// Results seen and recovery calls answered (see `record`).
    record: MemoryRecord,
}

#[derive(Debug, Default)]
struct Inner {
    records: HashMap<Key, (Arc<Record>, u64)>,
    /// Keys by insertion, oldest first.
    order: BTreeMap<u64, Key>,
    next: u64,
    bytes: usize,
    /// Records of expired results, and their keys by (expiry time, sequence).
    tombstones: HashMap<Key, (Expired, (i64, u64))>,
    tomb_order: BTreeMap<(i64, u64), Key>,
}

impl Inner {
    fn remove(&mut self, k: &Key) -> Option<Arc<Record>> {
        let (r, seq) = self.records.remove(k)?;
        self.order.remove(&seq);
        self.bytes -= r.output.len();
        Some(r)
    }

    fn retain(&mut self, keep: impl Fn(&Key, &Record) -> bool) -> Vec<Arc<Record>> {
        let gone: Vec<Key> = self
            .records
            .iter()
            .filter(|(k, (r, _))| !keep(k, r))
            .map(|(k, _)| k.clone())
            .collect();
        gone.iter().filter_map(|k| self.remove(k)).collect()
    }

    /// Remove `k`'s result, keeping a record of why.
    fn expire(&mut self, k: &Key, reason: ExpiryReason, limit: i64, now: i64) -> Option<usize> {
        let r = self.remove(k)?;
        self.bury(&r.meta, reason, limit, now);
        Some(r.output.len())
    }

    fn bury(&mut self, m: &Meta, reason: ExpiryReason, limit: i64, now: i64) {
        let k = key(&m.dialog_id, &m.tool_call_id);
        self.unbury(&k);
        let seq = self.next;
        self.next += 1;
        let gone = Expired {
            dialog_id: m.dialog_id.clone(),
            tool_call_id: m.tool_call_id.clone(),
            tool_name: m.tool_name.clone(),
            size_bytes: m.size.bytes as u64,
            size_chars: m.size.chars as u64,
            created_at_ms: m.created_at_ms,
            expired_at_ms: now,
            reason,
            limit,
        };
        self.tomb_order.insert((now, seq), k.clone());
        self.tombstones.insert(k, (gone, (now, seq)));
        while self.tombstones.len() > retention::MAX_TOMBSTONES {
            let Some((_, oldest)) = self.tomb_order.pop_first() else {
                break;
            };
            self.tombstones.remove(&oldest);
        }
    }

    fn unbury(&mut self, k: &Key) {
        if let Some((_, at)) = self.tombstones.remove(k) {
            self.tomb_order.remove(&at);
        }
    }

    /// Drop the records of results that expired before `cutoff`.
    fn forget_before(&mut self, cutoff: i64) {
        while let Some((&(at, seq), _)) = self.tomb_order.first_key_value() {
            if at >= cutoff {
                break;
            }
            if let Some(k) = self.tomb_order.remove(&(at, seq)) {
                self.tombstones.remove(&k);
            }
        }
    }

    /// Expire the oldest results until the outputs fit in `max` bytes, never the
    /// newest one; returns how many went and their bytes.
    fn evict_to(&mut self, max: usize, now: i64) -> (usize, u64) {
        let (mut n, mut bytes) = (0, 0u64);
        let limit = i64::try_from(max).unwrap_or(i64::MAX);
        while self.bytes > max && self.records.len() > 1 {
            let Some((_, k)) = self.order.first_key_value() else {
                break;
            };
            let k = k.clone();
            match self.expire(&k, ExpiryReason::Size, limit, now) {
                Some(b) => {
                    n += 1;
                    bytes += b as u64;
                }
                None => break,
            }
        }
        (n, bytes)
    }
}

impl MemoryStore {
    /// An empty store without a size limit.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    /// A store that holds at most `max_bytes` of output: a new result drops the
    /// oldest ones until it fits (a result larger than the limit is still kept,
    /// alone, until the next one).
    pub fn with_limit(max_bytes: usize) -> MemoryStore {
        MemoryStore {
            inner: Mutex::default(),
            limit: Some(max_bytes),
            record: MemoryRecord::default(),
        }
    }

    /// Number of results held.
    pub fn len(&self) -> usize {
        self.lock().records.len()
    }

    /// Whether it holds no result.
    pub fn is_empty(&self) -> bool {
        self.lock().records.is_empty()
    }

    /// Bytes of output held.
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic elsewhere while holding the lock leaves the map itself intact.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn find(&self, dialog_id: &str, tool_call_id: &str) -> Option<Arc<Record>> {
        self.lock()
            .records
            .get(&key(dialog_id, tool_call_id))
            .map(|(r, _)| Arc::clone(r))
    }
}

fn key(dialog_id: &str, tool_call_id: &str) -> Key {
    (dialog_id.to_string(), tool_call_id.to_string())
}

impl ResultStore for MemoryStore {
    fn storage_type(&self) -> &'static str {
        "memory"
    }

    fn put_output(&self, meta: &Meta, output: &str) -> Result<(), StoreError> {
        validate_id("dialog id", &meta.dialog_id)?;
        validate_id("tool_call_id", &meta.tool_call_id)?;
        let record = Record {
            meta: meta.clone(),
            output: output.to_string(),
        };
        let k = key(&meta.dialog_id, &meta.tool_call_id);
        let mut inner = self.lock();
        inner.remove(&k);
        let seq = inner.next;
        inner.next += 1;
        inner.bytes += record.output.len();
        inner.order.insert(seq, k.clone());
        inner.records.insert(k, (Arc::new(record), seq));
        if let Some(limit) = self.limit {
            // drop the oldest until the outputs fit, never the one just kept
            inner.evict_to(limit, now_ms());
        }
        Ok(())
    }

    fn meta(&self, dialog_id: &str, tool_call_id: &str) -> Result<Option<Meta>, StoreError> {
        Ok(self.find(dialog_id, tool_call_id).map(|r| r.meta.clone()))
    }

    fn get(&self, dialog_id: &str, tool_call_id: &str) -> Result<Option<Record>, StoreError> {
        Ok(self
            .find(dialog_id, tool_call_id)
            .map(|r| Record::clone(&r)))
    }

    fn read_range(
        &self,
        dialog_id: &str,
        tool_call_id: &str,
        offset: usize,
        len: usize,
    ) -> Result<Option<(Meta, String)>, StoreError> {
        // share the record, not copy it: only the window is copied
        let found = self.find(dialog_id, tool_call_id);
        Ok(found.map(|r| {
            let (a, b) = super::char_span(&r.output, offset, len);
            (r.meta.clone(), r.output[a..b].to_string())
        }))
    }

    fn list(&self, dialog_id: Option<&str>) -> Result<Vec<Meta>, StoreError> {
        let mut out: Vec<Meta> = self
            .lock()
            .records
            .values()
            .filter(|(r, _)| dialog_id.is_none_or(|d| r.meta.dialog_id == d))
            .map(|(r, _)| r.meta.clone())
            .collect();
        out.sort_by(|a, b| {
            (a.created_at_ms, &a.dialog_id, &a.tool_call_id).cmp(&(
                b.created_at_ms,
                &b.dialog_id,
                &b.tool_call_id,
            ))
        });
        Ok(out)
    }

    fn list_page(&self, page: &ListPage<'_>) -> Result<Vec<Meta>, StoreError> {
        // ordered by reference: only the page's metadata is copied
        let inner = self.lock();
        let mut refs: Vec<&Meta> = inner
            .records
            .values()
            .map(|(r, _)| &r.meta)
            .filter(|m| page.dialog_id.is_none_or(|d| m.dialog_id == d))
            .filter(|m| page.after.is_none_or(|c| c.precedes(m)))
            .collect();
        refs.sort_by(|a, b| {
            (a.created_at_ms, &a.dialog_id, &a.tool_call_id).cmp(&(
                b.created_at_ms,
                &b.dialog_id,
                &b.tool_call_id,
            ))
        });
        Ok(refs
            .into_iter()
            .skip(page.offset)
            .take(page.limit)
            .cloned()
            .collect())
    }

    fn count(&self, dialog_id: Option<&str>) -> Result<usize, StoreError> {
        Ok(self
            .lock()
            .records
            .values()
            .filter(|(r, _)| dialog_id.is_none_or(|d| r.meta.dialog_id == d))
            .count())
    }

    fn delete_dialog(&self, dialog_id: &str) -> Result<usize, StoreError> {
        self.record.retain(|d, _| d != dialog_id);
        let mut inner = self.lock();
        let buried: Vec<Key> = inner
            .tombstones
            .keys()
            .filter(|(d, _)| d == dialog_id)
            .cloned()
            .collect();
        for k in &buried {
            inner.unbury(k);
        }
        Ok(inner.retain(|(d, _), _| d != dialog_id).len())
    }

    fn prune_before(&self, cutoff_ms: i64) -> Result<usize, StoreError> {
        self.record.retain(|_, at| at >= cutoff_ms);
        let now = now_ms();
        Ok(self
            .lock()
            .expire_before(cutoff_ms, retention::age_limit_ms(now, cutoff_ms), now)
            .0)
    }

    fn expire(&self, r: &Retention) -> Result<Expiry, StoreError> {
        let now = now_ms();
        let mut inner = self.lock();
        let mut done = Expiry::default();
        if let (Some(cutoff), Some(keep)) = (r.cutoff_ms(now), r.keep) {
            self.record.retain(|_, at| at >= cutoff);
            let (n, bytes) = inner.expire_before(cutoff, retention::duration_ms(keep), now);
            done.by_age = n;
            done.bytes += bytes;
        }
        if let Some(max) = r.max_bytes {
            let (n, bytes) = inner.evict_to(usize::try_from(max).unwrap_or(usize::MAX), now);
            done.by_size = n;
            done.bytes += bytes;
        }
        inner.forget_before(retention::tombstone_cutoff_ms(now));
        Ok(done)
    }

    fn expired(&self, dialog_id: &str, tool_call_id: &str) -> Result<Option<Expired>, StoreError> {
        Ok(self
            .lock()
            .tombstones
            .get(&key(dialog_id, tool_call_id))
            .map(|(e, _)| e.clone()))
    }

    fn record_seen(&self, seen: &record::Seen) -> Result<(), StoreError> {
        self.record.seen(seen);
        Ok(())
    }

    fn record_call(&self, call: &record::Call) -> Result<(), StoreError> {
        self.record.call(call);
        Ok(())
    }

    fn usage(&self, filter: &record::Filter) -> Result<Option<record::Usage>, StoreError> {
        Ok(Some(self.record.read(filter)))
    }
}

impl Inner {
    /// Expire the results created before `cutoff` (age limit `limit` ms).
    fn expire_before(&mut self, cutoff: i64, limit: i64, now: i64) -> (usize, u64) {
        let gone = self.retain(|_, r| r.meta.created_at_ms >= cutoff);
        let bytes = gone.iter().map(|r| r.output.len() as u64).sum();
        for r in &gone {
            self.bury(&r.meta, ExpiryReason::Age, limit, now);
        }
        (gone.len(), bytes)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn results_are_scoped_by_dialog_and_pruned_by_age() {
        let store = MemoryStore::new();
        let mut old = Record::new("d1", "call_1", "read_file", &json!({"path": "a"}), "one\n");
        old.meta.created_at_ms -= 8 * 86_400_000;
        store.put(&old).unwrap();
        store
            .put(&Record::new("d2", "call_1", "bash", &json!({}), "two\n"))
            .unwrap();
        assert_eq!(store.get("d1", "call_1").unwrap().unwrap().output, "one\n");
        assert_eq!(store.get("d2", "call_1").unwrap().unwrap().output, "two\n");
        assert_eq!(store.get("d3", "call_1").unwrap(), None);
        assert_eq!(store.list(Some("d2")).unwrap().len(), 1);
        assert_eq!(
            store
                .prune_older_than(std::time::Duration::from_secs(7 * 86_400))
                .unwrap(),
            1
        );
        assert_eq!(store.get("d1", "call_1").unwrap(), None);
        assert_eq!(store.delete_dialog("d2").unwrap(), 1);
        assert!(store.is_empty());
    }

    #[test]
    fn a_limited_store_drops_the_oldest_results_first() {
        let store = MemoryStore::with_limit(10);
        let put = |id: &str, out: &str| {
            store
                .put(&Record::new("d", id, "bash", &json!({}), out))
                .unwrap();
        };
        put("a", "1234");
        put("b", "5678");
        assert_eq!((store.len(), store.bytes()), (2, 8));
        // replacing a result does not count it twice
        put("a", "abcd");
        assert_eq!((store.len(), store.bytes()), (2, 8));
        // 8 + 4 > 10: the oldest (b, since a was stored again) goes
        put("c", "wxyz");
        assert_eq!(store.get("d", "b").unwrap(), None);
        assert_eq!(store.get("d", "a").unwrap().unwrap().output, "abcd");
        assert_eq!(store.bytes(), 8);
        // larger than the limit: kept alone
        put("big", "0123456789abcdef");
        assert_eq!(store.len(), 1);
        assert_eq!(store.bytes(), 16);
        assert_eq!(store.delete_dialog("d").unwrap(), 1);
        assert_eq!((store.len(), store.bytes()), (0, 0));
    }

    #[test]
    fn dropped_results_leave_a_bounded_record() {
        let store = MemoryStore::with_limit(10);
        for id in ["a", "b", "c"] {
            store
                .put(&Record::new("d", id, "bash", &json!({}), "123456"))
                .unwrap();
        }
        let gone = store.expired("d", "a").unwrap().unwrap();
        assert_eq!(
            (gone.reason, gone.limit, gone.size_bytes),
            (ExpiryReason::Size, 10, 6)
        );
        assert!(store.expired("d", "c").unwrap().is_none());

        // at most MAX_TOMBSTONES records, the newest
        let many = MemoryStore::new();
        let n = retention::MAX_TOMBSTONES + 5;
        for i in 0..n {
            let mut r = Record::new("d", &format!("call_{i}"), "bash", &json!({}), "x");
            r.meta.created_at_ms -= 2 * 86_400_000;
            many.put(&r).unwrap();
        }
        let done = many
            .expire(&Retention {
                keep: Some(std::time::Duration::from_secs(86_400)),
                max_bytes: None,
            })
            .unwrap();
        assert_eq!((done.by_age, done.bytes), (n, n as u64));
        assert_eq!(many.lock().tombstones.len(), retention::MAX_TOMBSTONES);
        assert_eq!(many.lock().tomb_order.len(), retention::MAX_TOMBSTONES);

        // deleting the dialog deletes its records
        many.delete_dialog("d").unwrap();
        assert!(many.lock().tombstones.is_empty() && many.lock().tomb_order.is_empty());

        // a record older than TOMBSTONE_KEEP goes at the next expiry
        let month_ago = now_ms() - 31 * 86_400_000;
        let meta = Record::new("d", "call_x", "bash", &json!({}), "x").meta;
        many.lock().bury(&meta, ExpiryReason::Age, 1, month_ago);
        assert!(many.expired("d", "call_x").unwrap().is_some());
        many.expire(&Retention::default()).unwrap();
        assert!(many.expired("d", "call_x").unwrap().is_none());
    }
}
