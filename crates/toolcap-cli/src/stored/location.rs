//! Where a command finds its store and dialog, and opening that store.

use std::path::PathBuf;
use std::sync::Arc;

use toolcap_core::bind;
use toolcap_store::{ResultStore, StoreError};

use super::super::common::{Failure, load_config, other, usage};
use super::{StoreArgs, expire_on_open};

/// $TOOLCAP_STORE, when set and not empty.
pub fn env_store() -> Option<PathBuf> {
    std::env::var_os("TOOLCAP_STORE")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The store path: the flag, else $TOOLCAP_STORE, else the default.
pub fn store_path(flag: Option<PathBuf>) -> Result<PathBuf, Failure> {
    flag.or_else(env_store)
        .or_else(toolcap_store::default_store_path)
        .ok_or_else(|| {
            usage("no home directory to put the default result store in; pass --store PATH or set TOOLCAP_STORE")
        })
}

/// The dialog id: the flag, else $TOOLCAP_DIALOG, else "default"; validated.
pub fn dialog_id(flag: Option<String>) -> Result<String, Failure> {
    let d = flag
        .or_else(|| {
            std::env::var("TOOLCAP_DIALOG")
                .ok()
                .filter(|v| !v.is_empty())
        })
        .unwrap_or_else(|| toolcap_store::DEFAULT_DIALOG.to_string());
    toolcap_store::validate_id("dialog id", &d).map_err(|e| usage(format!("--dialog: {e}")))?;
    Ok(d)
}

/// The store location: the flag, else $TOOLCAP_STORE, else the default; a
/// malformed URL is a usage error.
pub fn store_location(flag: Option<PathBuf>) -> Result<toolcap_stores::Location, Failure> {
    toolcap_stores::Location::parse(store_path(flag)?).map_err(store_failure)
}

/// The store a command reads (`stats`, `show`, `prune`, ...): the flag, else
/// $TOOLCAP_STORE, else the current project's store (where `toolcap run` and
/// the hooks keep outputs) when it exists, else the default path when that
/// exists, else the project's store (named in a "nothing there" message).
pub fn read_location(flag: Option<PathBuf>) -> Result<toolcap_stores::Location, Failure> {
    if let Some(f) = flag.or_else(env_store) {
        return toolcap_stores::Location::parse(f).map_err(store_failure);
    }
    let project = super::super::project::project_root()
        .and_then(|r| super::super::project::project_store_for(&r));
    let default = toolcap_store::default_store_path();
    let chosen = match (project, default) {
        (Some(p), _) if p.is_file() => p,
        (_, Some(d)) if d.is_file() => d,
        (Some(p), _) => p,
        (None, Some(d)) => d,
        (None, None) => return store_location(None),
    };
    toolcap_stores::Location::parse(chosen).map_err(store_failure)
}

/// A store error as the CLI reports it: exit 2 for a location that cannot be used
/// as written, 1 for the rest.
pub fn store_failure(e: StoreError) -> Failure {
    if e.is_usage() {
        usage(e.to_string())
    } else {
        other(e.to_string())
    }
}

/// Open the store `spec` names (a SQLite path or a postgres:// URL), creating it if
/// needed. The directory of a SQLite file is created only for the default path: a
/// path the user typed must be in an existing directory (a typo is an error, not a
/// new directory tree).
pub fn open_store(spec: &std::ffi::OsStr) -> Result<Arc<dyn ResultStore>, Failure> {
    try_open_store(spec).map_err(store_failure)
}

/// [`open_store`] for a hook or the MCP server, whose store is often the project's
/// default: a SQLite file's directory is created first (`fix` ends the message
/// when it cannot be).
pub fn open_store_creating_dir(
    spec: &std::path::Path,
    fix: &str,
) -> Result<Arc<dyn ResultStore>, Failure> {
    if let Ok(at) = toolcap_stores::Location::parse(spec)
        && let Some(dir) = at
            .file_path()
            .and_then(std::path::Path::parent)
            .filter(|d| !d.as_os_str().is_empty())
    {
        toolcap_store::private::create_dir_all(dir).map_err(|e| {
            other(format!(
                "{}: cannot create the store's directory: {e}{fix}",
                dir.display()
            ))
        })?;
    }
    open_store(spec.as_os_str())
}

/// [`open_store`] with the store's own error, for a caller that tells a database
/// that is down from a location that is wrong.
pub fn try_open_store(spec: &std::ffi::OsStr) -> Result<Arc<dyn ResultStore>, StoreError> {
    let dirs = if bind::default_store_path().is_some_and(|d| d.as_os_str() == spec) {
        bind::Dirs::Create
    } else {
        bind::Dirs::MustExist
    };
    bind::StoreSpec::path_or_url(spec).and_then(|s| s.open(dirs))
}

/// Store location and dialog for a read command, with the id checked. With no
/// --store and no $TOOLCAP_STORE: the current project's store (where `toolcap
/// run` keeps outputs) when it holds the id, else the default path.
pub(super) fn read_target(
    id: &str,
    at: &StoreArgs,
) -> Result<(toolcap_stores::Location, String), Failure> {
    toolcap_store::validate_id("tool_call_id", id).map_err(|e| usage(format!("ID: {e}")))?;
    let dialog = dialog_id(at.dialog.clone())?;
    let flag = at.store.clone().or_else(env_store);
    if flag.is_none()
        && let Some(p) = super::super::project::project_root()
            .and_then(|r| super::super::project::project_store_for(&r))
        && p.is_file()
    {
        let loc = toolcap_stores::Location::parse(&p).map_err(store_failure)?;
        let holds =
            open_existing(&loc)?.is_some_and(|s| s.meta(&dialog, id).ok().flatten().is_some());
        let default_exists = toolcap_store::default_store_path().is_some_and(|d| d.exists());
        if holds || !default_exists {
            return Ok((loc, dialog));
        }
        // the default store when it holds the id; else the project's is named
        let def = read_location(None)?;
        let in_default = toolcap_store::default_store_path()
            .and_then(|d| toolcap_stores::Location::parse(d).ok())
            .and_then(|d| open_existing(&d).ok().flatten())
            .is_some_and(|s| s.meta(&dialog, id).ok().flatten().is_some());
        return Ok((
            if in_default {
                store_location(None)?
            } else {
                def
            },
            dialog,
        ));
    }
    Ok((read_location(flag)?, dialog))
}

pub(super) fn open_existing(
    at: &toolcap_stores::Location,
) -> Result<Option<Arc<dyn ResultStore>>, Failure> {
    at.open_existing().map_err(store_failure)
}

/// The store at `at` as a read finds it: with the `[store]` retention of the
/// read's config applied first, so a result older than `keep` is served as
/// expired, never from a store that has not been pruned since.
pub(super) fn open_to_read(
    target: &StoreArgs,
    at: &toolcap_stores::Location,
) -> Result<Option<Arc<dyn ResultStore>>, Failure> {
    let config = load_config(target.config.as_deref())?;
    let s = open_existing(at)?;
    if let Some(s) = &s {
        expire_on_open(&**s, &config, "read");
    }
    Ok(s)
}
