//! The record kept aside: the results `toolcap run` passed whole, counted without
//! opening the store.
//!
//! Most of an agent's shell outputs are short; opening the database for each
//! would cost every `ls` a file open, a lock and a write. So a [`LazyStore`]
//! given an aside file ([`LazyStore::with_aside`]) appends the [`Seen`] row of
//! an uncut result there, one JSON line, while the store is closed; `stats`,
//! `gain` and `report` read the file beside the store ([`path_for`]) and merge
//! its rows into the record ([`merge`]), so their counts and savings are over
//! every output that went through toolcap, not only the cut ones. The store's
//! retention prunes it ([`prune_before`]).
//!
//! Appends and prunes take an exclusive `flock` on the file; an append that
//! finds the file replaced by a prune meanwhile opens it again, so no row is
//! written to a file about to vanish. A line that cannot be read (a write cut
//! short by a full disk) is skipped.
//!
//! [`LazyStore`]: crate::LazyStore
//! [`LazyStore::with_aside`]: crate::LazyStore::with_aside

use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use super::{Filter, Seen, Usage};

/// The aside file of the store file `store`: `<store>-seen` (beside its
/// `-wal` and `-shm`).
pub fn path_for(store: &Path) -> PathBuf {
    let mut name = store.as_os_str().to_owned();
    name.push("-seen");
    PathBuf::from(name)
}

/// Appends `seen` to the aside file at `path`, creating it (`0600`) and its
/// directory (`0700`) when missing.
pub fn append(path: &Path, seen: &Seen) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(seen)?;
    line.push(b'\n');
    let open = || {
        crate::private::options()
            .append(true)
            .create(true)
            .open(path)
    };
    for _ in 0..8 {
        let mut f = match open() {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                    crate::private::create_dir_all(dir)?;
                }
                open()?
            }
            r => r?,
        };
        lock(&f)?;
        if !same_file(&f, path) {
            // pruned and replaced since it was opened: open the new one
            continue;
        }
        f.write_all(&line)?;
        return Ok(());
    }
    Err(std::io::Error::other("the file kept being replaced"))
}

/// The rows of the aside file at `path` that `filter` admits, oldest first
/// (none when there is no file).
pub fn read(path: &Path, filter: &Filter) -> std::io::Result<Vec<Seen>> {
    let f = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut rows: Vec<Seen> = BufReader::new(f)
        .split(b'\n')
        .map_while(Result::ok)
        .filter_map(|l| serde_json::from_slice::<Seen>(&l).ok())
        .filter(|s| filter.admits(&s.dialog_id, s.at_ms))
        .collect();
    rows.sort_by_key(|s| s.at_ms);
    Ok(rows)
}

/// Drops the rows older than `cutoff_ms`; the number dropped.
pub fn prune_before(path: &Path, cutoff_ms: i64) -> std::io::Result<usize> {
    let f = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    lock(&f)?;
    let mut kept = Vec::new();
    let mut dropped = 0;
    for line in BufReader::new(&f).split(b'\n').map_while(Result::ok) {
        match serde_json::from_slice::<Seen>(&line) {
            Ok(s) if s.at_ms >= cutoff_ms => {
                kept.extend_from_slice(&line);
                kept.push(b'\n');
            }
            _ => dropped += 1,
        }
    }
    if dropped == 0 {
        return Ok(0);
    }
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(format!(".{}.tmp", std::process::id()));
    let tmp = PathBuf::from(tmp);
    crate::private::write(&tmp, &kept)?;
    std::fs::rename(&tmp, path).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })?;
    Ok(dropped)
}

/// Adds `rows` to the record's results seen, in time order.
pub fn merge(usage: &mut Usage, rows: Vec<Seen>) {
    if rows.is_empty() {
        return;
    }
    usage.seen.extend(rows);
    usage.seen.sort_by_key(|s| s.at_ms);
}

#[cfg(unix)]
fn lock(f: &File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    loop {
        // SAFETY: a valid open descriptor; the lock goes with it when it closes.
        if unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) } == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

#[cfg(not(unix))]
fn lock(_: &File) -> std::io::Result<()> {
    Ok(())
}

#[cfg(unix)]
fn same_file(f: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (f.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.ino() == b.ino() && a.dev() == b.dev(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_: &File, _: &Path) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(at_ms: i64, dialog: &str, chars: u64) -> Seen {
        Seen {
            at_ms,
            dialog_id: dialog.into(),
            tool_call_id: Some(format!("run-{at_ms}")),
            tool: "Bash".into(),
            family: "shell".into(),
            reason: "under_threshold".into(),
            truncated: false,
            threshold: 3500,
            unit: "chars".into(),
            size_chars: chars,
            shown_chars: chars,
            kept_chars: chars,
        }
    }

    #[test]
    fn rows_appended_read_filtered_and_pruned() {
        let d = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let p = path_for(&d.path().join("results.db"));
        assert!(p.ends_with("results.db-seen"));
        assert_eq!(read(&p, &Filter::default()).unwrap_or_default(), vec![]);
        for (at, dialog) in [(3, "a"), (1, "a"), (2, "b")] {
            append(&p, &seen(at, dialog, 10)).unwrap_or_else(|e| panic!("{e}"));
        }
        // a line cut short is skipped
        std::fs::OpenOptions::new()
            .append(true)
            .open(&p)
            .and_then(|mut f| f.write_all(b"{\"at_ms\": 4, \"dia"))
            .unwrap_or_else(|e| panic!("{e}"));
        let all = read(&p, &Filter::default()).unwrap_or_default();
        assert_eq!(all.iter().map(|s| s.at_ms).collect::<Vec<_>>(), [1, 2, 3]);
        let only_a = Filter {
            dialog_id: Some("a".into()),
            since_ms: Some(2),
        };
        assert_eq!(
            read(&p, &only_a).unwrap_or_default(),
            vec![seen(3, "a", 10)]
        );
        assert_eq!(
            prune_before(&p, 2).unwrap_or(0),
            2,
            "row 1 and the cut line"
        );
        let left = read(&p, &Filter::default()).unwrap_or_default();
        assert_eq!(left.iter().map(|s| s.at_ms).collect::<Vec<_>>(), [2, 3]);
        // appends go on into the new file
        append(&p, &seen(5, "a", 7)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(read(&p, &Filter::default()).unwrap_or_default().len(), 3);
        let mut u = Usage::default();
        merge(&mut u, left);
        assert_eq!(u.seen.len(), 2);
    }

    #[test]
    fn concurrent_appends_and_prunes_lose_no_row() {
        let d = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let p = path_for(&d.path().join("results.db"));
        let writers: Vec<_> = (0..4)
            .map(|w| {
                let p = p.clone();
                std::thread::spawn(move || {
                    for i in 0..200 {
                        append(&p, &seen(1_000 + w * 1_000 + i, "d", 1))
                            .unwrap_or_else(|e| panic!("{e}"));
                    }
                })
            })
            .collect();
        // prunes of rows that are never written meanwhile
        for _ in 0..50 {
            let _ = prune_before(&p, 0);
            append(&p, &seen(-1, "old", 1)).unwrap_or_else(|e| panic!("{e}"));
            let _ = prune_before(&p, 0);
        }
        for w in writers {
            w.join().unwrap_or_else(|_| panic!("a writer panicked"));
        }
        assert_eq!(read(&p, &Filter::default()).unwrap_or_default().len(), 800);
    }
}
