"""The type stubs describe the module that is there: every public name and member of
toolcap._toolcap is in _toolcap.pyi and every stubbed one exists."""

from __future__ import annotations

import ast
from pathlib import Path

import toolcap
from toolcap import _toolcap

PYI = Path(toolcap.__file__).with_name("_toolcap.pyi")


def stubbed():
    tree = ast.parse(PYI.read_text())
    names, members = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        if isinstance(node, ast.ClassDef):
            members[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names, members


def test_stubs_match_the_module() -> None:
    names, members = stubbed()
    runtime = {n for n in dir(_toolcap) if not n.startswith("_") or n == "__version__"}
    assert runtime - names == set(), "public but not in the stubs"
    assert {n for n in names if not n.startswith("_") or n == "__version__"} - runtime == set(), "stubbed but missing"
    for cls, ms in members.items():
        obj = getattr(_toolcap, cls)
        public = {m for m in dir(obj) if not m.startswith("_")} - set(dir(Exception))
        assert public - ms == set(), (cls, "members not in the stubs")
        assert {m for m in ms if not m.startswith("_")} - public == set(), (cls, "stubbed members missing")


def test_the_package_is_typed() -> None:
    assert Path(toolcap.__file__).with_name("py.typed").is_file()
