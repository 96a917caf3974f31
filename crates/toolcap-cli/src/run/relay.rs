//! The relay: when the command has exited but something it started in the
//! background still holds the output pipe, a helper copies what comes through
//! it to toolcap's stdout until it closes (the background process keeps its
//! output and never meets a closed pipe), and then tells the watchdog it is done.

use super::watchdog::{DONE, Watchdog};
use super::{helpers, signals};

pub fn start(reader: std::fs::File, watchdog: Option<&mut Watchdog>) {
    let held = watchdog.and_then(Watchdog::hand_over);
    let max = helpers::max_fd();
    let rfd = std::os::fd::AsRawFd::as_raw_fd(&reader);
    let wfd = held.as_ref().map_or(-1, helpers::raw);
    let started = helpers::fork(|| {
        // ended by what would end the background process's own shell
        signals::set_termination(libc::SIG_DFL);
        // SAFETY: dup(2) of stdout before `only` rearranges 0..=2.
        let out = unsafe { libc::fcntl(1, libc::F_DUPFD, 10) };
        helpers::only([rfd, out, wfd], max);
        let mut buf = [0u8; 16 * 1024];
        // SAFETY: read/write on descriptors 0, 1 and 2 of this process.
        unsafe {
            'relay: loop {
                let n = libc::read(0, buf.as_mut_ptr().cast(), buf.len());
                if n < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR) {
                    continue;
                }
                if n <= 0 {
                    break;
                }
                let mut at = 0usize;
                let n = n as usize;
                while at < n {
                    let w = libc::write(1, buf[at..n].as_ptr().cast(), n - at);
                    if w < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR)
                    {
                        continue;
                    }
                    if w <= 0 {
                        // the agent stopped reading: as its pipe would, close
                        break 'relay;
                    }
                    at += w as usize;
                }
            }
            if wfd >= 0 {
                let done = DONE;
                libc::write(2, (&raw const done).cast(), 1);
            }
        }
    });
    if started.is_none() {
        // no relay: the watchdog is told toolcap is done as usual
        if let Some(fd) = held {
            let mut f = std::fs::File::from(fd);
            let _ = std::io::Write::write_all(&mut f, &[DONE]);
        }
    }
    drop(reader);
}
