//! The real agents, installed by `bash .ci/install-agents` under
//! `~/.cache/toolcap-ci/agents` (`TOOLCAP_AGENTS` names another directory), each run
//! non-interactively in a throwaway project with its HOME and config isolated,
//! against a scripted model server (see server.rs).

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::server::{Api, Call, Server};

/// The test command run in every agent's shell, in the project directory: a real
/// unittest run of tests/agents/project/stdlib_all_test.py (about 79 KB, 9 failures),
/// by the absolute path of the `python3` on the tests' PATH (an agent's login shell
/// may put another python3 first, with another standard library).
pub fn test_command() -> &'static str {
    static COMMAND: OnceLock<String> = OnceLock::new();
    COMMAND.get_or_init(|| {
        let exe = Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .filter(|p| !p.is_empty() && !p.contains([' ', '\'', '"']))
            .unwrap_or_else(|| "python3".to_string());
        format!("{exe} -m unittest -v stdlib_all_test")
    })
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    ClaudeCode,
    Codex,
    GeminiCli,
    Opencode,
    Pi,
    Copilot,
    QwenCode,
    Kilo,
}

impl Kind {
    /// The name `toolcap install` takes.
    pub fn name(self) -> &'static str {
        match self {
            Kind::ClaudeCode => "claude-code",
            Kind::Codex => "codex",
            Kind::GeminiCli => "gemini-cli",
            Kind::Opencode => "opencode",
            Kind::Pi => "pi",
            Kind::Copilot => "copilot",
            Kind::QwenCode => "qwen-code",
            Kind::Kilo => "kilo",
        }
    }
    fn bin(self) -> &'static str {
        match self {
            Kind::ClaudeCode => "claude",
            Kind::Codex => "codex",
            Kind::GeminiCli => "gemini",
            Kind::Opencode => "opencode",
            Kind::Pi => "pi",
            Kind::Copilot => "copilot",
            Kind::QwenCode => "qwen",
            Kind::Kilo => "kilo",
        }
    }
    pub fn api(self) -> Api {
        match self {
            Kind::ClaudeCode => Api::Anthropic,
            Kind::Codex => Api::Responses,
            Kind::GeminiCli => Api::Gemini,
            Kind::Opencode => Api::Chat,
            Kind::Pi => Api::Chat,
            Kind::Copilot => Api::Chat,
            Kind::QwenCode | Kind::Kilo => Api::Chat,
        }
    }
    /// The agent's shell tool as its model calls it, with the argument holding the command.
    pub fn shell_tool(self) -> (&'static str, &'static str) {
        match self {
            Kind::ClaudeCode => ("Bash", "command"),
            Kind::Codex => ("exec_command", "cmd"),
            Kind::GeminiCli => ("run_shell_command", "command"),
            Kind::Opencode => ("bash", "command"),
            Kind::Pi => ("bash", "command"),
            Kind::Copilot => ("bash", "command"),
            Kind::Kilo => ("bash", "command"),
            Kind::QwenCode => ("run_shell_command", "command"),
        }
    }
    /// How the model names tool `tool` of MCP server `server` in this agent.
    pub fn mcp_tool(self, server: &str, tool: &str) -> String {
        match self {
            Kind::ClaudeCode | Kind::Codex | Kind::QwenCode => format!("mcp__{server}__{tool}"),
            Kind::GeminiCli => format!("mcp_{server}_{tool}"),
            Kind::Opencode => format!("{server}_{tool}"),
            // Pi has no MCP client of its own
            Kind::Pi => format!("{server}_{tool}"),
            Kind::Copilot => format!("{server}-{tool}"),
            Kind::Kilo => format!("{server}_{tool}"),
        }
    }
    /// The text toolcap printed, out of the agent's own wrapping of a shell result.
    pub fn shell_view(self, result: &str) -> String {
        let s = match self {
            // "Exit code 1\n<output>" when the command failed
            Kind::ClaudeCode => match result.strip_prefix("Exit code ") {
                Some(rest) => rest.split_once('\n').map_or("", |(_, v)| v),
                None => result,
            },
            // "Chunk ID: ..\nWall time: ..\nProcess exited with code 1\nOriginal token count: N\nOutput:\n<output>"
            Kind::Codex => result.split_once("\nOutput:\n").map_or(result, |(_, v)| v),
            // "<untrusted_context>\nOutput: <output>\nExit Code: 1\nProcess Group PGID: N\n</untrusted_context>"
            Kind::GeminiCli => {
                let from = result.split_once("Output: ").map_or(result, |(_, v)| v);
                let end = [
                    "\nExit Code: ",
                    "\nProcess Group PGID: ",
                    "\n</untrusted_context>",
                ]
                .iter()
                .filter_map(|m| from.find(m))
                .min()
                .unwrap_or(from.len());
                &from[..end]
            }
            Kind::Opencode => result,
            // "<output>\n\nCommand exited with code 1" when the command failed
            Kind::Pi => match result.rfind("\n\nCommand exited with code ") {
                Some(at) => &result[..at],
                None => result,
            },
            // "<output>\n<shellId: 0 completed with exit code 1>"
            Kind::Copilot => match result.rfind("\n<shellId: ") {
                Some(at) => &result[..at],
                None => result,
            },
            Kind::Kilo => result,
            // "Command: C\nDirectory: D\nOutput: <output>\nError: E\nExit Code: N\n..."
            Kind::QwenCode => match result.split_once("\nOutput: ") {
                Some((_, from)) => from.rfind("\nError: ").map_or(from, |e| &from[..e]),
                None => result,
            },
        };
        s.trim_end_matches('\n').to_string()
    }
    /// The tool results as one result per call. Codex's exec_command returns after
    /// at most 30 s with "Process running with session ID N" and the model polls with
    /// write_stdin: those chunks fold into one result (the last header, the outputs
    /// joined). Also the session still running, if the last call has not finished.
    pub fn fold(self, results: &[String]) -> (Vec<String>, Option<u64>) {
        if self != Kind::Codex {
            return (results.to_vec(), None);
        }
        let mut out = Vec::new();
        let mut pending: Option<(u64, String)> = None;
        for r in results {
            let (header, body) = r.split_once("\nOutput:\n").unwrap_or((r, ""));
            let marker = "Process running with session ID ";
            let running = header.find(marker).and_then(|i| {
                header[i + marker.len()..]
                    .split(|c: char| !c.is_ascii_digit())
                    .next()
                    .and_then(|d| d.parse().ok())
            });
            pending = match (pending.take(), running) {
                (None, None) => {
                    out.push(r.clone());
                    None
                }
                (None, Some(id)) => Some((id, body.to_string())),
                (Some((_, acc)), Some(id)) => Some((id, acc + body)),
                (Some((_, acc)), None) => {
                    out.push(format!("{header}\nOutput:\n{acc}{body}"));
                    None
                }
            };
        }
        (out, pending.map(|p| p.0))
    }

    /// The call that waits for a still-running Codex session.
    pub fn poll(self, session: u64) -> Call {
        Call {
            name: "write_stdin".to_string(),
            args: serde_json::json!({"session_id": session, "chars": "", "yield_time_ms": 300000}),
        }
    }

    /// The exit status the agent reported to its model for a shell result, when it
    /// reports one (opencode does not put it in the model's text).
    pub fn reported_exit(self, result: &str) -> Option<i32> {
        let after = |marker: &str| {
            result
                .find(marker)
                .map(|i| &result[i + marker.len()..])
                .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
                .and_then(|d| d.parse().ok())
        };
        match self {
            Kind::ClaudeCode => after("Exit code ").or(Some(0)),
            Kind::Codex => after("Process exited with code "),
            Kind::GeminiCli => after("Exit Code: ").or(Some(0)),
            Kind::Opencode => None,
            Kind::Pi => after("Command exited with code ").or(Some(0)),
            Kind::Copilot => after(" completed with exit code "),
            Kind::QwenCode => after("\nExit Code: "),
            Kind::Kilo => None,
        }
    }
}

/// Where the agents are installed.
pub fn agents_dir() -> PathBuf {
    std::env::var_os("TOOLCAP_AGENTS")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache/toolcap-ci/agents"))
        })
        .unwrap_or_else(|| PathBuf::from(".cache/toolcap-ci/agents"))
}

pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Skip (outside CI) or fail (under CI=true) with `why`.
pub fn skip_or_fail(why: &str) {
    if under_ci() {
        panic!("{why}");
    }
    eprintln!("skipping: {why}");
}

/// The agent's program, or `None` after skipping (outside CI); under CI a missing
/// agent fails the test.
pub fn find(kind: Kind) -> Option<PathBuf> {
    let bin = agents_dir().join("node_modules/.bin").join(kind.bin());
    let python = Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if bin.exists() && python {
        return Some(bin);
    }
    let mut missing = Vec::new();
    if !bin.exists() {
        missing.push(format!(
            "{} (install the agents with `bash .ci/install-agents`; TOOLCAP_AGENTS names another directory)",
            bin.display()
        ));
    }
    if !python {
        missing.push("python3 on PATH".to_string());
    }
    skip_or_fail(&format!(
        "{} end-to-end test: missing {}",
        kind.name(),
        missing.join(", ")
    ));
    None
}

/// A throwaway project and home for one agent run.
pub struct Sandbox {
    _dir: tempfile::TempDir,
    pub home: PathBuf,
    pub project: PathBuf,
    /// More environment for every command of this sandbox (`set_env`).
    env: std::cell::RefCell<Vec<(String, String)>>,
}

impl Sandbox {
    pub fn new() -> Sandbox {
        let dir = tempfile::Builder::new()
            .prefix("toolcap-e2e-")
            .tempdir()
            .expect("make a temp dir");
        let home = dir.path().join("home");
        let project = dir.path().join("project");
        fs::create_dir_all(&home).expect("make the home dir");
        fs::create_dir_all(&project).expect("make the project dir");
        let test =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/agents/project/stdlib_all_test.py");
        fs::copy(&test, project.join("stdlib_all_test.py")).expect("copy the test module");
        Sandbox {
            _dir: dir,
            home,
            project,
            env: std::cell::RefCell::new(Vec::new()),
        }
    }

    /// Set `key` to `value` for every command run in this sandbox from now on.
    pub fn set_env(&self, key: &str, value: &str) {
        self.env
            .borrow_mut()
            .push((key.to_string(), value.to_string()));
    }

    pub fn write(&self, rel: &str, text: &str) {
        let p = if let Some(r) = rel.strip_prefix("~/") {
            self.home.join(r)
        } else {
            self.project.join(rel)
        };
        if let Some(d) = p.parent() {
            fs::create_dir_all(d).expect("make a config dir");
        }
        fs::write(&p, text).unwrap_or_else(|e| panic!("write {}: {e}", p.display()));
    }

    /// PATH with the toolcap binary's directory first (the model runs `toolcap ...`).
    fn path_env(&self) -> String {
        let toolcap = Path::new(env!("CARGO_BIN_EXE_toolcap"));
        let dir = toolcap.parent().unwrap_or(Path::new("."));
        match std::env::var("PATH") {
            Ok(p) => format!("{}:{p}", dir.display()),
            Err(_) => dir.display().to_string(),
        }
    }

    /// A command with this sandbox's isolated environment.
    pub fn command(&self, program: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(&self.project)
            .env("HOME", &self.home)
            .env("PWD", &self.project)
            .env("PATH", self.path_env())
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_STATE_HOME")
            .env_remove("XDG_DATA_HOME")
            .env_remove("XDG_CACHE_HOME")
            .env_remove("TOOLCAP_STORE")
            .env_remove("CODEX_HOME")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("OPENAI_API_KEY")
            .env_remove("OPENAI_BASE_URL")
            .env_remove("OPENAI_MODEL")
            .env_remove("GEMINI_API_KEY")
            .env_remove("GOOGLE_API_KEY");
        for (k, v) in self.env.borrow().iter() {
            cmd.env(k, v);
        }
        cmd
    }

    /// `toolcap ARGS` in this sandbox; (success, stdout, stderr).
    pub fn toolcap(&self, args: &[&str]) -> (bool, String, String) {
        let out = self
            .command(Path::new(env!("CARGO_BIN_EXE_toolcap")))
            .args(args)
            .stdin(Stdio::null())
            .output()
            .expect("run toolcap");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// Run the test command here directly: its output (stdout and stderr merged, as
    /// a terminal shows them) and exit code.
    pub fn run_test_command(&self) -> (String, i32) {
        self.run_command(test_command())
    }

    /// Run `command` here with `sh -c`: its output (stdout and stderr merged) and
    /// exit code.
    pub fn run_command(&self, command: &str) -> (String, i32) {
        let out = self
            .command(Path::new("sh"))
            .args(["-c", &format!("{{ {command}\n}} 2>&1")])
            .stdin(Stdio::null())
            .output()
            .expect("run the test command");
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            out.status.code().unwrap_or(-1),
        )
    }

    /// Write the agent's own settings that point it at `server` (what a user of a
    /// custom endpoint writes), before `toolcap install` merges its entries in.
    pub fn configure(&self, kind: Kind, server: &Server) {
        match kind {
            Kind::ClaudeCode => {}
            Kind::Codex => self.write(
                "~/.codex/config.toml",
                &format!(
                    "model = \"m\"\nmodel_provider = \"mock\"\n\n[model_providers.mock]\nname = \"mock\"\nbase_url = \"{}/v1\"\nenv_key = \"MOCK_API_KEY\"\nwire_api = \"responses\"\n\n[projects.\"{}\"]\ntrust_level = \"trusted\"\n",
                    server.url(),
                    self.project.display()
                ),
            ),
            Kind::GeminiCli => self.write(
                "~/.gemini/settings.json",
                r#"{"security":{"auth":{"selectedType":"gemini-api-key"}}}"#,
            ),
            // its pty shell (the default) at times sends a quick command's output as
            // `Output: (empty)`, without toolcap too (0.24.4): the tests use its pipes
            Kind::QwenCode => self.write(
                "~/.qwen/settings.json",
                r#"{"tools":{"shell":{"enableInteractiveShell":false}}}"#,
            ),
            Kind::Kilo => self.write(
                "kilo.json",
                &serde_json::json!({
                    "$schema": "https://app.kilo.ai/config.json",
                    "provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "name": "mock",
                        "options": {"baseURL": format!("{}/v1", server.url()), "apiKey": "k"},
                        "models": {"m": {"name": "m", "tool_call": true}}}},
                    "model": "mock/m"
                })
                .to_string(),
            ),
            Kind::Opencode => self.write(
                "opencode.json",
                &serde_json::json!({
                    "$schema": "https://opencode.ai/config.json",
                    "provider": {"mock": {"npm": "@ai-sdk/openai-compatible", "name": "mock",
                        "options": {"baseURL": format!("{}/v1", server.url()), "apiKey": "k"},
                        "models": {"m": {"name": "m", "tool_call": true}}}},
                    "model": "mock/m"
                })
                .to_string(),
            ),
            Kind::Pi => self.write(
                "~/.pi/agent/models.json",
                &serde_json::json!({"providers": {"mock": {
                    "baseUrl": format!("{}/v1", server.url()), "api": "openai-completions",
                    "apiKey": "k",
                    "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
                    "models": [{"id": "m"}]}}})
                .to_string(),
            ),
            // the project is a folder the user trusted (Copilot runs its hooks only
            // there; the list is in config.json, which Copilot manages)
            Kind::Copilot => self.write(
                "~/.copilot/config.json",
                &serde_json::json!({"trustedFolders": [self.project]}).to_string(),
            ),
        }
    }

    /// Run the agent once, non-interactively, on `prompt` against `server`.
    pub fn run_agent(&self, kind: Kind, bin: &Path, server: &Server, extra: &[&str]) -> AgentRun {
        let asked = server.requests().len();
        let run = self.run_agent_once(kind, bin, server, extra);
        // Kilo 7.7.7 at times stops at its start, under load, on its own database
        // ("Failed query: PRAGMA wal_checkpoint(PASSIVE)") before it asks the model
        // anything: nothing has run, so it is started once more
        if kind == Kind::Kilo
            && !run.success
            && run.stderr.contains("Failed query: PRAGMA")
            && server.requests().len() == asked
        {
            eprintln!("kilo stopped at its start; starting it again");
            return self.run_agent_once(kind, bin, server, extra);
        }
        run
    }

    fn run_agent_once(&self, kind: Kind, bin: &Path, server: &Server, extra: &[&str]) -> AgentRun {
        let prompt = "Run the project's tests and tell me what fails.";
        let mut cmd = self.command(bin);
        match kind {
            Kind::ClaudeCode => {
                cmd.env("ANTHROPIC_BASE_URL", server.url())
                    .env("ANTHROPIC_API_KEY", "sk-e2e")
                    .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                    .args([
                        "-p",
                        prompt,
                        "--output-format",
                        "json",
                        "--allowedTools",
                        "Bash",
                    ])
                    .args(extra);
            }
            Kind::Codex => {
                cmd.env("CODEX_HOME", self.home.join(".codex"))
                    .env("MOCK_API_KEY", "k")
                    .args([
                        "exec",
                        "--skip-git-repo-check",
                        "--dangerously-bypass-hook-trust",
                    ]);
                // full access unless the test names its own sandbox
                if !extra.iter().any(|a| a.starts_with("--sandbox")) {
                    cmd.args(["--sandbox", "danger-full-access"]);
                }
                cmd.args(extra).arg(prompt);
            }
            Kind::GeminiCli => {
                cmd.env("GOOGLE_GEMINI_BASE_URL", server.url())
                    .env("GEMINI_API_KEY", "k")
                    .env("GEMINI_CLI_TRUST_WORKSPACE", "true")
                    .args(["-m", "gemini-2.5-flash", "-p", prompt]);
                // --yolo unless the test names its own approval mode
                if !extra.iter().any(|a| a.starts_with("--approval-mode")) {
                    cmd.arg("--yolo");
                }
                cmd.args(extra);
            }
            Kind::Opencode => {
                let cache = agents_dir().join("npm-cache");
                cmd.env("OPENCODE_DISABLE_MODELS_FETCH", "1")
                    .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
                    .env("npm_config_cache", cache)
                    .env("npm_config_prefer_offline", "true")
                    .args(["run", "--format", "json", prompt])
                    .args(extra);
            }
            Kind::Pi => {
                // (`--keep-session`, the tests' own word: Pi saves the session where
                // a user's would be, ~/.pi/agent/sessions, for discover to read)
                let keep = extra.contains(&"--keep-session");
                cmd.env("PI_OFFLINE", "1")
                    .env("PI_SKIP_VERSION_CHECK", "1")
                    .env("PI_TELEMETRY", "0")
                    .env_remove("PI_CODING_AGENT_DIR")
                    .env_remove("PI_CODING_AGENT_SESSION_DIR")
                    .args(extra.iter().filter(|a| **a != "--keep-session"))
                    .args(["--model", "mock/m"])
                    .args(if keep { &[][..] } else { &["--no-session"][..] })
                    .args(["-p", prompt]);
            }
            Kind::Copilot => {
                cmd.env("COPILOT_OFFLINE", "true")
                    .env("COPILOT_PROVIDER_BASE_URL", format!("{}/v1", server.url()))
                    .env("COPILOT_PROVIDER_API_KEY", "k")
                    .env("COPILOT_MODEL", "m")
                    .env("COPILOT_AUTO_UPDATE", "false")
                    .env("COPILOT_CACHE_HOME", agents_dir().join("copilot-cache"))
                    .env_remove("COPILOT_HOME")
                    .env_remove("COPILOT_ALLOW_ALL")
                    .env_remove("COPILOT_GITHUB_TOKEN")
                    .env_remove("GH_TOKEN")
                    .env_remove("GITHUB_TOKEN")
                    .args(["-p", prompt]);
                // every tool approved unless the test names its own allow list
                if !extra.iter().any(|a| a.starts_with("--allow-tool")) {
                    cmd.args(["--allow-all-tools", "--allow-all-paths"]);
                }
                cmd.args(extra);
            }
            Kind::QwenCode => {
                cmd.env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
                    .env("OPENAI_API_KEY", "k")
                    .env("OPENAI_MODEL", "m")
                    .env("QWEN_CODE_SUPPRESS_YOLO_WARNING", "1")
                    .args(["-p", prompt, "--auth-type", "openai"]);
                // --yolo unless the test names its own approval mode
                if !extra.iter().any(|a| a.starts_with("--approval-mode")) {
                    cmd.arg("--yolo");
                }
                cmd.args(extra);
            }
            // `--auto` approves what would ask; the config's deny rules still hold
            Kind::Kilo => {
                cmd.env("KILO_DISABLE_MODELS_FETCH", "1")
                    .env("KILO_DISABLE_AUTOUPDATE", "1")
                    .env("KILO_DISABLE_LSP_DOWNLOAD", "1")
                    .args(["run", "--auto", "--format", "json", prompt])
                    .args(extra);
            }
        }
        let start = Instant::now();
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("start {}: {e}", bin.display()));
        // drain both pipes while the agent runs (Codex prints the command's whole output
        // to stderr: a full pipe would block it at exit)
        let drain = |pipe: Option<Box<dyn Read + Send>>| {
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                if let Some(mut p) = pipe {
                    let _ = p.read_to_end(&mut buf);
                }
                String::from_utf8_lossy(&buf).into_owned()
            })
        };
        let out_reader = drain(
            child
                .stdout
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        );
        let err_reader = drain(
            child
                .stderr
                .take()
                .map(|p| Box::new(p) as Box<dyn Read + Send>),
        );
        // TOOLCAP_E2E_AGENT_TIMEOUT: seconds one agent run may take (default 600)
        let limit = Duration::from_secs(
            std::env::var("TOOLCAP_E2E_AGENT_TIMEOUT")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(600),
        );
        let mut timed_out = false;
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait for the agent") {
                break Some(status);
            }
            if start.elapsed() > limit {
                let _ = child.kill();
                let _ = child.wait();
                timed_out = true;
                break None;
            }
            std::thread::sleep(Duration::from_millis(100));
        };
        let stdout = out_reader.join().unwrap_or_default();
        let stderr = err_reader.join().unwrap_or_default();
        AgentRun {
            success: status.is_some_and(|s| s.success()),
            timed_out,
            stdout,
            stderr,
            seconds: start.elapsed().as_secs_f64(),
        }
    }
}

pub struct AgentRun {
    pub success: bool,
    pub timed_out: bool,
    pub stdout: String,
    pub stderr: String,
    pub seconds: f64,
}

impl AgentRun {
    /// opencode (`run --format json`): the exit status its bash tool recorded for
    /// tool call `call_id` (opencode keeps it out of the model's text).
    pub fn opencode_exit(&self, call_id: &str) -> Option<i64> {
        self.stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .find(|e| e["type"] == "tool_use" && e["part"]["callID"] == call_id)
            .and_then(|e| e["part"]["state"]["metadata"]["exit"].as_i64())
    }

    /// For a failure message: the ends of the agent's output.
    pub fn describe(&self) -> String {
        let tail = |s: &str| {
            let chars: Vec<char> = s.chars().collect();
            chars[chars.len().saturating_sub(3000)..]
                .iter()
                .collect::<String>()
        };
        format!(
            "agent success={} timed_out={} after {:.1}s\n--- stdout (end) ---\n{}\n--- stderr (end) ---\n{}",
            self.success,
            self.timed_out,
            self.seconds,
            tail(&self.stdout),
            tail(&self.stderr)
        )
    }
}
