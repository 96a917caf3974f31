//! Tools run by hand (`--ignored`): the parser's work rate, the syntax tree
//! the outline sees.

use super::*;

/// Calibration of [`super::parse::WORK_PER_MS`]: parser work units per ms
/// of parsing for the files in `TOOLCAP_WORK_FILES` (`:`-separated). Run by
/// hand: `TOOLCAP_WORK_FILES=a.c:b.php cargo test --lib parse_work_rate --
/// --ignored --nocapture`.
#[test]
#[ignore = "a measurement, run by hand"]
fn parse_work_rate() {
    let Some(files) = std::env::var_os("TOOLCAP_WORK_FILES") else {
        return;
    };
    for path in std::env::split_paths(&files) {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let source = String::from_utf8_lossy(&bytes);
        let Some(lang) = path
            .extension()
            .and_then(|e| e.to_str())
            .and_then(Language::from_extension)
        else {
            continue;
        };
        let mut parser = Parser::new();
        parser.set_language(&lang.grammar()).expect("grammar");
        // The fastest of 5 runs: the least disturbed by other load.
        let mut ms = f64::MAX;
        let mut units = 0u64;
        for _ in 0..5 {
            units = 0;
            let mut progress = |_: &tree_sitter::ParseState| {
                units += 1;
                std::ops::ControlFlow::Continue(())
            };
            let start = std::time::Instant::now();
            let options = tree_sitter::ParseOptions::new().progress_callback(&mut progress);
            let tree = parser.parse_with_options(
                &mut |i, _| source.as_bytes().get(i..).unwrap_or(&[]),
                None,
                Some(options),
            );
            ms = ms.min(start.elapsed().as_secs_f64() * 1000.0);
            assert!(tree.is_some());
        }
        eprintln!(
            "{}: {} bytes, {units} units, {ms:.1} ms, {:.0} units/ms, {:.1} bytes/unit",
            path.display(),
            source.len(),
            units as f64 / ms,
            source.len() as f64 / units as f64
        );
    }
}

/// Print the syntax tree of `TOOLCAP_DUMP` (`LANG:FILE`), for writing
/// queries: `TOOLCAP_DUMP=swift:a.swift cargo test --lib dump_tree --
/// --ignored --nocapture`.
#[test]
#[ignore = "a tool, run by hand"]
fn dump_tree() {
    let Some(spec) = std::env::var("TOOLCAP_DUMP").ok() else {
        return;
    };
    let Some((lang, file)) = spec.split_once(':') else {
        return;
    };
    let lang = Language::from_name(lang).expect("language");
    let source = std::fs::read_to_string(file).expect("read");
    // What the outline parses: the source after preprocessing.
    let source = languages::prepare(&source, lang).into_owned();
    let mut parser = Parser::new();
    parser.set_language(&lang.grammar()).expect("grammar");
    let tree = parser.parse(&source, None).expect("tree");
    eprintln!("{}", tree.root_node().to_sexp());
    // Where the parse went wrong: every ERROR and MISSING node, 1-based.
    let mut cursor = tree.walk();
    'walk: loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            let (a, b) = (node.start_position(), node.end_position());
            eprintln!(
                "{} at {}:{}-{}:{}",
                node.kind(),
                a.row + 1,
                a.column + 1,
                b.row + 1,
                b.column + 1
            );
        }
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
}
