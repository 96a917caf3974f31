"""toolcap: make oversized LLM tool results fit the context window without losing
the way back to what was cut.

The Python face of the toolcap Rust library (see docs/python.md)::

    import toolcap

    processor = toolcap.ToolResultProcessor(store=toolcap.MemoryStore())
    out = processor.process("read_file", text, {"path": "big.py"}, tool_call_id="call_1")
    out.text          # what the model should see
    out.truncated     # and the exact facts behind it (the `toolcap process --json` fields)

Every call into the library releases the GIL; the ``a``-prefixed forms
(``aprocess``, ``adispatch``, ``aget_continuation``, ...) run it in a worker thread
so an event loop stays free. Errors are ``ToolcapError`` subclasses carrying the
messages the ``toolcap`` command line prints.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Union, final

from . import _toolcap
from ._toolcap import (
    ConfigError,
    Outline,
    OutlineError,
    Processed,
    StoreError,
    Symbol,
    ToolcapError,
    ToolReply,
    __version__,
    dispatch,
    fetch_tool_output,
    get_continuation,
    get_tool_result,
    languages,
    outline,
    outline_text,
    prepare_messages,
    query_tool_output,
    reference_message,
    search_tool_output,
    tool_definitions,
)

if TYPE_CHECKING:  # pragma: no cover
    from ._types import StoredMeta


__all__ = [
    "ConfigError",
    "MemoryStore",
    "Outline",
    "OutlineError",
    "PostgresStore",
    "Processed",
    "SqliteStore",
    "Store",
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
    "open_store",
    "outline",
    "outline_text",
    "prepare_messages",
    "query_tool_output",
    "reference_message",
    "search_tool_output",
    "tool_definitions",
]

_Args = Union[None, str, Dict[str, Any]]


class _StoreMethods:
    """Methods shared by both stores (the Rust ``ResultStore`` trait)."""

    __slots__ = ()

    def put(
        self,
        tool_call_id: str,
        tool_name: str,
        output: Union[str, bytes],
        args: _Args = None,
        *,
        dialog: Optional[str] = None,
        truncated: bool = False,
        shown_chars: Optional[int] = None,
    ) -> None:
        """Keep ``output`` under ``tool_call_id`` (replacing an earlier one)."""
        _toolcap.store_put(
            self,  # type: ignore[arg-type]
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
        return _toolcap.store_get(self, tool_call_id, dialog=dialog)  # type: ignore[arg-type]

    def meta(self, tool_call_id: str, *, dialog: Optional[str] = None) -> Optional[StoredMeta]:
        """The metadata of a stored result (the fields of ``toolcap show --meta``), or None."""
        return _toolcap.store_meta(self, tool_call_id, dialog=dialog)  # type: ignore[arg-type]

    def list(self, dialog: Optional[str] = None) -> List[StoredMeta]:
        """Metadata of the results of one dialog (or of all), oldest first."""
        return _toolcap.store_list(self, dialog)  # type: ignore[arg-type]

    def delete_dialog(self, dialog: str) -> int:
        """Delete one dialog's results; returns how many were deleted."""
        return _toolcap.store_delete_dialog(self, dialog)  # type: ignore[arg-type]

    def prune_older_than(self, seconds: float) -> int:
        """Delete results older than ``seconds``; returns how many were deleted."""
        return _toolcap.store_prune_older_than(self, seconds)  # type: ignore[arg-type]

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
            self,  # type: ignore[arg-type]
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
        from_end: bool = False,
    ) -> ToolReply:
        """``search_tool_output`` over this store: see :func:`toolcap.search_tool_output`."""
        return search_tool_output(
            self,  # type: ignore[arg-type]
            tool_call_id,
            pattern,
            context=context,
            max_matches=max_matches,
            skip=skip,
            ignore_case=ignore_case,
            dialog=dialog,
            from_end=from_end,
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
        return fetch_tool_output(self, tool_call_id, offset, limit, dialog=dialog)  # type: ignore[arg-type]

    def get_tool_result(self, tool_call_id: str, *, dialog: Optional[str] = None) -> ToolReply:
        """``get_tool_result`` over this store: see :func:`toolcap.get_tool_result`."""
        return get_tool_result(self, tool_call_id, dialog=dialog)  # type: ignore[arg-type]

    def query_tool_output(
        self, tool_call_id: str, path: str, *, dialog: Optional[str] = None, chunk_chars: int = 2000
    ) -> ToolReply:
        """``query_tool_output`` over this store: see :func:`toolcap.query_tool_output`."""
        return query_tool_output(self, tool_call_id, path, dialog=dialog, chunk_chars=chunk_chars)  # type: ignore[arg-type]

    # The async forms: the same calls in a worker thread (the Rust work releases
    # the GIL), so an event loop is not stalled by a large result or a slow disk.

    async def aget(self, tool_call_id: str, *, dialog: Optional[str] = None) -> Optional[str]:
        """:meth:`get`, off the event loop."""
        return await asyncio.to_thread(self.get, tool_call_id, dialog=dialog)

    async def aget_continuation(self, tool_call_id: str, offset: Optional[int] = None, **kw: Any) -> ToolReply:
        """:meth:`get_continuation`, off the event loop."""
        return await asyncio.to_thread(self.get_continuation, tool_call_id, offset, **kw)

    async def asearch_tool_output(self, tool_call_id: str, pattern: str, **kw: Any) -> ToolReply:
        """:meth:`search_tool_output`, off the event loop."""
        return await asyncio.to_thread(self.search_tool_output, tool_call_id, pattern, **kw)

    async def afetch_tool_output(
        self, tool_call_id: str, offset: Optional[int] = None, limit: Optional[int] = None, **kw: Any
    ) -> ToolReply:
        """:meth:`fetch_tool_output`, off the event loop."""
        return await asyncio.to_thread(self.fetch_tool_output, tool_call_id, offset, limit, **kw)

    async def aget_tool_result(self, tool_call_id: str, *, dialog: Optional[str] = None) -> ToolReply:
        """:meth:`get_tool_result`, off the event loop."""
        return await asyncio.to_thread(self.get_tool_result, tool_call_id, dialog=dialog)

    async def aquery_tool_output(self, tool_call_id: str, path: str, **kw: Any) -> ToolReply:
        """:meth:`query_tool_output`, off the event loop."""
        return await asyncio.to_thread(self.query_tool_output, tool_call_id, path, **kw)


@final
class MemoryStore(_StoreMethods, _toolcap.MemoryStore):
    """Results kept in memory for the life of this object (a per-turn cache).

    ``MemoryStore(limit_bytes=None)``: with a limit, the oldest results are dropped
    first once the outputs held would exceed it.
    """

    __slots__ = ()


@final
class SqliteStore(_StoreMethods, _toolcap.SqliteStore):
    """Results kept in one SQLite file (WAL mode, safe for many processes at once):
    the store of the ``toolcap`` command line (``--store PATH``).

    ``SqliteStore(path, *, create_dirs=False)`` creates the file when it is missing;
    its directory must exist unless ``create_dirs=True``.
    """

    __slots__ = ()


@final
class PostgresStore(_StoreMethods, _toolcap.PostgresStore):
    """Results kept in PostgreSQL, shared by many hosts: the command line's
    ``--store postgres://...``.

    ``PostgresStore(url)`` (``postgres://user:password@host:port/database``) creates
    toolcap's tables when they are missing. Needs a package built with the
    ``postgres`` feature (``maturin develop --features postgres``); without it,
    opening one is a ``StoreError`` that says so.
    """

    __slots__ = ()


#: A result store.
Store = Union[MemoryStore, SqliteStore, PostgresStore]

#: The byte limit of a store opened from the spec ``"memory"`` (64 MiB).
DEFAULT_MEMORY_LIMIT_BYTES = 64 * 1024 * 1024


def open_store(
    spec: Union[None, str, "os.PathLike[str]", Store], *, create_dirs: bool = False
) -> Optional[Store]:
    """The store ``spec`` names: None (none), a store (itself), ``"memory"`` (a
    :class:`MemoryStore` holding at most ``DEFAULT_MEMORY_LIMIT_BYTES``, oldest
    dropped first), a ``postgres://`` URL (a :class:`PostgresStore`), or a SQLite
    file path: an ``os.PathLike``, or a str that reads
    as a path (it holds a ``/`` or ends in ``.db``, ``.sqlite`` or ``.sqlite3``).
    Any other str (``"memry"``) is a ``ValueError``, not a new file of that name;
    a path's directory must exist unless ``create_dirs=True``. The same rules as
    the command line's (``toolcap::bind``)."""
    if spec is None or isinstance(spec, (MemoryStore, SqliteStore, PostgresStore)):
        return spec
    if isinstance(spec, (_toolcap.MemoryStore, _toolcap.SqliteStore, _toolcap.PostgresStore)):
        raise TypeError(
            "store: pass a toolcap.MemoryStore, toolcap.SqliteStore or toolcap.PostgresStore (the package's classes)"
        )
    if isinstance(spec, str):
        kind, value = _toolcap._store_spec(spec)
        if kind == "memory":
            return MemoryStore(value)
        if kind == "postgres":
            return PostgresStore(value)
        return SqliteStore(value, create_dirs=create_dirs)
    if isinstance(spec, os.PathLike):
        return SqliteStore(spec, create_dirs=create_dirs)
    raise TypeError(
        f"store: expected None, \"memory\", a path (str or os.PathLike) or a toolcap store, got {type(spec).__name__}"
    )


@final
class ToolResultProcessor(_toolcap.ToolResultProcessor):
    """Makes oversized tool results fit the context window.

    ``ToolResultProcessor(config=None, *, store=None, dialog=None, save="cut",
    line_aligned=False)``: see docs/python.md. ``process`` / ``process_stream`` /
    ``dispatch`` and the recovery calls have ``a``-prefixed async forms that run
    in a worker thread (``asyncio.to_thread``): the event loop stays free.
    """

    __slots__ = ()

    async def aprocess(
        self,
        tool_name: str,
        result: Union[str, bytes, bytearray],
        args: _Args = None,
        tool_call_id: Optional[str] = None,
        *,
        dialog: Optional[str] = None,
        lang: Optional[str] = None,
        context_left: Optional[int] = None,
        context_limit: Optional[int] = None,
        context_used: Optional[int] = None,
        model: Optional[str] = None,
    ) -> Processed:
        """:meth:`process`, off the event loop."""
        return await asyncio.to_thread(
            self.process,
            tool_name,
            result,
            args,
            tool_call_id,
            dialog=dialog,
            lang=lang,
            context_left=context_left,
            context_limit=context_limit,
            context_used=context_used,
            model=model,
        )

    async def aprocess_stream(
        self,
        tool_name: str,
        source: Any,
        args: _Args = None,
        tool_call_id: Optional[str] = None,
        *,
        dialog: Optional[str] = None,
        lang: Optional[str] = None,
        context_left: Optional[int] = None,
        context_limit: Optional[int] = None,
        context_used: Optional[int] = None,
        model: Optional[str] = None,
    ) -> Processed:
        """:meth:`process_stream`, off the event loop (``source`` is read in the
        worker thread: a blocking file object or pipe, not an async stream)."""
        return await asyncio.to_thread(
            self.process_stream,
            tool_name,
            source,
            args,
            tool_call_id,
            dialog=dialog,
            lang=lang,
            context_left=context_left,
            context_limit=context_limit,
            context_used=context_used,
            model=model,
        )

    async def adispatch(
        self, name: str, arguments: _Args = None, *, dialog: Optional[str] = None
    ) -> Optional[ToolReply]:
        """:meth:`dispatch`, off the event loop."""
        return await asyncio.to_thread(self.dispatch, name, arguments, dialog=dialog)

    async def aget_continuation(self, tool_call_id: str, offset: Optional[int] = None, **kw: Any) -> ToolReply:
        """:meth:`get_continuation`, off the event loop."""
        return await asyncio.to_thread(self.get_continuation, tool_call_id, offset, **kw)

    async def asearch_tool_output(self, tool_call_id: str, pattern: str, **kw: Any) -> ToolReply:
        """:meth:`search_tool_output`, off the event loop."""
        return await asyncio.to_thread(self.search_tool_output, tool_call_id, pattern, **kw)

    async def afetch_tool_output(
        self, tool_call_id: str, offset: Optional[int] = None, limit: Optional[int] = None, **kw: Any
    ) -> ToolReply:
        """:meth:`fetch_tool_output`, off the event loop."""
        return await asyncio.to_thread(self.fetch_tool_output, tool_call_id, offset, limit, **kw)

    async def aget_tool_result(self, tool_call_id: str, *, dialog: Optional[str] = None) -> ToolReply:
        """:meth:`get_tool_result`, off the event loop."""
        return await asyncio.to_thread(self.get_tool_result, tool_call_id, dialog=dialog)

    def query_tool_output(self, tool_call_id: str, path: str, *, dialog: Optional[str] = None) -> ToolReply:
        """The value at ``path`` (``.packages[0].name``, ``.items[*].id``) in a stored
        JSON result (from the attached store), as indented JSON: the reply the model
        gets from ``query_tool_output``."""
        store = self.store
        if store is None:
            raise ToolcapError(
                "no result store attached; create the processor with store=toolcap.MemoryStore() or store=toolcap.SqliteStore(path)"
            )
        return query_tool_output(
            store, tool_call_id, path, dialog=dialog or self.dialog, chunk_chars=self.max_kept_chars
        )

    async def aquery_tool_output(self, tool_call_id: str, path: str, *, dialog: Optional[str] = None) -> ToolReply:
        """:meth:`query_tool_output`, off the event loop."""
        return await asyncio.to_thread(self.query_tool_output, tool_call_id, path, dialog=dialog)
