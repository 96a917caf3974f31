"""toolcap for LangChain 1.x agents (``create_agent``) and LangGraph.

One line::

    from langchain.agents import create_agent
    from toolcap.integrations.langchain import ToolcapMiddleware

    agent = create_agent(model, tools=[read_file, run_shell], middleware=[ToolcapMiddleware()])

Every tool result goes through toolcap before the model sees it (``wrap_tool_call``
and ``awrap_tool_call``; the async form processes in a worker thread). A cut result
is kept in the middleware's store under the tool call's id, and the recovery tools
(``get_continuation``, ``search_tool_output``, ``fetch_tool_output``,
``get_tool_result``) are added to the agent as LangChain tools, so the model can
follow the marker to the exact lines. Results whose content is a list of content
blocks have their text blocks processed as one text (other blocks, such as images,
are kept as they are); a tool that returns a ``Command`` has the ``ToolMessage``\\ s
in its update processed.

Needs ``pip install toolcap[langchain]`` (``langchain>=1.0``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from typing import Any, Awaitable, Callable, Dict, List, Optional, Sequence, Union

from langchain.agents.middleware import AgentMiddleware
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.types import Command

from .. import Processed, Store, ToolResultProcessor
from ._common import processor_of, recovery_definitions

__all__ = ["ToolcapMiddleware", "recovery_tools"]

_Result = Union[ToolMessage, Command]  # type: ignore[type-arg]


def recovery_tools(processor: ToolResultProcessor) -> List[BaseTool]:
    """The recovery tools as LangChain tools over ``processor``'s store, built from
    its :meth:`~toolcap.ToolResultProcessor.tool_definitions` (names, descriptions
    and argument schemas exactly as toolcap defines them)."""
    tools: List[BaseTool] = []
    for d in recovery_definitions(processor):
        name = d["name"]

        def run(_name: str = name, **kwargs: Any) -> str:
            reply = processor.dispatch(_name, kwargs)
            return "" if reply is None else reply.text

        async def arun(_name: str = name, **kwargs: Any) -> str:
            reply = await processor.adispatch(_name, kwargs)
            return "" if reply is None else reply.text

        tools.append(
            StructuredTool.from_function(
                func=run,
                coroutine=arun,
                name=name,
                description=d["description"],
                args_schema=d["parameters"],
                infer_schema=False,
            )
        )
    return tools


class ToolcapMiddleware(AgentMiddleware):
    """Caps every tool result with toolcap; adds the recovery tools.

    ``ToolcapMiddleware(processor=None, *, config=None, store="memory", dialog=None,
    add_recovery_tools=True)``: a :class:`toolcap.ToolResultProcessor` to use, or
    the ``config`` / ``store`` / ``dialog`` to make one with (``store``: a spec as
    :func:`toolcap.open_store` reads it; None keeps nothing and adds no recovery
    tool).
    """

    def __init__(
        self,
        processor: Optional[ToolResultProcessor] = None,
        *,
        config: Union[None, str, "os.PathLike[str]", Dict[str, Any]] = None,
        store: Union[None, str, "os.PathLike[str]", Store] = "memory",
        dialog: Optional[str] = None,
        add_recovery_tools: bool = True,
    ) -> None:
        super().__init__()
        self.processor = processor_of(processor, config, store, dialog)
        self.tools = (
            recovery_tools(self.processor) if add_recovery_tools and self.processor.store is not None else []
        )
        #: The last report, for logging.
        self.last: Optional[Processed] = None

    @property
    def name(self) -> str:
        return "ToolcapMiddleware"

    def wrap_tool_call(self, request: Any, handler: Callable[[Any], _Result]) -> _Result:
        return self._cap(request.tool_call, handler(request))

    async def awrap_tool_call(self, request: Any, handler: Callable[[Any], Awaitable[_Result]]) -> _Result:
        result = await handler(request)
        return await asyncio.to_thread(self._cap, request.tool_call, result)

    # -- internals -------------------------------------------------------------

    def _cap(self, call: Dict[str, Any], result: _Result) -> _Result:
        if isinstance(result, ToolMessage):
            return self._cap_message(call, result)
        if isinstance(result, Command):
            update = result.update
            if isinstance(update, dict) and isinstance(update.get("messages"), list):
                msgs = [self._cap_message(call, m) if isinstance(m, ToolMessage) else m for m in update["messages"]]
                return dataclasses.replace(result, update={**update, "messages": msgs})
        return result

    def _cap_message(self, call: Dict[str, Any], msg: ToolMessage) -> ToolMessage:
        text, rest = _split_content(msg.content)
        if text is None:
            return msg
        tool_call_id = msg.tool_call_id or call.get("id")
        out = self.processor.process(msg.name or call.get("name") or "", text, call.get("args"), tool_call_id)
        self.last = out
        if out.text is text or out.text == text:
            return msg
        content: Union[str, List[Any]]
        if isinstance(msg.content, str):
            content = out.text
        else:
            content = [{"type": "text", "text": out.text}, *rest]
        return msg.model_copy(update={"content": content})


def _split_content(content: Any) -> "tuple[Optional[str], List[Any]]":
    """A message's text (str content, or the text blocks of a list joined) and its
    other blocks; None when there is no text."""
    if isinstance(content, str):
        return content, []
    if not isinstance(content, Sequence):
        return None, []
    texts: List[str] = []
    rest: List[Any] = []
    for block in content:
        if isinstance(block, str):
            texts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            texts.append(block["text"])
        else:
            rest.append(block)
    if not texts:
        return None, rest
    return "".join(texts), rest

