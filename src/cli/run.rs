//! `toolcap run -- CMD [ARGS...]`: run a command, keep its whole output in the
//! store, print what the model should see, and exit with the command's status.
//!
//! The universal adapter for an agent with a shell tool: stdout and stderr go
//! into one pipe (merged in arrival order, as a terminal shows them), read in
//! pieces through the processor's streaming path (bounded memory: the head, the
//! tail and the error lines are held, the rest goes to the store as it comes).
//! The output is processed as the `shell` family with the command as its
//! `command` argument and the
//! [`TOOLCAP_CLI`](toolcap::config::presets::TOOLCAP_CLI) preset, so every
//! recovery suggestion is a `toolcap continue` / `toolcap search` command the
//! agent runs through the same shell, never the command again.
//!
//! Exit status: the command's; 128+N when a signal N ended it; 124 when
//! `--timeout` ended it (as coreutils `timeout`); 127 when it cannot be found,
//! 126 when it cannot be run. SIGINT, SIGTERM and SIGHUP sent to toolcap go to
//! the command's process group.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use clap::Args;
use serde_json::json;
use toolcap::store::{self, SaveWhen};
use toolcap::{StreamError, ToolCall, ToolResultProcessor};

use super::common::{Failure, emit_processed, load_config, other, usage, write_out};
use super::project::{generated_id, project_store_path, use_cli_recovery};
use super::stored::{dialog_id, env_store, expire_on_open, expire_periodically, open_store};

/// The grace between SIGTERM and SIGKILL when `--timeout` ends a command.
const KILL_GRACE: Duration = Duration::from_secs(2);

/// How long toolcap keeps reading after the command exited while something it
/// started in the background still holds the output pipe open.
const LINGER: Duration = Duration::from_millis(300);

/// Exit status for a command ended by `--timeout` (coreutils `timeout`'s).
pub const TIMEOUT_EXIT: u8 = 124;

#[derive(Args)]
pub struct RunArgs {
    /// The tool call's id: the key of the stored output (else one is made up;
    /// the suggestions show it).
    #[arg(long)]
    id: Option<String>,
    /// Keep the output in this store: a SQLite file or a postgres:// URL (else
    /// $TOOLCAP_STORE, else one store per project in the state directory:
    /// $XDG_STATE_HOME/toolcap/<project>/results.db).
    #[arg(long, value_name = "SPEC")]
    store: Option<PathBuf>,
    /// Stop the command after SECS seconds (SIGTERM to its process group, SIGKILL
    /// 2 s later); toolcap then exits with 124 and says so after the output.
    #[arg(long, value_name = "SECS")]
    timeout: Option<f64>,
    /// User config merged over the built-in thresholds (else $TOOLCAP_CONFIG).
    #[arg(long)]
    config: Option<PathBuf>,
    /// The tool name the output is processed as (a shell-family name; suggestions
    /// run their commands with it).
    #[arg(long, default_value = "shell", allow_hyphen_values = true)]
    tool: String,
    /// The command and its arguments, after `--` (no shell: write `bash -c '...'`
    /// for one).
    #[arg(last = true, required = true, value_name = "CMD")]
    command: Vec<OsString>,
}

pub fn run(a: RunArgs) -> Result<(), Failure> {
    let RunArgs {
        id,
        store,
        timeout,
        config,
        tool,
        command,
    } = a;
    let timeout = match timeout {
        None => None,
        Some(s) if s.is_finite() && s > 0.0 && s < 1e9 => Some(Duration::from_secs_f64(s)),
        Some(s) => {
            return Err(usage(format!(
                "--timeout {s}: pass a number of seconds greater than 0, like 30 or 0.5"
            )));
        }
    };
    let (program, args) = command
        .split_first()
        .ok_or_else(|| usage("run: name the command after --, e.g. `toolcap run -- make test`"))?;
    let config_flag = config.clone();
    let mut config = load_config(config.as_deref())?;
    let explicit_store = store.is_some();
    let spec = match store.or_else(env_store) {
        Some(s) => s,
        None => project_store_path()?,
    };
    if spec.as_os_str() == "memory" || spec.as_os_str() == ":memory:" {
        return Err(usage(format!(
            "--store {}: a memory store ends with this process, so `toolcap continue` could not read the output back; pass a SQLite file path or a postgres:// URL (or nothing: one store per project in the state directory)",
            spec.display()
        )));
    }
    let dialog = dialog_id(None)?;
    let id = match id {
        Some(id) => {
            store::validate_id("tool_call_id", &id).map_err(|e| usage(format!("--id: {e}")))?;
            id
        }
        None => generated_id(),
    };
    if let Some(dir) = spec.parent().filter(|d| !d.as_os_str().is_empty())
        && !store::Location::parse(&spec)
            .map(|l| l.is_postgres())
            .unwrap_or(false)
    {
        std::fs::create_dir_all(dir).map_err(|e| {
            other(format!(
                "{}: cannot create the store's directory: {e}; pass --store PATH (or set TOOLCAP_STORE) to put it elsewhere",
                dir.display()
            ))
        })?;
    }
    let results = open_store(spec.as_os_str())?;
    expire_on_open(&*results, &config, "run");
    // a long command: expire on schedule meanwhile (quietly: stderr is the command's)
    let _expiring = expire_periodically(results.clone(), &config, None, "run", false);
    use_cli_recovery(
        &mut config,
        &tool,
        explicit_store.then_some(spec.as_path()),
        config_flag.as_deref(),
    );
    let shown = shown_command(program, args);
    let call_args = json!({ "command": shown });
    let processor = ToolResultProcessor::new(config).with_store(results, SaveWhen::Cut);
    let mut call = ToolCall::new(&tool, &call_args);
    call.id = Some(&id);
    call.dialog = Some(&dialog);

    let (reader, writer) = output_pipe()?;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::inherit())
        .stdout(Stdio::from(writer.try_clone().map_err(|e| {
            other(format!("run: cannot set up the output pipe: {e}"))
        })?))
        .stderr(Stdio::from(writer));
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // its own process group: a timeout or a forwarded signal reaches
        // everything it started
        cmd.process_group(0);
    }
    signals::install();
    let child = cmd.spawn();
    // the write ends live on in the child only: the pipe ends when it (and what
    // it started) is done
    drop(cmd);
    let mut child = child.map_err(|e| spawn_failure(program, &e))?;
    signals::set_child(child.id());

    let (tx, rx) = mpsc::sync_channel::<Vec<u8>>(16);
    std::thread::spawn(move || {
        let mut reader = reader;
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => return,
                Ok(n) => {
                    if tx.send(buf[..n].to_vec()).is_err() {
                        return;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => return,
            }
        }
    });

    let started = Instant::now();
    let mut watch = Watch {
        deadline: timeout.map(|t| started + t),
        timed_out: false,
        kill_at: None,
        exited: None,
    };
    let res = processor.try_process_chunks(&call, |sink| {
        loop {
            match rx.recv_timeout(Duration::from_millis(50)) {
                Ok(piece) => sink(&piece),
                Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(()),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    watch.tick(&mut child)?;
                    if let Some(at) = watch.exited
                        && at.elapsed() >= LINGER
                    {
                        // the command is done; a background process it left
                        // holds the pipe open
                        return Ok(());
                    }
                }
            }
        }
    });
    let (processed, raw) = res.map_err(|e| match e {
        StreamError::Read(e) => other(format!("run: reading the command's output: {e}")),
        StreamError::Store(e) => other(format!(
            "run: the output could not be kept in {}: {e}",
            spec.display()
        )),
        e => other(format!("run: {e}")),
    })?;
    let status = loop {
        if let Some(s) = child
            .try_wait()
            .map_err(|e| other(format!("run: waiting for the command: {e}")))?
        {
            break s;
        }
        watch
            .tick(&mut child)
            .map_err(|e| other(format!("run: waiting for the command: {e}")))?;
        std::thread::sleep(Duration::from_millis(10));
    };
    signals::set_child(0);
    emit_processed(&processed, raw.as_deref(), Some(&id), false)?;
    let code = if watch.timed_out {
        let secs = timeout.map_or(0.0, |t| t.as_secs_f64());
        write_out(
            format!(
                "\n[toolcap run: the command was stopped after {} s (--timeout); exit status {TIMEOUT_EXIT}]\n",
                trim_secs(secs)
            )
            .as_bytes(),
        )?;
        TIMEOUT_EXIT
    } else {
        exit_code(status)
    };
    if code == 0 {
        Ok(())
    } else {
        Err(Failure {
            code,
            message: String::new(),
        })
    }
}

/// The timeout's state while the command runs.
struct Watch {
    deadline: Option<Instant>,
    timed_out: bool,
    kill_at: Option<Instant>,
    /// When the command was seen to have exited.
    exited: Option<Instant>,
}

impl Watch {
    /// Check the command: note its exit; past the deadline stop it (SIGTERM,
    /// then SIGKILL after [`KILL_GRACE`]).
    fn tick(&mut self, child: &mut Child) -> std::io::Result<()> {
        if self.exited.is_none() && child.try_wait()?.is_some() {
            self.exited = Some(Instant::now());
        }
        let now = Instant::now();
        if let Some(d) = self.deadline
            && now >= d
            && !self.timed_out
        {
            self.timed_out = true;
            self.kill_at = Some(now + KILL_GRACE);
            signals::to_group(child.id(), signals::TERM);
        }
        if let Some(k) = self.kill_at
            && now >= k
        {
            self.kill_at = None;
            signals::to_group(child.id(), signals::KILL);
            let _ = child.kill();
        }
        Ok(())
    }
}

/// `12`, `0.5`: seconds as the user wrote them, without trailing zeros.
fn trim_secs(s: f64) -> String {
    let t = format!("{s:.3}");
    t.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The exit status to leave with: the command's code, 128+N for signal N.
fn exit_code(s: ExitStatus) -> u8 {
    if let Some(c) = s.code() {
        return u8::try_from(c).unwrap_or(1);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = s.signal() {
            return u8::try_from(128 + sig).unwrap_or(1);
        }
    }
    1
}

/// A command that cannot be started: 127 when it is not found, 126 when it
/// cannot be run (as POSIX shells and coreutils `timeout` exit).
fn spawn_failure(program: &std::ffi::OsStr, e: &std::io::Error) -> Failure {
    let code = if e.kind() == std::io::ErrorKind::NotFound {
        127
    } else {
        126
    };
    Failure {
        code,
        message: format!(
            "run: cannot start {}: {e}; check the command after -- (is it installed and on PATH? a shell command needs `bash -c '...'`)",
            program.to_string_lossy()
        ),
    }
}

/// The command as the model reads it: the script of `bash -c SCRIPT` (or `sh -c`),
/// else the words joined, each quoted for the shell where needed.
fn shown_command(program: &std::ffi::OsStr, args: &[OsString]) -> String {
    let name = Path::new(program)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if matches!(name.as_str(), "bash" | "sh" | "zsh" | "dash") && args.len() == 2 && args[0] == "-c"
    {
        let script = args[1].to_string_lossy();
        // Claude Code's Bash tool script (toolcap as its shell prefix): the model's command
        if let Some(command) = super::shell_prefix::claude_command(&script) {
            return command;
        }
        return script.into_owned();
    }
    std::iter::once(program)
        .chain(args.iter().map(OsString::as_os_str))
        .map(|w| {
            let w = w.to_string_lossy();
            toolcap::internals::shell_word(&w).unwrap_or_else(|| w.into_owned())
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// One pipe for the command's stdout and stderr: (read end, write end).
#[cfg(unix)]
fn output_pipe() -> Result<(std::fs::File, std::fs::File), Failure> {
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
fn output_pipe() -> Result<(std::fs::File, std::fs::File), Failure> {
    Err(other(
        "run: not supported on this platform yet (it needs a Unix pipe shared by stdout and stderr)",
    ))
}

/// Forwarding SIGINT, SIGTERM and SIGHUP to the command's process group.
#[cfg(unix)]
mod signals {
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
}

#[cfg(not(unix))]
mod signals {
    pub const TERM: i32 = 15;
    pub const KILL: i32 = 9;
    pub fn install() {}
    pub fn set_child(_pid: u32) {}
    pub fn to_group(_pid: u32, _sig: i32) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bash_script_is_shown_as_itself() {
        let s = |v: &[&str]| {
            let v: Vec<OsString> = v.iter().map(OsString::from).collect();
            shown_command(&v[0], &v[1..])
        };
        assert_eq!(s(&["bash", "-c", "make test | tail"]), "make test | tail");
        assert_eq!(s(&["seq", "1", "10"]), "seq 1 10");
        assert_eq!(s(&["grep", "-n", "a b", "f"]), "grep -n 'a b' f");
    }
}
