//! Unit tests of the outline: per-language details, the walk against the
//! whole-tree query, the query reader.

use super::cache::Cached;
use super::languages::compiled_query;
use super::parse::count_lines;
use super::query::read_root;
use super::walk::{collect, collect_whole_tree, nest};
use super::*;
use tree_sitter::Parser;

/// (kind, name, line, end_line, depth, parent) of a symbol.
#[cfg(any(feature = "lang-rust", feature = "lang-python"))]
type Row<'a> = (Kind, &'a str, usize, usize, usize, Option<&'a str>);

#[cfg(any(feature = "lang-rust", feature = "lang-python"))]
fn rows(outline: &Outline) -> Vec<Row<'_>> {
    outline
        .symbols
        .iter()
        .map(|s| {
            (
                s.kind,
                s.name.as_str(),
                s.line,
                s.end_line,
                s.depth,
                s.parent.as_deref(),
            )
        })
        .collect()
}

#[cfg(any(feature = "lang-rust", feature = "lang-python"))]
fn assert_rows(outline: &Outline, expected: &[Row<'_>]) {
    let got = rows(outline);
    assert_eq!(got, expected, "\nsymbols: {:#?}", outline.symbols);
}

#[cfg(feature = "lang-python")]
mod python;
#[cfg(feature = "lang-rust")]
mod rust;
mod tools;

/// The outline of `source` from [`collect`] and from the query over the
/// whole tree ([`collect_whole_tree`]), for the source and for cuts of it
/// (syntax errors); a message on the first difference.
fn compare_walk_with_whole_tree(lang: Language, source: &str) -> Result<usize, String> {
    let compiled = compiled_query(lang).map_err(|e| e.to_string())?;
    let mut parser = Parser::new();
    parser
        .set_language(&lang.grammar())
        .map_err(|e| e.to_string())?;
    let mut symbols = 0;
    let cuts = [source.len(), source.len() / 3, source.len() * 2 / 3];
    for cut in cuts {
        let Some(text) = (0..=cut).rev().find_map(|i| source.get(..i)) else {
            continue;
        };
        let tree = parser.parse(text, None).ok_or("no tree")?;
        let walked = nest(collect(compiled, tree.root_node(), text), lang);
        let whole = nest(collect_whole_tree(compiled, tree.root_node(), text), lang);
        if walked != whole {
            let i = walked
                .iter()
                .zip(&whole)
                .position(|(a, b)| a != b)
                .unwrap_or(walked.len().min(whole.len()));
            return Err(format!(
                "{lang} (first {cut} bytes): {} symbols walking, {} querying the whole \
                     tree; first difference at {i}: {:?} vs {:?}",
                walked.len(),
                whole.len(),
                walked.get(i),
                whole.get(i)
            ));
        }
        symbols += walked.len();
    }
    Ok(symbols)
}

/// Source files under `dir` (recursively) in a language of this build,
/// sorted, skipping files over 2 MB.
fn sources_under(dir: &std::path::Path, out: &mut Vec<(Language, std::path::PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            sources_under(&path, out);
        } else if let Some(lang) = path
            .extension()
            .and_then(|e| e.to_str())
            .and_then(Language::from_extension)
            && std::fs::metadata(&path).is_ok_and(|m| m.len() <= 2 << 20)
        {
            out.push((lang, path));
        }
    }
}

/// The walk that skips what hides its contents finds the same outline as
/// the query over the whole tree: on the samples, the fixtures and this
/// crate's sources, and on every source under the directories listed in
/// `TOOLCAP_OUTLINE_DIFF_DIR` when set (`:`-separated, e.g. a checkout
/// and `~/.cargo/registry/src`).
#[test]
fn walk_finds_what_the_whole_tree_query_finds() {
    let root = toolcap_testkit::repo_root();
    let mut files = Vec::new();
    for dir in ["tests", "fixtures", "src", "crates", "benches"] {
        sources_under(&root.join(dir), &mut files);
    }
    if let Some(dirs) = std::env::var_os("TOOLCAP_OUTLINE_DIFF_DIR") {
        for dir in std::env::split_paths(&dirs) {
            sources_under(&dir, &mut files);
        }
    }
    let mut failures = Vec::new();
    let mut symbols = 0;
    for (lang, path) in &files {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let source = String::from_utf8_lossy(&bytes);
        match compare_walk_with_whole_tree(*lang, &source) {
            Ok(n) => symbols += n,
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    eprintln!(
        "{} files, {symbols} symbols, {} differences",
        files.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(symbols > 0);
}

#[test]
fn pattern_roots_are_read_from_the_query_text() {
    let mut roots = Vec::new();
    let rest = read_root(
        "; c\n[(a) @x (b name: (c)) \"lit\"]* @y\n(next)",
        &mut roots,
    );
    assert_eq!(roots, [("a", true), ("b", true), ("lit", false)]);
    assert_eq!(rest.map(str::trim_start), Some("* @y\n(next)"));
    let mut roots = Vec::new();
    assert_eq!(
        read_root("(f \")\" ; )\n (g)) rest", &mut roots),
        Some(" rest")
    );
    for wild in [
        "(_) @x",
        "((a) (b))",
        "(expression/identifier)",
        "(ERROR)",
        "_",
        "(a",
    ] {
        assert_eq!(read_root(wild, &mut Vec::new()), None, "{wild}");
    }
}

#[test]
fn every_language_has_a_root_table() {
    for lang in Language::all() {
        let compiled = compiled_query(*lang).expect("query");
        assert!(
            compiled.roots.is_some(),
            "{lang}: every pattern start is read"
        );
    }
}

#[test]
fn every_language_query_builds() {
    for lang in Language::all() {
        if let Err(e) = check_language(*lang) {
            panic!("{e}");
        }
    }
}

#[test]
fn kind_names_round_trip() {
    let names: Vec<String> = Kind::ALL.iter().map(Kind::to_string).collect();
    assert_eq!(
        names,
        [
            "module",
            "class",
            "struct",
            "enum",
            "union",
            "trait",
            "interface",
            "impl",
            "function",
            "method",
            "constant",
            "type",
            "macro"
        ]
    );
    assert_eq!(
        "Function".parse::<Kind>(),
        Err("unknown symbol kind \"Function\"".to_string())
    );
    for kind in Kind::ALL {
        assert_eq!(kind.as_str().parse::<Kind>(), Ok(kind));
        assert_eq!(
            serde_json::to_value(kind).unwrap(),
            serde_json::Value::String(kind.as_str().to_string())
        );
    }
}

#[test]
fn count_lines_counts_last_unterminated_line() {
    assert_eq!(count_lines(""), 0);
    assert_eq!(count_lines("a"), 1);
    assert_eq!(count_lines("a\n"), 1);
    assert_eq!(count_lines("a\nb"), 2);
    assert_eq!(count_lines("\n\n"), 2);
}
