//! [`MemoryStore`]: a per-turn cache in memory.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use super::{Meta, Record, ResultStore, StoreError, validate_id};

/// Results kept in memory, dropped with the store (create one per turn, or per
/// dialog, in a harness that calls toolcap in-process).
#[derive(Debug, Default)]
pub struct MemoryStore {
    records: Mutex<HashMap<(String, String), Arc<Record>>>,
}

impl MemoryStore {
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }

    /// Number of results held.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<(String, String), Arc<Record>>> {
        // A panic elsewhere while holding the lock leaves the map itself intact.
        self.records.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn key(dialog_id: &str, tool_call_id: &str) -> (String, String) {
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
        self.lock()
            .insert(key(&meta.dialog_id, &meta.tool_call_id), Arc::new(record));
        Ok(())
    }

    fn meta(&self, dialog_id: &str, tool_call_id: &str) -> Result<Option<Meta>, StoreError> {
        Ok(self
            .lock()
            .get(&key(dialog_id, tool_call_id))
            .map(|r| r.meta.clone()))
    }

    fn get(&self, dialog_id: &str, tool_call_id: &str) -> Result<Option<Record>, StoreError> {
        Ok(self
            .lock()
            .get(&key(dialog_id, tool_call_id))
            .map(|r| Record::clone(r)))
    }

    fn list(&self, dialog_id: Option<&str>) -> Result<Vec<Meta>, StoreError> {
        let mut out: Vec<Meta> = self
            .lock()
            .values()
            .filter(|r| dialog_id.is_none_or(|d| r.meta.dialog_id == d))
            .map(|r| r.meta.clone())
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

    fn delete_dialog(&self, dialog_id: &str) -> Result<usize, StoreError> {
        let mut map = self.lock();
        let before = map.len();
        map.retain(|(d, _), _| d != dialog_id);
        Ok(before - map.len())
    }

    fn prune_before(&self, cutoff_ms: i64) -> Result<usize, StoreError> {
        let mut map = self.lock();
        let before = map.len();
        map.retain(|_, r| r.meta.created_at_ms >= cutoff_ms);
        Ok(before - map.len())
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
}
