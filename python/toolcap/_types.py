"""The shapes of the dicts toolcap returns, as ``TypedDict`` and ``Literal`` types.

They describe the JSON of the ``toolcap`` command line (``process --json``,
``outline --json``, ``show --meta``) and of the recovery tools' definitions, so a
type checker knows ``processed.original["chars"]`` is an ``int``. Import them from
``toolcap.types``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

__all__ = [
    "AnthropicToolDefinition",
    "BudgetDict",
    "BudgetSource",
    "CleaningStats",
    "Family",
    "HtmlStats",
    "JsonStats",
    "KeptSpan",
    "LanguageInfo",
    "LineRange",
    "LineSpan",
    "Omitted",
    "OpenAIFunction",
    "OpenAIToolDefinition",
    "OutlineDict",
    "PrintedFile",
    "ProcessedDict",
    "Reason",
    "ReplyError",
    "StorageType",
    "StoredMeta",
    "Stored",
    "StoppedBy",
    "Suggestion",
    "SymbolDict",
    "TextOutlineDict",
    "ToolDefinition",
    "ToolFormat",
    "Totals",
    "Unit",
]

#: Why a result was or was not cut.
Reason = Literal["bypass", "under_threshold", "cleaned", "already_cut", "cut", "binary"]
#: What a tool's threshold counts.
Unit = Literal["chars", "tokens"]
#: A built-in tool family (a custom family reports its own name).
Family = Literal["read_file", "grep", "shell", "web_search", "web_fetch", "glob", "generic"]
#: Where a result was kept.
StorageType = Literal["memory", "sqlite", "postgres"]
#: Why a recovery call failed (``ToolReply.error``).
ReplyError = Literal["not_stored", "expired", "past_end", "bad_argument", "store_failed"]
#: What stopped an outline early.
StoppedBy = Literal["time_budget", "size_cap"]
#: The form of the recovery tools' definitions.
ToolFormat = Literal["openai", "anthropic"]


class Totals(TypedDict):
    """Size of the original result."""

    chars: int
    bytes: int
    lines: int


class LineRange(TypedDict):
    """Lines ``start_line`` to ``end_line`` (1-based, inclusive)."""

    start_line: int
    end_line: int


class KeptSpan(TypedDict):
    """A part of the original that was kept."""

    start_line: int
    end_line: int
    chars: int
    partial: bool


class Omitted(TypedDict):
    """What was left out, exactly."""

    chars: int
    lines: int
    ranges: List[LineRange]


class CleaningStats(TypedDict):
    """What terminal-noise cleaning did."""

    ansi_sequences: int
    overwritten_lines: int
    repeat_runs: int
    repeated_lines: int


class JsonStats(TypedDict):
    """What reshaping a JSON result dropped."""

    shown_chars: int
    strings_shortened: int
    string_chars_dropped: int
    arrays_cut: int
    items_elided: int
    values_collapsed: int
    keys_elided: int


class HtmlStats(TypedDict):
    """How much of a fetched page's text was shown."""

    text_chars: int
    shown_chars: int


class PrintedFile(TypedDict):
    """The file and lines a shell command printed (`sed -n 'A,Bp' F`, `cat -n F`...)."""

    path: str
    start_line: Optional[int]
    end_line: Optional[int]
    numbered: bool


class Suggestion(TypedDict):
    """A runnable call that gets more of the result."""

    tool: str
    args: Dict[str, Any]
    purpose: str


class Stored(TypedDict):
    """Where the full result was kept."""

    tool_call_id: str
    dialog_id: str
    storage_type: StorageType
    offset: int


class SymbolDict(TypedDict, total=False):
    """One definition (``detail`` only when there is one)."""

    kind: str
    name: str
    line: int
    end_line: int
    depth: int
    parent: Optional[str]
    detail: str


class LineSpan(TypedDict):
    """Lines ``start`` to ``end`` (1-based, inclusive)."""

    start: int
    end: int


class OutlineDict(TypedDict, total=False):
    """``toolcap outline --json`` without ``path`` (``best_effort`` only with syntax errors)."""

    language: str
    lines: int
    partial: bool
    covered_lines: int
    stopped_by: Optional[StoppedBy]
    syntax_errors: bool
    best_effort: List[LineSpan]
    symbols: List[SymbolDict]


class TextOutlineDict(TypedDict):
    """The outline of a non-code text (``outline_text``)."""

    format: str
    lines: int
    title: Optional[str]
    entries: List[str]


BudgetSource = Literal["config", "context", "model", "size_hint"]


class BudgetDict(TypedDict, total=False):
    """The figures behind a call's budgets (``Processed.budget``; docs/budgets.md)."""

    context_left: int
    context_limit: int
    context_used: int
    model: str
    model_window: int
    fraction: float
    chars_per_token: float
    allowance: int
    max_result_chars: int
    configured_threshold: int
    configured_kept_budget: int
    floor: int
    floored: bool
    note: str


class ProcessedDict(TypedDict, total=False):
    """``toolcap process --json``: keys marked optional there are left out when empty."""

    tool: str
    family: str
    truncated: bool
    bypassed: bool
    reason: Reason
    threshold: int
    unit: Unit
    kept_budget: int
    budget_source: BudgetSource
    budget: BudgetDict
    original: Totals
    original_tokens: int
    kept: List[KeptSpan]
    omitted: Omitted
    collapsed: List[Dict[str, Any]]
    cleaning: CleaningStats
    json: JsonStats
    html: HtmlStats
    printed_file: PrintedFile
    language: Optional[str]
    outline: Optional[OutlineDict]
    suggestions: List[Suggestion]
    text: str
    stored: Stored
    store_error: str
    tool_call_id: str


class StoredMeta(TypedDict):
    """A stored result's metadata (``toolcap show --meta``)."""

    tool_call_id: str
    dialog_id: str
    tool_name: str
    tool_args: Dict[str, Any]
    size_bytes: int
    size_chars: int
    size_lines: int
    truncated: bool
    shown_chars: int
    created_at: str


class LanguageInfo(TypedDict):
    """One supported language (``toolcap langs``)."""

    name: str
    extensions: List[str]
    aliases: List[str]
    interpreters: List[str]


class OpenAIFunction(TypedDict):
    name: str
    description: str
    parameters: Dict[str, Any]


class OpenAIToolDefinition(TypedDict):
    """A recovery tool in OpenAI's form."""

    type: Literal["function"]
    function: OpenAIFunction


class AnthropicToolDefinition(TypedDict):
    """A recovery tool in Anthropic's form."""

    name: str
    description: str
    input_schema: Dict[str, Any]


ToolDefinition = Union[OpenAIToolDefinition, AnthropicToolDefinition]
