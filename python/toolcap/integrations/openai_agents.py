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
follow a marker to the exact lines. The shell tools run locally (``ShellTool``
with an ``executor``, ``LocalShellTool``) have their executor's output capped the
same way, each command's stdout and stderr (a ``ShellResult``) or the text it
returns, under the model's call id. Other kinds of tools (hosted tools, ...) are
passed through unchanged.

Needs ``pip install toolcap[openai-agents]``.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import os
import shlex
from typing import Any, Dict, List, Optional, Sequence, Union

from agents import (
    FunctionTool,
    LocalShellCommandRequest,
    LocalShellTool,
    RunContextWrapper,
    ShellCommandRequest,
    ShellResult,
    ShellTool,
)

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
    out: List[Any] = [_capped_tool(t, p) for t in tools]
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


def _capped_tool(tool: Any, processor: ToolResultProcessor) -> Any:
    if isinstance(tool, FunctionTool):
        return _cap(tool, processor)
    if isinstance(tool, ShellTool) and tool.executor is not None:
        return _cap_shell(tool, processor)
    if isinstance(tool, LocalShellTool):
        return _cap_local_shell(tool, processor)
    return tool


async def _capped_text(processor: ToolResultProcessor, tool: str, text: str, command: str, call_id: Optional[str]) -> str:
    """``text`` as the model should see it: itself when short, else toolcap's view."""
    out = await processor.aprocess(tool, text, {"command": command}, call_id)
    return out.text if out.truncated else text


def _cap_shell(tool: ShellTool, processor: ToolResultProcessor) -> ShellTool:
    inner = tool.executor
    assert inner is not None

    async def run(request: ShellCommandRequest) -> Union[str, ShellResult]:
        result = inner(request)
        if inspect.isawaitable(result):
            result = await result
        call_id = request.data.call_id
        commands = list(request.data.action.commands)
        if isinstance(result, str):
            return await _capped_text(processor, tool.name, result, "\n".join(commands), call_id)
        if not isinstance(result, ShellResult):
            return result
        entries = []
        many = len(result.output) > 1
        for i, entry in enumerate(result.output):
            command = entry.command or (commands[i] if many and i < len(commands) else "\n".join(commands))
            key = f"{call_id}-{i + 1}" if many else call_id
            stdout = await _capped_text(processor, tool.name, entry.stdout, command, key)
            stderr = await _capped_text(processor, tool.name, entry.stderr, command, f"{key}-stderr")
            entries.append(dataclasses.replace(entry, stdout=stdout, stderr=stderr))
        return dataclasses.replace(result, output=entries)

    return dataclasses.replace(tool, executor=run)


def _cap_local_shell(tool: LocalShellTool, processor: ToolResultProcessor) -> LocalShellTool:
    inner = tool.executor

    async def run(request: LocalShellCommandRequest) -> str:
        result = inner(request)
        if inspect.isawaitable(result):
            result = await result
        if not isinstance(result, str):
            return result
        action = request.data.action
        command = shlex.join(action.command) if isinstance(action.command, list) else str(action.command)
        return await _capped_text(processor, tool.name, result, command, request.data.call_id)

    return dataclasses.replace(tool, executor=run)
