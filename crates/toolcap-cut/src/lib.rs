//! The cut stage: what of an oversized result to keep.
//!
//! One pass over the text ([`scan`]: counts, terminal noise removed by
//! [`clean`], repeats, error lines found by [`error_lines`], bounded windows of
//! a stream, lines found by [`lines`]); the lines' index ([`index`]); where to
//! cut by shape ([`shape`]: head, tail, or `head_tail` filled by the ranks of
//! [`blocks`] with runs of near-duplicates [`collapse`]d); JSON kept valid
//! ([`jsoncut`]); a fetched page's text ([`html_text`]); and how large
//! toolcap's own output can be ([`bounds`]).
//!
//! The stage hands plain data on (kept ranges, omitted parts, statistics); it
//! imports no later stage (hints, processor), and its modules import each other
//! one way: `index`, `error_lines`, `lines`, `clean`, `html_text` and
//! `jsoncut` are leaves; `blocks` and `collapse` rank lines; `shape` cuts;
//! `scan` reads; `bounds` knows the output's limits.
//!
//! A crate of toolcap's workspace (above `toolcap-render`). Not API: the
//! `toolcap` crate re-exports what its users read (`Totals`, `KeptSpan`,
//! `CleanStats`, `JsonStats`).

// every public item, field and variant documented: the stages above read them
#![warn(missing_docs)]
// the modules' docs link to their private tables (the rules, the limits)
#![allow(rustdoc::private_intra_doc_links)]

// the floors below, under the paths these modules used in the one crate
use toolcap_config as config;
use toolcap_render as render;
use toolcap_text::{measure, text};

pub mod blocks;
pub mod bounds;
pub mod clean;
pub mod collapse;
pub mod error_lines;
pub mod everyday;
pub mod html_text;
pub mod index;
pub mod jsoncut;
pub mod lines;
pub mod scan;
pub mod shape;
pub mod spill;
