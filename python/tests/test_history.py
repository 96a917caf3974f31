"""The history policy from Python: old tool results of the scripted 200-turn
conversation (tests/fixtures/history, real stdlib reads and commands) masked in
batches, each kept in the store and read back through the call its line names."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Dict, List

import pytest

import toolcap

HISTORY = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "history"
LINE = re.compile(
    r'^\[result of .* \(tool_call_id "(?P<id>[^"]+)", (?P<chars>[\d,]+) chars?, [\d,]+ lines?\) masked — '
    r'get_continuation\(tool_call_id="(?P=id)", offset=0\)  # read it again from the start\]$'
)


def load(name: str) -> List[Dict[str, Any]]:
    doc: Dict[str, Any] = json.loads((HISTORY / f"{name}.json").read_text(encoding="utf-8"))
    messages: List[Dict[str, Any]] = doc["messages"]
    return messages


def results(messages: List[Dict[str, Any]]) -> Dict[str, str]:
    """tool call id -> result text, in any of the three formats."""
    out: Dict[str, str] = {}
    for m in messages:
        if m.get("role") == "tool":
            out[m["tool_call_id"]] = m["content"]
        elif m.get("type") == "function_call_output":
            out[m["call_id"]] = m["output"]
        elif isinstance(m.get("content"), list):
            for b in m["content"]:
                if b.get("type") == "tool_result":
                    out[b["tool_use_id"]] = b["content"]
    return out


@pytest.mark.parametrize("name", ["openai_chat", "openai_responses", "anthropic"])
def test_old_results_are_masked_and_read_back(name: str) -> None:
    messages = load(name)
    store = toolcap.MemoryStore()
    processor = toolcap.ToolResultProcessor(store=store, dialog="d1")
    policy = {"keep_tokens": 20000, "min_prunable_tokens": 10000}
    out = processor.prepare_messages(messages, policy=policy)
    assert len(out) == len(messages)
    before, after = results(messages), results(out)
    assert before.keys() == after.keys()
    masked = {i: t for i, t in after.items() if t != before[i]}
    assert len(masked) > 50
    for i, line in masked.items():
        m = LINE.match(line)
        assert m, line
        assert int(m["chars"].replace(",", "")) == len(before[i])
        # the line's call gets the original back, byte for byte
        assert processor.get_tool_result(i).text == before[i]
    # same input, same output; the output is its own fixed point
    assert processor.prepare_messages(messages, policy=policy) == out
    assert processor.prepare_messages(out, policy=policy) == out
    # the module function over the same store does the same
    assert toolcap.prepare_messages(store, messages, dialog="d1", policy=policy) == out


def test_bad_policies_say_what_to_fix() -> None:
    store = toolcap.MemoryStore()
    with pytest.raises(ValueError, match="unknown field `keep`"):
        toolcap.prepare_messages(store, [], policy={"keep": 3})
    with pytest.raises(ValueError, match="not both"):
        toolcap.prepare_messages(store, [], True, policy={})
