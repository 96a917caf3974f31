//! The only place that writes what the model reads besides the kept text:
//! markers, notes and the recovery section ([`recovery`]), and that recognises
//! them again so that toolcap's own output is never cut twice.
//!
//! Stages hand it data (counts, line ranges, the recovery model), never text.
//! It imports no stage: every stage may hand it data.
//!
//! A crate of toolcap's workspace (above `toolcap-config`). Not API: the
//! `toolcap` crate re-exports the recovery model (`toolcap::hints`).

#![warn(missing_docs)]

// the floors below, under the paths these modules used in the one crate
use toolcap_config as config;
use toolcap_text::{quote, text};

pub mod facts;
pub mod marker;
pub mod notes;
pub mod outline;
pub mod recognise;
pub mod recovery;
