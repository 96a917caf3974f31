"""The rest of the API against the CLI and real files: outline, tool definitions,
dispatch, the processor's attributes."""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path

import pytest

import toolcap
from conftest import FIXTURES, REPO

STDLIB = Path(sysconfig.get_paths()["stdlib"])


@pytest.mark.parametrize(
    "path,lang",
    [(STDLIB / "json" / "decoder.py", None), (STDLIB / "argparse.py", "python"), (FIXTURES / "read_file" / "command.rs", None)],
    ids=["json-decoder", "argparse", "command.rs"],
)
def test_outline_matches_the_cli(path: Path, lang, cli) -> None:
    args = ["outline", str(path), "--json", "--budget-ms", "0"] + (["--lang", lang] if lang else [])
    expected = json.loads(cli.run(*args).stdout)
    del expected["path"]
    o = toolcap.outline(path.read_text(encoding="utf-8"), lang, path=str(path), budget_ms=0)
    assert o.to_dict() == expected
    assert o.language == expected["language"] and o.lines == expected["lines"]
    assert [s.name for s in o.symbols] == [s["name"] for s in expected["symbols"]]
    assert [s.to_dict() for s in o.symbols] == expected["symbols"]
    assert len(o) == len(expected["symbols"]) > 5


def test_outline_names_the_lines_read_best_effort(cli) -> None:
    """pyenv's python-build (tests/outline_samples/syntax_errors): one function the
    grammar misreads; the outline says which lines it read best-effort, as the CLI."""
    path = REPO / "tests" / "outline_samples" / "syntax_errors" / "python-build"
    expected = json.loads(cli.run("outline", str(path), "--lang", "bash", "--json", "--budget-ms", "0").stdout)
    del expected["path"]
    o = toolcap.outline(path.read_text(encoding="utf-8"), "bash", budget_ms=0)
    assert o.to_dict() == expected
    assert o.syntax_errors
    assert o.best_effort == expected["best_effort"] == [{"start": 32, "end": 36}]
    # without errors: none (an empty list; the dict leaves the key out, as the CLI)
    clean = toolcap.outline("def f():\n    pass\n", "python")
    assert not clean.syntax_errors and clean.best_effort == []
    assert "best_effort" not in clean.to_dict()


def test_outline_of_python_source_finds_its_classes() -> None:
    src = (STDLIB / "json" / "decoder.py").read_text()
    o = toolcap.outline(src, "python")
    by_name = {s.name: s for s in o.symbols}
    assert by_name["JSONDecoder"].kind == "class"
    assert by_name["decode"].kind == "method" and by_name["decode"].parent == "JSONDecoder"
    # the line numbers are the real ones
    assert src.splitlines()[by_name["JSONDecoder"].line - 1].startswith("class JSONDecoder")
    # bytes work too, and a shebang names the language
    assert toolcap.outline(src.encode(), path="decoder.py").to_dict() == o.to_dict()
    assert toolcap.outline("#!/usr/bin/env python3\ndef f():\n    pass\n").symbols[0].name == "f"


def test_language_is_detected_as_the_cli_detects_it(tmp_path: Path, cli) -> None:
    """No language named: the content decides without a file name (Rust source), and a
    `.h` header that reads as C++ is C++ — the same as `toolcap outline`."""
    cases = [
        ((FIXTURES / "read_file" / "command.rs").read_text(), "source_without_extension", None),
        ((REPO / "tests" / "outline_samples" / "sample.hpp").read_text(), "sample.h", "sample.h"),
    ]
    for text, name, path in cases:
        f = tmp_path / name
        f.write_text(text)
        expected = json.loads(cli.run("outline", str(f), "--json", "--budget-ms", "0").stdout)
        o = toolcap.outline(text, path=path, budget_ms=0)
        assert o.language == expected["language"], name
        assert [s.to_dict() for s in o.symbols] == expected["symbols"], name
    assert toolcap.outline(cases[0][0]).language == "rust"
    assert toolcap.outline(cases[1][0], path="sample.h").language == "cpp"


@pytest.mark.parametrize("fmt", ["openai", "anthropic"])
def test_tool_definitions_match_the_cli(fmt: str, cli) -> None:
    expected = json.loads(cli.run("tools", "--format", fmt).stdout)
    assert toolcap.tool_definitions(fmt) == expected
    assert toolcap.ToolResultProcessor().tool_definitions(fmt) == expected
    names = [d["function"]["name"] if fmt == "openai" else d["name"] for d in expected]
    assert {"get_continuation", "fetch_tool_output", "get_tool_result", "search_tool_output"} <= set(names)


def test_dispatch_serves_the_recovery_tools_only() -> None:
    store = toolcap.MemoryStore()
    text = (FIXTURES / "read_file" / "command.rs").read_text()
    processor = toolcap.ToolResultProcessor(store=store)
    p = processor.process("read_file", text, {"path": "command.rs"}, "call_1")
    assert 'get_continuation(tool_call_id="call_1", ' in p.text
    assert processor.dispatch("read_file", {"path": "x"}) is None
    r = processor.dispatch("get_continuation", {"tool_call_id": "call_1"})
    assert r.text.startswith(text[p.stored["offset"] : p.stored["offset"] + 50])
    assert r.next_offset == p.stored["offset"] + 2000
    # OpenAI's function.arguments is JSON text
    r2 = processor.dispatch("get_continuation", json.dumps({"tool_call_id": "call_1", "offset": r.next_offset}))
    assert r2.text.startswith(text[r.next_offset : r.next_offset + 50])
    assert toolcap.dispatch(store, "get_tool_result", {"tool_call_id": "call_1"}).text == text
    # every recovery tool the library serves is served from Python too
    found = processor.dispatch("search_tool_output", {"tool_call_id": "call_1", "pattern": "pub fn "})
    assert not found.is_error
    n = sum(1 for line in text.splitlines() if "pub fn " in line)
    lines = len(text.splitlines())
    assert found.text.splitlines()[0].startswith(f'{n} of {lines} lines match "pub fn "')
    assert str(r) == r.text


def test_processed_attributes() -> None:
    path = STDLIB / "typing.py"
    text = path.read_text()
    p = toolcap.ToolResultProcessor().process("read_file", text, {"path": "typing.py"})
    assert p.truncated and not p.bypassed and p.reason == "cut"
    assert p.original == {"chars": len(text), "bytes": len(text.encode()), "lines": len(text.splitlines())}
    kept_end = p.kept[0]["end_line"]
    omitted = p.omitted
    assert omitted["ranges"][0]["start_line"] == kept_end + 1
    assert f"lines {kept_end + 1}-{len(text.splitlines())} of {len(text.splitlines())}" in p.text
    assert p.outline.language == "python" and p.language == "python"
    assert any(s["tool"] == "shell" and "sed -n" in s["args"]["command"] for s in p.suggestions)
    assert str(p) == p.text
    assert "truncated=True" in repr(p)
    # an unchanged result is the very object passed in
    small = "print('hi')\n"
    q = toolcap.ToolResultProcessor().process("read_file", small, {"path": "a.py"})
    assert q.text is small and q.reason == "under_threshold"


def test_languages_and_version() -> None:
    names = [l["name"] for l in toolcap.languages()]
    assert "python" in names and "rust" in names
    assert toolcap.__version__ == "0.1.0"
    assert "max_kept_chars = 2000" in toolcap.ToolResultProcessor().describe_config()
