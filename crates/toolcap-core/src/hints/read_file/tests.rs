//! read_file's hints as typed values, on a real file.

use super::*;
use crate::hints::Size;

/// Python's typing.py, as the fixture holds it.
fn typing() -> &'static str {
    static TYPING: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();
    TYPING.get_or_init(|| crate::test_fixture("read_file/typing.py"))
}

/// The hints of CPython's typing.py cut after its first `kept` lines.
fn cut_after(kept: usize, args: serde_json::Value) -> RecoveryModel {
    let outline = crate::outline::Language::from_name("python")
        .and_then(|l| crate::outline::outline(typing(), l).ok());
    crate::hints::head_cut(
        "read_file",
        typing(),
        kept,
        &args,
        outline.as_ref(),
        Some("python"),
        |ctx| view_model(ctx, None, None),
    )
}

#[test]
fn a_files_head_states_its_size_and_language_as_data() {
    let m = cut_after(52, serde_json::json!({"path": "typing.py"}));
    let size = Size {
        lines: typing().lines().count(),
        chars: typing().chars().count(),
    };
    assert_eq!(
        m.facts,
        [Fact::File {
            path: Some("typing.py".into()),
            printed: None,
            size,
            language: Some("python".into()),
        }]
    );
    assert!(m.notes.is_empty());
    // the whole file outlined, as one listing of its definitions
    assert_eq!(
        m.structure.as_ref().map(|s| &s.title),
        Some(&Title::Outline {
            off: 0,
            total: size.lines,
            partial: None,
            begun_above: None,
            starts_inside: None,
            ends_inside: None,
            syntax_errors: false,
        })
    );
    // the next lines start right after the cut, numbered as the file's
    let r = m.render();
    assert_eq!(
        r.facts,
        [format!(
            "File: typing.py | {} lines, {} chars | python",
            crate::text::thousands(size.lines),
            crate::text::thousands(size.chars)
        )]
    );
    assert!(
        r.suggestions[0].purpose.starts_with("next ")
            && r.suggestions[0].purpose.contains("(lines 53-"),
        "{:?}",
        r.suggestions[0]
    );
}

#[test]
fn a_read_without_its_path_says_so_and_suggests_nothing() {
    let m = cut_after(52, serde_json::json!({}));
    assert_eq!(m.notes, [Note::NoPath]);
    assert!(m.suggestions.is_empty());
    assert!(matches!(&m.facts[0], Fact::File { path: None, .. }));
}
