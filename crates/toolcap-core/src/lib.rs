//! toolcap's pipeline above the store (the `toolcap-core` crate; the `toolcap`
//! crate re-exports what its users use and documents it): the processor
//! ([`ToolResultProcessor`]: resolve, bypass, threshold, scan, cut, hints, render),
//! the recovery [`hints`] of each tool family, the [`history`] policy, and
//! [`bind`], the conversions the CLI and the bindings share.

#![warn(missing_docs)]

pub(crate) mod args;
pub mod bind;
pub mod hints;
pub mod history;
// Not API (hidden): public for the `toolcap` crate's binary (the decoder's
// encoding names, `toolcap run`'s bounded reads).
#[doc(hidden)]
pub mod processor;

// the floors below, under the paths these modules used in the one crate
use toolcap_config as config;
use toolcap_cut as cut;
use toolcap_outline as outline;
use toolcap_render as render;
use toolcap_text::{measure, quote, text};

/// The store's API (`toolcap-store`) and its backends with the table that opens
/// them (`toolcap-stores`), under the one path these modules used.
mod store {
    pub use toolcap_store::*;
    pub use toolcap_stores::*;
}

pub use args::{ArgsError, tool_args};
use config::{Config, ContextWindow};
pub use processor::{
    CollapsedRun, CustomFamily, HintBuilder, HtmlStats, LineRange, Omitted, PrintedFile, Processed,
    Reason, Stored, StreamError, ToolCall, ToolResultProcessor,
};

/// A fixture of the repository's `fixtures/` folder, read when a unit test runs
/// (never compiled in: the published crate carries no fixtures).
#[cfg(test)]
pub(crate) fn test_fixture(rel: &str) -> &'static str {
    let path = test_fixture_path(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Box::leak(text.into_boxed_str())
}

/// Where a fixture of the repository's `fixtures/` folder is (this crate sits
/// two levels below the repository's root).
#[cfg(test)]
pub(crate) fn test_fixture_path(rel: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(rel)
}
