//! [`MemoryStore`]: a per-turn cache in memory.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

use super::{ListPage, Meta, Record, ResultStore, StoreError, validate_id};

type Key = (String, String);

/// Results kept in memory, dropped with the store (create one per turn, or per
/// dialog, in a harness that calls toolcap in-process). With a limit
/// ([`MemoryStore::with_limit`]), the oldest results are dropped when the
/// outputs held would exceed it; asking for one then gets the usual "No cached
/// result" reply.
#[derive(Debug, Default)]
pub struct MemoryStore {
    inner: Mutex<Inner>,
    /// Most bytes of output held at once (`None`: no limit).
    limit: Option<usize>,
}

#[derive(Debug, Default)]
struct Inner {
    records: HashMap<Key, (Arc<Record>, u64)>,
    /// Keys by insertion, oldest first.
    order: BTreeMap<u64, Key>,
    next: u64,
    bytes: usize,
}

impl Inner {
    fn remove(&mut self, k: &Key) -> Option<Arc<Record>> {
        let (r, seq) = self.records.remove(k)?;
        self.order.remove(&seq);
        self.bytes -= r.output.len();
        Some(r)
    }

    fn retain(&mut self, keep: impl Fn(&Key, &Record) -> bool) -> usize {
        let gone: Vec<Key> = self
            .records
            .iter()
            .filter(|(k, (r, _))| !keep(k, r))
            .map(|(k, _)| k.clone())
            .collect();
        for k in &gone {
            self.remove(k);
        }
        gone.len()
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
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
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
            while inner.bytes > limit {
                let Some((&oldest, _)) = inner.order.first_key_value() else {
                    break;
                };
                if oldest == seq {
                    break;
                }
                let Some(k) = inner.order.get(&oldest).cloned() else {
                    break;
                };
                inner.remove(&k);
            }
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
        Ok(self.lock().retain(|(d, _), _| d != dialog_id))
    }

    fn prune_before(&self, cutoff_ms: i64) -> Result<usize, StoreError> {
        Ok(self.lock().retain(|_, r| r.meta.created_at_ms >= cutoff_ms))
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
                .unwrap()
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
}
