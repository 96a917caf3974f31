"""The type stubs describe the module that is there: every public name and member of
toolcap._toolcap is in _toolcap.pyi and every stubbed one exists."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import toolcap
from toolcap import _toolcap

PYI = Path(toolcap.__file__).with_name("_toolcap.pyi")
PKG_ROOT = Path(toolcap.__file__).resolve().parents[1]


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


def _run(args: list[str]) -> "subprocess.CompletedProcess[str]":
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=PKG_ROOT)


def test_stubtest_finds_nothing() -> None:
    """mypy's stubtest compares _toolcap.pyi with the module itself: signatures,
    defaults, properties, @final classes."""
    r = _run(["-m", "mypy.stubtest", "toolcap._toolcap"])
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_package_is_clean_under_mypy_strict() -> None:
    r = _run(["-m", "mypy", "--strict", "--no-incremental", "-p", "toolcap"])
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_user_script_type_checks() -> None:
    script = '''
import toolcap
from toolcap.adapter import ToolResultProcessor
from toolcap.types import ProcessedDict, Reason

p = toolcap.ToolResultProcessor(store=toolcap.MemoryStore())
out = p.process("read_file", "x\\n", {"path": "a.py"}, "c1")
chars: int = out.original["chars"]
reason: Reason = out.reason
d: ProcessedDict = out.to_dict()
r = p.dispatch("get_continuation", {"tool_call_id": "c1"})
err = r.error if r is not None else None
text, cut = ToolResultProcessor().process_result("read_file", "x", {"file_path": "a.py"})
n: int = ToolResultProcessor().estimate_tokens(text)
'''
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "user.py"
        f.write_text(script)
        r = _run(["-m", "mypy", "--strict", "--no-incremental", str(f)])
    assert r.returncode == 0, r.stdout + r.stderr
