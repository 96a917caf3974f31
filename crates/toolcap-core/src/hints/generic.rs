//! generic: any other tool (MCP tools, custom tools).
//!
//! **What it does.** States the result's size and, when the result is JSON, its
//! skeleton: keys with value types, array lengths, and for arrays of objects the
//! keys they carry with how many objects carry each. Markdown results get their
//! headings. Suggests nothing it cannot know to exist; says which arguments the
//! call had, so the model can call again more narrowly.
//!
//! **Why.** The model cannot re-read a tool result it did not see; the skeleton
//! tells it what the result holds and how big each part is.
//!
//! **Example.** `"packages": array[42] of object (keys: name 42, version 42, ...)`

use serde_json::Value;

use super::{Context, Recovery, Structure, cap_lines};
use crate::outline::json_shape::type_of;
use crate::text::ellipsize;

/// Skeleton lines of a JSON document: top-level keys (and one level below for
/// objects), or the array summary.
pub fn json_skeleton(v: &Value) -> Vec<String> {
    let mut lines = Vec::new();
    match v {
        Value::Object(o) => {
            for (k, val) in o {
                lines.push(format!(
                    "- {}: {}",
                    ellipsize(&crate::quote::json_string(k), 60),
                    type_of(val)
                ));
                if let Value::Object(inner) = val {
                    for (k2, v2) in inner.iter().take(8) {
                        lines.push(format!(
                            "  - {}: {}",
                            ellipsize(&crate::quote::json_string(k2), 60),
                            type_of(v2)
                        ));
                    }
                    if inner.len() > 8 {
                        lines.push(format!(
                            "  - ... and {} more keys",
                            crate::text::thousands(inner.len() - 8)
                        ));
                    }
                }
            }
        }
        other => lines.push(format!("- {}", type_of(other))),
    }
    lines
}

pub fn build(ctx: &Context<'_>) -> Recovery {
    let mut r = Recovery::default();
    r.facts.push(format!(
        "Tool: {} | Result: {}",
        ellipsize(ctx.tool, 80),
        ctx.size_fact()
    ));
    let trimmed = ctx.idx.text.trim_start();
    if (trimmed.starts_with('{') || trimmed.starts_with('['))
        && let Ok(v) = serde_json::from_str::<Value>(ctx.idx.text)
    {
        r.structure = Some(Structure {
            title: "JSON structure".to_string(),
            lines: cap_lines(json_skeleton(&v), "lines", super::MAX_STRUCTURE_LINES),
        });
    } else {
        let hs = super::web_fetch::headings(ctx.idx);
        if !hs.is_empty() {
            let min_level = hs.iter().map(|h| h.level).min().unwrap_or(1);
            let lines = hs
                .iter()
                .map(|h| {
                    format!(
                        "{}- {} (line {})",
                        "  ".repeat((h.level - min_level).min(3)),
                        ellipsize(&h.label(), 90),
                        h.line + 1
                    )
                })
                .collect();
            r.structure = Some(Structure {
                title: format!("Headings ({})", crate::text::thousands(hs.len())),
                lines: cap_lines(lines, "headings", super::MAX_STRUCTURE_LINES),
            });
        } else {
            // A log's levels and errors, or a table's shape.
            use crate::outline::text;
            let format = text::detect(None, ctx.idx.text).or_else(|| {
                text::sniff_delimiter(ctx.idx.text).map(|d| {
                    if d == b'\t' {
                        text::Format::Tsv
                    } else {
                        text::Format::Csv
                    }
                })
            });
            if let Some(t) = format
                .and_then(|f| text::outline_capped(f, ctx.idx.text, super::MAX_STRUCTURE_LINES))
            {
                r.structure = Some(Structure {
                    title: t.title,
                    lines: t.lines,
                });
            }
        }
    }
    r.suggestions.extend(super::next_stored_lines(ctx));
    if let Some(obj) = ctx.args.as_object()
        && !obj.is_empty()
    {
        let args: Vec<String> = obj
            .iter()
            .take(8)
            .map(|(k, v)| format!("{k}={}", ellipsize(&v.to_string(), 60)))
            .collect();
        r.notes.push(format!(
            "To see other parts, call {} again with narrower arguments (this call: {}).",
            ellipsize(ctx.tool, 80),
            args.join(", ")
        ));
    } else {
        r.notes.push(format!(
            "To see other parts, call {} again with narrower arguments.",
            ellipsize(ctx.tool, 80)
        ));
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skeleton_counts_exactly() {
        let v: Value = serde_json::from_str(
            r#"{"packages":[{"name":"a","v":1},{"name":"b"}],"meta":{"n":2},"s":"héllo"}"#,
        )
        .unwrap();
        let s = json_skeleton(&v);
        assert_eq!(
            s[0],
            "- \"packages\": array[2] of object (keys: name 2, v 1)"
        );
        assert_eq!(s[1], "- \"meta\": object (1 key)");
        assert_eq!(s[2], "  - \"n\": number");
        assert_eq!(s[3], "- \"s\": string (5 chars)");
    }
}
