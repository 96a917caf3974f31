//! `cargo bench`: the processor on logs and source code of 1, 10 and 100 MB, the
//! outline next to a bare tree-sitter parse of the same bytes, continuation
//! paging of a 10 MB stored result, and config loading. Inputs are built from
//! the real fixtures in `fixtures/` (repeated to size).

// Panicking on a failed setup step is how a benchmark report it (Cargo.toml denies
// unwrap/expect in the library and the CLI only).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::LazyLock;

use divan::{Bencher, black_box};
use serde_json::json;
use toolcap::outline::{Language, Options};
use toolcap::store::continuation::{ChunkOptions, get_continuation};
use toolcap::store::{Meta, ResultStore};
use toolcap::{Config, MemoryStore, ToolResultProcessor};

fn main() {
    divan::main();
}

const MB: usize = 1 << 20;

fn fixture(rel: &str) -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(rel),
    )
    .expect("fixture")
}

/// `base` repeated (whole copies, then whole lines) to `mb` MiB.
fn sized(base: &str, mb: usize) -> String {
    let want = mb * MB;
    let mut s = String::with_capacity(want + base.len());
    while s.len() + base.len() <= want {
        s.push_str(base);
    }
    for line in base.split_inclusive('\n') {
        if s.len() + line.len() > want {
            break;
        }
        s.push_str(line);
    }
    s
}

static LOG: LazyLock<String> = LazyLock::new(|| {
    fixture("shell/cargo_test_failure.log") + &fixture("shell/python_unittest_failure.log")
});
static PY: LazyLock<String> = LazyLock::new(|| fixture("read_file/typing.py"));
static RS: LazyLock<String> = LazyLock::new(|| fixture("read_file/command.rs"));

#[divan::bench(args = [1, 10, 100], sample_count = 5, sample_size = 1)]
fn process_log(b: Bencher, mb: usize) {
    let text = sized(&LOG, mb);
    let p = ToolResultProcessor::new(Config::defaults());
    let args = json!({"command": "cargo test"});
    b.counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| black_box(p.process("bash", black_box(&text), &args)));
}

/// `mb` MiB of a dense service log, as `benches/dense_log.py` writes it: every
/// fourth line an ERROR or WARN line (a pseudo-random "took N ms" in each line).
fn dense_log(mb: usize) -> String {
    let want = mb * MB;
    let mut s = String::with_capacity(want + 128);
    let mut seed: u64 = 15;
    let mut i: u64 = 0;
    loop {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let level = match (i % 4, (i / 4) % 2) {
            (3, 0) => "ERROR",
            (3, _) => "WARN",
            _ if (seed >> 33) % 3 == 1 => "DEBUG",
            _ => "INFO",
        };
        let line = format!(
            "2026-11-21T10:{:02}:{:02}Z {level} worker-{} request id={i} path=/api/v1/items/{} took {}ms\n",
            (i / 60) % 60,
            i % 60,
            i % 16,
            i % 1000,
            1 + (seed >> 40) % 999,
        );
        if s.len() + line.len() > want {
            break;
        }
        s.push_str(&line);
        i += 1;
    }
    s
}

/// The shell family on a dense log (a quarter of the lines ERROR/WARN: every
/// eighth an error line), next to `process_log`.
#[divan::bench(args = [10, 100], sample_count = 5, sample_size = 1)]
fn process_dense_log(b: Bencher, mb: usize) {
    let text = dense_log(mb);
    let p = ToolResultProcessor::new(Config::defaults());
    let args = json!({"command": "run"});
    b.counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| black_box(p.process("bash", black_box(&text), &args)));
}

#[divan::bench(args = [1, 10, 100], sample_count = 5, sample_size = 1)]
fn process_source(b: Bencher, mb: usize) {
    let text = sized(&PY, mb);
    let p = ToolResultProcessor::new(Config::defaults());
    let args = json!({"path": "big.py"});
    b.counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| black_box(p.process("read_file", black_box(&text), &args)));
}

/// `read_file` on one line of `mb` MiB of two-byte chars, no newline
/// (`tests/odd_input.rs` checks its result): cut on a char boundary.
#[divan::bench(args = [50], sample_count = 3, sample_size = 1)]
fn process_one_line(b: Bencher, mb: usize) {
    let text = "é".repeat(mb * MB / 2);
    let p = ToolResultProcessor::new(Config::defaults());
    let args = json!({"path": "big.txt"});
    b.counter(divan::counter::BytesCount::new(text.len()))
        .bench(|| black_box(p.process("read_file", black_box(&text), &args)));
}

/// The outline with no time budget (the whole file), next to `parse_*`.
/// `comment` starts a line comment in the language.
fn outline_whole(b: Bencher, src: &str, lang: Language, comment: &str) {
    let opts = Options {
        budget: None,
        max_bytes: usize::MAX,
        always_bytes: usize::MAX,
    };
    // a unique comment line per call so the content-hash cache never answers
    let mut n = 0u64;
    b.counter(divan::counter::BytesCount::new(src.len()))
        .with_inputs(|| {
            n += 1;
            format!("{src}\n{comment} {n}\n")
        })
        .bench_local_refs(|s| black_box(toolcap::outline::outline_with(s, lang, &opts)));
}

/// A bare parse of the same bytes. The tree is dropped inside the timed
/// call, as the outline drops its own (divan would otherwise drop the
/// returned tree after timing, leaving freeing it out of the parse only).
fn parse_only(b: Bencher, src: &str, lang: Language) {
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&lang.grammar()).expect("grammar");
    b.counter(divan::counter::BytesCount::new(src.len()))
        .bench_local(|| divan::black_box_drop(parser.parse(black_box(src), None)));
}

#[divan::bench(sample_count = 10)]
fn outline_python_1mb(b: Bencher) {
    let src = sized(&PY, 1);
    outline_whole(b, &src, Language::from_name("python").expect("python"), "#");
}

#[divan::bench(sample_count = 10)]
fn parse_python_1mb(b: Bencher) {
    let src = sized(&PY, 1);
    parse_only(b, &src, Language::from_name("python").expect("python"));
}

#[divan::bench(sample_count = 10)]
fn outline_rust_1mb(b: Bencher) {
    let src = sized(&RS, 1);
    outline_whole(b, &src, Language::from_name("rust").expect("rust"), "//");
}

#[divan::bench(sample_count = 10)]
fn parse_rust_1mb(b: Bencher) {
    let src = sized(&RS, 1);
    parse_only(b, &src, Language::from_name("rust").expect("rust"));
}

/// Page through a stored 10 MB result with get_continuation to the end.
#[divan::bench(sample_count = 5)]
fn continuation_10mb(b: Bencher) {
    let text = sized(&LOG, 10);
    let store = MemoryStore::new();
    let args = json!({});
    let meta = Meta::new("d", "call_1", "bash", &args, &text);
    store.put_output(&meta, &text).expect("stored");
    let opts = ChunkOptions {
        chunk_chars: 100_000,
        line_aligned: false,
    };
    b.bench_local(|| {
        let mut offset = 0;
        let mut n = 0;
        loop {
            let r = get_continuation(&store, "d", "call_1", Some(offset), &opts).expect("reply");
            n += 1;
            match r.next_offset {
                Some(o) => offset = o,
                None => break,
            }
        }
        black_box(n)
    });
}

#[divan::bench]
fn config_defaults() -> Config {
    Config::defaults()
}

#[divan::bench]
fn config_user_file(b: Bencher) {
    let user = "[tools.shell]\nthreshold = 8000\n[tools.mcp]\nfamily = \"generic\"\nnames = [\"mcp__*\"]\n";
    b.bench(|| Config::from_sources(Some((black_box(user), Path::new("user.toml"))), None));
}
