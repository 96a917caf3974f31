//! How `toolcap install` reads and writes the agents' files: regular files
//! only (a FIFO or a device is refused, never opened), through symlinks (the
//! link stays, its target is what changes), a file's mode and owner kept, a
//! read-only file refused, every change of one run written to uniquely named
//! temporary files first and then put in place together (or none), under a
//! lock per file so that concurrent runs do not lose each other's changes;
//! backups 0600 in 0700 directories.

use std::fs::{self, File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use super::super::common::{Failure, other, usage};
use super::super::project::{project_key, state_dir};
use super::super::saved::{file_kind, read_regular};

/// A config file as found: the path toolcap names, the file it really is
/// (a symlink's target), its bytes and mode.
pub(super) struct Found {
    /// The regular file the path leads to (itself unless it is a symlink).
    pub real: PathBuf,
    /// Its text, None when there is no file.
    pub text: Option<String>,
    /// Its permission bits, owner and group.
    pub mode: Option<(u32, u32, u32)>,
}

/// The file `path` leads to through symlinks (relative targets from the
/// link's directory); a path that is no symlink is itself.
pub(super) fn resolve(path: &Path) -> Result<PathBuf, Failure> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = fs::read_link(&p).map_err(|e| {
                    usage(format!(
                        "{}: cannot read the link: {e} (nothing was written)",
                        path.display()
                    ))
                })?;
                p = match p.parent() {
                    Some(dir) if target.is_relative() => dir.join(target),
                    _ => target,
                };
            }
            _ => return Ok(p),
        }
    }
    Err(usage(format!(
        "{}: too many levels of symbolic links; fix the link, then run toolcap install again (nothing was written)",
        path.display()
    )))
}

/// Largest config file read (an agent's settings are kilobytes).
const MAX_CONFIG: u64 = 64 << 20;

/// Read `path` (through symlinks): a regular file, or none. Anything else (a
/// directory, a FIFO, a device) is refused without opening it.
pub(super) fn read_config(path: &Path) -> Result<Found, Failure> {
    let real = resolve(path)?;
    let m = match fs::metadata(&real) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Found {
                real,
                text: None,
                mode: None,
            });
        }
        Err(e) => {
            return Err(usage(format!(
                "{}: cannot read it: {e}; fix its permissions, then run toolcap install again (nothing was written)",
                path.display()
            )));
        }
    };
    if !m.is_file() {
        return Err(usage(format!(
            "{}: not a regular file ({}); toolcap reads and writes only regular files: move it away, then run toolcap install again (nothing was written)",
            path.display(),
            file_kind(&m)
        )));
    }
    let bytes = read_regular(&real, MAX_CONFIG).map_err(|e| {
        usage(format!(
            "{}: cannot read it: {e}; fix its permissions, then run toolcap install again (nothing was written)",
            path.display()
        ))
    })?;
    let text = String::from_utf8(bytes).map_err(|_| {
        usage(format!(
            "{}: not UTF-8 text; fix or move the file, then run toolcap install again (nothing was written)",
            path.display()
        ))
    })?;
    Ok(Found {
        real,
        text: Some(text),
        mode: Some(mode_of(&m)),
    })
}

fn mode_of(m: &fs::Metadata) -> (u32, u32, u32) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (m.mode() & 0o7777, m.uid(), m.gid())
    }
    #[cfg(not(unix))]
    {
        let ro = m.permissions().readonly();
        (if ro { 0o444 } else { 0o644 }, 0, 0)
    }
}

/// Why toolcap will not change the existing file `path` (its `mode`): the
/// user made it read-only, or this user may not write it.
pub(super) fn refuse_unwritable(path: &Path, real: &Path, mode: (u32, u32, u32)) -> Option<String> {
    let fix = "then run toolcap install again (nothing was written)";
    if mode.0 & 0o222 == 0 {
        return Some(format!(
            "{}: read-only (mode {:04o}): toolcap does not replace a file you made read-only; make it writable (`chmod u+w {}`) or add toolcap's entries by hand, {fix}",
            path.display(),
            mode.0,
            real.display()
        ));
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(real.as_os_str().as_bytes()).ok()?;
        // SAFETY: `c` is a valid NUL-terminated path for the call's duration.
        let writable = unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0;
        if !writable {
            return Some(format!(
                "{}: this user may not write it (owner uid {}, mode {:04o}); run toolcap install as its owner, or make it writable, {fix}",
                path.display(),
                mode.1,
                mode.0
            ));
        }
    }
    None
}

/// A directory toolcap keeps private files in: made 0700 (its missing parents
/// too), and made 0700 when it exists.
pub(super) fn private_dir(dir: &Path) -> std::io::Result<()> {
    toolcap_store::private::create_dir_all(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// A config file's backup: in toolcap's state dir (never beside the file, which
/// may be in a repository), named by the file's whole path.
pub(super) fn backup_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = path.parent().unwrap_or(path);
    state_dir()
        .unwrap_or_else(std::env::temp_dir)
        .join("backups")
        .join(project_key(dir))
        .join(name)
}

/// Write the backup of `path` unless there is one (the first is the user's own
/// file): 0600 in 0700 directories.
pub(super) fn write_backup(path: &Path, text: &str) -> Result<bool, Failure> {
    let backup = backup_path(path);
    let fail = |e: std::io::Error| {
        other(format!(
            "{}: cannot write its backup {}: {e} (nothing was changed)",
            path.display(),
            backup.display()
        ))
    };
    if let Some(dir) = backup.parent() {
        if let Some(backups) = dir.parent() {
            private_dir(backups).map_err(fail)?;
        }
        private_dir(dir).map_err(fail)?;
    }
    match toolcap_store::private::options()
        .write(true)
        .create_new(true)
        .open(&backup)
    {
        Ok(mut f) => {
            f.write_all(text.as_bytes()).map_err(fail)?;
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(fail(e)),
    }
}

/// Exclusive locks on the files of one run, taken in path order (two runs
/// never wait on each other in a circle), held until dropped.
pub(super) struct Locks(#[allow(dead_code)] Vec<File>);

/// Lock each of `reals` (the files really written): a lock file per config in
/// `<state dir>/toolcap/locks/`, named by the file's whole path.
pub(super) fn lock(reals: &[PathBuf]) -> Result<Locks, Failure> {
    let Some(dir) = state_dir().map(|d| d.join("locks")) else {
        return Ok(Locks(Vec::new()));
    };
    private_dir(&dir).map_err(|e| {
        other(format!(
            "{}: cannot make the lock directory: {e}",
            dir.display()
        ))
    })?;
    let mut names: Vec<String> = reals
        .iter()
        .map(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            format!("{}-{name}.lock", project_key(p.parent().unwrap_or(p)))
        })
        .collect();
    names.sort();
    names.dedup();
    let mut held = Vec::new();
    for n in names {
        let p = dir.join(n);
        let f = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&p)
            .map_err(|e| other(format!("{}: cannot open the lock: {e}", p.display())))?;
        f.lock()
            .map_err(|e| other(format!("{}: cannot lock: {e}", p.display())))?;
        held.push(f);
    }
    Ok(Locks(held))
}

/// One file's change, ready to be put in place.
pub(super) struct Change {
    /// The path as toolcap names it (for messages).
    pub path: PathBuf,
    /// The file written (a symlink's target).
    pub real: PathBuf,
    /// Its bytes now (None: no file) and after (None: remove it).
    pub before: Option<String>,
    pub after: Option<String>,
    /// Its mode and owner now, kept.
    pub mode: Option<(u32, u32, u32)>,
}

/// A unique temporary name beside `real`.
fn temp_for(real: &Path, n: usize) -> PathBuf {
    let name = real
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    real.with_file_name(format!(
        ".{name}.toolcap-{}-{nanos:08x}-{n}.tmp",
        std::process::id()
    ))
}

/// `text` in a new temporary file beside `real` with the mode (and owner) of
/// the file it replaces, or (a new file) 0755 for a script and the default
/// otherwise.
fn stage(
    real: &Path,
    text: &str,
    mode: Option<(u32, u32, u32)>,
    n: usize,
) -> std::io::Result<PathBuf> {
    if let Some(dir) = real.parent() {
        fs::create_dir_all(dir)?;
    }
    let tmp = temp_for(real, n);
    let mut o = OpenOptions::new();
    o.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    let mut f = o.open(&tmp)?;
    let done = (|| {
        f.write_all(text.as_bytes())?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let bits = match mode {
                Some((m, uid, gid)) => {
                    // the owner stays (toolcap run as root on a user's file)
                    let _ = std::os::unix::fs::fchown(&f, Some(uid), Some(gid));
                    m
                }
                None if text.starts_with("#!") => 0o755,
                None => {
                    // a new file: what the user's umask gives any new file
                    // SAFETY: umask only swaps the process's mask; set back at once.
                    let mask = unsafe {
                        let m = libc::umask(0o022);
                        libc::umask(m);
                        m
                    };
                    0o666 & !(mask as u32)
                }
            };
            f.set_permissions(fs::Permissions::from_mode(bits))?;
        }
        f.sync_all()
    })();
    if let Err(e) = done {
        let _ = fs::remove_file(&tmp);
        return Err(e);
    }
    Ok(tmp)
}

/// Put every change in place, or none: each new text is written to a
/// temporary file first; once all are written they are renamed over the files
/// (and files to remove are removed); a failure on the way puts back those
/// already changed.
pub(super) fn commit(writes: &[&Change]) -> Result<(), Failure> {
    let mut staged: Vec<Option<PathBuf>> = Vec::new();
    for (n, w) in writes.iter().enumerate() {
        match &w.after {
            Some(text) => match stage(&w.real, text, w.mode, n) {
                Ok(t) => staged.push(Some(t)),
                Err(e) => {
                    for t in staged.into_iter().flatten() {
                        let _ = fs::remove_file(t);
                    }
                    return Err(other(format!(
                        "{}: cannot write it: {e}; nothing was changed",
                        w.path.display()
                    )));
                }
            },
            None => staged.push(None),
        }
    }
    for (n, w) in writes.iter().enumerate() {
        let done = match &staged[n] {
            Some(tmp) => fs::rename(tmp, &w.real),
            None => match fs::remove_file(&w.real) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                r => r,
            },
        };
        if let Err(e) = done {
            for t in staged[n..].iter().flatten() {
                let _ = fs::remove_file(t);
            }
            // the ones already changed go back as they were
            for (k, back) in writes[..n].iter().enumerate() {
                let _ = match &back.before {
                    Some(text) => stage(&back.real, text, back.mode, writes.len() + k)
                        .and_then(|t| fs::rename(t, &back.real)),
                    None => fs::remove_file(&back.real),
                };
            }
            return Err(other(format!(
                "{}: cannot write it: {e}; the files already changed were put back",
                w.path.display()
            )));
        }
        // a config directory left empty (toolcap made it: `.codex/`) goes too
        if w.after.is_none()
            && let Some(dir) = w.real.parent()
        {
            let _ = fs::remove_dir(dir);
        }
    }
    Ok(())
}
