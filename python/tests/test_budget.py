"""Budgets that follow the model from Python: ``process(..., context_left=...)``
and friends shrink the view as the window fills, and say why."""

from __future__ import annotations

import asyncio
import json

import pytest

import toolcap
from conftest import FIXTURES

TYPING = (FIXTURES / "read_file" / "typing.py").read_text(encoding="utf-8")


def kept_chars(p: toolcap.Processed) -> int:
    return sum(k["chars"] for k in p.kept)


def test_kept_size_shrinks_as_the_window_fills() -> None:
    processor = toolcap.ToolResultProcessor()
    rows = []
    for used in (0, 150_000, 190_000, 194_000, 197_000, 199_000, 200_000):
        out = processor.process(
            "read_file", TYPING, {"path": "typing.py"}, context_limit=200_000, context_used=used
        )
        assert out.truncated
        assert out.budget is not None
        assert out.budget["context_left"] == 200_000 - used
        rows.append((used, out.threshold, kept_chars(out), out.budget_source))
    kept = [r[2] for r in rows]
    assert kept == sorted(kept, reverse=True), rows
    assert rows[0][3] == "config" and rows[0][1] == 3500
    assert rows[-1][3] == "context" and rows[-1][1] == 1500, rows
    assert kept[-1] < kept[0]


def test_the_same_figures_as_the_cli(cli) -> None:
    path = FIXTURES / "read_file" / "typing.py"
    expected = json.loads(
        cli.run(
            "process", "--tool", "read_file", "--arg", "path=typing.py", "--json",
            "--model", "gpt-4o", "--context-used", "120000", str(path),
        ).stdout
    )
    out = toolcap.ToolResultProcessor().process(
        "read_file", TYPING, {"path": "typing.py"}, model="gpt-4o", context_used=120_000
    )
    assert out.to_dict() == expected
    assert out.budget_source == "model" and out.budget["model_window"] == 128_000


def test_no_context_reports_config_and_no_figures() -> None:
    out = toolcap.ToolResultProcessor().process("read_file", TYPING, {"path": "typing.py"})
    assert out.budget_source == "config" and out.budget is None
    assert "budget" not in out.to_dict()


def test_figures_that_say_nothing_are_value_errors() -> None:
    p = toolcap.ToolResultProcessor()
    with pytest.raises(ValueError, match="context_limit"):
        p.process("read_file", TYPING, context_used=1000)
    with pytest.raises(ValueError, match=r"\[budget.models\]"):
        p.process("read_file", TYPING, model="my-own-llm")
    with pytest.raises(OverflowError):
        p.process("read_file", TYPING, context_left=-1)


def test_a_config_dict_sets_the_fraction_and_the_models() -> None:
    p = toolcap.ToolResultProcessor({"budget": {"fraction": 0.5, "models": {"my-own-llm": 10_000}}})
    out = p.process("read_file", TYPING, {"path": "typing.py"}, model="my-own-llm", context_used=8_500)
    # half of 1,500 tokens left, at 3 chars a token
    assert out.budget["allowance"] == 2250 and out.threshold == 2250
    with pytest.raises(toolcap.ConfigError, match="budget.fraction"):
        toolcap.ToolResultProcessor({"budget": {"fraction": 2}})


def test_async_and_stream_forms_take_the_same_keywords() -> None:
    p = toolcap.ToolResultProcessor()
    out = asyncio.run(p.aprocess("read_file", TYPING, {"path": "typing.py"}, context_left=5_000))
    assert out.threshold == 1500 and out.budget_source == "context"
    with open(FIXTURES / "shell" / "cargo_test_failure.log", "rb") as f:
        streamed = p.process_stream("shell", f, {"command": "cargo test"}, context_left=5_000)
    assert streamed.threshold == 1500 and streamed.kept_budget == 857
