//! The one pipe the command writes its stdout and stderr to, and toolcap's
//! reading of it.

use super::{Failure, other};

/// One pipe for the command's stdout and stderr: (read end, write end).
#[cfg(unix)]
pub fn output_pipe() -> Result<(std::fs::File, std::fs::File), Failure> {
    use std::os::fd::FromRawFd;
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: pipe(2) fills the two descriptors of the array it is given.
    let rc = unsafe { libc::pipe(fds.as_mut_ptr()) };
    if rc != 0 {
        return Err(other(format!(
            "run: cannot create the output pipe: {}",
            std::io::Error::last_os_error()
        )));
    }
    for fd in fds {
        // SAFETY: fcntl(2) on a descriptor this process just opened; the child
        // gets the write end through dup2, which clears the flag on its copy.
        unsafe {
            libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
        }
    }
    // SAFETY: both descriptors are open and owned by nothing else.
    let (r, w) = unsafe {
        (
            std::fs::File::from_raw_fd(fds[0]),
            std::fs::File::from_raw_fd(fds[1]),
        )
    };
    Ok((r, w))
}

#[cfg(not(unix))]
pub fn output_pipe() -> Result<(std::fs::File, std::fs::File), Failure> {
    Err(other(
        "run: not supported on this platform yet (it needs a Unix pipe shared by stdout and stderr)",
    ))
}

/// Wait up to `ms` for the pipe `fd` to be readable, then read it: `Some(0)` at
/// its end, `Some(n)` for `n` bytes read, `None` when nothing came (or a signal
/// came first).
#[cfg(unix)]
pub fn poll_read(
    fd: libc::c_int,
    buf: &mut [u8],
    ms: libc::c_int,
) -> std::io::Result<Option<usize>> {
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: poll(2) on one pollfd this function owns.
    let rc = unsafe { libc::poll(&mut pfd, 1, ms) };
    if rc < 0 {
        let e = std::io::Error::last_os_error();
        return if e.kind() == std::io::ErrorKind::Interrupted {
            Ok(None)
        } else {
            Err(e)
        };
    }
    if rc == 0 {
        return Ok(None);
    }
    // SAFETY: read(2) into a buffer of the length given.
    let n = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    if n < 0 {
        let e = std::io::Error::last_os_error();
        return match e.kind() {
            std::io::ErrorKind::Interrupted | std::io::ErrorKind::WouldBlock => Ok(None),
            _ => Err(e),
        };
    }
    Ok(Some(n as usize))
}
