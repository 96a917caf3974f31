//! Every language's outline on a sample that exercises its definitions:
//! the exact symbols, kinds, line spans and parents, and the nesting rule
//! (nothing from inside function bodies). The samples are in
//! tests/outline_samples/; each language is detected from the file name, as
//! `toolcap outline` does.

use toolcap::outline::{Language, Options, outline_with};

/// (file, has syntax errors, symbols as "kind name line-end_line [in parent]")
type Case = (&'static str, bool, &'static [&'static str]);

const CASES: &[Case] = &[
    (
        "Sample.java",
        false,
        &[
            "class A 4-32",
            "method toString 8-12 in A",
            "method A 14-14 in A",
            "class Inner 16-18 in A",
            "method m 17-17 in Inner",
            "interface I 20-20 in A",
            "method f 20-20 in I",
            "method g 20-20 in I",
            "enum E 22-26 in A",
            "method em 25-25 in E",
            "class R 28-31 in A",
            "method R 29-29 in R",
            "method twice 30-30 in R",
            "interface Ann 34-34",
            "method value 34-34 in Ann",
        ],
    ),
    (
        "overloads.ts",
        false,
        &[
            "function df 1-1",
            "module N 2-5",
            "function inner 3-3 in N",
            "function ex 4-4 in N",
            "class DC 6-6",
            "method m 6-6 in DC",
            "function ov 7-8",
            "class K 9-9",
            "method m 9-9 in K",
        ],
    ),
    (
        "sample.c",
        false,
        &[
            "macro MAX 2-2",
            "macro SQ 3-3",
            "struct point 5-8",
            "struct inner 7-7 in point",
            "type anon_t 12-12",
            "struct node 14-16",
            "type node_t 16-16",
            "type callback 18-18",
            "union u 19-19",
            "enum color 20-20",
            "function add 22-22",
            "function split 23-23",
            "function add 26-31",
            "function guarded 34-34",
        ],
    ),
    (
        "sample.cs",
        false,
        &[
            "module App.Core 3-24",
            "interface IShape 5-5 in App.Core",
            "method Area 5-5 in IShape",
            "class Circle 8-17 in App.Core",
            "method Circle 10-10 in Circle",
            "method ~Circle 11-11 in Circle",
            "method Area 13-13 in Circle",
            "method operator + 14-14 in Circle",
            "class Nested 15-15 in Circle",
            "method N 15-15 in Nested",
            "struct Point 19-19 in App.Core",
            "method ToString 19-19 in Point",
            "enum Kind 20-20 in App.Core",
            "class Person 21-21 in App.Core",
            "struct Pair 22-22 in App.Core",
            "type Notify 23-23 in App.Core",
        ],
    ),
    (
        "sample.go",
        false,
        &[
            "struct Server 3-5",
            "interface Handler 8-11",
            "method Serve 9-9 in Handler",
            "type ID 12-12",
            "type List 13-13",
            "constant Max 16-16",
            "constant A 19-19",
            "constant B 20-20",
            "method Start 23-26 in Server",
            "method Len 28-28 in List",
            "function main 30-32",
        ],
    ),
    (
        "sample.hpp",
        false,
        &[
            "module outer 2-23",
            "module inner 3-22 in outer",
            "class Box 6-17 in inner",
            "method Box 8-8 in Box",
            "method ~Box 9-9 in Box",
            "method get 10-10 in Box",
            "method operator= 11-11 in Box",
            "method make 12-12 in Box",
            "struct Node 16-16 in Box",
            "enum Color 19-19 in inner",
            "type Alias 20-20 in inner",
            "method get2 26-29 in outer::inner::Box<T>",
            "method ~Box 31-31 in Box",
            "function c_api 34-34",
            "function anon_helper 38-38",
        ],
    ),
    (
        "sample.js",
        false,
        &[
            "class A 4-11",
            "method #priv 6-6 in A",
            "method handle 7-9 in A",
            "method v 10-10 in A",
            "function main 13-16",
            "function gen 18-18",
            "function arrow 19-19",
            "function fe 20-20",
            "class K 21-23",
            "method m 22-22 in K",
            "function exp 24-24",
            "function bar 25-25",
            "function wrapped 30-30",
            "function App 32-36",
        ],
    ),
    (
        "sample.kt",
        true,
        &[
            "class Singleton 3-3",
            "method s 3-3 in Singleton",
            "class Foo 6-17",
            "method make 9-9 in Foo",
            "method m 11-14 in Foo",
            "class In 16-16 in Foo",
            "interface I 19-21",
            "method f 20-20 in I",
            "enum E 23-27",
            "method e 26-26 in E",
            "class D 29-29",
            "type TA 30-30",
            "function top 31-31",
            "function ext 32-32",
        ],
    ),
    (
        "sample.lua",
        false,
        &[
            "function pub 3-3 in M",
            "method method 4-4 in M",
            "function helper 5-7",
            "function global 8-8",
            "function assigned 9-9 in M",
            "function anon 10-10",
        ],
    ),
    (
        "sample.php",
        false,
        &[
            r"module App\Models 2-2",
            "constant TOP 6-6",
            "interface HasName 8-8",
            "method name 8-8 in HasName",
            "trait Greets 10-12",
            "method greet 11-11 in Greets",
            "class User 14-20",
            "constant ROLE 16-16 in User",
            "method __construct 17-17 in User",
            "method name 18-18 in User",
            "method kind 19-19 in User",
            "enum Suit 22-25",
            "method color 24-24 in Suit",
            "function helper 27-30",
            "function in_html 32-32",
        ],
    ),
    (
        "sample.rb",
        false,
        &[
            "module Outer 4-32",
            "constant VERSION 5-5 in Outer",
            "class Base 7-29 in Outer",
            "method initialize 10-12 in Base",
            "method build 14-16 in Base",
            "method factory 19-19 in Base",
            "method helper? 24-28 in Base",
            "method mixin_method 31-31 in Outer",
            "class Outer::Deep::Child 34-34",
            "function top_level 36-37",
            "function in_block 40-40",
        ],
    ),
    (
        "sample.scala",
        false,
        &[
            "class Main 3-6",
            "method main 4-4 in Main",
            "trait T 8-8",
            "method f 8-8 in T",
            "type X 8-8 in T",
            "class C 9-9",
            "method f 9-9 in C",
            "class P 10-10",
            "enum Color 11-11",
            "method g 11-11 in Color",
            "function top 13-13",
            "type Alias 14-14",
        ],
    ),
    (
        "sample.sh",
        false,
        &[
            "function usage 3-5",
            "function main 6-9",
            "function guarded 11-11",
        ],
    ),
    (
        "sample.swift",
        false,
        &[
            "interface Shape 3-3",
            "method area 3-3 in Shape",
            "class Circle 6-11",
            "method init 7-7 in Circle",
            "method deinit 8-8 in Circle",
            "method area 9-9 in Circle",
            "method subscript 10-10 in Circle",
            "struct Point 13-13",
            "method zero 13-13 in Point",
            "enum Dir 14-14",
            "method flip 14-14 in Dir",
            "impl Point 15-15",
            "method dist 15-15 in Point",
            "type Pair 16-16",
            "function top 17-17",
        ],
    ),
    (
        "sample.ts",
        false,
        &[
            "module NS 1-1",
            "function f 1-1 in NS",
            r#"module "foo" 2-2"#,
            r#"interface X 2-2 in "foo""#,
            "module M 3-3",
            "interface I 4-4",
            "method m 4-4 in I",
            "type Alias 5-5",
            "enum E 6-6",
            "class C 7-13",
            "method handler 9-9 in C",
            "method constructor 10-10 in C",
            "method am 11-11 in C",
            "method g 12-12 in C",
            "class D 14-14",
            "method m 14-14 in D",
            "function arrow 15-15",
            "function over 16-17",
            "function df 18-18",
        ],
    ),
    (
        "sample.tsx",
        false,
        &[
            "class A 4-11",
            "method #priv 6-6 in A",
            "method handle 7-9 in A",
            "method v 10-10 in A",
            "function main 13-16",
            "function gen 18-18",
            "function arrow 19-19",
            "function fe 20-20",
            "class K 21-23",
            "method m 22-22 in K",
            "function exp 24-24",
            "function bar 25-25",
            "function wrapped 30-30",
            "function App 32-36",
        ],
    ),
];

fn render(o: &toolcap::Outline) -> Vec<String> {
    o.symbols
        .iter()
        .map(|s| {
            format!(
                "{} {} {}-{}{}",
                s.kind,
                s.name,
                s.line,
                s.end_line,
                s.parent
                    .as_ref()
                    .map(|p| format!(" in {p}"))
                    .unwrap_or_default()
            )
        })
        .collect()
}

#[test]
fn every_language_outlines_its_sample_exactly() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/outline_samples");
    let mut checked = 0;
    for (file, syntax_errors, expected) in CASES {
        let path = format!("{dir}/{file}");
        let text = std::fs::read_to_string(&path).expect("read sample");
        let Some((lang, _)) = toolcap_outline::detect::language(None, Some(&path), &text) else {
            // The language's feature is off in this build.
            continue;
        };
        let options = Options {
            budget: None,
            ..Options::default()
        };
        let o = outline_with(&text, lang, &options).expect("outline");
        assert_eq!(render(&o), *expected, "{file} ({})", lang.name());
        assert_eq!(o.syntax_errors, *syntax_errors, "{file}");
        assert!(!o.partial, "{file}");
        assert_eq!(o.covered_lines, o.lines, "{file}");
        checked += 1;
    }
    // With every language compiled in (the default), every sample is checked.
    if Language::all().len() == 17 {
        assert_eq!(checked, CASES.len());
    }
}

/// A 5 MB source over the budget gives `partial: true`, the same outline on
/// every run, and its coverage is honest: every symbol lies within the
/// covered lines, which end at a top-level boundary, and the symbols there
/// match a full outline's.
#[cfg(feature = "lang-c")]
#[test]
fn a_5_mb_source_is_outlined_within_the_budget_and_says_how_far() {
    use std::time::Duration;
    let unit = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/outline_samples/sample.c"
    ))
    .expect("read sample");
    let mut big = String::new();
    let mut copies = 0;
    while big.len() < 5_000_000 {
        big.push_str(&unit.replace("add", &format!("add_{copies}")));
        big.push('\n');
        copies += 1;
    }
    let lang = Language::from_name("c").expect("c");
    let budget = Duration::from_millis(100);
    let options = Options {
        budget: Some(budget),
        ..Options::default()
    };
    let o = outline_with(&big, lang, &options).expect("outline");
    assert!(o.partial);
    assert_eq!(o.stopped_by, Some(toolcap::outline::Stop::TimeBudget));
    assert!(
        o.covered_lines < o.lines,
        "{} of {}",
        o.covered_lines,
        o.lines
    );
    assert!(o.covered_lines > 0);
    // The budget counts the parser's work, not time: computed again (a
    // different size cap, above the source's size, misses the cache), the
    // outline is the same.
    let again = outline_with(
        &big,
        lang,
        &Options {
            max_bytes: options.max_bytes + 1,
            ..options
        },
    )
    .expect("outline");
    assert_eq!(again, o);
    assert!(o.symbols.iter().all(|s| s.end_line <= o.covered_lines));
    // The covered part ends at a copy boundary or inside a copy at a
    // top-level line: its symbols are those of a full outline of that prefix.
    let prefix_len: usize = big
        .split_inclusive('\n')
        .take(o.covered_lines)
        .map(str::len)
        .sum();
    let full = outline_with(
        &big[..prefix_len],
        lang,
        &Options {
            budget: None,
            ..Options::default()
        },
    )
    .expect("outline of the prefix");
    assert_eq!(render(&o), render(&full));
    assert!(!full.partial);

    // A size cap stops it too, and says so.
    let capped = outline_with(
        &big,
        lang,
        &Options {
            budget: None,
            max_bytes: 100_000,
            ..Options::default()
        },
    )
    .expect("outline");
    assert!(capped.partial);
    assert_eq!(capped.stopped_by, Some(toolcap::outline::Stop::SizeCap));
    let covered_bytes: usize = big
        .split_inclusive('\n')
        .take(capped.covered_lines)
        .map(str::len)
        .sum();
    assert!(
        covered_bytes <= 100_000 && covered_bytes > 90_000,
        "{covered_bytes}"
    );
}

/// Repeating an outline of the same content is served from the cache.
#[cfg(feature = "lang-go")]
#[test]
fn repeated_outlines_hit_the_cache() {
    let lang = Language::from_name("go").expect("go");
    let text = "package a\n\nfunc CacheProbe() {}\n";
    let first = toolcap::outline::outline(text, lang).expect("outline");
    let hits = toolcap::outline::cache_hits();
    let second = toolcap::outline::outline(text, lang).expect("outline");
    assert_eq!(first, second);
    assert!(toolcap::outline::cache_hits() > hits);
}
