"""toolcap for the OpenAI Agents SDK.

The SDK has no hook that rewrites a tool's output, so toolcap wraps the tools:
one line::

    from agents import Agent
    from toolcap.integrations.openai_agents import capped

    agent = Agent(name="coder", tools=capped([read_file, run_shell]))

``capped(tools)`` returns each ``FunctionTool`` with its output processed by
toolcap (off the event loop) before the model sees it, followed by the recovery
tools (``get_continuation``, ``search_tool_output``, ``fetch_tool_output``,
``get_tool_result``) as ``FunctionTool``\\ s over the same store, so the model can
follow a marker to the exact lines. Other kinds of tools (hosted tools, ...) are
passed through unchanged.

Needs ``pip install toolcap[openai-agents]``.
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any, Dict, List, Optional, Sequence, Union

from agents import FunctionTool, RunContextWrapper

from .. import Store, ToolResultProcessor
from ._common import processor_of, recovery_definitions

__all__ = ["capped", "recovery_tools"]


def recovery_tools(processor: ToolResultProcessor) -> List[FunctionTool]:
    """The recovery tools as ``FunctionTool``\\ s over ``processor``'s store, from
    its :meth:`~toolcap.ToolResultProcessor.tool_definitions`."""
    tools: List[FunctionTool] = []
    for d in recovery_definitions(processor):

        async def invoke(ctx: RunContextWrapper[Any], input_json: str, _name: str = d["name"]) -> str:
            reply = await processor.adispatch(_name, input_json)
            return "" if reply is None else reply.text

        tools.append(
            FunctionTool(
                name=d["name"],
                description=d["description"],
                params_json_schema=d["parameters"],
                on_invoke_tool=invoke,
                strict_json_schema=False,
            )
        )
    return tools


def capped(
    tools: Sequence[Any],
    processor: Optional[ToolResultProcessor] = None,
    *,
    config: Union[None, str, "os.PathLike[str]", Dict[str, Any]] = None,
    store: Union[None, str, "os.PathLike[str]", Store] = "memory",
    dialog: Optional[str] = None,
    add_recovery_tools: bool = True,
) -> List[Any]:
    """``tools`` with every ``FunctionTool``'s output capped by toolcap, then the
    recovery tools (unless ``add_recovery_tools=False`` or there is no store).

    ``processor``: a :class:`toolcap.ToolResultProcessor` to use; else one made
    from ``config``, ``store`` (a spec as :func:`toolcap.open_store` reads it) and
    ``dialog``.
    """
    p = processor_of(processor, config, store, dialog)
    out: List[Any] = [_cap(t, p) if isinstance(t, FunctionTool) else t for t in tools]
    if add_recovery_tools and p.store is not None:
        names = {getattr(t, "name", None) for t in out}
        out += [t for t in recovery_tools(p) if t.name not in names]
    return out


def _cap(tool: FunctionTool, processor: ToolResultProcessor) -> FunctionTool:
    inner = tool.on_invoke_tool

    async def invoke(ctx: Any, input_json: str) -> Any:
        result = await inner(ctx, input_json)
        if isinstance(result, str):
            text = result
        elif isinstance(result, (bytes, bytearray)):
            text = bytes(result).decode("utf-8", "replace")
        else:
            # structured outputs (images, files, lists of them) go to the model as
            # they are; other values as the SDK would show them
            if type(result).__module__.startswith("agents"):
                return result
            try:
                text = json.dumps(result, ensure_ascii=False)
            except (TypeError, ValueError):
                text = str(result)
        call_id = getattr(ctx, "tool_call_id", None)
        out = await processor.aprocess(tool.name, text, input_json or None, call_id)
        return result if out.text == text and isinstance(result, str) else out.text

    return dataclasses.replace(tool, on_invoke_tool=invoke)
