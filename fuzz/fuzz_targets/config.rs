//! Config parsing: arbitrary text as the user's thresholds file (and as the
//! bypass environment variable). A config that loads must process a result.
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::config(data));
