//! The outline, for every language, on arbitrary bytes (decoded lossily), and
//! language detection on the same text.
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::outline(data));
