//! Files only their owner can read: what toolcap keeps holds the commands' whole
//! output (tokens, keys, customer data), so every file it writes for itself —
//! the store and its `-wal`/`-shm`, the agents' view files, `report --html`
//! pages, install's backups — is made `0600` in directories made `0700`,
//! whatever the umask. A file or directory that already exists keeps the mode
//! its owner gave it.
//!
//! On systems without Unix modes these are the plain `std::fs` calls.

use std::io::Write;
use std::path::Path;

/// `std::fs::create_dir_all`, every directory it creates `0700`.
pub fn create_dir_all(dir: &Path) -> std::io::Result<()> {
    let mut b = std::fs::DirBuilder::new();
    b.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut b, 0o700);
    b.create(dir)
}

/// Creates `path` empty and `0600` when nothing is there (a file that exists is
/// left as it is): SQLite then opens it as a new database, and gives the
/// `-wal` and `-shm` files it makes beside it the same mode.
pub fn create_empty(path: &Path) -> std::io::Result<()> {
    match options().write(true).create_new(true).open(path) {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        r => r.map(drop),
    }
}

/// `std::fs::write`, a new file made `0600` (one that exists keeps its mode).
pub fn write(path: &Path, bytes: impl AsRef<[u8]>) -> std::io::Result<()> {
    let mut f = options()
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)?;
    f.write_all(bytes.as_ref())?;
    f.flush()
}

/// Open options whose `create` makes the file `0600`.
pub fn options() -> std::fs::OpenOptions {
    #[allow(unused_mut)]
    let mut o = std::fs::OpenOptions::new();
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut o, 0o600);
    o
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(p: &Path) -> u32 {
        std::fs::metadata(p).map_or(0, |m| m.permissions().mode() & 0o777)
    }

    #[test]
    fn new_files_and_directories_are_the_owners_alone() {
        let d = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let deep = d.path().join("a/b");
        create_dir_all(&deep).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(mode(&d.path().join("a")), 0o700);
        assert_eq!(mode(&deep), 0o700);
        let f = deep.join("results.db");
        create_empty(&f).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(mode(&f), 0o600);
        write(&deep.join("page.html"), "x").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(mode(&deep.join("page.html")), 0o600);
        // what exists keeps its mode and content
        std::fs::write(&f, "kept").unwrap_or_else(|e| panic!("{e}"));
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o640))
            .unwrap_or_else(|e| panic!("{e}"));
        create_empty(&f).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(mode(&f), 0o640);
        assert_eq!(std::fs::read_to_string(&f).unwrap_or_default(), "kept");
    }
}
