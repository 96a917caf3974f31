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

pub(crate) mod blocks;
pub(crate) mod bounds;
pub(crate) mod clean;
pub(crate) mod collapse;
pub(crate) mod error_lines;
pub mod everyday;
pub(crate) mod html_text;
pub(crate) mod index;
pub(crate) mod jsoncut;
pub(crate) mod lines;
pub(crate) mod scan;
pub(crate) mod shape;
