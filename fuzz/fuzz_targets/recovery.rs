//! The recovery tools' argument parsing and replies (`get_continuation`,
//! `fetch_tool_output`, `get_tool_result`): arbitrary JSON argument text against a
//! store holding a few results. Never panics; an error is a JSON `{"error": ...}`.
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::recovery(data));
