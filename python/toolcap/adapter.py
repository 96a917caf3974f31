"""A drop-in for harnesses shaped like the seed's tool result processor.

The processor toolcap replaces (the harness this project starts from) is called as::

    processor = ToolResultProcessor()
    text, was_modified = processor.process_result(tool_name, result, tool_context=None)
    processor.estimate_tokens(text)

Swap the import (``from toolcap.adapter import ToolResultProcessor``) and those calls
keep working: ``process_result`` returns ``(text the model should see, whether it
was cut)``, and toolcap does the cutting. ``tool_context`` is what the harness
knows about the call: a mapping of its arguments under the harness's own argument
names (``file_path`` or ``filename`` for ``read_file``, ``command`` for
``execute_shell``, ``pattern`` / ``path`` for ``grep_content`` and ``glob_files``,
``query`` for ``web_search``, ``url`` for ``web_fetch``), or a tool-call object
with ``arguments`` (a mapping or JSON text) and ``id``. Tool names are the
harness's own (``read_file``, ``execute_shell``, ``grep_content``, ``Bash``, ...):
the configuration maps them to tool families, as for the ``toolcap`` command line.
Suggested commands call the harness's own shell tool: ``shell`` (ouro's) until the
harness passes the result of a shell-family tool under another name
(``execute_shell``, ``Bash``, ``run_command``, ...), then that name; or the name
given as ``shell_tool=``. Tools in the harness's bypass list pass through unchanged:
``Config.TOOL_RESULT_BYPASS_TOOLS`` of its ``config`` module (read on each call, as
the seed's processor reads it), ``$TOOL_RESULT_BYPASS_TOOLS`` and
``manage_todo_list``.

:meth:`ToolResultProcessor.process` is the other call shape, ``process(tool_name,
result, tool_args=None, tool_call_id=None) -> str``: with a ``tool_call_id`` and a
store (the default: a :class:`toolcap.MemoryStore` of at most 64 MiB, oldest
results dropped first), a cut result is kept and the model can read the rest with
the recovery tools — ``get_continuation``, ``search_tool_output``,
``fetch_tool_output``, ``get_tool_result`` and ``query_tool_output``: offer :meth:`tool_definitions` and
route the model's calls through :meth:`handle_tool_call`.
"""

from __future__ import annotations

import asyncio
import copy
import json
import os
import sys
from collections import OrderedDict
from typing import Any, ClassVar, Dict, FrozenSet, List, Mapping, Optional, Tuple, Union

from . import Processed, Store, ToolResultProcessor as _Processor, open_store
from ._types import ToolDefinition, ToolFormat

__all__ = ["ToolResultProcessor", "tool_args_of"]

_Config = Union[None, str, "os.PathLike[str]", Dict[str, Any]]

# Suggested commands call the harness's shell tool: ouro's is `shell` (its processor's
# own suggestions call `shell(command=...)`), until the harness names another.
DEFAULT_SHELL_TOOL = "shell"



def tool_args_of(tool_context: Any) -> Tuple[Dict[str, Any], Optional[str]]:
    """The call's arguments and id from a seed-style ``tool_context``: None; JSON
    text of the arguments (OpenAI's ``function.arguments``); a mapping of arguments (a ``tool_call_id`` key is the id, not an argument); a
    tool call with ``arguments`` (mapping or JSON text) and ``id`` (an object or a
    mapping, OpenAI's ``function`` form included); or any object whose public
    attributes are the arguments."""
    if tool_context is None:
        return {}, None
    call_id: Any = None
    args: Any
    if isinstance(tool_context, (str, bytes)):
        args = tool_context
    elif isinstance(tool_context, Mapping):
        fn = tool_context.get("function")
        if isinstance(fn, Mapping) and "arguments" in fn:
            args, call_id = fn["arguments"], tool_context.get("id")
        elif "arguments" in tool_context and ("id" in tool_context or "name" in tool_context):
            args, call_id = tool_context["arguments"], tool_context.get("id")
        else:
            args = dict(tool_context)
            call_id = args.pop("tool_call_id", None)
    elif hasattr(tool_context, "arguments"):
        args = tool_context.arguments
        call_id = getattr(tool_context, "id", None) or getattr(tool_context, "tool_call_id", None)
    else:
        args = {k: v for k, v in vars(tool_context).items() if not k.startswith("_")}
        call_id = args.pop("tool_call_id", None)
    if isinstance(args, (str, bytes)):
        text = args.decode() if isinstance(args, bytes) else args
        args = json.loads(text) if text.strip() else {}
    if not isinstance(args, Mapping):
        raise TypeError(
            f"tool_context: expected a mapping of the call's arguments (or a tool call with arguments), got {type(args).__name__}"
        )
    return dict(args), (str(call_id) if call_id is not None else None)


class ToolResultProcessor:
    """The seed's processor, by toolcap.

    ``ToolResultProcessor(config=None, *, store="memory", dialog=None, save="cut",
    shell_tool=None)``: ``config`` is None (the built-in thresholds; or
    ``$TOOLCAP_CONFIG`` when set; then ``$TOOL_RESULT_BYPASS_TOOLS``), a path to a
    TOML file, or a dict of its keys. ``store`` is ``"memory"`` (a
    :class:`toolcap.MemoryStore` holding at most 64 MiB of outputs, oldest dropped
    first: the default), None (keep nothing), a SQLite path (a str must read as one:
    a ``/`` or a ``.db`` / ``.sqlite`` suffix; an unknown word such as ``"memry"`` is
    a ``ValueError``), or a store. ``shell_tool`` names the harness's shell tool for
    the suggested commands; by default it is learned: ``shell`` until the harness
    passes a shell-family tool's result under another name (with a TOML file, or a
    dict or file that sets ``[suggest.shell] tool``, that setting is used instead).
    """

    #: Tools never cut, whatever the configuration (the seed's default list);
    #: ``$TOOL_RESULT_BYPASS_TOOLS``, the harness's ``Config.TOOL_RESULT_BYPASS_TOOLS``
    #: and the configuration's ``bypass`` add to it.
    DEFAULT_BYPASS_TOOLS: ClassVar[FrozenSet[str]] = frozenset({"manage_todo_list"})
    #: Where the harness keeps its bypass list, read on each call the way the seed's
    #: processor reads it: ``(module, attribute path)``, used once the harness has
    #: imported that module (ouro: ``config.Config.TOOL_RESULT_BYPASS_TOOLS``). None:
    #: not read.
    HARNESS_BYPASS: ClassVar[Optional[Tuple[str, str]]] = ("config", "Config.TOOL_RESULT_BYPASS_TOOLS")
    #: Characters per token in :meth:`estimate_tokens` (the seed's estimate).
    CHARS_PER_TOKEN: ClassVar[float] = 3.5
    #: How many stored ids are remembered to tell "dropped from the store" from
    #: "never stored" in a recovery reply.
    REMEMBERED_IDS: ClassVar[int] = 10_000

    def __init__(
        self,
        config: _Config = None,
        *,
        store: Union[None, str, "os.PathLike[str]", Store] = "memory",
        dialog: Optional[str] = None,
        save: str = "cut",
        shell_tool: Optional[str] = None,
    ) -> None:
        if config is None and os.environ.get("TOOLCAP_CONFIG"):
            config = os.environ["TOOLCAP_CONFIG"]
        if shell_tool is not None and not isinstance(shell_tool, str):
            raise TypeError(f"shell_tool: expected the name of the harness's shell tool (a str), got {type(shell_tool).__name__}")
        if shell_tool is not None and config is not None and not isinstance(config, dict):
            raise ValueError(
                f"shell_tool={shell_tool!r} with the TOML file {config}: set `[suggest.shell] tool = \"{shell_tool}\"` "
                "in the file instead (or pass the configuration as a dict)"
            )
        self._config = config
        self._store = open_store(store)
        self._dialog = dialog
        self._save = save
        # learned from the tool names passed unless given, or set by the configuration
        self._learn = shell_tool is None and (config is None or (isinstance(config, dict) and not _sets_shell_tool(config)))
        self.shell_tool: Optional[str] = shell_tool or (DEFAULT_SHELL_TOOL if self._learn else None)
        self._families: Dict[str, str] = {}
        self.processor = self._make()
        #: The :class:`toolcap.Processed` report of the last call, for logging.
        self.last: Optional[Processed] = None
        self._stored: "OrderedDict[str, None]" = OrderedDict()

    def _make(self) -> _Processor:
        config: Any = self._config
        if self.shell_tool is not None:
            config = copy.deepcopy(config) if isinstance(config, dict) else {}
            config.setdefault("suggest", {}).setdefault("shell", {})["tool"] = self.shell_tool
        return _Processor(config, store=self._store, dialog=self._dialog, save=self._save)  # type: ignore[arg-type]

    def _learn_shell_tool(self, tool_name: str) -> None:
        """A shell-family tool passed under a name the suggestions do not use yet:
        the harness's shell tool is that name."""
        if not self._learn or tool_name == self.shell_tool:
            return
        family = self._families.get(tool_name)
        if family is None:
            family = self.processor.process(tool_name, "").family
            self._families[tool_name] = family
        if family == "shell":
            self.shell_tool = tool_name
            self.processor = self._make()

    @property
    def store(self) -> Optional[Store]:
        """The store full results are kept in, or None."""
        return self.processor.store  # type: ignore[return-value]

    @classmethod
    def get_bypass_tools(cls) -> FrozenSet[str]:
        """Tools whose results pass through unchanged here: the default list,
        ``$TOOL_RESULT_BYPASS_TOOLS`` and the harness's list (:attr:`HARNESS_BYPASS`,
        ouro's ``Config.TOOL_RESULT_BYPASS_TOOLS``), read now; the configuration's
        ``bypass`` too, see :meth:`toolcap.ToolResultProcessor.is_bypassed`."""
        env = os.environ.get("TOOL_RESULT_BYPASS_TOOLS", "")
        names = {t.strip() for t in env.split(",") if t.strip()}
        return cls.DEFAULT_BYPASS_TOOLS | names | _harness_list(cls.HARNESS_BYPASS)

    def process_result(
        self,
        tool_name: str,
        result: Any,
        tool_context: Any = None,
        tool_call_id: Optional[str] = None,
    ) -> Tuple[str, bool]:
        """``(text the model should see, whether the result was cut)``.

        ``result`` is str or bytes; None becomes ""; any other value is sent as its
        JSON text (or ``str()`` when it is not JSON). ``tool_context``: see the
        module docs; ``tool_call_id`` (else the context's id) keeps a cut result in
        the store for the recovery tools.
        """
        args, context_id = tool_args_of(tool_context)
        if tool_name in self.get_bypass_tools():
            text = _text_of(result)
            self.last = None
            return text, False
        value = _result_of(result)
        out = self._process(tool_name, value, args, tool_call_id or context_id)
        # modified whenever the text changed: cut, or cleaned (a run of identical
        # lines collapsed, ANSI codes removed) without a cut
        return out.text, out.truncated or out.text != _text_of(value)

    def process(
        self,
        tool_name: str,
        result: Any,
        tool_args: Union[None, str, Dict[str, Any]] = None,
        tool_call_id: Optional[str] = None,
    ) -> str:
        """The text the model should see for ``result``, the result of ``tool_name``
        called with ``tool_args`` (a dict, JSON text of one, or None)."""
        if tool_name in self.get_bypass_tools():
            self.last = None
            return _text_of(result)
        return self._process(tool_name, result, tool_args, tool_call_id).text

    async def aprocess_result(
        self, tool_name: str, result: Any, tool_context: Any = None, tool_call_id: Optional[str] = None
    ) -> Tuple[str, bool]:
        """:meth:`process_result`, off the event loop."""
        return await asyncio.to_thread(self.process_result, tool_name, result, tool_context, tool_call_id)

    def estimate_tokens(self, text: str) -> int:
        """About how many tokens ``text`` is: ``len(text) / 3.5``, the seed's
        estimate (a configuration with ``unit = "tokens"`` counts exactly, with
        tiktoken: see ``Processed.original_tokens``)."""
        return int(len(text) / self.CHARS_PER_TOKEN)

    def tool_definitions(self, format: ToolFormat = "openai") -> List[ToolDefinition]:
        """The recovery tools to offer the model (``openai`` or ``anthropic`` form):
        ``get_continuation``, ``search_tool_output``, ``fetch_tool_output``,
        ``get_tool_result`` and ``query_tool_output``."""
        return self.processor.tool_definitions(format)

    def handle_tool_call(self, name: str, arguments: Union[None, str, Dict[str, Any]] = None) -> Optional[str]:
        """The result of a recovery tool call (``get_continuation``,
        ``search_tool_output``, ``fetch_tool_output``, ``get_tool_result``,
        ``query_tool_output``), or None
        when ``name`` is another tool (run it as usual, then pass its result to
        :meth:`process_result`). Without a store, or for an id that is not stored,
        the reply says so in words the model can act on."""
        reply = self.processor.dispatch(name, arguments)
        if reply is None:
            return None
        if reply.error in ("not_stored", "expired"):
            return self._not_stored(arguments) or reply.text
        return reply.text

    async def ahandle_tool_call(
        self, name: str, arguments: Union[None, str, Dict[str, Any]] = None
    ) -> Optional[str]:
        """:meth:`handle_tool_call`, off the event loop."""
        return await asyncio.to_thread(self.handle_tool_call, name, arguments)

    # -- internals -------------------------------------------------------------

    def _process(self, tool_name: str, result: Any, args: Any, tool_call_id: Optional[str]) -> Processed:
        self._learn_shell_tool(tool_name)
        out = self.processor.process(tool_name, _result_of(result), args, tool_call_id)
        self.last = out
        stored = out.stored
        if stored is not None and tool_call_id is not None:
            self._stored.pop(tool_call_id, None)
            self._stored[tool_call_id] = None
            while len(self._stored) > self.REMEMBERED_IDS:
                self._stored.popitem(last=False)
        return out

    def _not_stored(self, arguments: Union[None, str, Dict[str, Any]]) -> Optional[str]:
        """For an id this processor stored that is gone now: the reply saying it
        was dropped from the memory store (its byte limit, oldest first)."""
        try:
            args = json.loads(arguments) if isinstance(arguments, str) else (arguments or {})
        except ValueError:
            return None
        call_id = args.get("tool_call_id") if isinstance(args, dict) else None
        if not isinstance(call_id, str) or call_id not in self._stored:
            return None
        limit = getattr(self.store, "limit_bytes", None)
        if limit is None:
            return None
        return json.dumps(
            {
                "error": f"No cached result for tool_call_id '{call_id}': it was dropped from the "
                f"in-memory store, which keeps the newest {limit:,} bytes of results (oldest dropped "
                "first); run the tool again to get it"
            },
            ensure_ascii=False,
        )


def _result_of(result: Any) -> Union[str, bytes, bytearray]:
    if result is None:
        return ""
    if isinstance(result, (str, bytes, bytearray)):
        return result
    try:
        return json.dumps(result, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(result)


def _text_of(result: Any) -> str:
    r = _result_of(result)
    return r if isinstance(r, str) else bytes(r).decode("utf-8", "replace")


def _sets_shell_tool(config: Dict[str, Any]) -> bool:
    suggest = config.get("suggest")
    shell = suggest.get("shell") if isinstance(suggest, dict) else None
    return isinstance(shell, dict) and "tool" in shell


def _harness_list(where: Optional[Tuple[str, str]]) -> FrozenSet[str]:
    """The names at ``module.attr.path`` when the harness has imported that module
    (ouro's ``config.Config.TOOL_RESULT_BYPASS_TOOLS``: a list, its env default split
    on commas), else none."""
    if where is None:
        return frozenset()
    module, attrs = where
    value: Any = sys.modules.get(module)
    if value is None:
        return frozenset()
    for a in attrs.split("."):
        value = getattr(value, a, None)
        if value is None:
            return frozenset()
    if isinstance(value, str):
        value = value.split(",")
    try:
        return frozenset(str(t).strip() for t in value if str(t).strip())
    except TypeError:
        return frozenset()
