// Type declarations of the `toolcap` package (index.js). The report types are the
// `toolcap process --json` / `toolcap outline --json` objects, field for field;
// test/types.test.js checks this file against the module with `tsc --strict`.

/// <reference types="node" />

/** A result or source: text, or bytes (decoded as UTF-8, bad bytes replaced, as the CLI reads files). */
export type Input = string | Uint8Array | ArrayBufferView | ArrayBuffer;

/** JSON data (tool arguments, messages). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
/** Tool arguments: an object, or JSON text of one (OpenAI's `function.arguments`). */
export type ToolArgs = { [key: string]: unknown } | string;

// GENERATED BEGIN: from the Rust types by scripts/gen-types.js (npm run types); do not edit by hand
/** Why a result was or was not cut. */
export type Reason = 'bypass' | 'under_threshold' | 'cleaned' | 'already_cut' | 'cut' | 'binary';
/** The built-in tool families (a custom family's name otherwise). */
export type FamilyName = 'read_file' | 'grep' | 'shell' | 'web_search' | 'web_fetch' | 'glob' | 'generic';
/** How thresholds are counted. */
export type Unit = 'chars' | 'tokens';
/** When a store keeps a result: only when it was cut, or always. */
export type SaveWhen = 'cut' | 'all';
/** The recovery tools' definition format. */
export type ToolFormat = 'openai' | 'anthropic';
/** One vocabulary of definition kinds across languages. */
export type SymbolKind = 'module' | 'class' | 'struct' | 'enum' | 'union' | 'trait' | 'interface' | 'impl' | 'function' | 'method' | 'constant' | 'type' | 'macro';
/** What stopped an outline short of the end of the source. */
export type StoppedBy = 'time_budget' | 'size_cap';
/** Why a recovery call failed. */
export type ReplyErrorKind = 'not_stored' | 'expired' | 'past_end' | 'bad_argument' | 'store_failed';
// GENERATED END

/** Characters, bytes and lines of a text. */
export interface Totals {
  chars: number;
  bytes: number;
  lines: number;
}

/** A kept part, in the original's line numbers (1-based, inclusive). */
export interface KeptSpan {
  start_line: number;
  end_line: number;
  /** Characters kept of it. */
  chars: number;
  /** Only the start of the span's last line was kept. */
  partial: boolean;
}

/** Lines A-B of the original (1-based, inclusive). */
export interface LineRange {
  start_line: number;
  end_line: number;
}

/** What was omitted, exactly. */
export interface Omitted {
  chars: number;
  lines: number;
  ranges: LineRange[];
}

/** One definition in an outline. */
export interface OutlineSymbol {
  kind: SymbolKind;
  name: string;
  /** The line holding the definition's name (1-based). */
  line: number;
  /** The definition's last line. */
  end_line: number;
  /** Nesting depth among the outline's symbols; 0 = top level. */
  depth: number;
  /** The enclosing symbol's name. */
  parent: string | null;
  /** Extra text, e.g. an impl block's header. */
  detail?: string;
}

/** The structure of a source text: `toolcap outline --json` without `path`. */
export interface Outline {
  language: string;
  lines: number;
  /** Only lines 1 to `covered_lines` were outlined. */
  partial: boolean;
  covered_lines: number;
  /** What stopped the outline short of the end, when partial. */
  stopped_by: StoppedBy | null;
  /** The parser found syntax errors: the symbols are a best effort. */
  syntax_errors: boolean;
  /**
   * With `syntax_errors`, the lines read best-effort (each error contained to the
   * statement it sits in: definitions there may be missing or their lines off; the
   * rest is read as without the error). Absent without errors, as in the CLI's JSON.
   */
  best_effort?: LineSpan[];
  symbols: OutlineSymbol[];
}

/** Lines `start` to `end` (1-based, inclusive). */
export interface LineSpan {
  start: number;
  end: number;
}

/** A runnable recovery suggestion: a call of a tool that exists. */
export interface Suggestion {
  tool: string;
  args: { [key: string]: JsonValue };
  purpose: string;
}

/** A run of near-duplicate lines shown as one line. */
export interface PrintedFile {
  path: string;
  /** The file's line the output's first line is; null for `tail -n N`. */
  start_line: number | null;
  /** The last line asked for, when the command names one. */
  end_line: number | null;
  /** Every output line starts with its line number (`cat -n`, `nl`). */
  numbered: boolean;
}

export interface CollapsedRun {
  start_line: number;
  end_line: number;
  lines: number;
  chars: number;
  /** The line shown for it. */
  text: string;
}

/** What terminal-noise cleaning removed. */
export interface CleanStats {
  ansi_sequences: number;
  overwritten_lines: number;
  repeat_runs: number;
  repeated_lines: number;
}

/** What JSON reshaping dropped. */
export interface JsonStats {
  shown_chars: number;
  strings_shortened: number;
  string_chars_dropped: number;
  arrays_cut: number;
  items_elided: number;
  values_collapsed: number;
  keys_elided: number;
}

/** How much of a fetched HTML page's text was shown. */
export interface HtmlStats {
  text_chars: number;
  shown_chars: number;
}

/** Where the full result was kept. */
export interface Stored {
  tool_call_id: string;
  dialog_id: string;
  storage_type: string;
  /** Where reading on starts (characters). */
  offset: number;
}

/**
 * What `process` returns: the text the model should see and the exact facts behind
 * it. The fields are those of `toolcap process --json` (optional ones appear when
 * they apply, as in the CLI's report); `toJSON()` is that object, key for key.
 */
export declare class Processed {
  private constructor();
  tool: string;
  family: FamilyName | (string & {});
  truncated: boolean;
  bypassed: boolean;
  reason: Reason;
  threshold: number;
  unit: Unit;
  kept_budget: number;
  /** Where `threshold` and `kept_budget` come from. */
  budget_source: BudgetSource;
  /** The figures behind the budgets, when the call passed any context option. */
  budget?: BudgetReport;
  original: Totals;
  /** Tokens of the original, when the tool counts in tokens. */
  original_tokens?: number;
  kept: KeptSpan[];
  omitted: Omitted;
  /** Runs of near-duplicate lines shown as one counted line. */
  collapsed?: CollapsedRun[];
  /** What terminal-noise cleaning did, when it changed anything. */
  cleaning?: CleanStats;
  /** What JSON reshaping dropped, when a JSON result was cut as JSON. */
  json?: JsonStats;
  /** How much of a fetched HTML page's text was shown. */
  html?: HtmlStats;
  /** The file and lines a shell command printed (`sed -n 'A,Bp' F`, `cat -n F`...): cut as the file's content. */
  printed_file?: PrintedFile;
  /** Detected language or content kind of the result. */
  language: string | null;
  outline: Outline | null;
  suggestions: Suggestion[];
  /** Exactly what the model sees. */
  text: string;
  /** Where the full result was kept. */
  stored?: Stored;
  /** Why keeping the full result failed. */
  store_error?: string;
  /** The tool call id given to `process`. */
  tool_call_id?: string;
  /** The `toolcap process --json` object. */
  toJSON(): ProcessedJson;
  /** The text the model sees. */
  toString(): string;
}

/** The plain `toolcap process --json` object. */
export type ProcessedJson = Omit<Processed, 'toJSON' | 'toString'>;

/** The reply of a recovery tool call: exactly what the model gets. */
export interface ToolReply {
  text: string;
  /** The text is a JSON `{"error": ...}` object (Anthropic's `is_error`). */
  isError: boolean;
  /** Where the next chunk starts, when the text ends with a continuation marker. */
  nextOffset: number | null;
  /** Why the call failed, when `isError`. */
  error: ReplyErrorKind | null;
}

/** The metadata of a stored result: the fields of `toolcap show --meta`. */
export interface StoredMeta {
  dialog_id: string;
  tool_call_id: string;
  tool_name: string;
  tool_args: JsonValue;
  size_chars: number;
  size_bytes: number;
  size_lines: number;
  truncated: boolean;
  shown_chars: number;
  created_at: string;
  [key: string]: JsonValue;
}

/** An OpenAI-style chat message. */
export interface Message {
  role: string;
  content?: unknown;
  [key: string]: unknown;
}

/** Which referenced tool results `prepareMessages` loads in full. */
export type LoadToolResults = boolean | string[] | 'none' | 'all' | (string & {}) | null | undefined;

/**
 * A history policy (toolcap::history::Policy; every key optional, `{}` is the
 * default: the newest 50,000 tokens of results kept, masked in batches of at
 * least 30,000 tokens). Passed to `prepareMessages` in place of `loadToolResults`.
 */
export interface HistoryPolicy {
  /** Keep the newest N results as they are (instead of `keepTokens`). */
  keep_results?: number;
  /** Keep the newest results holding at most N tokens (default 50000). */
  keep_tokens?: number;
  /** Mask only when this many prunable tokens are not masked yet (default 30000; 0: every turn). */
  min_prunable_tokens?: number;
  /** Never mask results shorter than this, in chars (default 400). */
  min_result_chars?: number;
  /** Never mask an error (default true). */
  protect_errors?: boolean;
  /** Keep the results the model's latest turn refers to when their batch closes (default true). */
  protect_referenced?: boolean;
  /** Never mask these tool call ids. */
  protect_ids?: string[];
  /** The message format; detected when absent. */
  format?: 'openai_chat' | 'openai_responses' | 'anthropic';
}

export interface DialogOptions {
  /** The dialog (thread) id; default: the processor's, else "default". */
  dialog?: string;
}
export interface ChunkingOptions {
  /** Characters per chunk (default 2000; a processor uses its `maxKeptChars`). */
  chunkChars?: number;
  /** End each chunk after its last complete line. */
  lineAligned?: boolean;
}
export interface ContinuationOptions extends DialogOptions, ChunkingOptions {
  /** Characters from the start of the result (default: where the model's view ended). */
  offset?: number;
  /** The first line to read (1-based); not with `offset`. */
  startLine?: number;
  /** The last line to read (needs `startLine`). */
  endLine?: number;
}
export interface SearchOptions extends DialogOptions {
  /** Lines of context before and after each match, 0 to 5 (default 1). */
  context?: number;
  /** Matching lines to show (default 20). */
  maxMatches?: number;
  /** Matching lines to skip first (to page); from the last one backwards with `fromEnd`. */
  skip?: number;
  ignoreCase?: boolean;
  /** Count `maxMatches` and `skip` from the last match backwards: the last matches (default false). */
  fromEnd?: boolean;
}
export interface FetchOptions extends DialogOptions {
  offset?: number;
  limit?: number;
}
export interface QueryOptions extends DialogOptions {
  /** A reply holds at least this many characters (default 2000; a processor uses its `maxKeptChars`). */
  chunkChars?: number;
}
export interface PutOptions extends DialogOptions {
  /** The result was cut when shown. */
  truncated?: boolean;
  /** Characters the model was shown. */
  shownChars?: number;
}

/** A result store (the Rust `ResultStore`). */
export declare abstract class Store {
  /** `memory`, `sqlite` or `postgres`. */
  readonly storageType: 'memory' | 'sqlite' | 'postgres';
  put(toolCallId: string, toolName: string, output: Input, args?: ToolArgs | null, options?: PutOptions): void;
  get(toolCallId: string, options?: DialogOptions): string | null;
  getAsync(toolCallId: string, options?: DialogOptions): Promise<string | null>;
  meta(toolCallId: string, options?: DialogOptions): StoredMeta | null;
  list(dialog?: string): StoredMeta[];
  deleteDialog(dialog: string): number;
  pruneOlderThan(seconds: number): number;
  getContinuation(toolCallId: string, options?: ContinuationOptions): ToolReply;
  getContinuationAsync(toolCallId: string, options?: ContinuationOptions): Promise<ToolReply>;
  searchToolOutput(toolCallId: string, pattern: string, options?: SearchOptions): ToolReply;
  searchToolOutputAsync(toolCallId: string, pattern: string, options?: SearchOptions): Promise<ToolReply>;
  fetchToolOutput(toolCallId: string, options?: FetchOptions): ToolReply;
  fetchToolOutputAsync(toolCallId: string, options?: FetchOptions): Promise<ToolReply>;
  getToolResult(toolCallId: string, options?: DialogOptions): ToolReply;
  getToolResultAsync(toolCallId: string, options?: DialogOptions): Promise<ToolReply>;
  /** The value at `path` (`.packages[0].name`, `.items[*].id`) in a stored JSON result, as indented JSON. */
  queryToolOutput(toolCallId: string, path: string, options?: QueryOptions): ToolReply;
  queryToolOutputAsync(toolCallId: string, path: string, options?: QueryOptions): Promise<ToolReply>;
  /** Serve a recovery tool call; null when `name` is not a recovery tool. */
  dispatch(name: string, args?: ToolArgs | null, options?: DialogOptions & ChunkingOptions): ToolReply | null;
  dispatchAsync(name: string, args?: ToolArgs | null, options?: DialogOptions & ChunkingOptions): Promise<ToolReply | null>;
  prepareMessages<M extends Message>(messages: M[], loadToolResults?: LoadToolResults, options?: DialogOptions): Message[];
  /** Old tool results of a history in any of the three formats masked as `policy` says (each kept in the store first). */
  prepareMessages<M extends object>(messages: M[], policy: HistoryPolicy, options?: DialogOptions): M[];
  referenceMessage(toolCallId: string, options?: DialogOptions): { role: 'tool'; tool_call_id: string; content: string } | null;
}

/** Results kept in memory for the life of the object (a per-turn cache). */
export declare class MemoryStore extends Store {
  constructor(options?: { limitBytes?: number });
  readonly storageType: 'memory';
  /** Number of results held. */
  readonly size: number;
}

/** Results kept in one SQLite file: the CLI's `--store PATH`. */
export declare class SqliteStore extends Store {
  /** `createDirs`: create the file's directory when missing (else it must exist). */
  constructor(path: string | URL, options?: { createDirs?: boolean });
  readonly storageType: 'sqlite';
  readonly path: string;
}

/** Results kept in PostgreSQL (an addon built with the `postgres` feature). */
export declare class PostgresStore extends Store {
  constructor(url: string);
  readonly storageType: 'postgres';
}

/** A thresholds.toml file's keys as an object (see docs/configuration.md). */
export interface ConfigObject {
  max_kept_chars?: number;
  bypass?: string[];
  [key: string]: unknown;
}

export interface ProcessorOptions {
  /** undefined: built-in < $TOOLCAP_CONFIG < $TOOL_RESULT_BYPASS_TOOLS (as the CLI); a TOML file; or its keys. */
  config?: string | URL | ConfigObject | null;
  /** Where full results are kept, so the model can read the rest. */
  store?: Store | null;
  /** The dialog results are kept under (default "default"). */
  dialog?: string;
  /** Keep results that were cut (default) or all results. */
  save?: SaveWhen;
  /** `getContinuation` chunks end after a complete line. */
  lineAligned?: boolean;
}

/** What `processStream` reads: a `Readable`, a web `ReadableStream`, or an (async) iterable of pieces. */
export type StreamSource =
  | NodeJS.ReadableStream
  | AsyncIterable<StreamPiece>
  // (an object: a whole string, itself iterable, goes to process())
  | (Iterable<StreamPiece> & object);
/** A piece of a streamed result: text, or bytes. */
export type StreamPiece = string | Uint8Array | ArrayBufferView | ArrayBuffer;

export interface ProcessOptions extends DialogOptions {
  /** The language of a file's content, when the caller knows better than detection. */
  lang?: string;
  /** Tokens left in the model's context window: the threshold and kept size become at most `[budget] fraction` of it (docs/budgets.md). */
  contextLeft?: number;
  /** The model's context window in tokens (with `contextUsed`). */
  contextLimit?: number;
  /** Tokens used so far (with `contextLimit` or `model`). */
  contextUsed?: number;
  /** The model's name: its window from `[budget.models]`. */
  model?: string;
}

/** Where a result's threshold and kept budget come from. */
export type BudgetSource = 'config' | 'context' | 'model' | 'size_hint';

/** The figures behind a call's budgets, when it passed any context option. */
export interface BudgetReport {
  context_left?: number;
  context_limit?: number;
  context_used?: number;
  model?: string;
  /** The model's window from `[budget.models]`. */
  model_window?: number;
  fraction: number;
  /** When a token allowance was turned into characters. */
  chars_per_token?: number;
  /** `fraction × context_left`, in the tool's unit. */
  allowance?: number;
  max_result_chars?: number;
  configured_threshold: number;
  configured_kept_budget: number;
  /** The smallest threshold a budget sets, in the tool's unit. */
  floor: number;
  /** Whether the floor raised the threshold above the allowance. */
  floored: boolean;
  /** Why a figure could not be used (an unknown model). */
  note?: string;
}

/** An OpenAI-format recovery tool definition. */
export interface OpenAIToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: { [key: string]: JsonValue } };
}
/** An Anthropic-format recovery tool definition. */
export interface AnthropicToolDefinition {
  name: string;
  description: string;
  input_schema: { [key: string]: JsonValue };
}
export type ToolDefinitions<F extends ToolFormat> = F extends 'anthropic' ? AnthropicToolDefinition[] : OpenAIToolDefinition[];

/** Makes oversized tool results fit the context window. */
export declare class ToolResultProcessor {
  constructor(options?: ProcessorOptions);
  readonly store: Store | null;
  readonly dialog: string;
  readonly maxKeptChars: number;
  isBypassed(tool: string): boolean;
  describeConfig(): string;
  process(tool: string, result: Input, args?: ToolArgs | null, toolCallId?: string | null, options?: ProcessOptions): Processed;
  processAsync(tool: string, result: Input, args?: ToolArgs | null, toolCallId?: string | null, options?: ProcessOptions): Promise<Processed>;
  /**
   * Process a result that arrives in pieces (a child process's stdout, a file stream, a web
   * `ReadableStream`, any (async) iterable of strings or bytes) with bounded memory: the
   * whole result never sits in JavaScript. If the stream fails, nothing is stored and its
   * error is thrown.
   */
  processStream(tool: string, source: StreamSource, args?: ToolArgs | null, toolCallId?: string | null, options?: ProcessOptions): Promise<Processed>;
  toolDefinitions<F extends ToolFormat = 'openai'>(format?: F): ToolDefinitions<F>;
  dispatch(name: string, args?: ToolArgs | null, options?: DialogOptions): ToolReply | null;
  dispatchAsync(name: string, args?: ToolArgs | null, options?: DialogOptions): Promise<ToolReply | null>;
  getContinuation(toolCallId: string, options?: Omit<ContinuationOptions, keyof ChunkingOptions>): ToolReply;
  getContinuationAsync(toolCallId: string, options?: Omit<ContinuationOptions, keyof ChunkingOptions>): Promise<ToolReply>;
  searchToolOutput(toolCallId: string, pattern: string, options?: SearchOptions): ToolReply;
  searchToolOutputAsync(toolCallId: string, pattern: string, options?: SearchOptions): Promise<ToolReply>;
  fetchToolOutput(toolCallId: string, options?: FetchOptions): ToolReply;
  fetchToolOutputAsync(toolCallId: string, options?: FetchOptions): Promise<ToolReply>;
  getToolResult(toolCallId: string, options?: DialogOptions): ToolReply;
  getToolResultAsync(toolCallId: string, options?: DialogOptions): Promise<ToolReply>;
  queryToolOutput(toolCallId: string, path: string, options?: DialogOptions): ToolReply;
  queryToolOutputAsync(toolCallId: string, path: string, options?: DialogOptions): Promise<ToolReply>;
  prepareMessages<M extends Message>(messages: M[], loadToolResults?: LoadToolResults, options?: DialogOptions): Message[];
  /** Old tool results of a history in any of the three formats masked as `policy` says (each kept in the store first). */
  prepareMessages<M extends object>(messages: M[], policy: HistoryPolicy, options?: DialogOptions): M[];
}

export interface OutlineOptions {
  /** A language name or alias (`toolcap.languages()`); default: detected. */
  language?: string;
  /** The file's path: its extension tells the language. */
  path?: string;
  /** Parser work budget in milliseconds (default 100; 0: none). */
  budgetMs?: number;
  /** Larger sources are outlined up to a top-level boundary before this (default 8 MiB). */
  maxBytes?: number;
}

/** The code structure of `source`. */
export declare function outline(source: Input, options?: OutlineOptions): Outline;
/** `outline` on the libuv thread pool. */
export declare function outlineAsync(source: Input, options?: OutlineOptions): Promise<Outline>;

/** A supported language. */
export interface LanguageInfo {
  name: string;
  extensions: string[];
  aliases: string[];
  interpreters: string[];
}
export declare function languages(): LanguageInfo[];

/** The recovery tools' definitions for the model. */
export declare function toolDefinitions<F extends ToolFormat = 'openai'>(format?: F, options?: { chunkChars?: number }): ToolDefinitions<F>;

/** Base class of every error toolcap throws. Wrong argument types are `TypeError`s, bad values `RangeError`s. */
export declare class ToolcapError extends Error {}
/** A configuration that cannot be used (the message names the file or `<config object>`, the key and the fix). */
export declare class ConfigError extends ToolcapError {}
/** A result store failure, or an id that cannot be stored. */
export declare class StoreError extends ToolcapError {}
/** The outline could not be made. */
export declare class OutlineError extends ToolcapError {}

/** The package's version. */
export declare const version: string;
/** `debug` or `release`: how the addon was compiled. */
export declare const buildProfile: 'debug' | 'release';
/** Whether the addon has `PostgresStore`. */
export declare const hasPostgres: boolean;
