//! toolcap's pipeline above the store (the `toolcap-core` crate; the `toolcap`
//! crate re-exports what its users use and documents it): the processor
//! ([`ToolResultProcessor`]: resolve, bypass, threshold, scan, cut, hints, render),
//! the recovery [`hints`] of each tool family, the [`history`] policy, and
//! [`bind`], the conversions the CLI and the bindings share; and two helpers
//! of a caller that reads a result itself: [`read_pieces`] (a reader in
//! bounded pieces) and [`iconv_name`] (an encoding's name as `iconv` knows it).

#![warn(missing_docs)]

pub(crate) mod args;
pub mod bind;
pub mod hints;
pub mod history;
mod processor;

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
pub use processor::decode::iconv_name;
pub use processor::{
    CollapsedRun, CustomFamily, HintBuilder, HtmlStats, LineRange, Omitted, PrintedFile, Processed,
    Reason, Stored, StreamError, ToolCall, ToolResultProcessor, read_pieces,
};

// the repository's fixtures, read when a unit test runs (the dev-only testkit)
#[cfg(test)]
pub(crate) use toolcap_testkit::{fixture as test_fixture, fixture_path as test_fixture_path};
