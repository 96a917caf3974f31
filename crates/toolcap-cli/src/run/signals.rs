//! Forwarding SIGINT, SIGTERM and SIGHUP to the command's process group.

use std::sync::atomic::{AtomicI32, Ordering};

pub const TERM: i32 = libc::SIGTERM;
pub const KILL: i32 = libc::SIGKILL;

/// The command's pid (its process group), 0 while there is none.
static CHILD: AtomicI32 = AtomicI32::new(0);
/// A signal that came before the command started.
static PENDING: AtomicI32 = AtomicI32::new(0);

extern "C" fn forward(sig: libc::c_int) {
    let pid = CHILD.load(Ordering::SeqCst);
    if pid > 0 {
        // SAFETY: kill(2) is async-signal-safe.
        unsafe {
            libc::kill(-pid, sig);
        }
    } else {
        PENDING.store(sig, Ordering::SeqCst);
    }
}

/// In the child, before exec: every signal unblocked, and the two signals
/// glibc keeps for itself (32 and 33, which its `posix_spawn` leaves ignored
/// in a child) back to their default, as a shell's child has them.
/// Async-signal-safe.
pub fn defaults_for_exec() {
    // SAFETY: sigprocmask(2) and rt_sigaction(2) on this process only; the
    // kernel reads a zeroed `struct sigaction` (SIG_DFL, no flags, empty mask)
    // from a buffer larger than it on every architecture.
    unsafe {
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        #[cfg(target_os = "linux")]
        {
            let dfl = [0u64; 8];
            for sig in [32, 33] {
                libc::syscall(
                    libc::SYS_rt_sigaction,
                    sig as libc::c_long,
                    dfl.as_ptr(),
                    std::ptr::null_mut::<u64>(),
                    8 as libc::c_long,
                );
            }
        }
    }
}

/// Set SIGINT, SIGTERM and SIGHUP to `handler` (`SIG_IGN`, `SIG_DFL`), in a
/// forked helper. Async-signal-safe.
pub fn set_termination(handler: libc::sighandler_t) {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: sigaction(2) with a plain disposition.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = handler;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

pub fn install() {
    for sig in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: a handler that only reads atomics and calls kill(2); the
        // command gets the default dispositions back at exec.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = forward as *const () as libc::sighandler_t;
            sa.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

pub fn set_child(pid: u32) {
    let pid = i32::try_from(pid).unwrap_or(0);
    CHILD.store(pid, Ordering::SeqCst);
    let pending = PENDING.swap(0, Ordering::SeqCst);
    if pid > 0 && pending != 0 {
        to_group(pid as u32, pending);
    }
}

pub fn to_group(pid: u32, sig: i32) {
    if let Ok(pid) = i32::try_from(pid) {
        // SAFETY: kill(2) on the process group of our own child.
        unsafe {
            libc::kill(-pid, sig);
        }
    }
}

/// End this process with `sig`, as the command it ran ended: its default
/// disposition back, unblocked, and no core file of toolcap's own. Returns only
/// when `sig` cannot end a process (one whose default is to be ignored).
pub fn die_by(sig: i32) {
    // SAFETY: setrlimit(2), sigaction(2), sigprocmask(2) and kill(2) on this
    // process only, with plain values.
    unsafe {
        let none = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        libc::setrlimit(libc::RLIMIT_CORE, &none);
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = libc::SIG_DFL;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(sig, &sa, std::ptr::null_mut());
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, sig);
        libc::sigprocmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
        libc::kill(libc::getpid(), sig);
    }
}
