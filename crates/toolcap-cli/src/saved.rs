//! The whole output an agent saved to a file when it cut a result itself
//! (Claude Code's `tool-results/`, Gemini CLI's `tool-outputs/`, opencode's
//! `tool-output/`, Pi's `pi-bash-*.log`, Copilot CLI's `*-copilot-tool-output-*`,
//! Qwen Code's `.qwen/tmp/**/*.output`): `discover`, `report` and the hooks read it
//! back to see what the agent cut.
//!
//! The path comes from the tool result's own text, which the model and the
//! command it ran can write: a result that says "Full output saved to:
//! /dev/zero" (or a FIFO, or `/etc/shadow`) must not make toolcap read it. So a
//! saved output is read only when it is
//! - an absolute path of plain components (no `.`/`..`) inside the directory the
//!   agent keeps such files in (`Where`), with the agent's own file name shape;
//! - a regular file, opened without following a symbolic link as its last
//!   component and without blocking (a FIFO is refused, not waited on), and owned
//!   by the user running toolcap;
//! - at most [`MAX_SAVED_BYTES`] long (checked on the open file, and the read is
//!   bounded by it too, should the file grow meanwhile).
//!
//! Anything else reads as `None`: the caller goes on as if the agent had saved
//! nothing (the hooks leave the agent's own cut; discover counts the output as
//! missing).

use std::io::Read;
use std::path::{Component, Path};

/// The largest saved output read back: 256 MiB (the hooks' own reply limit in
/// the opencode and Pi integrations).
pub const MAX_SAVED_BYTES: u64 = 256 * 1024 * 1024;

/// Where an agent keeps the outputs it saved.
pub enum Where<'a> {
    /// Anywhere under this directory (discover's transcripts root), in a
    /// directory with this name (`tool-results`, `tool-outputs`...).
    Under(&'a Path, &'a str),
    /// Directly in a directory of this name (opencode's and Kilo's
    /// `<data dir>/tool-output`).
    InDirNamed(&'a str),
    /// A file whose name satisfies the test, in any directory (the agent's
    /// temporary directory is its own process's `os.tmpdir()`, which toolcap
    /// cannot know): the owner check keeps other users' files out.
    Named(&'a dyn Fn(&str) -> bool),
    /// A path that satisfies the test (Qwen Code's `.qwen/tmp/<project>/`).
    Matching(&'a dyn Fn(&Path) -> bool),
}

impl Where<'_> {
    fn admits(&self, path: &Path) -> bool {
        let plain = path.is_absolute()
            && path
                .components()
                .all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
        if !plain {
            return false;
        }
        match self {
            Where::Under(root, dir) => {
                path.starts_with(root)
                    && path
                        .strip_prefix(root)
                        .ok()
                        .and_then(Path::parent)
                        .is_some_and(|p| p.components().any(|c| c.as_os_str() == *dir))
            }
            Where::InDirNamed(dir) => path
                .parent()
                .and_then(Path::file_name)
                .is_some_and(|n| n == *dir),
            Where::Named(test) => path.file_name().and_then(|n| n.to_str()).is_some_and(test),
            Where::Matching(test) => test(path),
        }
    }
}

/// The bytes of the saved output at `path`, or `None` when it is not one the
/// agent could have saved (see the module's rules) or cannot be read.
pub fn read(path: &Path, place: &Where<'_>) -> Option<Vec<u8>> {
    if !place.admits(path) || !std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    // opened anew without following a link, and checked again on the open file:
    // the path may have been swapped since
    let file = open_plain(path)?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.len() > MAX_SAVED_BYTES || !owned_by_me(&meta) {
        return None;
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(MAX_SAVED_BYTES + 1)
        .read_to_end(&mut bytes)
        .ok()?;
    (bytes.len() as u64 <= MAX_SAVED_BYTES).then_some(bytes)
}

/// [`read`], as text (invalid UTF-8 replaced).
pub fn read_text(path: &Path, place: &Where<'_>) -> Option<String> {
    read(path, place).map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// The last `max` bytes (at most) of the file at `path`, under [`read`]'s rules
/// (a log the agent appends to, such as Codex's rollout file, read from its end).
pub fn read_tail(path: &Path, place: &Where<'_>, max: u64) -> Option<Vec<u8>> {
    use std::io::{Seek, SeekFrom};
    if !place.admits(path) || !std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let mut file = open_plain(path)?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() || !owned_by_me(&meta) {
        return None;
    }
    file.seek(SeekFrom::Start(meta.len().saturating_sub(max)))
        .ok()?;
    let mut bytes = Vec::new();
    file.take(max).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// The bytes of a regular file, at most `cap`: opened without blocking (a
/// FIFO put there since it was looked at does not hang), checked to be a
/// regular file once open.
pub fn read_regular(path: &Path, cap: u64) -> std::io::Result<Vec<u8>> {
    let mut o = std::fs::OpenOptions::new();
    o.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.custom_flags(libc::O_NONBLOCK);
    }
    let f = o.open(path)?;
    let m = f.metadata()?;
    if !m.is_file() {
        return Err(std::io::Error::other(format!(
            "not a regular file ({})",
            file_kind(&m)
        )));
    }
    if m.len() > cap {
        return Err(std::io::Error::other(format!(
            "{} bytes, more than the {cap} read here",
            m.len()
        )));
    }
    let mut buf = Vec::new();
    f.take(cap).read_to_end(&mut buf)?;
    Ok(buf)
}

/// What a path that is not a regular file is, for an error message.
pub fn file_kind(m: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = m.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    if m.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

#[cfg(unix)]
fn open_plain(path: &Path) -> Option<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .ok()
}

#[cfg(not(unix))]
fn open_plain(path: &Path) -> Option<std::fs::File> {
    let link = std::fs::symlink_metadata(path).ok()?;
    if !link.is_file() {
        return None;
    }
    std::fs::File::open(path).ok()
}

#[cfg(unix)]
fn owned_by_me(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid has no preconditions and cannot fail.
    meta.uid() == unsafe { libc::geteuid() }
}

#[cfg(not(unix))]
fn owned_by_me(_: &std::fs::Metadata) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp() -> tempfile::TempDir {
        tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}"))
    }

    #[test]
    fn a_logs_end_is_read_under_the_same_rules() {
        let d = tmp();
        let dir = d.path().join("sessions");
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let log = dir.join("r.jsonl");
        std::fs::write(&log, "first\nsecond\nthird\n").unwrap_or_else(|e| panic!("{e}"));
        let place = Where::InDirNamed("sessions");
        assert_eq!(read_tail(&log, &place, 6).as_deref(), Some(&b"third\n"[..]));
        assert_eq!(
            read_tail(&log, &place, 1000).as_deref(),
            Some(&b"first\nsecond\nthird\n"[..])
        );
        assert_eq!(read_tail(&log, &Where::InDirNamed("other"), 6), None);
    }

    #[test]
    fn a_saved_output_in_its_place_is_read() {
        let d = tmp();
        let dir = d.path().join("p/s/tool-results");
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.join("a.txt"), "whole\n").unwrap_or_else(|e| panic!("{e}"));
        let place = Where::Under(d.path(), "tool-results");
        assert_eq!(
            read_text(&dir.join("a.txt"), &place).as_deref(),
            Some("whole\n")
        );
        // outside the root, or not in a tool-results directory: refused
        assert_eq!(read(Path::new("/etc/hostname"), &place), None);
        std::fs::write(d.path().join("p/b.txt"), "x").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read(&d.path().join("p/b.txt"), &place), None);
        // a `..` that climbs out
        let climb = dir.join("../../../../etc/hostname");
        assert_eq!(read(&climb, &place), None);
    }

    #[cfg(unix)]
    #[test]
    fn devices_fifos_and_links_are_refused_without_blocking() {
        let d = tmp();
        let dir = d.path().join("tool-results");
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let place = Where::Under(d.path(), "tool-results");
        let link = dir.join("zero.txt");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read(&link, &place), None);
        let fifo = dir.join("fifo.txt");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes())
            .unwrap_or_else(|e| panic!("{e}"));
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // would hang forever if opened for reading in blocking mode
        assert_eq!(read(&fifo, &place), None);
        let any = |n: &str| n.ends_with(".txt");
        assert_eq!(read(Path::new("/dev/zero"), &Where::Named(&any)), None);
        assert_eq!(read(Path::new("/dev/null"), &Where::Named(&|_| true)), None);
    }

    #[test]
    fn named_files_are_checked_by_name() {
        let d = tmp();
        let file = d.path().join("pi-bash-1.log");
        std::fs::write(&file, "out").unwrap_or_else(|e| panic!("{e}"));
        let pi = |n: &str| n.starts_with("pi-bash-") && n.ends_with(".log");
        assert_eq!(read_text(&file, &Where::Named(&pi)).as_deref(), Some("out"));
        let other = d.path().join("notes.log");
        std::fs::write(&other, "out").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read(&other, &Where::Named(&pi)), None);
        assert_eq!(read(Path::new("pi-bash-1.log"), &Where::Named(&pi)), None);
    }
}
