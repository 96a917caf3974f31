//! The watchdog: a helper leading the command's process group (there before the
//! command starts into it) that kills that group
//! when toolcap dies without saying it is done (SIGKILL to the agent's process
//! group, which the command's own group escapes).

use std::os::fd::OwnedFd;

use super::{helpers, signals};

/// toolcap's end of the watchdog's pipe: dropping it says "done" (toolcap
/// ended normally), unless [`Watchdog::hand_over`] passed that duty on.
pub struct Watchdog {
    fd: Option<OwnedFd>,
    pgid: libc::pid_t,
}

/// What the watchdog reads to know toolcap ended as it should.
pub const DONE: u8 = b'o';

/// Start the watchdog, the leader of a new process group for the command to
/// join ([`Watchdog::pgid`]); `None` when it cannot be (the command then
/// leads its own group, unguarded, as before).
pub fn start() -> Option<Watchdog> {
    let (r, w) = helpers::pipe()?;
    let max = helpers::max_fd();
    let rfd = helpers::raw(&r);
    let pid = helpers::fork(|| {
        // the forwarded and the timeout's signals are for the command
        signals::set_termination(libc::SIG_IGN);
        helpers::only([rfd, -1, -1], max);
        // SAFETY: setpgid/getpid/read/kill on this process, its descriptor 0
        // and its own group.
        unsafe {
            libc::setpgid(0, 0);
            let pgid = libc::getpid();
            let mut b = 0u8;
            loop {
                let n = libc::read(0, (&raw mut b).cast(), 1);
                if n < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                if n == 1 && b == DONE {
                    return;
                }
                // toolcap is gone without a word: take the command with it
                libc::kill(-pgid, libc::SIGKILL);
                return;
            }
        }
    })?;
    drop(r);
    // (both sides set the group: whichever runs first, it exists before the
    // command is started into it)
    // SAFETY: setpgid(2) on our own child, which has not exec'd.
    let ok = unsafe { libc::setpgid(pid, pid) } == 0;
    let dog = Watchdog {
        fd: Some(w),
        pgid: pid,
    };
    if !ok {
        // it cannot lead a group: let it go (dropping says "done")
        return None;
    }
    Some(dog)
}

impl Watchdog {
    /// The process group the watchdog leads, for the command to join.
    pub fn pgid(&self) -> i32 {
        self.pgid
    }

    /// The descriptor a relay keeps (and writes [`DONE`] to when it is done);
    /// toolcap's own drop then says nothing.
    pub fn hand_over(&mut self) -> Option<OwnedFd> {
        self.fd.take()
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        if let Some(fd) = self.fd.take() {
            let mut f = std::fs::File::from(fd);
            let _ = std::io::Write::write_all(&mut f, &[DONE]);
        }
    }
}
