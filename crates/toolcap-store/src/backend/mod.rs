//! What a backend's opener is given and returns (a leaf: `location`'s table of
//! backends names each backend's opener, and each backend's module implements it).

use std::sync::Arc;
use std::time::Duration;

use super::{ResultStore, StoreError};

/// How a location is opened (see [`Location::open`](crate::Location::open),
/// [`Location::open_waiting`](crate::Location::open_waiting),
/// [`Location::open_existing`](crate::Location::open_existing)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Open {
    /// Open, creating the store if needed.
    Create,
    /// [`Open::Create`], waiting at most this long for another process holding it.
    Waiting(Duration),
    /// Open an existing store only: `None` when there is none.
    Existing,
}

/// What an opener returns: `None` only for [`Open::Existing`] and no store there.
pub(crate) type Opened = Result<Option<Arc<dyn ResultStore>>, StoreError>;
