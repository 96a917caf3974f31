//! Running the proxy: the server as a child process, the threads relaying lines
//! both ways, signals passed on, and the MCP stdio shutdown sequence.

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io::{self, BufRead, BufReader, Write};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use super::{PENDING_GRACE, Proxy, SHUTDOWN_GRACE};

/// A failure to run the proxied server.
#[derive(Debug)]
pub enum ProxyError {
    /// The server command could not be started.
    Spawn {
        /// The command.
        program: OsString,
        /// Why it could not start.
        source: io::Error,
    },
    /// Waiting for the server failed.
    Wait(io::Error),
}

impl fmt::Display for ProxyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProxyError::Spawn { program, source } => write!(
                f,
                "mcp-proxy: cannot start the MCP server {program:?}: {source}; check the command after -- (is it installed and on PATH?)"
            ),
            ProxyError::Wait(e) => write!(f, "mcp-proxy: waiting for the MCP server failed: {e}"),
        }
    }
}

impl std::error::Error for ProxyError {}

pub(super) enum Event {
    /// The client closed the proxy's stdin (every line it sent is queued for the
    /// server).
    StdinClosed,
    /// The client closed the proxy's stdout: nobody reads what is left.
    ClientGone,
    /// The server closed its stdout, and every line it wrote was passed on.
    ServerGone,
    /// The proxy got this signal (SIGTERM, SIGINT or SIGHUP).
    Signal(i32),
}

/// Lines from the client waiting for the server, at most: past it the client's
/// reader waits for the server to read.
pub(super) const QUEUED_LINES: usize = 16;

/// Write one message line to stdout; `false` when the client is gone.
pub(super) fn send_client(line: &[u8]) -> bool {
    let mut out = io::stdout().lock();
    out.write_all(line)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .is_ok()
}

/// Read one line (without its `\n` or `\r\n`); `None` at the end of input.
pub(super) fn read_line(r: &mut impl BufRead, buf: &mut Vec<u8>) -> Option<()> {
    buf.clear();
    match r.read_until(b'\n', buf) {
        Ok(0) | Err(_) => None,
        Ok(_) => {
            if buf.last() == Some(&b'\n') {
                buf.pop();
            }
            if buf.last() == Some(&b'\r') {
                buf.pop();
            }
            Some(())
        }
    }
}

/// Start `program` with `args` as the MCP server and relay between it and this
/// process's stdin/stdout until one side exits. Returns the exit code to leave with:
/// the server's own when it exited by itself, 0 when the proxy shut it down because
/// the client left, 128 + the signal when the proxy was told to stop (SIGTERM,
/// SIGINT, SIGHUP), which it passes on to the server first.
///
/// The threads: one reads the client's lines and queues them for a second that
/// writes them to the server (so the end of the client's input is seen even while
/// the server has stopped reading), one relays the server's lines to the client,
/// and on Unix one waits for the signals. When the client closes stdin, the
/// server's stdin is closed once the queued lines are written, and everything the
/// server writes until it exits is still passed on.
pub fn run(proxy: Proxy, program: &OsStr, args: &[OsString]) -> Result<i32, ProxyError> {
    let (tx, rx) = mpsc::channel::<Event>();
    // before any other thread starts, so every thread has them blocked, and before
    // the server starts, so a signal sent once it runs is never taken by the
    // default action (the server itself starts with an empty mask: std resets it)
    #[cfg(unix)]
    signals::forward(tx.clone());
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|source| ProxyError::Spawn {
            program: program.to_os_string(),
            source,
        })?;
    let server_in = child.stdin.take();
    let server_out = child.stdout.take();
    let proxy = Arc::new(proxy);

    let (queue, queued) = mpsc::sync_channel::<(u64, Vec<u8>)>(QUEUED_LINES);
    if let Some(mut w) = server_in {
        let proxy = proxy.clone();
        thread::spawn(move || {
            // ends when the client's reader is done and the queue is empty (the
            // server's stdin is then closed by the drop), or when the server is gone
            for (n, fwd) in queued {
                if w.write_all(&fwd)
                    .and_then(|()| w.write_all(b"\n"))
                    .and_then(|()| w.flush())
                    .is_err()
                {
                    break;
                }
                proxy.delivered(n);
            }
        });
    }
    {
        let (proxy, tx) = (proxy.clone(), tx.clone());
        thread::spawn(move || {
            let mut input = BufReader::new(io::stdin().lock());
            let mut line = Vec::new();
            let mut event = Event::StdinClosed;
            while read_line(&mut input, &mut line).is_some() {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let routed = proxy.from_client(&line);
                if let Some(reply) = routed.to_client
                    && !send_client(&reply)
                {
                    event = Event::ClientGone;
                    break;
                }
                if let Some(fwd) = routed.to_server
                    && queue.send((proxy.last_line(), fwd)).is_err()
                {
                    // the server's writer is gone: the server is; its reader says so
                    break;
                }
            }
            drop(queue);
            let _ = tx.send(event);
        });
    }
    let activity = Arc::new(Activity::new());
    let relay = server_out.map(|out| {
        let (proxy, tx, activity) = (proxy.clone(), tx.clone(), activity.clone());
        thread::spawn(move || {
            // every byte the server writes counts as activity, so a long line
            // being written is not taken for a server that went quiet
            let mut from_server = BufReader::new(Noticed {
                inner: out,
                activity: activity.clone(),
            });
            let mut line = Vec::new();
            while read_line(&mut from_server, &mut line).is_some() {
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                activity.begin();
                let sent = proxy.from_server(&line).is_none_or(|out| send_client(&out));
                activity.end();
                if !sent {
                    let _ = tx.send(Event::ClientGone);
                    return;
                }
            }
            let _ = tx.send(Event::ServerGone);
        })
    });
    drop(tx);

    match rx.recv() {
        Ok(Event::ServerGone) | Err(_) => {
            let status = wait_or_stop(&mut child)?;
            for err in proxy.unanswered() {
                let _ = send_client(err.to_string().as_bytes());
            }
            Ok(status.map_or(0, exit_code))
        }
        Ok(Event::StdinClosed) => {
            // the MCP stdio shutdown: the server's stdin closes once the queued lines
            // are written; the server gets SHUTDOWN_GRACE to exit, counted while it
            // writes nothing (a server still writing its answers is not stopped)
            activity.touch();
            let status = stop_when_quiet(&mut child, &activity, || {
                if proxy.owes_answers() {
                    PENDING_GRACE
                } else {
                    SHUTDOWN_GRACE
                }
            })?;
            // the relay reads to the end of the server's output, waited for while it
            // passes lines on (a process the server left behind may hold the pipe
            // open: not longer than SHUTDOWN_GRACE of quiet)
            activity.touch();
            if let Some(r) = relay {
                while !r.is_finished() && !activity.quiet_for(SHUTDOWN_GRACE) {
                    thread::sleep(Duration::from_millis(5));
                }
            }
            Ok(status.map_or(0, exit_code))
        }
        Ok(Event::ClientGone) => {
            let status = wait_or_stop(&mut child)?;
            Ok(status.map_or(0, exit_code))
        }
        Ok(Event::Signal(sig)) => {
            terminate(&mut child);
            if wait_for(&mut child, SHUTDOWN_GRACE)?.is_none() {
                let _ = child.kill();
                child.wait().map_err(ProxyError::Wait)?;
            }
            Ok(128 + sig)
        }
    }
}

/// A reader that notes in an [`Activity`] each time it reads something.
pub(super) struct Noticed<R> {
    inner: R,
    activity: Arc<Activity>,
}

impl<R: io::Read> io::Read for Noticed<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if n > 0 {
            self.activity.touch();
        }
        Ok(n)
    }
}

/// When the relay last read from the server or passed a line on, and whether it
/// is handling one.
pub(super) struct Activity {
    start: Instant,
    /// Milliseconds after `start` when the last line was passed on.
    last: AtomicU64,
    busy: std::sync::atomic::AtomicBool,
}

impl Activity {
    fn new() -> Activity {
        Activity {
            start: Instant::now(),
            last: AtomicU64::new(0),
            busy: std::sync::atomic::AtomicBool::new(false),
        }
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn begin(&self) {
        self.busy.store(true, Ordering::SeqCst);
    }

    fn end(&self) {
        self.touch();
        self.busy.store(false, Ordering::SeqCst);
    }

    /// Count the quiet from now.
    fn touch(&self) {
        self.last.store(self.now_ms(), Ordering::SeqCst);
    }

    /// Whether no line has been handled for `d`, and none is being handled.
    fn quiet_for(&self, d: Duration) -> bool {
        let idle = self
            .now_ms()
            .saturating_sub(self.last.load(Ordering::SeqCst));
        !self.busy.load(Ordering::SeqCst) && Duration::from_millis(idle) >= d
    }
}

/// [`wait_or_stop`], with the grace before SIGTERM (`grace()`, asked again as
/// answers arrive) counted only while the server writes nothing.
pub(super) fn stop_when_quiet(
    child: &mut Child,
    activity: &Activity,
    grace: impl Fn() -> Duration,
) -> Result<Option<ExitStatus>, ProxyError> {
    loop {
        if let Some(s) = child.try_wait().map_err(ProxyError::Wait)? {
            return Ok(Some(s));
        }
        if activity.quiet_for(grace()) {
            break;
        }
        thread::sleep(Duration::from_millis(10));
    }
    terminate(child);
    if wait_for(child, SHUTDOWN_GRACE)?.is_some() {
        return Ok(None);
    }
    let _ = child.kill();
    child.wait().map_err(ProxyError::Wait)?;
    Ok(None)
}

/// Wait for the server to exit; past [`SHUTDOWN_GRACE`] send SIGTERM, and past
/// another, kill it. `Some(status)` when it exited by itself.
pub(super) fn wait_or_stop(child: &mut Child) -> Result<Option<ExitStatus>, ProxyError> {
    if let Some(s) = wait_for(child, SHUTDOWN_GRACE)? {
        return Ok(Some(s));
    }
    terminate(child);
    if wait_for(child, SHUTDOWN_GRACE)?.is_some() {
        return Ok(None);
    }
    let _ = child.kill();
    child.wait().map_err(ProxyError::Wait)?;
    Ok(None)
}

/// SIGTERM, SIGINT and SIGHUP to the proxy: blocked in every thread and taken by a
/// thread of their own, which reports them to the relay loop (it then stops the
/// server before exiting).
#[cfg(unix)]
mod signals {
    use super::Event;
    use std::sync::mpsc::Sender;

    pub(super) fn forward(tx: Sender<Event>) {
        let Some(set) = toolcap_store::signals::block_termination() else {
            return;
        };
        std::thread::spawn(move || {
            loop {
                let mut sig: libc::c_int = 0;
                // SAFETY: `set` is initialised; sigwait writes the signal to `sig`.
                if unsafe { libc::sigwait(&set, &mut sig) } != 0 {
                    return;
                }
                if tx.send(Event::Signal(sig)).is_err() {
                    return;
                }
            }
        });
    }
}

pub(super) fn wait_for(
    child: &mut Child,
    limit: Duration,
) -> Result<Option<ExitStatus>, ProxyError> {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().map_err(ProxyError::Wait)? {
            return Ok(Some(s));
        }
        if start.elapsed() >= limit {
            return Ok(None);
        }
        thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(unix)]
pub(super) fn terminate(child: &mut Child) {
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) with a pid of our own child that has not been reaped yet.
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
    }
}

#[cfg(not(unix))]
pub(super) fn terminate(child: &mut Child) {
    let _ = child.kill();
}

/// The exit code for a server's exit status (128 + the signal for a killed one).
pub(super) fn exit_code(s: ExitStatus) -> i32 {
    if let Some(c) = s.code() {
        return c;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = s.signal() {
            return 128 + sig;
        }
    }
    1
}
