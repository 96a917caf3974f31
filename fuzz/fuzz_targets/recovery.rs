//! The recovery tools' argument parsing and replies (`get_continuation`,
//! `fetch_tool_output`, `get_tool_result`): arbitrary JSON argument text against a
//! store holding a few results. Never panics; an error is a JSON `{"error": ...}`.
#![no_main]

use std::sync::{Arc, LazyLock};

use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};
use toolcap::store::continuation::ChunkOptions;
use toolcap::store::tools::{Dispatch, RecoveryTools};
use toolcap::store::{MemoryStore, Record, ResultStore};

const NAMES: [&str; 4] = [
    "get_continuation",
    "fetch_tool_output",
    "get_tool_result",
    "bash",
];

static TOOLS: LazyLock<[RecoveryTools; 2]> = LazyLock::new(|| {
    let store = Arc::new(MemoryStore::new());
    let outputs = [
        ("call_1", (0..400).map(|i| format!("line {i}\n")).collect::<String>()),
        ("call_2", "é✓𝄞\r\n".repeat(700)),
        ("call_3", String::new()),
        ("c", "x".repeat(5)),
    ];
    for (id, out) in &outputs {
        store
            .put(&Record::new("d", id, "bash", &json!({"command": "x"}), out))
            .expect("memory store");
    }
    let store: Arc<dyn ResultStore> = store;
    [
        RecoveryTools::new(store.clone(), "d"),
        RecoveryTools::new(store, "d").chunk_options(ChunkOptions {
            chunk_chars: 97,
            line_aligned: true,
        }),
    ]
});

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let name = NAMES[sel as usize % NAMES.len()];
    let tools = &TOOLS[(sel as usize / NAMES.len()) % 2];
    let args = String::from_utf8_lossy(rest);
    match tools.dispatch_json(name, &args) {
        Dispatch::NotMine => assert_eq!(name, "bash"),
        Dispatch::Handled(r) => {
            if r.is_error {
                let v: Value = serde_json::from_str(&r.text).expect("an error is JSON");
                assert!(v["error"].is_string());
            }
            if let Some(n) = r.next_offset {
                assert!(r.text.contains(&format!("offset={n} to read more")));
            }
        }
    }
});
