"""A drop-in adapter for harnesses shaped like the seed processor.

Many Python agent harnesses have a class like::

    class ToolResultProcessor:
        def process_result(self, tool_name, result, tool_args=None, tool_call_id=None) -> str: ...

that gets every tool result before it goes into the conversation. Replace it with
this one (``from toolcap.adapter import ToolResultProcessor``): same call shape, the
text the model should see comes back, and toolcap does the cutting. Tool names are
the harness's own (``read_file``, ``execute_shell``, ``grep_content``, ``Bash``, ...):
the configuration (``thresholds.toml``, a user file or a dict) maps them to tool
families, as for the ``toolcap`` command line.

With a store (the default here is a :class:`toolcap.MemoryStore`), a cut result is
kept under its ``tool_call_id`` and the model can page through it with the recovery
tools: offer :meth:`tool_definitions` and route its calls through
:meth:`handle_tool_call`.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Union

from . import _toolcap
from . import MemoryStore, Processed, SqliteStore, ToolReply

__all__ = ["ToolResultProcessor"]


class ToolResultProcessor:
    """``process_result(tool_name, result, tool_args=None, tool_call_id=None) -> str``
    over :class:`toolcap.ToolResultProcessor`.

    ``ToolResultProcessor(config=None, *, store="memory", dialog=None, save="cut")``:
    ``config`` is None (built-in thresholds, then ``$TOOLCAP_CONFIG`` and
    ``$TOOL_RESULT_BYPASS_TOOLS``), a path to a TOML file, or a dict of its keys.
    ``store`` is ``"memory"`` (a new :class:`toolcap.MemoryStore`, the default),
    None (keep nothing), a path (a :class:`toolcap.SqliteStore` there), or a store.
    """

    def __init__(
        self,
        config: Union[None, str, "os.PathLike[str]", Dict[str, Any]] = None,
        *,
        store: Any = "memory",
        dialog: Optional[str] = None,
        save: str = "cut",
    ) -> None:
        if isinstance(store, str) and store == "memory":
            store = MemoryStore()
        elif store is not None and not isinstance(store, (_toolcap.MemoryStore, _toolcap.SqliteStore)):
            store = SqliteStore(store)
        self.processor = _toolcap.ToolResultProcessor(config, store=store, dialog=dialog, save=save)
        #: The :class:`toolcap.Processed` report of the last call, for logging.
        self.last: Optional[Processed] = None

    @property
    def store(self) -> Any:
        """The store full results are kept in, or None."""
        return self.processor.store

    def process_result(
        self,
        tool_name: str,
        result: Any,
        tool_args: Union[None, str, Dict[str, Any]] = None,
        tool_call_id: Optional[str] = None,
    ) -> str:
        """The text the model should see for ``result``, the result of ``tool_name``.

        ``result`` is str or bytes; None becomes ""; any other value is sent as its
        JSON text (or ``str()`` when it is not JSON). ``tool_args`` is a dict, JSON
        text of one (OpenAI's ``function.arguments``), or None.
        """
        if result is None:
            result = ""
        elif not isinstance(result, (str, bytes)):
            try:
                result = json.dumps(result, ensure_ascii=False)
            except (TypeError, ValueError):
                result = str(result)
        self.last = self.processor.process(tool_name, result, tool_args, tool_call_id)
        return self.last.text

    def tool_definitions(self, format: str = "openai") -> List[Dict[str, Any]]:
        """The recovery tools to offer the model (``openai`` or ``anthropic`` form)."""
        return self.processor.tool_definitions(format)

    def handle_tool_call(self, name: str, arguments: Union[None, str, Dict[str, Any]] = None) -> Optional[str]:
        """The result of a recovery tool call (``get_continuation``,
        ``fetch_tool_output``, ``get_tool_result``), or None when ``name`` is another
        tool (run it as usual, then pass its result to :meth:`process_result`)."""
        reply: Optional[ToolReply] = self.processor.dispatch(name, arguments)
        return None if reply is None else reply.text
