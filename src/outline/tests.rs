//! Unit tests of the outline: per-language details, the walk against the
//! whole-tree query, the query reader.

use super::cache::Cached;
use super::parse::count_lines;
use super::query::{compiled_query, read_root};
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
mod python {
    use super::*;
    use Kind::*;

    fn py(source: &str) -> Outline {
        outline(source, Language::Python).expect("python outline")
    }

    #[test]
    fn decorated_and_async_defs_use_the_def_line() {
        let o = py(r#"import functools


@functools.cache
@other(
    arg,
)
def cached(x):
    return x


async def fetch(url):
    return url


@decorator
async def both():
    pass


@dataclass
class Point:
    x: int

    @property
    def norm(self):
        return 0

    @staticmethod
    async def make():
        pass
"#);
        assert_eq!(o.language, "python");
        assert_eq!(o.lines, 31);
        assert!(!o.partial && !o.syntax_errors);
        assert_rows(
            &o,
            &[
                (Function, "cached", 8, 9, 0, None),
                (Function, "fetch", 12, 13, 0, None),
                (Function, "both", 17, 18, 0, None),
                (Class, "Point", 22, 31, 0, None),
                (Method, "norm", 26, 27, 1, Some("Point")),
                (Method, "make", 30, 31, 1, Some("Point")),
            ],
        );
        assert!(o.symbols.iter().all(|s| s.detail.is_none()));
    }

    #[test]
    fn defs_under_module_and_class_level_blocks() {
        let o = py(r#"from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from os import PathLike

    class Proto:
        def meth(self): ...
else:
    def fallback():
        pass

try:
    from _fast import speedup
except ImportError:
    def speedup(x):
        return x
finally:
    pass


class Compat:
    if sys.version_info >= (3, 12):
        def new(self):
            pass
    else:
        def old(self):
            pass

    try:
        import json
    except ImportError:
        class Json:
            def loads(self, s):
                pass

    with suppress(Exception):
        def guarded(self):
            pass

    for _name in ("a", "b"):
        def looped(self):
            pass
"#);
        assert_rows(
            &o,
            &[
                (Class, "Proto", 6, 7, 0, None),
                (Method, "meth", 7, 7, 1, Some("Proto")),
                (Function, "fallback", 9, 10, 0, None),
                (Function, "speedup", 15, 16, 0, None),
                (Class, "Compat", 21, 42, 0, None),
                (Method, "new", 23, 24, 1, Some("Compat")),
                (Method, "old", 26, 27, 1, Some("Compat")),
                (Class, "Json", 32, 34, 1, Some("Compat")),
                (Method, "loads", 33, 34, 2, Some("Json")),
                (Method, "guarded", 37, 38, 1, Some("Compat")),
                (Method, "looped", 41, 42, 1, Some("Compat")),
            ],
        );
    }

    #[test]
    fn defs_inside_function_bodies_are_excluded() {
        let o = py(r#"def outer():
    def inner():
        class Hidden:
            def deep(self):
                pass
    if True:
        def conditional():
            pass
    return inner


class C:
    def method(self):
        def helper():
            pass
        class Local:
            pass
        return helper
"#);
        assert_rows(
            &o,
            &[
                (Function, "outer", 1, 9, 0, None),
                (Class, "C", 12, 18, 0, None),
                (Method, "method", 13, 18, 1, Some("C")),
            ],
        );
    }

    #[test]
    fn trailing_comments_do_not_extend_end_line() {
        let o = py(r#"class A:
    def f(self):
        return 1
        # a comment indented like the body

    # a comment at class-body level


# module-level comment
def g(): pass  # same line
"#);
        assert_rows(
            &o,
            &[
                (Class, "A", 1, 3, 0, None),
                (Method, "f", 2, 3, 1, Some("A")),
                (Function, "g", 10, 10, 0, None),
            ],
        );
    }

    #[test]
    fn syntax_errors_give_a_partial_best_effort_outline() {
        let o = py(
            "class Ok:\n    def fine(self):\n        pass\n\ndef broken(:\n    pass\n\ndef after():\n    pass\n",
        );
        assert!(o.syntax_errors);
        assert!(!o.partial, "syntax errors do not make the outline partial");
        assert_eq!(o.covered_lines, 9);
        let names: Vec<&str> = o.symbols.iter().map(|s| s.name.as_str()).collect();
        assert!(names.contains(&"Ok"), "{names:?}");
        assert!(names.contains(&"fine"), "{names:?}");
        assert!(names.contains(&"after"), "{names:?}");
    }

    #[test]
    fn serializes_to_the_documented_json() {
        let o = py("class A:\n    def f(self):\n        pass\n");
        let json = serde_json::to_value(&o).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "language": "python",
                "lines": 3,
                "partial": false,
                "covered_lines": 3,
                "stopped_by": null,
                "syntax_errors": false,
                "symbols": [
                    {"kind": "class", "name": "A", "line": 1, "end_line": 3, "depth": 0, "parent": null},
                    {"kind": "method", "name": "f", "line": 2, "end_line": 3, "depth": 1, "parent": "A"},
                ],
            })
        );
    }
}

#[cfg(feature = "lang-rust")]
mod rust {
    use super::*;
    use Kind::*;

    fn rs(source: &str) -> Outline {
        outline(source, Language::Rust).expect("rust outline")
    }

    fn details(outline: &Outline) -> Vec<(&str, Option<&str>)> {
        outline
            .symbols
            .iter()
            .map(|s| (s.name.as_str(), s.detail.as_deref()))
            .collect()
    }

    #[test]
    fn impl_blocks_are_named_by_their_type() {
        let o = rs(r#"use std::fmt;

/// A foo.
#[derive(Debug)]
pub struct Foo<T> {
    x: T,
}

impl fmt::Display for Foo<u8> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "foo")
    }
}

impl<T: Clone>
    Foo<T>
{
    pub const N: usize = 3;

    #[inline]
    pub fn new(x: T) -> Self {
        Self { x }
    }
}

unsafe impl<'a, T> Send for &'a [T] {}
impl<T> std::ops::Deref for crate::a::Bar<T> {}
"#);
        assert_rows(
            &o,
            &[
                (Struct, "Foo", 5, 7, 0, None),
                (Impl, "Foo", 9, 13, 0, None),
                (Method, "fmt", 10, 12, 1, Some("Foo")),
                (Impl, "Foo", 16, 24, 0, None), // the line of its name
                (Constant, "N", 18, 18, 1, Some("Foo")),
                (Method, "new", 21, 23, 1, Some("Foo")),
                (Impl, "&'a [T]", 26, 26, 0, None),
                (Impl, "Bar", 27, 27, 0, None),
            ],
        );
        assert_eq!(
            details(&o),
            [
                ("Foo", None),
                ("Foo", Some("impl fmt::Display for Foo<u8>")),
                ("fmt", None),
                ("Foo", Some("impl<T: Clone> Foo<T>")),
                ("N", None),
                ("new", None),
                ("&'a [T]", Some("unsafe impl<'a, T> Send for &'a [T]")),
                ("Bar", Some("impl<T> std::ops::Deref for crate::a::Bar<T>")),
            ]
        );
    }

    #[test]
    fn trait_items_are_methods_types_and_constants() {
        let o = rs(r#"pub trait Shape: Sized {
    type Item;
    const SIDES: u32;

    fn area(&self) -> f64;

    fn name(&self) -> &str {
        "shape"
    }
}

impl Shape for Square {
    type Item = u8;
    const SIDES: u32 = 4;
    fn area(&self) -> f64 { 1.0 }
}
"#);
        assert_rows(
            &o,
            &[
                (Trait, "Shape", 1, 10, 0, None),
                (Type, "Item", 2, 2, 1, Some("Shape")),
                (Constant, "SIDES", 3, 3, 1, Some("Shape")),
                (Method, "area", 5, 5, 1, Some("Shape")),
                (Method, "name", 7, 9, 1, Some("Shape")),
                (Impl, "Square", 12, 16, 0, None),
                (Type, "Item", 13, 13, 1, Some("Square")),
                (Constant, "SIDES", 14, 14, 1, Some("Square")),
                (Method, "area", 15, 15, 1, Some("Square")),
            ],
        );
    }

    #[test]
    fn modules_macros_constants_types_unions() {
        let o = rs(r#"mod declared;

pub mod inner {
    pub enum E {
        A,
        B,
    }

    pub union U {
        a: u32,
        b: f32,
    }

    static COUNTER: AtomicUsize = AtomicUsize::new(0);

    #[macro_export]
    macro_rules! square {
        ($x:expr) => {
            $x * $x
        };
    }

    mod deeper {
        pub fn f() {}
    }
}

pub const MAX: usize = 10;
pub type Alias<T> = Vec<T>;
"#);
        assert_rows(
            &o,
            &[
                (Module, "declared", 1, 1, 0, None),
                (Module, "inner", 3, 26, 0, None),
                (Enum, "E", 4, 7, 1, Some("inner")),
                (Union, "U", 9, 12, 1, Some("inner")),
                (Constant, "COUNTER", 14, 14, 1, Some("inner")),
                (Macro, "square", 17, 21, 1, Some("inner")),
                (Module, "deeper", 23, 25, 1, Some("inner")),
                (Function, "f", 24, 24, 2, Some("deeper")),
                (Constant, "MAX", 28, 28, 0, None),
                (Type, "Alias", 29, 29, 0, None),
            ],
        );
    }

    #[test]
    fn items_inside_function_bodies_are_excluded() {
        let o = rs(r#"fn main() {
    fn helper() {}
    struct Local;
    impl Local {
        fn method(&self) {}
    }
    const X: u8 = 1;
    macro_rules! local { () => {} }
}

impl Foo {
    fn run(&self) {
        fn nested() {}
    }
}

const _: () = {
    fn hidden() {}
};
"#);
        assert_rows(
            &o,
            &[
                (Function, "main", 1, 9, 0, None),
                (Impl, "Foo", 11, 15, 0, None),
                (Method, "run", 12, 14, 1, Some("Foo")),
            ],
        );
    }

    #[test]
    fn the_cache_gives_back_the_same_outline() {
        let source =
            "impl<T> fmt::Display for Foo<T> {\n    fn fmt(&self) {}\n}\nmod é { fn ü() {} }\n";
        let first = rs(source);
        assert!(first.symbols.iter().any(|s| s.detail.is_some()));
        assert!(first.symbols.iter().any(|s| s.parent.is_some()));
        assert_eq!(Cached::new(&first).outline(), first);
        let hits = cache_hits();
        assert_eq!(rs(source), first);
        assert!(cache_hits() > hits);
    }

    #[test]
    fn attributes_and_doc_comments_are_not_the_line() {
        let o = rs("/// Doc.\n#[test]\n#[ignore]\nfn t() {\n}\n");
        assert_rows(&o, &[(Function, "t", 4, 5, 0, None)]);
        assert_eq!(o.lines, 5);
    }

    #[test]
    fn syntax_errors_give_a_partial_best_effort_outline() {
        let o = rs("struct A;\nfn broken( {\n\nfn after() {}\nimpl A {\n    fn m(&self) {}\n");
        assert!(o.syntax_errors);
        assert!(!o.partial);
        let names: Vec<&str> = o.symbols.iter().map(|s| s.name.as_str()).collect();
        assert!(names.contains(&"A"), "{names:?}");
    }
}

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
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["tests", "fixtures", "src", "benches"] {
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
    let source = super::preprocess::prepare(&source, lang).into_owned();
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
