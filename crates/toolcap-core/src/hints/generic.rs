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

use super::{Context, Entry, Fact, Listing, Note, RecoveryModel, Structure, Title};
use crate::outline::json_shape::type_of;

/// Skeleton lines of a JSON document: top-level keys (and one level below for
/// objects), or the array summary.
pub fn json_skeleton(v: &Value) -> Vec<Entry> {
    let mut lines = Vec::new();
    match v {
        Value::Object(o) => {
            for (k, val) in o {
                lines.push(Entry::JsonKey {
                    nested: false,
                    key: k.clone(),
                    shape: type_of(val),
                });
                if let Value::Object(inner) = val {
                    for (k2, v2) in inner.iter().take(8) {
                        lines.push(Entry::JsonKey {
                            nested: true,
                            key: k2.clone(),
                            shape: type_of(v2),
                        });
                    }
                    if inner.len() > 8 {
                        lines.push(Entry::MoreKeys(inner.len() - 8));
                    }
                }
            }
        }
        other => lines.push(Entry::JsonValue(type_of(other))),
    }
    lines
}

/// The recovery section of any other tool's cut result: its size, what it
/// holds, and a note to call the tool again more narrowly.
pub fn model(ctx: &Context<'_>) -> RecoveryModel {
    let mut r = RecoveryModel {
        structure: listing(ctx),
        ..RecoveryModel::default()
    };
    r.facts.push(Fact::ToolResult {
        tool: ctx.tool.to_string(),
        size: ctx.size(),
    });
    r.suggestions.extend(super::next_stored_lines(ctx));
    let args = ctx
        .args
        .as_object()
        .map(|obj| {
            obj.iter()
                .take(8)
                .map(|(k, v)| (k.clone(), v.to_string()))
                .collect()
        })
        .unwrap_or_default();
    r.notes.push(Note::CallAgain {
        tool: ctx.tool.to_string(),
        args,
    });
    r
}

/// What the result holds: a JSON document's skeleton, markdown headings, a
/// log's levels or a table's shape.
fn listing(ctx: &Context<'_>) -> Option<Listing> {
    let max = super::MAX_STRUCTURE_LINES;
    let trimmed = ctx.idx.text.trim_start();
    if (trimmed.starts_with('{') || trimmed.starts_with('['))
        && let Ok(v) = serde_json::from_str::<Value>(ctx.idx.text)
    {
        return Some(Listing::capped(
            Title::JsonStructure,
            json_skeleton(&v),
            "lines",
            max,
        ));
    }
    let hs = super::web_fetch::headings(ctx.idx);
    if let Some(min_level) = hs.iter().map(|h| h.level).min() {
        let lines = hs
            .iter()
            .map(|h| Entry::Heading {
                depth: h.level - min_level,
                label: h.label(),
                line: h.line + 1,
                end: None,
                shown: false,
            })
            .collect();
        let title = Title::Headings { count: hs.len() };
        return Some(Listing::capped(title, lines, "headings", max));
    }
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
    let t = format.and_then(|f| text::outline_capped(f, ctx.idx.text, max))?;
    Some(
        Structure {
            title: t.title,
            lines: t.lines,
        }
        .into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_tools_json_result_states_its_skeleton_as_data() {
        // real `cargo metadata` output, from an MCP tool
        let text = crate::test_fixture("generic/cargo_metadata.json");
        let args = serde_json::json!({
            "manifest_path": "/home/dev/regdirs/Cargo.toml",
            "format_version": 1
        });
        let m = crate::hints::head_cut("cargo_metadata", text, 1, &args, None, None, model);
        assert_eq!(
            m.facts,
            [Fact::ToolResult {
                tool: "cargo_metadata".into(),
                size: crate::hints::Size {
                    lines: 1,
                    chars: text.chars().count(),
                },
            }]
        );
        let v: Value = serde_json::from_str(text).expect("JSON");
        let keys: Vec<&String> = v.as_object().expect("an object").keys().collect();
        let l = m.structure.clone().expect("a skeleton");
        assert_eq!(l.title, Title::JsonStructure);
        let top: Vec<&String> = l
            .lines
            .iter()
            .filter_map(|e| match e {
                Entry::JsonKey {
                    nested: false, key, ..
                } => Some(key),
                _ => None,
            })
            .collect();
        assert_eq!(top, keys);
        let Some(Value::Array(packages)) = v.get("packages") else {
            panic!("no packages");
        };
        assert!(matches!(
            &l.lines[0],
            Entry::JsonKey { key, shape, .. }
                if key == "packages" && shape.starts_with(&format!("array[{}]", packages.len()))
        ));
        assert_eq!(
            m.notes,
            [Note::CallAgain {
                tool: "cargo_metadata".into(),
                args: vec![
                    (
                        "manifest_path".into(),
                        "\"/home/dev/regdirs/Cargo.toml\"".into()
                    ),
                    ("format_version".into(), "1".into()),
                ],
            }]
        );
    }

    #[test]
    fn skeleton_counts_exactly() {
        let v: Value = serde_json::from_str(
            r#"{"packages":[{"name":"a","v":1},{"name":"b"}],"meta":{"n":2},"s":"héllo"}"#,
        )
        .unwrap();
        let s: Vec<String> = json_skeleton(&v).into_iter().map(String::from).collect();
        assert_eq!(
            s[0],
            "- \"packages\": array[2] of object (keys: name 2, v 1)"
        );
        assert_eq!(s[1], "- \"meta\": object (1 key)");
        assert_eq!(s[2], "  - \"n\": number");
        assert_eq!(s[3], "- \"s\": string (5 chars)");
    }
}
