//! Differential: processing a result from a stream with bounded memory gives the
//! same report as processing it in memory. The fuzz input is repeated (with a
//! numbered line between copies, so cleaning does not collapse it) into a result
//! large enough to take the streaming path, and read back in chunks of a size the
//! input picks.
#![no_main]

#[path = "../checks.rs"]
mod checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| checks::stream(data));
