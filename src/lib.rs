//! # Overview
//!
//! toolcap makes oversized LLM tool results fit the context window without losing
//! the way back to what was cut.
//!
//! [`ToolResultProcessor::process`] takes a tool's name, its result text and its
//! arguments, and returns what the model should see: the result unchanged when it
//! is under the tool's threshold (or the tool is bypassed), or else the part that
//! matters for that tool (a file's head; a command's head, tail and error lines),
//! cut on line and character boundaries, with an exact marker of what was omitted
//! and a `--- Recovery Options ---` section: totals, a code outline, and runnable
//! commands that get the rest.
//!
//! ```
//! use serde_json::json;
//! use toolcap::{Config, ToolResultProcessor};
//!
//! let processor = ToolResultProcessor::new(Config::defaults());
//! let source: String = (1..=200)
//!     .map(|i| {
//!         format!(
//!             "def handler_{i}(event):\n    \"\"\"Handle event {i}.\"\"\"\n    value = event.get(\"v{i}\")\n    \
//!              if value is None:\n        return None\n    return value * {i}\n\n\n"
//!         )
//!     })
//!     .collect();
//! let out = processor.process("read_file", &source, &json!({"path": "handlers.py"}));
//!
//! assert!(out.truncated);
//! // The first 112 lines (1,994 chars) are kept whole; the marker counts the rest exactly.
//! assert!(out.text.contains("[... 27,374 chars, 1,488 lines omitted (lines 113-1600 of 1600) ...]"));
//! assert!(out.text.contains("File: handlers.py | 1,600 lines, 29,368 chars | python"));
//! // The outline lists what was cut: the first definitions by their signature lines
//! // and numbers, then the rest by name with line spans, and how many more there are.
//! assert!(out.text.contains("  113: def handler_15(event):"));
//! assert!(out.text.contains("  function handler_39 305-310, handler_40 313-318,"));
//! assert!(out.text.contains("  ... and 152 more: 152 functions"));
//! // The next range is sized to come back whole from the shell tool (3,500 chars).
//! assert!(out.text.contains(r#"shell(command="sed -n '113,284p' handlers.py")  # next 172 lines, 3,146 chars"#));
//! assert_eq!(out.omitted.ranges[0].start_line, 113);
//!
//! // Small results pass through unchanged.
//! let small = processor.process("read_file", "print('hi')\n", &json!({"path": "a.py"}));
//! assert_eq!(small.text, "print('hi')\n");
//! ```

#![warn(missing_docs)]

// The public surface: the processor and its report types (re-exported below),
// `config`, `outline`, `store` (with the recovery tools), `hints` (what a custom
// family builds), `history` (old results masked in batches), `bind` (the conversions the CLI and the bindings share), and the
// `serve` / `mcp_proxy` entry points. The rest is internal.
#[doc(inline)]
pub use toolcap_core::bind;
/// Thresholds and tool mapping: load, merge (compiled defaults < user file <
/// env), validate (the `toolcap-config` crate).
///
/// The defaults live in `thresholds.toml` (at the repository root) and are
/// compiled in. A user file is parsed with the same schema (every key optional,
/// unknown keys are errors) and merged over them key by key;
/// `TOOL_RESULT_BYPASS_TOOLS` adds bypassed tools last. Validation happens once,
/// in [`Config::from_sources`], and every error names the file, the key and the
/// fix.
pub mod config {
    #[doc(inline)]
    pub use toolcap_config::{
        ArgKeys, BYPASS_ENV, BudgetConfig, BudgetReport, BudgetSource, Budgeted, CONFIG_ENV,
        Config, ConfigError, ConfigErrorKind, ContextWindow, DEFAULT_EXPIRE_EVERY, DEFAULT_TOML,
        DEFAULTS_ORIGIN, Encoding, Family, FetchTool, GlobTool, GrepTool, MIN_FLOOR, ModelWindow,
        ReadTool, RecoveryCalls, SearchTool, Shape, ShellTool, Source, StoreConfig, Suggest,
        ToolEntry, Unit, glob_match, parse_size, presets, recovery_tools,
    };
}
#[doc(inline)]
pub use toolcap_core::{hints, history};
#[cfg(feature = "mcp")]
#[doc(inline)]
pub use toolcap_mcp as mcp_proxy;
/// Code-structure outline: the definitions of a source file (classes,
/// functions, impl blocks, ...) with their line ranges and nesting, extracted
/// with tree-sitter, and the outlines of text formats (the `toolcap-outline`
/// crate).
///
/// One mechanism serves every language: a query file per language captures
/// definitions and their names, and a containment pass keeps those at module
/// level and inside containers. [`outline`](outline::outline) and
/// [`outline_with`](outline::outline_with) are the entry points.
pub mod outline {
    #[doc(inline)]
    pub use toolcap_outline::{
        DEFAULT_ALWAYS_BYTES, DEFAULT_BUDGET, DEFAULT_MAX_BYTES, Kind, Language, LineSpan, Options,
        Outline, OutlineError, Stop, Symbol, UnknownLanguage, cache_hits, check_language,
        extension, outline, outline_with, text, top_level_boundary,
    };
}
#[cfg(feature = "server")]
#[doc(inline)]
pub use toolcap_serve as serve;
pub mod store {
    //! Keeping the full result, and getting it back (the `toolcap-store` crate, the
    //! backend crates `toolcap-store-sqlite` and `toolcap-store-postgres`, and
    //! `toolcap-stores`, their table).
    //!
    //! When a [`ResultStore`] is attached to the processor
    //! ([`ToolResultProcessor::with_store`](crate::ToolResultProcessor::with_store)), the
    //! full text of a result is saved under its tool call id, scoped by a dialog (thread)
    //! id, and the recovery section tells the model how to read the rest:
    //! `Call get_continuation with tool_call_id="call_abc123" offset=1985 to read more`.
    //!
    //! - [`MemoryStore`]: a per-turn cache in memory, dropped with its owner.
    //! - [`SqliteStore`] (cargo feature `sqlite`, on by default): one SQLite database file
    //!   in WAL mode, safe for many processes at once; the CLI's store.
    //! - `PostgresStore` (cargo feature `postgres`): a PostgreSQL database shared by many
    //!   hosts, with the same semantics.
    //! - [`open`] / [`open_existing`] ([`Location`]): a store from what the user typed, a
    //!   SQLite file path or a `postgres://` URL; what every CLI command calls.
    //! - [`OutputWriter`] ([`ResultStore::begin_output`]): a result kept as it is read,
    //!   piece by piece, so a stream too large to hold is kept all the same (the
    //!   processor decodes its bytes to exactly the text a whole read keeps).
    //! - [`LazyStore`]: a store opened on first use, failing fast once it failed
    //!   (`toolcap run`'s).
    //! - [`continuation`]: `get_continuation`, `fetch_tool_output`, `get_tool_result`,
    //!   the reference form of a tool message and preparing a message history.
    //! - [`lines`]: `get_continuation` by line range and `search_tool_output`.
    //! - [`tools`]: the recovery tools' JSON-schema definitions and local dispatch.
    //! - [`retention`]: results expiring by age and size ([`Retention`],
    //!   [`ResultStore::expire`]), and the "expired" reply for what went.
    //! - [`record`]: the record of results seen and recovery calls answered, and the
    //!   figures `toolcap stats` prints from it.

    #[doc(inline)]
    pub use toolcap_store::*;
    // `open`, `open_existing`, `Location`, `location`; `SqliteStore` and `sqlite`,
    // `PostgresStore` and `postgres` with their features
    #[doc(inline)]
    pub use toolcap_stores::*;
}

// The floors below the pipeline, each a crate of the workspace (crates/), under
// the module paths they had in this crate.
pub(crate) use toolcap_cut as cut;

#[doc(no_inline)]
pub use config::{BudgetReport, Config, ConfigError, ContextWindow, Family, Shape};
pub use cut::clean::CleanStats;
pub use cut::index::Totals;
pub use cut::jsoncut::JsonStats;
pub use cut::shape::KeptSpan;
#[doc(no_inline)]
pub use hints::Suggestion;
#[doc(no_inline)]
pub use outline::{Kind, Language, Outline, Symbol, UnknownLanguage};
#[cfg(feature = "postgres")]
#[doc(no_inline)]
pub use store::PostgresStore;
#[cfg(feature = "sqlite")]
#[doc(no_inline)]
pub use store::SqliteStore;
#[doc(no_inline)]
pub use store::{MemoryStore, ResultStore, SaveWhen, StoreError};
pub use toolcap_core::{
    CollapsedRun, CustomFamily, HintBuilder, HtmlStats, LineRange, Omitted, PrintedFile, Processed,
    Reason, Stored, StreamError, ToolCall, ToolResultProcessor,
};

/// The README's Rust examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The Rust examples of `docs/`, compiled and run as doc tests.
#[cfg(doctest)]
mod docs_doctests {
    #[doc = include_str!("../docs/cuts.md")]
    pub struct Cuts;
    #[doc = include_str!("../docs/store.md")]
    pub struct Store;
    #[doc = include_str!("../docs/history.md")]
    pub struct History;
    #[doc = include_str!("../docs/stats.md")]
    pub struct Stats;
}
