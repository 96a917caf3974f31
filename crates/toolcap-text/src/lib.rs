//! The floor of toolcap's pipeline, which every stage above it shares:
//! [`text`] counts characters, finds their byte offsets and formats counts for
//! the model; [`quote`] quotes untrusted strings for the syntax they land in
//! (POSIX shell words, JSON, regex literals); [`measure`] counts characters or
//! tokens. It depends on no other toolcap crate.
//!
//! Not API: the `toolcap` crate re-exports what its users need; the rest may
//! change in any release.

#![warn(missing_docs)]

pub mod measure;
pub mod quote;
pub mod text;
