//! `cargo bench --bench stream`: the streamed shell path (`toolcap process
//! --tool shell FILE`: the processor fed 1 MiB pieces, as the CLI feeds a
//! mapped file) on each 100 MB input of issue 47, each next to a bare line
//! count of the same bytes (what `wc -l` does): the pair's ratio is the
//! figure to watch (docs/performance.md). The inputs are made here, as
//! `benches/big_inputs.py` writes them: the failing cargo-test and unittest
//! fixture logs repeated, the performance check's mixed log (an ERROR every
//! 250,000 lines), a dense service log (every fourth line ERROR/WARN).
//! `bash benches/compare.sh BEFORE AFTER` runs this file on two commits.
//!
//! (Only the processor's public API of every commit since b0c83f6 is used, so
//! the file runs unchanged on older commits.)

// Panicking on a failed setup step is how a benchmark reports it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::LazyLock;

use divan::{Bencher, black_box};
use serde_json::json;
use toolcap::{Config, ToolCall, ToolResultProcessor};

fn main() {
    divan::main();
}

const SIZE: usize = 100_000_000;

/// A deterministic generator (the same numbers on every machine).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// Lines from `line(i)` until `SIZE` bytes.
fn lines(mut line: impl FnMut(usize) -> String) -> Vec<u8> {
    let mut s = Vec::with_capacity(SIZE + 256);
    let mut i = 0;
    while s.len() < SIZE {
        s.extend_from_slice(line(i).as_bytes());
        i += 1;
    }
    s
}

fn fixtures() -> Vec<u8> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/shell");
    let mut base = std::fs::read(dir.join("cargo_test_failure.log")).unwrap();
    base.extend(std::fs::read(dir.join("python_unittest_failure.log")).unwrap());
    let mut s = Vec::with_capacity(SIZE);
    while s.len() + base.len() <= SIZE {
        s.extend_from_slice(&base);
    }
    for line in base.split_inclusive(|&b| b == b'\n') {
        if s.len() + line.len() > SIZE {
            break;
        }
        s.extend_from_slice(line);
    }
    s
}

fn mixed() -> Vec<u8> {
    let mut r = Lcg(1);
    let levels = ["INFO", "DEBUG", "WARN", "INFO", "INFO"];
    lines(|i| {
        if i % 250_000 == 0 {
            format!("2026-11-21T10:00:00Z ERROR worker-3 failed batch {i}: connection reset\n")
        } else {
            let level = levels[r.next(5) as usize];
            format!(
                "2026-11-21T10:{:02}:{:02}Z {level} worker-{} processed batch {i} in {} ms\n",
                i % 60,
                i % 60,
                i % 16,
                1 + r.next(999)
            )
        }
    })
}

fn dense() -> Vec<u8> {
    let mut r = Lcg(15);
    let quiet = ["INFO", "DEBUG", "INFO"];
    lines(|i| {
        let level = match (i % 4, (i / 4) % 2) {
            (3, 0) => "ERROR",
            (3, _) => "WARN",
            _ => quiet[r.next(3) as usize],
        };
        format!(
            "2026-11-21T10:{:02}:{:02}Z {level} worker-{} request id={i} path=/api/v1/items/{} took {}ms\n",
            (i / 60) % 60,
            i % 60,
            i % 16,
            i % 1000,
            1 + r.next(999)
        )
    })
}

static FIXTURES: LazyLock<Vec<u8>> = LazyLock::new(fixtures);
static MIXED: LazyLock<Vec<u8>> = LazyLock::new(mixed);
static DENSE: LazyLock<Vec<u8>> = LazyLock::new(dense);

fn input(name: &str) -> &'static [u8] {
    match name {
        "fixtures" => &FIXTURES,
        "mixed" => &MIXED,
        _ => &DENSE,
    }
}

const INPUTS: [&str; 3] = ["fixtures", "mixed", "dense"];

/// `toolcap process --tool shell` on the input: the streamed path, 1 MiB at a time.
#[divan::bench(args = INPUTS, sample_count = 7, sample_size = 1)]
fn process_100mb(b: Bencher, name: &str) {
    let text = input(name);
    let p = ToolResultProcessor::new(Config::defaults());
    let args = json!({});
    let call = ToolCall::new("shell", &args);
    b.counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| {
            black_box(p.process_chunks(&call, |sink| {
                for piece in black_box(text).chunks(1 << 20) {
                    sink(piece);
                }
                Ok(())
            }))
        });
}

/// The bare line count of the same bytes (`wc -l`'s work).
#[divan::bench(args = INPUTS, sample_count = 7, sample_size = 1)]
fn line_count_100mb(b: Bencher, name: &str) {
    let text = input(name);
    b.counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| black_box(text).iter().filter(|&&c| c == b'\n').count());
}
