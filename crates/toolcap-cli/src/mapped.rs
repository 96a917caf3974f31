//! Input files, mapped instead of copied.

use std::fs::File;
use std::io::{self, Seek, SeekFrom};
use std::path::Path;

/// Files smaller than this are read (mapping costs more than it saves).
const MAP_MIN: u64 = 4 << 20;
/// Mapped this much at a time (a multiple of the page size): what the mapping
/// adds to the resident set at most.
const WINDOW: u64 = 16 << 20;
/// Handed to the scanner this much at a time (fits the L2 cache).
const PIECE: usize = 1 << 20;

/// Hand `file` to `sink` in pieces: a regular file's bytes as they are in
/// the page cache, window by window; whatever follows (a file that grew
/// meanwhile) or a file that is not regular, read.
pub fn pieces(file: &File, path: &Path, sink: &mut dyn FnMut(&[u8])) -> io::Result<()> {
    let meta = file.metadata()?;
    let mut done = 0u64;
    if meta.is_file() && meta.len() >= MAP_MIN {
        sigbus::arm(path);
        while done < meta.len() {
            let n = (meta.len() - done).min(WINDOW);
            let len = usize::try_from(n).map_err(io::Error::other)?;
            // SAFETY: the map is read only and dropped before the next one.
            // If another process truncates the file meanwhile, reading past
            // its new end raises SIGBUS, which `sigbus` turns into an error
            // message naming the file (exit 1) instead of a crash.
            let map = unsafe {
                memmap2::MmapOptions::new()
                    .offset(done)
                    .len(len)
                    .map(file)?
            };
            for piece in map.chunks(PIECE) {
                sink(piece);
            }
            done += n;
        }
    }
    let mut rest = file;
    rest.seek(SeekFrom::Start(done))?;
    toolcap_core::read_pieces(rest, sink)
}

/// A file that shrinks while mapped makes reads past its new end raise
/// SIGBUS: say so and exit 1 instead of dying of the signal.
#[cfg(unix)]
mod sigbus {
    use std::path::Path;
    use std::sync::OnceLock;

    static MESSAGE: OnceLock<Vec<u8>> = OnceLock::new();

    extern "C" fn on_sigbus(_: libc::c_int) {
        // only async-signal-safe calls: write(2) and _exit(2)
        if let Some(m) = MESSAGE.get() {
            // SAFETY: writes an initialised buffer to stderr.
            unsafe { libc::write(2, m.as_ptr().cast(), m.len()) };
        }
        // SAFETY: ends the process without running anything else.
        unsafe { libc::_exit(1) }
    }

    pub fn arm(path: &Path) {
        let _ = MESSAGE.set(
            format!(
                "error: {}: the file shrank while it was being read (truncated or rotated); \
                 run again, or pipe it in: cat FILE | toolcap process ... -\n",
                path.display()
            )
            .into_bytes(),
        );
        // SAFETY: installs a handler that only calls async-signal-safe functions.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(libc::SIGBUS, &sa, std::ptr::null_mut());
        }
    }
}

#[cfg(not(unix))]
mod sigbus {
    pub fn arm(_: &std::path::Path) {}
}
