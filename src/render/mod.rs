//! The only place that writes what the model reads besides the kept text:
//! markers, notes and the recovery section ([`recovery`]), and that recognises
//! them again so that toolcap's own output is never cut twice.
//!
//! Stages hand it data (counts, line ranges, the recovery model), never text.
//! It imports no stage: every stage may hand it data.

pub(crate) mod marker;
pub(crate) mod notes;
pub(crate) mod outline;
pub(crate) mod recognise;
pub(crate) mod recovery;
