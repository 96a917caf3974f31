//! toolcap's store backends in one table, and a store opened from what the user
//! typed (`--store`, `TOOLCAP_STORE`, a config): a SQLite database file path, or
//! a `postgres://` / `postgresql://` URL (the `toolcap-stores` crate;
//! `toolcap::store` re-exports it).
//!
//! [`open`] / [`open_existing`] ([`Location`]) read a location through the table
//! of backends in [`location`], one row per backend crate: `toolcap-store-sqlite`
//! (cargo feature `sqlite`: `SqliteStore` and the `sqlite` module when
//! built) and `toolcap-store-postgres` (feature `postgres`: `PostgresStore` and
//! the `postgres` module). A location whose backend this build lacks parses all
//! the same and fails to open with [`StoreErrorKind::NotBuilt`], naming the
//! feature.
//!
//! The API the backends implement, and the kit they share, is the
//! `toolcap-store` crate's ([`ResultStore`], `toolcap_store::backend`).
//!
//! [`StoreErrorKind::NotBuilt`]: toolcap_store::StoreErrorKind::NotBuilt
//! [`ResultStore`]: toolcap_store::ResultStore
#![warn(missing_docs)]

pub mod location;

pub use location::{Location, open, open_existing};

#[cfg(feature = "postgres")]
#[doc(inline)]
pub use toolcap_store_postgres as postgres;
#[cfg(feature = "postgres")]
pub use toolcap_store_postgres::PostgresStore;
#[cfg(feature = "sqlite")]
#[doc(inline)]
pub use toolcap_store_sqlite as sqlite;
#[cfg(feature = "sqlite")]
pub use toolcap_store_sqlite::SqliteStore;
