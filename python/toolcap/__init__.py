"""toolcap: make oversized LLM tool results fit the context window without losing
the way back to what was cut.

The Python face of the toolcap Rust library (see docs/python.md)::

    import toolcap

    processor = toolcap.ToolResultProcessor(store=toolcap.MemoryStore())
    out = processor.process("read_file", text, {"path": "big.py"}, tool_call_id="call_1")
    out.text          # what the model should see
    out.truncated     # and the exact facts behind it (the `toolcap process --json` fields)

Every call into the library releases the GIL; errors are ``ToolcapError`` subclasses
carrying the messages the ``toolcap`` command line prints.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from . import _toolcap
from ._toolcap import (
    ConfigError,
    OutlineError,
    Outline,
    Processed,
    StoreError,
    Symbol,
    ToolcapError,
    ToolReply,
    ToolResultProcessor,
    __version__,
    dispatch,
    fetch_tool_output,
    get_continuation,
    get_tool_result,
    languages,
    outline,
    prepare_messages,
    reference_message,
    search_tool_output,
    tool_definitions,
)

__all__ = [
    "ConfigError",
    "MemoryStore",
    "Outline",
    "OutlineError",
    "Processed",
    "SqliteStore",
    "StoreError",
    "Symbol",
    "ToolReply",
    "ToolResultProcessor",
    "ToolcapError",
    "__version__",
    "dispatch",
    "fetch_tool_output",
    "get_continuation",
    "get_tool_result",
    "languages",
    "outline",
    "prepare_messages",
    "reference_message",
    "search_tool_output",
    "tool_definitions",
]


class _StoreMethods:
    """Methods shared by both stores (the Rust ``ResultStore`` trait)."""

    __slots__ = ()

    def put(
        self,
        tool_call_id: str,
        tool_name: str,
        output: "str | bytes",
        args: "Optional[Dict[str, Any]]" = None,
        *,
        dialog: Optional[str] = None,
        truncated: bool = False,
        shown_chars: Optional[int] = None,
    ) -> None:
        """Keep ``output`` under ``tool_call_id`` (replacing an earlier one)."""
        _toolcap.store_put(
            self,
            tool_call_id,
            tool_name,
            output,
            args,
            dialog=dialog,
            truncated=truncated,
            shown_chars=shown_chars,
        )

    def get(self, tool_call_id: str, *, dialog: Optional[str] = None) -> Optional[str]:
        """The full stored output, or None."""
        return _toolcap.store_get(self, tool_call_id, dialog=dialog)

    def meta(self, tool_call_id: str, *, dialog: Optional[str] = None) -> Optional[Dict[str, Any]]:
        """The metadata of a stored result (the fields of ``toolcap show --meta``), or None."""
        return _toolcap.store_meta(self, tool_call_id, dialog=dialog)

    def list(self, dialog: Optional[str] = None) -> List[Dict[str, Any]]:
        """Metadata of the results of one dialog (or of all), oldest first."""
        return _toolcap.store_list(self, dialog)

    def delete_dialog(self, dialog: str) -> int:
        """Delete one dialog's results; returns how many were deleted."""
        return _toolcap.store_delete_dialog(self, dialog)

    def prune_older_than(self, seconds: float) -> int:
        """Delete results older than ``seconds``; returns how many were deleted."""
        return _toolcap.store_prune_older_than(self, seconds)

    def get_continuation(
        self,
        tool_call_id: str,
        offset: Optional[int] = None,
        *,
        start_line: Optional[int] = None,
        end_line: Optional[int] = None,
        dialog: Optional[str] = None,
        chunk_chars: int = 2000,
        line_aligned: bool = False,
    ) -> ToolReply:
        """``get_continuation`` over this store: see :func:`toolcap.get_continuation`."""
        return get_continuation(
            self,
            tool_call_id,
            offset,
            start_line=start_line,
            end_line=end_line,
            dialog=dialog,
            chunk_chars=chunk_chars,
            line_aligned=line_aligned,
        )

    def search_tool_output(
        self,
        tool_call_id: str,
        pattern: str,
        *,
        context: int = 1,
        max_matches: int = 20,
        skip: int = 0,
        ignore_case: bool = False,
        dialog: Optional[str] = None,
    ) -> ToolReply:
        """``search_tool_output`` over this store: see :func:`toolcap.search_tool_output`."""
        return search_tool_output(
            self,
            tool_call_id,
            pattern,
            context=context,
            max_matches=max_matches,
            skip=skip,
            ignore_case=ignore_case,
            dialog=dialog,
        )

    def fetch_tool_output(
        self,
        tool_call_id: str,
        offset: Optional[int] = None,
        limit: Optional[int] = None,
        *,
        dialog: Optional[str] = None,
    ) -> ToolReply:
        """``fetch_tool_output`` over this store: see :func:`toolcap.fetch_tool_output`."""
        return fetch_tool_output(self, tool_call_id, offset, limit, dialog=dialog)

    def get_tool_result(self, tool_call_id: str, *, dialog: Optional[str] = None) -> ToolReply:
        """``get_tool_result`` over this store: see :func:`toolcap.get_tool_result`."""
        return get_tool_result(self, tool_call_id, dialog=dialog)


class MemoryStore(_StoreMethods, _toolcap.MemoryStore):
    """Results kept in memory for the life of this object (a per-turn cache).

    ``MemoryStore(limit_bytes=None)``: with a limit, the oldest results are dropped
    first once the outputs held would exceed it.
    """

    __slots__ = ()


class SqliteStore(_StoreMethods, _toolcap.SqliteStore):
    """Results kept in one SQLite file (WAL mode, safe for many processes at once):
    the store of the ``toolcap`` command line (``--store PATH``).

    ``SqliteStore(path)`` creates the file when it is missing.
    """

    __slots__ = ()
