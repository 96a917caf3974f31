"""Processed.to_dict() / to_json() against `toolcap process --json` on every fixture."""

from __future__ import annotations

import json

import pytest

import toolcap
from conftest import fixture_cases

CASES = fixture_cases()


def test_the_fixture_set_is_there() -> None:
    # tests/fixtures.rs holds the same floor: a missing fixtures/ must not pass as "no cases"
    assert len(CASES) >= 12, [c["id"] for c in CASES]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_same_json_as_the_cli(case, cli) -> None:
    path = case["path"]
    args_json = json.dumps(case["args"])
    out = cli.run("process", "--tool", case["tool"], "--args-json", args_json, "--json", str(path)).stdout.decode()
    processor = toolcap.ToolResultProcessor()
    data = path.read_bytes()
    p = processor.process(case["tool"], data.decode("utf-8"), case["args"])
    assert p.to_json() == out.rstrip("\n")
    d = p.to_dict()
    expected = json.loads(out)
    assert d == expected
    assert list(d) == list(expected)  # same keys, same order
    # the attributes are the JSON fields
    for key in ("text", "truncated", "bypassed", "original", "kept", "omitted", "suggestions", "tool", "family",
                "reason", "threshold", "unit", "kept_budget", "language"):
        assert getattr(p, key) == expected[key], key
    assert (p.outline.to_dict() if p.outline else None) == expected["outline"]
    # bytes in, same report out
    assert processor.process(case["tool"], data, case["args"]).to_json() == p.to_json()


def test_tool_call_id_is_echoed_like_the_cli(cli) -> None:
    case = next(c for c in CASES if c["tool"] == "read_file")
    out = cli.run(
        "process", "--tool", "read_file", "--args-json", json.dumps(case["args"]), "--id", "call_7", "--json",
        str(case["path"]),
    ).stdout.decode()
    p = toolcap.ToolResultProcessor().process("read_file", case["path"].read_text(), case["args"], "call_7")
    assert p.to_json() == out.rstrip("\n")
    assert p.to_dict()["tool_call_id"] == "call_7" == p.tool_call_id


def test_invalid_utf8_bytes_decode_like_the_cli(cli, tmp_path) -> None:
    # a real log with a byte that is not UTF-8 in the middle
    log = (case_path := next(c for c in CASES if c["tool"] == "shell")["path"]).read_bytes()
    data = log[:3000] + b"\xff\xfe bad bytes \xc3\n" + log[3000:] * 3
    f = tmp_path / "mixed.log"
    f.write_bytes(data)
    args = {"command": "cargo test"}
    out = cli.run("process", "--tool", "shell", "--args-json", json.dumps(args), "--json", str(f)).stdout.decode()
    p = toolcap.ToolResultProcessor().process("shell", data, args)
    assert p.to_json() == out.rstrip("\n"), case_path
    assert p.original["bytes"] == len(data)  # the input's own bytes, as the CLI counts them
