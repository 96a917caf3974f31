//! Inputs found by fuzzing (`fuzz/`), replayed through the same checks as the fuzz
//! targets, so a fixed crash stays fixed without the fuzz toolchain. Each file in
//! `tests/fuzz_regressions/<target>/` is one input, decoded exactly as the target
//! `fuzz/fuzz_targets/<target>.rs` decodes it.

use std::path::{Path, PathBuf};

#[path = "../fuzz/checks.rs"]
mod checks;

fn inputs(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz_regressions")
        .join(target);
    let mut out: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .map(|p| {
                    let data = std::fs::read(&p).expect("readable input");
                    (p, data)
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// Replay every input kept for `target` through `check`, naming the input that
/// fails.
fn replay(target: &str, check: fn(&[u8])) {
    for (path, data) in inputs(target) {
        if std::panic::catch_unwind(|| check(&data)).is_err() {
            panic!(
                "{}: the {target} target's checks fail (see above)",
                path.display()
            );
        }
    }
}

#[test]
fn process_inputs() {
    replay("process", checks::process);
}

#[test]
fn outline_inputs() {
    replay("outline", checks::outline);
}

#[test]
fn config_inputs() {
    replay("config", checks::config);
}

#[test]
fn args_inputs() {
    replay("args", checks::args);
}

#[test]
fn recovery_inputs() {
    replay("recovery", checks::recovery);
}

#[test]
fn stream_inputs() {
    replay("stream", checks::stream);
}
