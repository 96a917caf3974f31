//! The backend kit: what a store backend built on this crate is given and shares.
//!
//! A backend is a crate of its own (`toolcap-store-sqlite`,
//! `toolcap-store-postgres`): a [`ResultStore`] and an opener, a function of the
//! location and an [`Open`] returning [`Opened`]. The table of backends
//! (`toolcap-stores`, above the backend crates) names each backend's opener in
//! one row, and every front end opens stores through that table without naming
//! a backend.
//!
//! The rest is what the SQL backends share: [`Chunked`], the piece-by-piece
//! writer of [`ResultStore::begin_output`] over a backend's [`ChunkSink`]; the
//! metadata columns ([`META_COLUMNS`]) read back by [`meta_from_row`] through a
//! client's [`MetaRow`]; the integer conversions [`to_i64`] and [`to_usize`].
//! Retention's arithmetic is in [`retention`](crate::retention)
//! ([`age_limit_ms`](crate::retention::age_limit_ms),
//! [`tombstone_cutoff_ms`](crate::retention::tombstone_cutoff_ms),
//! [`duration_ms`](crate::retention::duration_ms)), and the errors a backend
//! returns are built with [`StoreError`]'s constructors
//! ([`open`](StoreError::open), [`io`](StoreError::io),
//! [`connect`](StoreError::connect), [`bad_location`](StoreError::bad_location),
//! [`with_source`](StoreError::with_source)).

use std::sync::Arc;
use std::time::Duration;

use super::{ResultStore, StoreError};

mod chunked;
mod row;

pub use chunked::{ChunkSink, Chunked};
pub use row::{META_COLUMNS, MetaRow, meta_from_row, to_i64, to_usize};

/// How a location is opened: `Location::open`, `Location::open_waiting` and
/// `Location::open_existing` of `toolcap-stores` hand it to the backend's opener.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Open {
    /// Open, creating the store if needed.
    Create,
    /// [`Open::Create`], waiting at most this long for another process holding it
    /// (a backend without a busy wait opens as for [`Open::Create`]).
    Waiting(Duration),
    /// Open an existing store only: `None` when there is none.
    Existing,
}

/// What an opener returns: `None` only for [`Open::Existing`] and no store there.
pub type Opened = Result<Option<Arc<dyn ResultStore>>, StoreError>;
