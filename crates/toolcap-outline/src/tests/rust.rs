//! Rust outlines: impls, traits, modules, macros, what is inside function
//! bodies, the cache, syntax errors.

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
