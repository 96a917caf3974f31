//! Helper processes forked from toolcap: they make only async-signal-safe calls
//! (toolcap may have threads when they are forked).

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// A new pipe, both ends close-on-exec: (read end, write end).
pub fn pipe() -> Option<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe(2) fills the array; fcntl(2) on the new descriptors.
    unsafe {
        if libc::pipe(fds.as_mut_ptr()) != 0 {
            return None;
        }
        for fd in fds {
            libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
        }
        Some((OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])))
    }
}

/// The highest descriptor number a forked helper may have to close.
pub fn max_fd() -> libc::c_int {
    // SAFETY: sysconf(3) with a valid name.
    let n = unsafe { libc::sysconf(libc::_SC_OPEN_MAX) };
    libc::c_int::try_from(n).unwrap_or(1024).clamp(64, 1 << 16)
}

/// In a forked helper: make `fds` descriptors 0, 1, 2 (in that order; -1
/// closes the slot) and close every other one up to `max`.
/// Async-signal-safe.
pub fn only(fds: [libc::c_int; 3], max: libc::c_int) {
    // SAFETY: dup/dup2/close on this process's own descriptors.
    unsafe {
        // first out of the way of 0..=2, so that no dup2 clobbers another
        let mut high = [-1; 3];
        for (i, fd) in fds.iter().enumerate() {
            if *fd >= 0 {
                high[i] = libc::fcntl(*fd, libc::F_DUPFD, 10);
            }
        }
        for (i, fd) in high.iter().enumerate() {
            let slot = i as libc::c_int;
            if *fd >= 0 {
                libc::dup2(*fd, slot);
            } else {
                libc::close(slot);
            }
        }
        #[cfg(target_os = "linux")]
        if libc::syscall(
            libc::SYS_close_range,
            3 as libc::c_uint,
            libc::c_uint::MAX,
            0,
        ) == 0
        {
            return;
        }
        for fd in 3..max {
            libc::close(fd);
        }
    }
}

/// Fork; in the child, run `body` and exit without unwinding or flushing
/// anything of the parent's. `None` when fork failed; `Some(pid)` in the
/// parent.
pub fn fork(body: impl FnOnce()) -> Option<libc::pid_t> {
    // SAFETY: the child runs only `body` (async-signal-safe calls, see the
    // callers) and leaves with _exit(2).
    unsafe {
        match libc::fork() {
            -1 => None,
            0 => {
                body();
                libc::_exit(0)
            }
            pid => Some(pid),
        }
    }
}

pub fn raw(fd: &OwnedFd) -> libc::c_int {
    fd.as_raw_fd()
}
