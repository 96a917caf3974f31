//! The termination signals (SIGTERM, SIGINT, SIGHUP) blocked in the calling
//! thread (Unix only): the MCP proxy blocks them and waits for them with
//! `sigwait`; a background thread (store expiry) blocks them so that it never
//! takes one meant for the thread that handles them.
//!
//! Public for the programs built on the store that handle these signals in one
//! thread of their own (the MCP proxy): they block the same set as the store's
//! threads do, so the two agree on which thread takes a signal.

/// Block SIGTERM, SIGINT and SIGHUP in the calling thread (threads it starts
/// inherit the mask); the set blocked, to wait on with `sigwait`, or `None`
/// when the mask could not be set (`pthread_sigmask` failed: the signals are
/// then delivered as before).
///
/// Call it before starting the threads that must not take these signals; the
/// mask is the calling thread's only, other threads keep theirs.
///
/// ```
/// // in a thread of its own, so that this example leaves the caller's mask alone
/// let blocked = std::thread::spawn(|| toolcap_store::signals::block_termination().is_some());
/// assert!(blocked.join().expect("the thread ends"));
/// ```
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
