//! The termination signals (SIGTERM, SIGINT, SIGHUP) blocked in the calling
//! thread: the MCP proxy blocks them and waits for them with `sigwait`; a
//! background thread (store expiry) blocks them so that it never takes one meant
//! for the thread that handles them.

/// Block SIGTERM, SIGINT and SIGHUP in the calling thread (threads it starts
/// inherit the mask); the set blocked, or `None` when the mask could not be set.
#[cfg(unix)]
pub fn block_termination() -> Option<libc::sigset_t> {
    // SAFETY: plain libc calls on a local, initialised signal set; the mask is the
    // calling thread's own.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
            libc::sigaddset(&mut set, sig);
        }
        (libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) == 0).then_some(set)
    }
}
