//! Argument parsing: `--arg KEY=VALUE` pairs and `--args-json`, `--lang` names,
//! and tool-name globs.
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::args(data));
