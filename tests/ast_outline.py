#!/usr/bin/env python3
"""Reference outline of Python files, computed with Python's own `ast` module.

Used by tests/outline_accuracy.rs to measure the tree-sitter outline against.
Applies the outline rule:
  - ClassDef -> "class"; FunctionDef / AsyncFunctionDef -> "function", or
    "method" when its nearest enclosing definition is a class;
  - descend into class bodies and into module- or class-level compound
    statements (if/elif/else, try/except/else/finally incl. except*, with,
    for/while incl. their else, match cases), never into function bodies.
  - line = lineno of the def/class keyword (for decorated definitions this is
    the `def` line on Python 3.8+), end_line = end_lineno.

Usage: ast_outline.py FILE...
Prints one JSON object: {"files": {path: [symbols] | {"error": msg}}}.
"""

import ast
import json
import sys

# Compound statements whose bodies stay at the enclosing scope's level.
_BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def _walk(nodes, in_class, out):
    for node in nodes:
        if isinstance(node, ast.ClassDef):
            out.append(_symbol("class", node))
            _walk(node.body, True, out)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append(_symbol("method" if in_class else "function", node))
            # Function bodies are not descended into.
        elif isinstance(node, (ast.stmt, ast.excepthandler)) or _is_match_case(node):
            for field in _BLOCK_FIELDS:
                children = getattr(node, field, None)
                if isinstance(children, list):
                    _walk(children, in_class, out)


def _is_match_case(node):
    match_case = getattr(ast, "match_case", None)
    return match_case is not None and isinstance(node, match_case)


def _symbol(kind, node):
    return {
        "kind": kind,
        "name": node.name,
        "line": node.lineno,
        "end_line": node.end_lineno,
    }


def outline(path):
    with open(path, "rb") as f:
        source = f.read()
    tree = ast.parse(source, filename=path)
    out = []
    _walk(tree.body, False, out)
    return out


def main(argv):
    files = {}
    for path in argv:
        try:
            files[path] = outline(path)
        except (SyntaxError, ValueError, UnicodeDecodeError, OSError) as e:
            files[path] = {"error": f"{type(e).__name__}: {e}"}
    json.dump({"files": files}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1:])
