//! The history policy over a scripted 200-turn conversation built from real tool
//! outputs (`scripts/make-transcripts.py`: files, greps and commands of the Python
//! standard library), in the three message formats.
//!
//! The harness calls `prepare_messages` before every model call. A call *breaks
//! the cache* when the messages it sends do not start with the messages sent the
//! call before (a provider's prompt cache serves only an unchanged prefix). The
//! test counts the breaks and the tool tokens sent over the whole conversation,
//! for no masking, masking on every turn (`min_prunable_tokens = 0`) and the
//! batched policy, and checks that the batched policy breaks the prefix exactly
//! where a batch closes, sends fewer tool tokens than no masking, and that a
//! harness keeping the prepared messages (and appending to them) sends the same
//! bytes as one keeping the original history. The figures are those of
//! docs/history.md (the test fails when the page's table differs, printing it).

use std::path::Path;

use serde_json::Value;
use toolcap::history::{Format, Keep, Policy, Prepared, estimate_tokens, prepare_messages};

fn load(name: &str) -> Vec<Value> {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/history/{name}.json"));
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    doc["messages"].as_array().unwrap().clone()
}

/// Whether the model wrote message `m`.
fn is_model(m: &Value) -> bool {
    m["role"] == "assistant" || m["type"] == "function_call" || m["type"] == "reasoning"
}

/// The points where the harness calls the model: before each run of model
/// messages, and at the end.
fn request_points(messages: &[Value]) -> Vec<usize> {
    let mut out: Vec<usize> = (1..messages.len())
        .filter(|&i| is_model(&messages[i]) && !is_model(&messages[i - 1]))
        .collect();
    out.push(messages.len());
    out
}

/// The tool call ids answered by each message, in order (any format).
fn answered_ids(messages: &[Value]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        let id = |v: &Value| v.as_str().unwrap_or("").to_string();
        if m["role"] == "tool" {
            out.push((i, id(&m["tool_call_id"])));
        } else if m["type"] == "function_call_output" {
            out.push((i, id(&m["call_id"])));
        } else if let Some(blocks) = m["content"].as_array() {
            for b in blocks.iter().filter(|b| b["type"] == "tool_result") {
                out.push((i, id(&b["tool_use_id"])));
            }
        }
    }
    out
}

/// Characters of the tool results in message `m`.
fn tool_chars(m: &Value) -> usize {
    let text = |v: &Value| v.as_str().map_or(0, |s| s.chars().count());
    if m["role"] == "tool" {
        return text(&m["content"]);
    }
    if m["type"] == "function_call_output" {
        return text(&m["output"]);
    }
    m["content"].as_array().map_or(0, |blocks| {
        blocks
            .iter()
            .filter(|b| b["type"] == "tool_result")
            .map(|b| text(&b["content"]))
            .sum()
    })
}

#[derive(Debug, Default, PartialEq)]
struct Figures {
    /// Model calls.
    calls: usize,
    /// Calls whose messages do not extend the previous call's.
    breaks: usize,
    /// Estimated tool tokens sent, summed over the calls.
    tool_tokens: usize,
    /// Estimated tool tokens after the first changed message, summed over the
    /// calls (what a prompt cache cannot serve).
    uncached_tool_tokens: usize,
    /// Results masked at the end.
    masked: usize,
}

/// Run the conversation through `policy` (`None`: no masking).
fn simulate(messages: &[Value], policy: Option<&Policy>) -> Figures {
    let mut f = Figures::default();
    let mut prev: Vec<Value> = Vec::new();
    // estimated tool tokens of each message of `prev`
    let mut prev_tokens: Vec<usize> = Vec::new();
    let mut prev_batches = 0;
    for (n, &end) in request_points(messages).iter().enumerate() {
        let sent: Vec<Value> = match policy {
            // what is sent is the history itself: only the new messages are new
            None => messages[prev.len()..end].to_vec(),
            Some(p) => {
                let prepared: Prepared = prepare_messages(&messages[..end], p).unwrap();
                // a harness that keeps what it sent (and appends the new
                // messages) sends the same bytes
                if p.min_prunable_tokens > 0 && n % 4 == 0 {
                    let mut kept = prev.clone();
                    kept.extend_from_slice(&messages[kept.len()..end]);
                    let from_kept = prepare_messages(&kept, p).unwrap();
                    assert_eq!(
                        from_kept.messages, prepared.messages,
                        "call {n}: kept history differs"
                    );
                }
                if n % 50 == 0 {
                    let again = prepare_messages(&prepared.messages, p).unwrap();
                    assert_eq!(
                        again.messages, prepared.messages,
                        "call {n}: not idempotent"
                    );
                }
                // the prefix changes only when a batch closes
                let broke = prepared.messages[..prev.len()] != prev[..];
                assert!(
                    !broke || prepared.batches > prev_batches,
                    "call {n}: the prefix changed with no batch closing ({prev_batches} batches)"
                );
                prev_batches = prepared.batches;
                f.masked = prepared.masked.len();
                prepared.messages
            }
        };
        let (first_change, sent) = match policy {
            None => {
                let at = prev.len();
                let mut all = std::mem::take(&mut prev);
                all.extend(sent);
                (at, all)
            }
            Some(_) => (
                (0..prev.len())
                    .find(|&i| sent[i] != prev[i])
                    .unwrap_or(prev.len()),
                sent,
            ),
        };
        f.calls += 1;
        if first_change < prev.len() {
            f.breaks += 1;
        }
        prev_tokens.truncate(first_change);
        prev_tokens.extend(
            sent[first_change..]
                .iter()
                .map(|m| estimate_tokens(tool_chars(m))),
        );
        f.tool_tokens += prev_tokens.iter().sum::<usize>();
        f.uncached_tool_tokens += prev_tokens[first_change..].iter().sum::<usize>();
        prev = sent;
    }
    // every call still has its result, where it was
    assert_eq!(prev.len(), messages.len());
    assert_eq!(answered_ids(&prev), answered_ids(messages));
    f
}

fn policy(keep_tokens: usize, batch: usize) -> Policy {
    Policy {
        keep: Keep::Tokens(keep_tokens),
        min_prunable_tokens: batch,
        ..Policy::default()
    }
}

#[test]
fn batched_masking_breaks_the_prefix_only_at_batch_boundaries() {
    let mut table = String::from(
        "| format | policy | calls | prefix changes | tool tokens sent | of them uncached | results masked |\n\
         |---|---|---:|---:|---:|---:|---:|\n",
    );
    let setups: [(&str, Option<Policy>); 5] = [
        ("no masking", None),
        ("every turn, 50k kept", Some(policy(50_000, 0))),
        (
            "batched, 50k kept, 30k batches (default)",
            Some(Policy::default()),
        ),
        ("every turn, 20k kept", Some(policy(20_000, 0))),
        (
            "batched, 20k kept, 10k batches",
            Some(policy(20_000, 10_000)),
        ),
    ];
    for name in ["openai_chat", "openai_responses", "anthropic"] {
        let messages = load(name);
        assert_eq!(
            Format::detect(&messages).map(Format::name),
            Some(name),
            "{name}: detected format"
        );
        // the setups run side by side (each is a whole conversation)
        let figures: Vec<Figures> = std::thread::scope(|scope| {
            // collected first so that every thread starts before the first join
            #[allow(clippy::needless_collect)]
            let runs: Vec<_> = setups
                .iter()
                .map(|(_, p)| scope.spawn(|| simulate(&messages, p.as_ref())))
                .collect();
            runs.into_iter().map(|r| r.join().unwrap()).collect()
        });
        let [none, every50, batched50, every20, batched20] = &figures[..] else {
            unreachable!()
        };
        assert_eq!(
            none.calls, 201,
            "{name}: one call before each turn and one at the end"
        );
        assert_eq!(none.breaks, 0);
        for (every, batched) in [(every50, batched50), (every20, batched20)] {
            assert!(
                batched.breaks > 0,
                "{name}: the batched policy masked nothing"
            );
            assert!(
                batched.breaks * 5 < every.breaks,
                "{name}: {batched:?} vs {every:?}"
            );
            assert!(
                batched.tool_tokens < none.tool_tokens,
                "{name}: {batched:?} vs {none:?}"
            );
            assert!(
                batched.uncached_tool_tokens < every.uncached_tool_tokens,
                "{name}: {batched:?} vs {every:?}"
            );
        }
        for ((label, _), f) in setups.iter().zip(&figures) {
            table.push_str(&format!(
                "| {name} | {label} | {} | {} | {} | {} | {} |\n",
                f.calls,
                f.breaks,
                thousands(f.tool_tokens),
                thousands(f.uncached_tool_tokens),
                f.masked
            ));
        }
    }
    let page =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/history.md"))
            .unwrap();
    assert!(
        page.contains(&table),
        "docs/history.md does not hold the measured figures; the table is:\n{table}"
    );
}

fn thousands(n: usize) -> String {
    toolcap_text::text::thousands(n)
}
