//! A result kept in a store and the recovery tools over it, for the tests of what
//! those tools answer (recovery_replies, recovery_losses).

use std::sync::Arc;

use serde_json::Value;
use toolcap::store::tools::{Dispatch, RecoveryTools};
use toolcap::store::{MemoryStore, SaveWhen};
use toolcap::{Config, Processed, ToolCall, ToolResultProcessor};

/// A file of the repository, read whole.
pub fn fixture(rel: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A result processed with a store (dialog `t1`), cut and kept.
pub struct Stored {
    /// The report of processing it.
    pub out: Processed,
    /// The store it is kept in.
    pub store: Arc<MemoryStore>,
    /// The recovery tools over that store and dialog.
    pub tools: RecoveryTools,
}

/// `text` processed as `tool`'s result under `id` with a store; fails unless it
/// was cut and stored.
pub fn stored(tool: &str, args: Value, text: &str, id: &str) -> Stored {
    let store = Arc::new(MemoryStore::new());
    let p = ToolResultProcessor::new(Config::defaults()).with_store(store.clone(), SaveWhen::Cut);
    let mut call = ToolCall::new(tool, &args);
    call.id = Some(id);
    call.dialog = Some("t1");
    let out = p.process_call(&call, text);
    assert!(
        out.truncated && out.stored.is_some(),
        "{tool} result not stored"
    );
    let tools = RecoveryTools::new(store.clone(), "t1");
    Stored { out, store, tools }
}

/// A recovery tool's reply text; fails on an error reply.
pub fn reply(tools: &RecoveryTools, name: &str, args: Value) -> String {
    match tools.dispatch(name, &args) {
        Dispatch::Handled(r) => {
            assert!(!r.is_error, "{name}: {}", r.text);
            r.text
        }
        Dispatch::NotMine => panic!("{name} is a recovery tool"),
    }
}
