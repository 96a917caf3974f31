//! Python outlines: decorators, blocks at module and class level, what is
//! inside function bodies, syntax errors, the JSON.

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
