//! Which results to mask: the batches, computed from the history alone.
//!
//! A result becomes *prunable* at the first prefix of the history in which the
//! model has answered it (an assistant message follows it) and it has left the
//! kept window (the newest `keep` results or tokens). Both only move forward as
//! the history grows, so the prunable results of any prefix are a prefix of the
//! prunable results of the whole history. Walking them in order, a batch closes
//! each time the results added since the last batch reach `min_prunable_tokens`;
//! the results of closed batches are masked, those of the open batch are not.
//! A closed batch never changes when the history grows: the masked set, and so
//! the message prefix, changes only when a new batch closes.
//!
//! A result the model referred to in its latest turn *at the moment its batch
//! closed* is not masked with it: it is carried into the next batch and judged
//! again when that one closes. That moment is part of the history, so the
//! decision is the same on every later call.

use super::{Keep, estimate_tokens};

/// One result as the plan sees it.
#[derive(Debug, Clone)]
pub(super) struct Item {
    /// Index of the message holding it.
    pub msg: usize,
    /// Estimated tokens of its original text.
    pub tokens: usize,
    /// It may be masked at all (not an error, not a protected id, not too small).
    pub eligible: bool,
    /// It is masked already (the input holds its masked line).
    pub masked: bool,
}

/// The plan for a history.
#[derive(Debug, Clone, Default)]
pub(super) struct Plan {
    /// Per item: masked in the output.
    pub mask: Vec<bool>,
    /// Batches closed.
    pub batches: usize,
    /// Tokens prunable in the open batch (not yet masked).
    pub pending_tokens: usize,
}

/// The plan for `items` of a history of `len` messages. `assistant(i)` tells
/// whether message `i` is the model's; `refers(run_end, item)` whether the
/// model's turn ending at message `run_end` refers to an item.
pub(super) fn plan(
    items: &[Item],
    len: usize,
    assistant: &[bool],
    keep: Keep,
    min_prunable_tokens: usize,
    refers: &dyn Fn(usize, usize) -> bool,
) -> Plan {
    let n = items.len();
    let prunable_at = prunable_at(items, len, assistant, keep);
    let mut mask: Vec<bool> = items.iter().map(|it| it.masked).collect();
    let mut batches = 0;
    let mut members: Vec<usize> = Vec::new();
    let mut acc = 0usize;
    for r in 0..n {
        if !items[r].eligible {
            continue;
        }
        let Some(at) = prunable_at[r] else {
            // later items are prunable no earlier
            break;
        };
        members.push(r);
        acc += items[r].tokens;
        if acc < min_prunable_tokens {
            continue;
        }
        // the batch closes at the prefix of `at` messages; the model's latest
        // turn then is the run of its messages ending before `at`
        let turn_end = (0..at).rev().find(|&i| assistant[i]);
        let carried: Vec<usize> = members
            .drain(..)
            .filter(|&x| {
                let keep_whole = !items[x].masked && turn_end.is_some_and(|t| refers(t, x));
                if !keep_whole {
                    mask[x] = true;
                }
                keep_whole
            })
            .collect();
        members = carried;
        acc = 0;
        batches += 1;
    }
    let pending_tokens = members
        .iter()
        .filter(|&&x| !items[x].masked)
        .map(|&x| items[x].tokens)
        .sum();
    Plan {
        mask,
        batches,
        pending_tokens,
    }
}

/// Per item: the length of the shortest prefix of the history in which it is
/// prunable, or `None` when it is not prunable in the whole history.
fn prunable_at(items: &[Item], len: usize, assistant: &[bool], keep: Keep) -> Vec<Option<usize>> {
    let n = items.len();
    // the first assistant message after each message
    let mut next_assistant = vec![None; len + 1];
    for i in (0..len).rev() {
        next_assistant[i] = if assistant.get(i + 1).copied().unwrap_or(false) {
            Some(i + 1)
        } else {
            next_assistant[i + 1]
        };
    }
    // the prefix length at which each item leaves the kept window
    let leaves: Vec<Option<usize>> = match keep {
        Keep::Results(k) => (0..n)
            .map(|r| {
                if k == 0 {
                    Some(items[r].msg + 1)
                } else {
                    items.get(r + k).map(|it| it.msg + 1)
                }
            })
            .collect(),
        Keep::Tokens(limit) => {
            // item r leaves once it and the results after it hold more than
            // `limit` tokens: the first j >= r where the sum r..=j passes it
            let mut out = vec![None; n];
            let mut j = 0usize;
            let mut sum = 0usize; // tokens of r..j (j exclusive)
            for (r, slot) in out.iter_mut().enumerate() {
                while j < n && sum <= limit {
                    sum += items[j].tokens;
                    j += 1;
                }
                if sum > limit {
                    *slot = Some(items[j - 1].msg + 1);
                }
                sum -= items[r].tokens.min(sum);
            }
            out
        }
    };
    (0..n)
        .map(|r| {
            let answered = next_assistant.get(items[r].msg).copied().flatten()? + 1;
            Some(answered.max(leaves[r]?))
        })
        .collect()
}

/// Estimated tokens of all items (masked or not), for the report.
pub(super) fn total_tokens(items: &[Item]) -> usize {
    items.iter().map(|it| it.tokens).sum()
}

/// Tokens of a text of `chars` characters, as the plan counts them.
pub(super) fn tokens_of(chars: usize) -> usize {
    estimate_tokens(chars)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chat history: per turn an assistant message then its results; items
    /// of `tokens` each.
    fn history(tokens: &[usize]) -> (Vec<Item>, Vec<bool>) {
        let mut assistant = vec![false]; // the user's first message
        let mut items = Vec::new();
        for &t in tokens {
            assistant.push(true);
            items.push(Item {
                msg: assistant.len(),
                tokens: t,
                eligible: true,
                masked: false,
            });
            assistant.push(false);
        }
        (items, assistant)
    }

    fn masked(p: &Plan) -> Vec<usize> {
        (0..p.mask.len()).filter(|&i| p.mask[i]).collect()
    }

    #[test]
    fn batches_close_at_the_threshold_and_never_change() {
        let (items, assistant) = history(&[10; 12]);
        let never = |_: usize, _: usize| false;
        let mut seen = Vec::new();
        for len in 1..=assistant.len() {
            let these: Vec<Item> = items.iter().filter(|it| it.msg < len).cloned().collect();
            let p = plan(&these, len, &assistant[..len], Keep::Results(2), 30, &never);
            seen.push(masked(&p));
        }
        // each mask set holds the previous one, and grows by whole batches of 3
        for w in seen.windows(2) {
            assert!(w[1].starts_with(&w[0]));
            assert!(w[1].len() == w[0].len() || w[1].len() == w[0].len() + 3);
        }
        let last = seen.last().cloned().unwrap_or_default();
        // 12 items, 2 kept, 10 prunable: 3 closed batches of 3, one item pending
        assert_eq!(last, (0..9).collect::<Vec<_>>());
    }

    #[test]
    fn the_token_window_keeps_the_newest_tokens() {
        let (items, assistant) = history(&[50, 50, 50, 50]);
        let p = plan(
            &items,
            assistant.len(),
            &assistant,
            Keep::Tokens(100),
            0,
            &|_, _| false,
        );
        // the newest two (100 tokens) are kept; the third from the end passes it
        assert_eq!(masked(&p), vec![0, 1]);
        let p = plan(
            &items,
            assistant.len(),
            &assistant,
            Keep::Tokens(99),
            0,
            &|_, _| false,
        );
        assert_eq!(masked(&p), vec![0, 1, 2]);
    }

    #[test]
    fn an_unanswered_result_is_never_prunable() {
        let (items, assistant) = history(&[500, 500]);
        let p = plan(
            &items,
            assistant.len(),
            &assistant,
            Keep::Results(0),
            0,
            &|_, _| false,
        );
        // the last result has no assistant message after it
        assert_eq!(masked(&p), vec![0]);
    }

    #[test]
    fn a_referred_result_is_carried_to_the_next_batch() {
        let (items, assistant) = history(&[10; 8]);
        // the turn at message 5 (closing the first batch) refers to item 0
        let refers = |turn: usize, x: usize| turn == 5 && x == 0;
        let p = plan(
            &items,
            assistant.len(),
            &assistant,
            Keep::Results(1),
            20,
            &refers,
        );
        // batch 1 = {0, 1} closes when item 1 leaves the window (message 6):
        // its turn is message 5, which refers to 0: only 1 is masked then;
        // batch 2 = {0, 2, 3} masks 0 too
        assert_eq!(masked(&p), vec![0, 1, 2, 3, 4, 5]);
        let these: Vec<Item> = items.iter().filter(|it| it.msg < 7).cloned().collect();
        let p = plan(&these, 7, &assistant[..7], Keep::Results(1), 20, &refers);
        assert_eq!(masked(&p), vec![1]);
    }
}
