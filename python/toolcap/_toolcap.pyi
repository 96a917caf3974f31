"""Type stubs of the native module ``toolcap._toolcap`` (PyO3)."""

import os
import pathlib
from typing import Any, Dict, Iterable, List, Literal, Optional, Sequence, Tuple, Union, final

from typing_extensions import disjoint_base

from ._types import (
    BudgetDict,
    BudgetSource,
    CleaningStats,
    HtmlStats,
    JsonStats,
    KeptSpan,
    LineSpan,
    LanguageInfo,
    Omitted,
    ProcessedDict,
    Reason,
    ReplyError,
    StoppedBy,
    Stored,
    StoredMeta,
    Suggestion,
    SymbolDict,
    OutlineDict,
    TextOutlineDict,
    ToolDefinition,
    ToolFormat,
    Totals,
    Unit,
)

_Args = Union[None, str, Dict[str, Any]]
_Result = Union[str, bytes, bytearray]
_Source = Union[bytes, bytearray, memoryview, Iterable[Union[bytes, str]], Any]
_Config = Union[None, str, "os.PathLike[str]", Dict[str, Any]]
_Store = Union["MemoryStore", "SqliteStore", "PostgresStore"]
_Load = Union[None, bool, str, Sequence[str]]
# A history policy (toolcap::history::Policy): every key optional; `{}` is the
# default (the newest 50,000 tokens kept, batches of at least 30,000 tokens).
_Policy = Dict[str, Any]  # keep_results | keep_tokens: int, min_prunable_tokens: int,
# min_result_chars: int, protect_errors: bool, protect_referenced: bool,
# protect_ids: list[str], format: "openai_chat" | "openai_responses" | "anthropic"

__version__: str
__all__ = [
    "ToolcapError",
    "ConfigError",
    "StoreError",
    "OutlineError",
    "MemoryStore",
    "SqliteStore",
    "PostgresStore",
    "_store_spec",
    "store_put",
    "store_get",
    "store_meta",
    "store_list",
    "store_delete_dialog",
    "store_prune_older_than",
    "Outline",
    "Symbol",
    "outline",
    "outline_text",
    "languages",
    "_outline_from_json",
    "_symbol_from_json",
    "Processed",
    "_processed_from_state",
    "ToolReply",
    "get_continuation",
    "search_tool_output",
    "fetch_tool_output",
    "get_tool_result",
    "tool_definitions",
    "dispatch",
    "prepare_messages",
    "reference_message",
    "query_tool_output",
    "ToolResultProcessor",
    "_time_rust",
    "_run_cli",
    "_str_pieces",
    "_panic_for_tests",
    "__version__",
    "_build_profile",
]
_build_profile: str

class ToolcapError(Exception):
    """Base class of every error toolcap raises."""

class ConfigError(ToolcapError):
    """A configuration that cannot be used (file, key, problem and fix in the message)."""

class StoreError(ToolcapError):
    """A result store failure, or an id that cannot be stored."""

class OutlineError(ToolcapError):
    """The outline could not be made."""

@disjoint_base
class MemoryStore:
    def __new__(cls, limit_bytes: Optional[int] = None) -> "MemoryStore": ...
    def __len__(self) -> int: ...
    @property
    def bytes(self) -> int: ...
    @property
    def limit_bytes(self) -> Optional[int]: ...

@disjoint_base
class SqliteStore:
    def __new__(cls, path: Union[str, "os.PathLike[str]"], *, create_dirs: bool = False) -> "SqliteStore": ...
    @property
    def path(self) -> pathlib.Path: ...

@disjoint_base
class PostgresStore:
    def __new__(cls, url: str) -> "PostgresStore": ...
    @property
    def url(self) -> str: ...

@final
class Symbol:
    @property
    def kind(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def line(self) -> int: ...
    @property
    def end_line(self) -> int: ...
    @property
    def depth(self) -> int: ...
    @property
    def parent(self) -> Optional[str]: ...
    @property
    def detail(self) -> Optional[str]: ...
    def to_dict(self) -> SymbolDict: ...
    def __reduce__(self) -> Tuple[Any, Tuple[str]]: ...

@final
class Outline:
    @property
    def language(self) -> str: ...
    @property
    def lines(self) -> int: ...
    @property
    def partial(self) -> bool: ...
    @property
    def covered_lines(self) -> int: ...
    @property
    def stopped_by(self) -> Optional[StoppedBy]: ...
    @property
    def syntax_errors(self) -> bool: ...
    @property
    def best_effort(self) -> List[LineSpan]: ...
    @property
    def symbols(self) -> List[Symbol]: ...
    def to_dict(self) -> OutlineDict: ...
    def __len__(self) -> int: ...
    def __reduce__(self) -> Tuple[Any, Tuple[str]]: ...

@final
class Processed:
    @property
    def text(self) -> str: ...
    @property
    def tool(self) -> str: ...
    @property
    def family(self) -> str: ...
    @property
    def truncated(self) -> bool: ...
    @property
    def bypassed(self) -> bool: ...
    @property
    def reason(self) -> Reason: ...
    @property
    def threshold(self) -> int: ...
    @property
    def unit(self) -> Unit: ...
    @property
    def kept_budget(self) -> int: ...
    @property
    def budget_source(self) -> BudgetSource: ...
    @property
    def budget(self) -> Optional[BudgetDict]: ...
    @property
    def original(self) -> Totals: ...
    @property
    def original_tokens(self) -> Optional[int]: ...
    @property
    def kept(self) -> List[KeptSpan]: ...
    @property
    def omitted(self) -> Omitted: ...
    @property
    def cleaning(self) -> Optional[CleaningStats]: ...
    @property
    def json(self) -> Optional[JsonStats]: ...
    @property
    def html(self) -> Optional[HtmlStats]: ...
    @property
    def language(self) -> Optional[str]: ...
    @property
    def outline(self) -> Optional[Outline]: ...
    @property
    def suggestions(self) -> List[Suggestion]: ...
    @property
    def stored(self) -> Optional[Stored]: ...
    @property
    def store_error(self) -> Optional[str]: ...
    @property
    def tool_call_id(self) -> Optional[str]: ...
    def to_dict(self) -> ProcessedDict: ...
    def to_json(self) -> str: ...
    def __reduce__(self) -> Tuple[Any, Tuple[str, str]]: ...

@final
class ToolReply:
    @property
    def text(self) -> str: ...
    @property
    def is_error(self) -> bool: ...
    @property
    def next_offset(self) -> Optional[int]: ...
    @property
    def error(self) -> Optional[ReplyError]: ...

@disjoint_base
class ToolResultProcessor:
    def __new__(
        cls,
        config: _Config = None,
        *,
        store: Optional[_Store] = None,
        dialog: Optional[str] = None,
        save: Literal["cut", "all"] = "cut",
        line_aligned: bool = False,
    ) -> "ToolResultProcessor": ...
    def process(
        self,
        tool_name: str,
        result: _Result,
        args: _Args = None,
        tool_call_id: Optional[str] = None,
        *,
        dialog: Optional[str] = None,
        lang: Optional[str] = None,
        context_left: Optional[int] = None,
        context_limit: Optional[int] = None,
        context_used: Optional[int] = None,
        model: Optional[str] = None,
    ) -> Processed: ...
    def process_stream(
        self,
        tool_name: str,
        source: _Source,
        args: _Args = None,
        tool_call_id: Optional[str] = None,
        *,
        dialog: Optional[str] = None,
        lang: Optional[str] = None,
        context_left: Optional[int] = None,
        context_limit: Optional[int] = None,
        context_used: Optional[int] = None,
        model: Optional[str] = None,
    ) -> Processed: ...
    @property
    def store(self) -> Optional[_Store]: ...
    @property
    def dialog(self) -> str: ...
    @property
    def max_kept_chars(self) -> int: ...
    def is_bypassed(self, tool_name: str) -> bool: ...
    def describe_config(self) -> str: ...
    def tool_definitions(self, format: ToolFormat = "openai") -> List[ToolDefinition]: ...
    def dispatch(self, name: str, arguments: _Args = None, *, dialog: Optional[str] = None) -> Optional[ToolReply]: ...
    def get_continuation(
        self,
        tool_call_id: str,
        offset: Optional[int] = None,
        *,
        start_line: Optional[int] = None,
        end_line: Optional[int] = None,
        dialog: Optional[str] = None,
    ) -> ToolReply: ...
    def search_tool_output(
        self,
        tool_call_id: str,
        pattern: str,
        *,
        context: int = 1,
        max_matches: int = ...,
        skip: int = 0,
        ignore_case: bool = False,
        dialog: Optional[str] = None,
        from_end: bool = False,
    ) -> ToolReply: ...
    def fetch_tool_output(
        self,
        tool_call_id: str,
        offset: Optional[int] = None,
        limit: Optional[int] = None,
        *,
        dialog: Optional[str] = None,
    ) -> ToolReply: ...
    def get_tool_result(self, tool_call_id: str, *, dialog: Optional[str] = None) -> ToolReply: ...
    def prepare_messages(
        self,
        messages: List[Dict[str, Any]],
        load_tool_results: _Load = None,
        *,
        dialog: Optional[str] = None,
        policy: Optional[_Policy] = None,
    ) -> List[Dict[str, Any]]: ...

def outline(
    source: _Result,
    language: Optional[str] = None,
    *,
    path: Optional[str] = None,
    budget_ms: int = 100,
    max_bytes: int = ...,
) -> Outline: ...
def outline_text(
    source: _Result, format: Optional[str] = None, *, path: Optional[str] = None
) -> Optional[TextOutlineDict]: ...
def languages() -> List[LanguageInfo]: ...
def get_continuation(
    store: _Store,
    tool_call_id: str,
    offset: Optional[int] = None,
    *,
    start_line: Optional[int] = None,
    end_line: Optional[int] = None,
    dialog: Optional[str] = None,
    chunk_chars: int = ...,
    line_aligned: bool = False,
) -> ToolReply: ...
def search_tool_output(
    store: _Store,
    tool_call_id: str,
    pattern: str,
    *,
    context: int = 1,
    max_matches: int = ...,
    skip: int = 0,
    ignore_case: bool = False,
    dialog: Optional[str] = None,
    from_end: bool = False,
) -> ToolReply: ...
def fetch_tool_output(
    store: _Store,
    tool_call_id: str,
    offset: Optional[int] = None,
    limit: Optional[int] = None,
    *,
    dialog: Optional[str] = None,
) -> ToolReply: ...
def get_tool_result(store: _Store, tool_call_id: str, *, dialog: Optional[str] = None) -> ToolReply: ...
def query_tool_output(
    store: _Store, tool_call_id: str, path: str, *, dialog: Optional[str] = None, chunk_chars: int = ...
) -> ToolReply: ...
def tool_definitions(format: ToolFormat = "openai", chunk_chars: int = ...) -> List[ToolDefinition]: ...
def dispatch(
    store: _Store,
    name: str,
    arguments: _Args = None,
    *,
    dialog: Optional[str] = None,
    chunk_chars: int = ...,
    line_aligned: bool = False,
) -> Optional[ToolReply]: ...
def prepare_messages(
    store: _Store,
    messages: List[Dict[str, Any]],
    load_tool_results: _Load = None,
    *,
    dialog: Optional[str] = None,
    policy: Optional[_Policy] = None,
) -> List[Dict[str, Any]]: ...
def reference_message(store: _Store, tool_call_id: str, *, dialog: Optional[str] = None) -> Optional[Dict[str, Any]]: ...
def store_put(
    store: _Store,
    tool_call_id: str,
    tool_name: str,
    output: _Result,
    args: _Args = None,
    *,
    dialog: Optional[str] = None,
    truncated: bool = False,
    shown_chars: Optional[int] = None,
) -> None: ...
def store_get(store: _Store, tool_call_id: str, *, dialog: Optional[str] = None) -> Optional[str]: ...
def store_meta(store: _Store, tool_call_id: str, *, dialog: Optional[str] = None) -> Optional[StoredMeta]: ...
def store_list(store: _Store, dialog: Optional[str] = None) -> List[StoredMeta]: ...
def store_delete_dialog(store: _Store, dialog: str) -> int: ...
def store_prune_older_than(store: _Store, seconds: float) -> int: ...
def _store_spec(spec: str) -> Tuple[Literal["memory", "sqlite", "postgres"], Any]: ...
def _processed_from_state(report: str, text: str) -> Processed: ...
def _outline_from_json(state: str) -> Outline: ...
def _symbol_from_json(state: str) -> Symbol: ...
def _time_rust(tool_name: str, result: _Result, args: _Args = None, n: int = 1) -> float: ...
def _panic_for_tests() -> None: ...
def _run_cli(argv: List[str]) -> int: ...
def _str_pieces() -> int:
    """How many times converting a large str has let other threads take the GIL
    (between its 256 Ki-code-point pieces): for the tests."""
    ...
