//! `toolcap run -- CMD [ARGS...]`: run a command, keep its whole output in the
//! store when it is cut, print what the model should see, and exit with the
//! command's status.
//!
//! The universal adapter for an agent with a shell tool: stdout and stderr go
//! into one pipe (merged in arrival order, as a terminal shows them), read in
//! pieces through the processor's streaming path (bounded memory: the head, the
//! tail and the error lines are held, the rest goes to the store as it comes).
//! The output is processed as the `shell` family with the command as its
//! `command` argument (and its `exit_code`, once known) and the
//! [`TOOLCAP_CLI`](toolcap_config::presets::TOOLCAP_CLI) preset, so every
//! recovery suggestion is a `toolcap continue` / `toolcap search` command the
//! agent runs through the same shell, never the command again.
//!
//! toolcap never stands between the command and the agent:
//! - the store is opened only when an output is cut ([`LazyStore`]): a short
//!   output opens nothing and syncs nothing. A store that cannot be opened or
//!   written (read-only, uncreatable, damaged, locked past [`STORE_WAIT`], a full
//!   disk) costs the stored claims and adds one line saying why, never the
//!   command, its output or its status;
//! - the command gets the signal dispositions, mask and `$_` a shell would give
//!   it; it runs in its own process group (a timeout or a forwarded signal
//!   reaches all it started), and a watchdog kills that group when toolcap itself
//!   is killed (SIGKILL to the agent's group leaves no orphan);
//! - a background process still writing when the command is done keeps its
//!   output pipe: a relay passes what it writes on to toolcap's stdout until it
//!   closes, as the agent's own pipe would have taken it.
//!
//! Exit status: the command's; 128+N when a signal N ended it; 124 when
//! `--timeout` ended it (as coreutils `timeout`); 127 when it cannot be found,
//! 126 when it cannot be run. SIGINT, SIGTERM and SIGHUP sent to toolcap go to
//! the command's process group.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use serde_json::json;
use toolcap_config::Config;
use toolcap_core::{ToolCall, ToolResultProcessor};
use toolcap_store::{LazyStore, ResultStore, Retention, SaveWhen};

use super::common::{Failure, emit_processed, load_config, other, usage, write_out};
use super::project::{generated_id, project_store_path, use_cli_recovery};
use super::stored::{dialog_id, env_store};

#[cfg(unix)]
mod helpers;
mod pipe;
#[cfg(unix)]
mod relay;
#[cfg(unix)]
mod signals;
#[cfg(unix)]
mod watchdog;

#[cfg(not(unix))]
mod signals {
    pub const TERM: i32 = 15;
    pub const KILL: i32 = 9;
    pub fn install() {}
    pub fn set_child(_pid: u32) {}
    pub fn to_group(_pid: u32, _sig: i32) {}
}

use pipe::output_pipe;
#[cfg(unix)]
use pipe::poll_read;

/// The grace between SIGTERM and SIGKILL when `--timeout` ends a command.
const KILL_GRACE: Duration = Duration::from_secs(2);

/// How long toolcap keeps reading after the command exited while something it
/// started in the background still holds the output pipe open.
const LINGER: Duration = Duration::from_millis(300);

/// How long the store may keep the command waiting when another process holds
/// it (SQLite's busy timeout): once, after which the output goes on unstored.
pub const STORE_WAIT: Duration = Duration::from_secs(2);

/// Exit status for a command ended by `--timeout` (coreutils `timeout`'s).
pub const TIMEOUT_EXIT: u8 = 124;

/// Linux's limit on one argument of a program (`MAX_ARG_STRLEN`, 32 pages),
/// its closing NUL included: a longer `bash -c SCRIPT` fails with E2BIG.
pub const MAX_ARG_BYTES: usize = 131_072;

/// Whether `command` can be passed to a program as one argument (see
/// [`MAX_ARG_BYTES`]). A hook that wraps a command in `toolcap run -- bash -c
/// '...'` quotes it, which lengthens it (each `'` becomes `'\''`): it checks the
/// whole rewritten command with this and leaves a command that would not fit as
/// it is.
pub fn fits_one_argument(command: &str) -> bool {
    command.len() < MAX_ARG_BYTES
}

#[derive(Args)]
pub struct RunArgs {
    /// The tool call's id: the key of the stored output (else one is made up;
    /// the suggestions show it). May start with `-`.
    #[arg(long, allow_hyphen_values = true)]
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
    let spec = store.or_else(env_store);
    let (results, spec) = lazy_store(spec, &config);
    let (dialog, id) = ids(id, &results);
    use_cli_recovery(
        &mut config,
        &tool,
        explicit_store.then_some(spec.as_path()),
        config_flag.as_deref(),
    );
    let shown = shown_command(program, args);
    let call_args = json!({ "command": shown });
    let processor = ToolResultProcessor::new(config)
        .with_store(results.clone() as Arc<dyn ResultStore>, SaveWhen::Cut);
    let mut call = ToolCall::new(&tool, &call_args);
    call.id = Some(&id);
    call.dialog = Some(&dialog);
    run_unix(&processor, &call, program, args, timeout, &results)
}

/// The store `spec` names (else the project's), opened when first needed, and
/// its location for `--store` in suggestions. A store that cannot be named is
/// one that fails: the command runs all the same.
fn lazy_store(spec: Option<PathBuf>, config: &Config) -> (Arc<LazyStore>, PathBuf) {
    let spec = match spec {
        Some(s) => s,
        None => match project_store_path() {
            Ok(p) => p,
            Err(f) => {
                let s = PathBuf::from("(no store)");
                return (
                    Arc::new(LazyStore::failed(
                        toolcap_stores::location::file_backend(),
                        &s,
                        &f.message,
                    )),
                    s,
                );
            }
        },
    };
    if spec.as_os_str() == "memory" || spec.as_os_str() == ":memory:" {
        let why = format!(
            "--store {}: a memory store ends with this process, so `toolcap continue` could not read the output back; pass a SQLite file path or a postgres:// URL (or nothing: one store per project in the state directory)",
            spec.display()
        );
        return (Arc::new(LazyStore::failed("memory", &spec, &why)), spec);
    }
    let at = match toolcap_stores::Location::parse(&spec) {
        Ok(at) => at,
        Err(e) => {
            return (
                Arc::new(LazyStore::failed(
                    toolcap_stores::location::file_backend(),
                    &spec,
                    &e.to_string(),
                )),
                spec,
            );
        }
    };
    let kind = at.backend();
    let retention = Retention::of(&config.store);
    let shown = PathBuf::from(at.to_string());
    // a file store's outputs passed whole are counted beside it, the store closed
    let aside = at.file_path().map(toolcap_store::record::aside::path_for);
    let pruned = aside.clone();
    let lazy = LazyStore::new(kind, shown, move || {
        // (a SQLite store's directory is created with it)
        let s = at.open_waiting(STORE_WAIT)?;
        // the retention, applied when the store is used (an output cut); a store
        // that cannot expire is not written to either
        if !retention.is_unlimited() {
            s.expire(&retention)?;
            if let (Some(p), Some(cutoff)) = (&pruned, retention.cutoff_ms(toolcap_store::now_ms()))
            {
                let _ = toolcap_store::record::aside::prune_before(p, cutoff);
            }
        }
        Ok(s)
    });
    let lazy = match aside {
        Some(p) => lazy.with_aside(p),
        None => lazy,
    };
    (Arc::new(lazy), spec)
}

/// The dialog and tool call id the output is kept under. An id or dialog that
/// cannot be used leaves the output unstored (the command runs all the same).
fn ids(id: Option<String>, results: &LazyStore) -> (String, String) {
    let dialog = match dialog_id(None) {
        Ok(d) => d,
        Err(f) => {
            results.fail_with(&f.message);
            toolcap_store::DEFAULT_DIALOG.to_string()
        }
    };
    let id = match id {
        Some(id) => {
            if let Err(e) = toolcap_store::validate_id("tool_call_id", &id) {
                results.fail_with(&format!("--id: {e}"));
            }
            id
        }
        None => generated_id(),
    };
    (dialog, id)
}

#[cfg(not(unix))]
fn run_unix(
    _processor: &ToolResultProcessor,
    _call: &ToolCall<'_>,
    _program: &OsStr,
    _args: &[OsString],
    _timeout: Option<Duration>,
    _results: &LazyStore,
) -> Result<(), Failure> {
    Err(other(
        "run: not supported on this platform yet (it needs a Unix pipe shared by stdout and stderr)",
    ))
}

#[cfg(unix)]
fn run_unix(
    processor: &ToolResultProcessor,
    call: &ToolCall<'_>,
    program: &OsStr,
    args: &[OsString],
    timeout: Option<Duration>,
    results: &LazyStore,
) -> Result<(), Failure> {
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;

    let (reader, writer) = output_pipe()?;
    let mut cmd = Command::new(program);
    cmd.args(args)
        .stdin(Stdio::inherit())
        .stdout(Stdio::from(writer.try_clone().map_err(|e| {
            other(format!("run: cannot set up the output pipe: {e}"))
        })?))
        .stderr(Stdio::from(writer))
        // `$_` as a shell sets it for the program it runs: its path
        .env("_", program_path(program));
    // its own process group: a timeout or a forwarded signal reaches everything
    // it started. The watchdog leads that group, there before the command starts,
    // so that no kill of toolcap's group can come before it is in place.
    let mut watchdog = watchdog::start();
    let group = watchdog.as_ref().map_or(0, watchdog::Watchdog::pgid);
    cmd.process_group(group);
    // SAFETY: the closure runs in the child between fork and exec and makes only
    // async-signal-safe calls (sigaction, sigprocmask, syscall).
    unsafe {
        cmd.pre_exec(|| {
            signals::defaults_for_exec();
            Ok(())
        });
    }
    signals::install();
    let child = cmd.spawn();
    // the write ends live on in the child only: the pipe ends when it (and what
    // it started) is done
    drop(cmd);
    let mut child = child.map_err(|e| spawn_failure(program, &e))?;
    let group = if group > 0 {
        u32::try_from(group).unwrap_or(child.id())
    } else {
        child.id()
    };
    signals::set_child(group);

    let started = Instant::now();
    let mut watch = Watch {
        group,
        deadline: timeout.map(|t| started + t),
        timed_out: false,
        kill_at: None,
        exited: None,
        status: None,
    };
    let mut left_open = false;
    let fd = reader.as_raw_fd();
    let res = processor.process_chunks_then(call, |sink| {
        let mut buf = vec![0u8; 64 * 1024];
        let mut last_tick = Instant::now();
        loop {
            match poll_read(fd, &mut buf, 50)? {
                Some(0) => break,
                Some(n) => sink(&buf[..n]),
                None => {}
            }
            if last_tick.elapsed() >= Duration::from_millis(50) {
                last_tick = Instant::now();
                watch.tick(&mut child)?;
                if let Some(at) = watch.exited
                    && at.elapsed() >= LINGER
                {
                    // the command is done; a background process it left
                    // holds the pipe open
                    left_open = true;
                    break;
                }
            }
        }
        let status = watch.wait(&mut child)?;
        #[cfg(unix)]
        if !watch.timed_out {
            use std::os::unix::process::ExitStatusExt;
            if let Some(sig) = status.signal() {
                ENDED_BY.store(sig, std::sync::atomic::Ordering::SeqCst);
            }
        }
        let code = if watch.timed_out {
            TIMEOUT_EXIT
        } else {
            exit_code(status)
        };
        let mut args = call.args.clone();
        if let Some(o) = args.as_object_mut() {
            o.insert("exit_code".into(), json!(code));
        }
        Ok(Some(args))
    });
    let (processed, raw) =
        res.map_err(|e| other(format!("run: reading the command's output: {e}")))?;
    signals::set_child(0);
    let status = watch
        .status
        .ok_or_else(|| other("run: the command's exit status was not read"))?;
    emit_processed(&processed, raw.as_deref(), call.id, false)?;
    if let Some(e) = &processed.store_error {
        // one line: what the model is told of why the rest cannot be read back
        // (the store's first failure, when it failed before this write)
        let why = results
            .failure()
            .unwrap_or_else(|| e.lines().next().unwrap_or_default().to_string());
        write_out(
            format!("\n[toolcap run: the full output could not be kept: {why}]\n").as_bytes(),
        )?;
    }
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
    if left_open {
        // a background process still writes: relay it as the agent's pipe would
        // have taken it (the relay keeps the watchdog's pipe while it lives)
        let _ = std::io::stdout().flush();
        relay::start(reader, watchdog.as_mut());
    }
    drop(watchdog);
    if code == 0 {
        Ok(())
    } else {
        Err(Failure {
            code,
            message: String::new(),
        })
    }
}

/// The signal that ended the command of the last [`run`], 0 when none did.
static ENDED_BY: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// [`run`], ending as the command ended: a command killed by a signal kills
/// toolcap with the same signal once its output is out, so whoever started
/// toolcap sees what it would have seen of the command itself (Claude Code's
/// shell prefix: `kill -9 $$` reads "Exit code 1" there either way, where an
/// exit with 137 would read "Exit code 137").
pub fn run_as_the_command(a: RunArgs) -> Result<(), Failure> {
    let res = run(a);
    #[cfg(unix)]
    {
        let sig = ENDED_BY.swap(0, std::sync::atomic::Ordering::SeqCst);
        if sig != 0 {
            let _ = std::io::stdout().flush();
            let _ = std::io::stderr().flush();
            signals::die_by(sig);
        }
    }
    res
}

/// The program's path as a shell finds it (`/usr/bin/bash` for `bash`): what a
/// shell puts in `_` for the program it runs.
fn program_path(program: &OsStr) -> OsString {
    if program.as_encoded_bytes().contains(&b'/') {
        return program.to_os_string();
    }
    std::env::var_os("PATH")
        .and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join(program))
                .find(|p| is_executable(p))
        })
        .map_or_else(|| program.to_os_string(), PathBuf::into_os_string)
}

fn is_executable(p: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

/// The timeout's state while the command runs.
struct Watch {
    /// The command's process group.
    group: u32,
    deadline: Option<Instant>,
    timed_out: bool,
    kill_at: Option<Instant>,
    /// When the command was seen to have exited.
    exited: Option<Instant>,
    /// Its exit status, once waited for.
    status: Option<ExitStatus>,
}

impl Watch {
    /// Check the command: note its exit; past the deadline stop it (SIGTERM,
    /// then SIGKILL after [`KILL_GRACE`]).
    fn tick(&mut self, child: &mut Child) -> std::io::Result<()> {
        if self.exited.is_none()
            && let Some(s) = child.try_wait()?
        {
            self.exited = Some(Instant::now());
            self.status = Some(s);
        }
        let now = Instant::now();
        if let Some(d) = self.deadline
            && now >= d
            && !self.timed_out
        {
            self.timed_out = true;
            self.kill_at = Some(now + KILL_GRACE);
            signals::to_group(self.group, signals::TERM);
        }
        if let Some(k) = self.kill_at
            && now >= k
        {
            self.kill_at = None;
            signals::to_group(self.group, signals::KILL);
            let _ = child.kill();
        }
        Ok(())
    }
}

impl Watch {
    /// Wait for the command to exit (stopping it at the deadline).
    fn wait(&mut self, child: &mut Child) -> std::io::Result<ExitStatus> {
        loop {
            if let Some(s) = self.status {
                return Ok(s);
            }
            if self.deadline.is_none() || self.timed_out && self.kill_at.is_none() {
                let s = child.wait()?;
                self.status = Some(s);
                return Ok(s);
            }
            self.tick(child)?;
            if self.status.is_none() {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
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
fn spawn_failure(program: &OsStr, e: &std::io::Error) -> Failure {
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
fn shown_command(program: &OsStr, args: &[OsString]) -> String {
    let name = Path::new(program)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if matches!(name.as_str(), "bash" | "sh" | "zsh" | "dash") && args.len() == 2 && args[0] == "-c"
    {
        let script = args[1].to_string_lossy();
        // Claude Code's Bash tool script (toolcap as its shell prefix): the model's command
        if let Some(command) = super::claude_script::claude_command(&script) {
            return command;
        }
        return script.into_owned();
    }
    std::iter::once(program)
        .chain(args.iter().map(OsString::as_os_str))
        .map(|w| {
            let w = w.to_string_lossy();
            toolcap_text::quote::shell_word(&w).unwrap_or_else(|| w.into_owned())
        })
        .collect::<Vec<_>>()
        .join(" ")
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

    #[test]
    fn one_argument_fits_below_linux_limit() {
        assert!(fits_one_argument(&"x".repeat(MAX_ARG_BYTES - 1)));
        assert!(!fits_one_argument(&"x".repeat(MAX_ARG_BYTES)));
        // a 107 KB script full of quotes grows past it once quoted for the shell
        let script = "echo 'a';".repeat(107_000 / 9);
        assert!(fits_one_argument(&script));
        let quoted = toolcap_text::quote::shell_word(&script).unwrap();
        assert!(!fits_one_argument(&quoted));
    }
}
