//! The short notes stages report in: what cleaning did, what JSON reshaping
//! dropped, why a result reads as binary data, and the placeholders written inside
//! a shortened JSON value. Stages hand the counts; the words are written here.

use crate::text::{plural, thousands};

/// `12 ANSI escape sequences removed; 3 lines with \r/backspace overwrites
/// resolved to their final state; 2 runs of identical lines collapsed (9 repeated
/// lines removed)`: the parts whose count is not 0.
pub fn cleaning(ansi: usize, overwritten: usize, runs: usize, repeated: usize) -> String {
    let mut parts = Vec::new();
    if ansi > 0 {
        parts.push(format!(
            "{} removed",
            plural(ansi, "ANSI escape sequence", "ANSI escape sequences")
        ));
    }
    if overwritten > 0 {
        parts.push(format!(
            "{} with \\r/backspace overwrites resolved to their final state",
            plural(overwritten, "line", "lines")
        ));
    }
    if runs > 0 {
        parts.push(format!(
            "{} collapsed ({} removed)",
            plural(runs, "run of identical lines", "runs of identical lines"),
            plural(repeated, "repeated line", "repeated lines")
        ));
    }
    parts.join("; ")
}

/// What JSON reshaping dropped, in [`json_reshaped`]'s order.
pub struct JsonDropped {
    /// Strings shortened.
    pub strings: usize,
    /// Characters dropped from the shortened strings.
    pub string_chars: usize,
    /// Arrays cut.
    pub arrays: usize,
    /// Items elided from the cut arrays.
    pub items: usize,
    /// Nested values collapsed past the depth limit.
    pub collapsed: usize,
    /// Object keys dropped.
    pub keys: usize,
}

/// `14 strings shortened (3,400 chars dropped), 5 arrays cut (240 items elided)`:
/// the parts whose count is not 0.
pub fn json_reshaped(d: &JsonDropped) -> String {
    let mut parts = Vec::new();
    if d.strings > 0 {
        parts.push(format!(
            "{} shortened ({} dropped)",
            plural(d.strings, "string", "strings"),
            plural(d.string_chars, "char", "chars")
        ));
    }
    if d.arrays > 0 {
        parts.push(format!(
            "{} cut ({} elided)",
            plural(d.arrays, "array", "arrays"),
            plural(d.items, "item", "items")
        ));
    }
    if d.collapsed > 0 {
        parts.push(format!(
            "{} collapsed past the depth limit",
            plural(d.collapsed, "nested value", "nested values")
        ));
    }
    if d.keys > 0 {
        parts.push(format!(
            "{} elided",
            plural(d.keys, "object key", "object keys")
        ));
    }
    parts.join(", ")
}

/// `1,204 NUL chars and 3,310 non-text chars in the first 8,192`.
pub fn binary_evidence(nul: usize, non_text: usize, sample: usize) -> String {
    format!(
        "{} and {} in the first {}",
        plural(nul, "NUL char", "NUL chars"),
        plural(non_text, "non-text char", "non-text chars"),
        thousands(sample)
    )
}

/// A shortened JSON string: its start, then `…[+N chars]`.
pub fn json_string_cut(kept: &str, dropped: usize) -> String {
    format!("{kept}…[+{} chars]", thousands(dropped))
}

/// An array past the depth limit: `[… 12 items]`.
pub fn json_array_summary(items: usize) -> String {
    format!("[… {}]", plural(items, "item", "items"))
}

/// An object past the depth limit: `{… 12 keys: a, b, c, +4}` (the first keys
/// given, then how many more).
pub fn json_object_summary(keys: usize, first: &[&str], more: usize) -> String {
    format!(
        "{{… {}: {}{}}}",
        plural(keys, "key", "keys"),
        first.join(", "),
        if more > 0 {
            format!(", +{}", thousands(more))
        } else {
            String::new()
        }
    )
}

/// The item that ends a cut array: `[… 230 more items of 250]`.
pub fn json_more_items(more: usize, of: usize) -> String {
    format!(
        "[… {} more {} of {}]",
        thousands(more),
        if more == 1 { "item" } else { "items" },
        thousands(of)
    )
}

/// Whether a JSON string is the item [`json_more_items`] writes.
pub fn is_json_more_items(s: &str) -> bool {
    s.starts_with("[… ") && s.contains(" more item")
}

/// The key that ends a cut object: `[… 40 more keys]`.
pub fn json_more_keys(more: usize) -> String {
    format!(
        "[… {} more {}]",
        thousands(more),
        if more == 1 { "key" } else { "keys" }
    )
}
