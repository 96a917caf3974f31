//! The processor, for every family, on arbitrary bytes (decoded lossily, as the
//! CLI does), with small budgets so short inputs reach the cut, JSON, cleaning
//! and binary paths. Checks the bounds that must hold for any input (determinism
//! and the full recount are checked by the property tests).
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::process(data));
