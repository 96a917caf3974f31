//! The block rules compiled once: every start pattern matched at once (a
//! literal prefilter says which rules' starts a line may match), and the
//! patterns inside blocks.

use std::sync::{LazyLock, OnceLock};

use aho_corasick::AhoCorasick;
use regex::bytes;

use super::rules::{
    FAILED_COUNT, FRAME, KEY, LIBRARY, LISTED, LISTED_NAME, LOCAL, RULES, SEPARATOR, SUMMARY,
    VALUES, WARNING, WARNING_WORDS, WHERE,
};
use crate::index::LineIndex;

pub(super) struct Compiled {
    /// The rules' starts, the summary patterns and the warning pattern, in
    /// that order, each tried on the lines holding one of its literals (one
    /// search over the text finds the literals of all of them).
    pub(super) lines: Prefiltered,
    /// Each rule's other patterns, compiled when a block of it is found.
    pub(super) rules: Vec<OnceLock<RuleRx>>,
}

/// Bits of [`Compiled::lines`]' patterns: the rules' starts, the summaries,
/// the warning.
pub(super) const START_BITS: u64 = (1 << RULES.len()) - 1;
pub(super) const SUMMARY_BITS: u64 = ((1 << SUMMARY.len()) - 1) << RULES.len();
pub(super) const WARNING_BITS: u64 = 1 << (RULES.len() + SUMMARY.len());
const _: () = assert!(RULES.len() + SUMMARY.len() < 64);

/// Patterns each tried only on the lines holding one of its literals (one
/// search over a line finds them all), and compiled the first time one is
/// tried: most lines of a log are decided without a regex, and a result that
/// has no line of a kind never compiles its patterns.
pub(super) struct Prefiltered {
    /// The literals found anywhere in a line, and the pattern of each.
    pub(super) finder: Option<AhoCorasick>,
    pub(super) owner: Vec<usize>,
    /// The literals a line starts with (given with a leading `^`), and the
    /// pattern of each.
    pub(super) prefixes: Vec<(&'static str, usize)>,
    pub(super) patterns: Vec<&'static str>,
    pub(super) compiled: Vec<OnceLock<Regex>>,
}

impl Prefiltered {
    #[allow(
        clippy::expect_used,
        reason = "the block rules' constant literals, compiled by the tests"
    )]
    pub(super) fn new(
        rows: impl Iterator<Item = (&'static str, &'static [&'static str])> + Clone,
    ) -> Self {
        assert!(rows.clone().count() <= 64, "at most 64 patterns");
        let all = || {
            rows.clone()
                .enumerate()
                .flat_map(|(k, (_, n))| n.iter().map(move |l| (*l, k)))
        };
        let anywhere: Vec<(&str, usize)> = all().filter(|(l, _)| !l.starts_with('^')).collect();
        Prefiltered {
            // (a DFA: these few short literals make a small one, and it scans
            // a text faster than the default automaton)
            finder: (!anywhere.is_empty()).then(|| {
                AhoCorasick::builder()
                    .kind(Some(aho_corasick::AhoCorasickKind::DFA))
                    .match_kind(aho_corasick::MatchKind::LeftmostLongest)
                    .build(anywhere.iter().map(|(l, _)| l))
                    .expect("static literals")
            }),
            owner: anywhere.iter().map(|&(_, k)| k).collect(),
            prefixes: all()
                .filter_map(|(l, k)| l.strip_prefix('^').map(|p| (p, k)))
                .collect(),
            patterns: rows.clone().map(|(p, _)| p).collect(),
            compiled: rows.map(|_| OnceLock::new()).collect(),
        }
    }

    /// For each line of `idx`, the patterns whose literals it holds (one
    /// search over the whole text, not one per line).
    pub(super) fn masks(&self, idx: &LineIndex<'_>) -> Vec<u64> {
        let mut masks = vec![0u64; idx.len()];
        if let Some(f) = &self.finder {
            // every match, overlapping ones too (` warning: ` and `arn`): a
            // search from just after the last match's start, which skips ahead
            // fast (no literal is a prefix of another, so at most one starts at
            // a place: a test checks)
            let text = idx.text;
            let (mut line, mut pos) = (0, 0);
            while let Some(m) = f.find(aho_corasick::Input::new(text).span(pos..text.len())) {
                while line + 1 < idx.len() && idx.start(line + 1) <= m.start() {
                    line += 1;
                }
                if let Some(x) = masks.get_mut(line) {
                    *x |= 1 << self.owner[m.pattern().as_usize()];
                }
                pos = m.start() + 1;
            }
        }
        if !self.prefixes.is_empty() {
            for (i, x) in masks.iter_mut().enumerate() {
                let line = idx.line(i);
                for &(p, k) in &self.prefixes {
                    if line.starts_with(p) {
                        *x |= 1 << k;
                    }
                }
            }
        }
        masks
    }

    /// The first pattern of `mask` (the line's literals) that matches `line`.
    pub(super) fn first_of(&self, line: &str, mut mask: u64) -> Option<usize> {
        while mask != 0 {
            let k = mask.trailing_zeros() as usize;
            if self.compiled[k]
                .get_or_init(|| regex(self.patterns[k]))
                .is_match(line)
            {
                return Some(k);
            }
            mask &= mask - 1;
        }
        None
    }

    pub(super) fn matches(&self, line: &str, mask: u64) -> bool {
        self.first_of(line, mask).is_some()
    }
}

/// A rule's patterns besides its start.
pub(super) struct RuleRx {
    pub(super) stop: Option<Regex>,
    pub(super) more: Option<Regex>,
    pub(super) cont: Option<Regex>,
    pub(super) name_before: Option<Regex>,
}

/// The patterns for the lines inside failure blocks, compiled when one is found.
pub(super) struct Inner {
    pub(super) key: RegexSet,
    pub(super) values: Regex,
    pub(super) local: Regex,
    pub(super) place: RegexSet,
    pub(super) frame: Regex,
    pub(super) library: Regex,
}

impl Compiled {
    /// The first rule (in table order) whose start matches `line`.
    #[cfg(test)]
    pub(super) fn start_of(&self, line: &str) -> Option<usize> {
        let idx = LineIndex::new(line);
        let mask = self.lines.masks(&idx).first().copied().unwrap_or(0);
        self.lines.first_of(line, mask & START_BITS)
    }

    pub(super) fn rule(&self, r: usize) -> &RuleRx {
        self.rules[r].get_or_init(|| {
            let rule = &RULES[r];
            RuleRx {
                stop: opt(rule.stop),
                more: opt(rule.more),
                cont: opt(rule.cont),
                name_before: opt(rule.name_before),
            }
        })
    }
}

/// A pattern over a line's bytes, ASCII only: `\d`, `\s`, `\w` and `\b`
/// are ASCII, `.` any byte, non-ASCII literals (`●`, `⎯`) their UTF-8 bytes
/// (so a repeated one is grouped, `(⎯){3,}`, and none is in a class).
/// What the tools print is matched the same, and the automata are small: the
/// patterns compile in a fraction of the time their Unicode forms take (a 1 KB
/// result pays for compiling them too).
pub(super) struct Regex(bytes::Regex);

impl Regex {
    pub(super) fn is_match(&self, line: &str) -> bool {
        self.0.is_match(line.as_bytes())
    }
}

/// Patterns tried together: whether any matches.
pub(super) struct RegexSet(bytes::RegexSet);

impl RegexSet {
    pub(super) fn is_match(&self, line: &str) -> bool {
        self.0.is_match(line.as_bytes())
    }
}

#[allow(
    clippy::expect_used,
    reason = "the block rules' constant patterns, compiled by the tests"
)]
pub(super) fn regex(p: &str) -> Regex {
    Regex(
        bytes::RegexBuilder::new(p)
            .unicode(false)
            .build()
            .expect("static regex"),
    )
}

#[allow(
    clippy::expect_used,
    reason = "the block rules' constant patterns, compiled by the tests"
)]
pub(super) fn set<'a>(ps: impl IntoIterator<Item = &'a str>) -> RegexSet {
    RegexSet(
        bytes::RegexSetBuilder::new(ps)
            .unicode(false)
            .build()
            .expect("static regexes"),
    )
}

pub(super) fn opt(p: &str) -> Option<Regex> {
    (!p.is_empty()).then(|| regex(p))
}

pub(super) static COMPILED: LazyLock<Compiled> = LazyLock::new(|| Compiled {
    lines: Prefiltered::new(
        RULES
            .iter()
            .map(|r| (r.start, r.needles))
            .chain(SUMMARY.iter().copied())
            .chain([(WARNING, WARNING_WORDS)]),
    ),
    rules: RULES.iter().map(|_| OnceLock::new()).collect(),
});

pub(super) static SEPARATOR_RX: LazyLock<Regex> = LazyLock::new(|| regex(SEPARATOR));
pub(super) static FAILED_RX: LazyLock<Regex> = LazyLock::new(|| regex(FAILED_COUNT));
pub(super) static LISTED_RX: LazyLock<Regex> = LazyLock::new(|| regex(LISTED));
pub(super) static LISTED_NAME_RX: LazyLock<Regex> = LazyLock::new(|| regex(LISTED_NAME));

pub(super) static INNER: LazyLock<Inner> = LazyLock::new(|| Inner {
    key: set(KEY.iter().copied()),
    values: regex(VALUES),
    local: regex(LOCAL),
    place: set(WHERE.iter().copied()),
    frame: regex(FRAME),
    library: regex(LIBRARY),
});
