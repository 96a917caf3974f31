//! Thresholds and tool mapping: load, merge (compiled defaults < user file < env), validate.
//!
//! The defaults live in `thresholds.toml` (this crate's; the repository root links to it)
//! and are compiled in.
//! A user file is parsed with the same schema (every key optional, unknown keys are
//! errors) and merged over them key by key; `TOOL_RESULT_BYPASS_TOOLS` adds bypassed
//! tools last. Validation happens once, in [`Config::from_sources`], and every error
//! names the file, the key and the fix.
//!
//! A crate of toolcap's workspace (the floor above `toolcap-text`); the
//! `toolcap` crate re-exports its public items as `toolcap::config`.

#![warn(missing_docs)]

mod budget;
// generated from thresholds.toml (compiled_gen.rs writes it as rustfmt leaves it)
#[rustfmt::skip]
mod compiled;
#[cfg(test)]
mod compiled_gen;
mod error;
mod glob;
mod merge;
mod parse;
pub mod presets;
pub mod recovery_tools;
mod store;
mod suggest;
#[cfg(test)]
mod tests;
mod validate;

pub use budget::{
    BudgetConfig, BudgetReport, BudgetSource, Budgeted, ContextWindow, MIN_FLOOR, ModelWindow,
};
pub use error::{ConfigError, ConfigErrorKind};
pub use glob::glob_match;
use glob::is_glob;
use merge::Merged;
use merge::merge_layer;
use parse::{KeyLines, Layer, parse_layer};
pub use store::{DEFAULT_EXPIRE_EVERY, StoreConfig, parse_size};
pub use suggest::{
    FetchTool, GlobTool, GrepTool, ReadTool, RecoveryCalls, SearchTool, ShellTool, Suggest,
};
use validate::finish;

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

// the floor below, under the paths these modules used in the one crate
use toolcap_text::{measure, text};

/// A name of a `names` list that applies to a call only when one of its
/// arguments has one value, written `TOOL KEY=VALUE` (`"str_replace_editor
/// command=view"`: SWE-agent's and OpenHands' editor is a file viewer only for
/// its `view` sub-command): the tool, the key and the value. Tool names hold no
/// spaces (the model APIs allow letters, digits, `_` and `-`), so a name with
/// one is such a condition. `None` for a plain name or pattern.
pub fn conditional_name(name: &str) -> Option<(&str, &str, &str)> {
    let (tool, cond) = name.trim().split_once(char::is_whitespace)?;
    let (key, value) = cond.trim().split_once('=')?;
    let (key, value) = (key.trim(), value.trim());
    (!tool.is_empty() && !key.is_empty() && !value.is_empty() && !is_glob(tool))
        .then_some((tool, key, value))
}

pub use crate::measure::Encoding;

/// The compiled-in defaults (`thresholds.toml`).
pub const DEFAULT_TOML: &str = include_str!("../thresholds.toml");

/// The FNV-1a hash of [`DEFAULT_TOML`]: the compiled table (`compiled.rs`) is
/// used only while it was generated from this text.
const DEFAULT_HASH: u64 = fnv1a(DEFAULT_TOML.as_bytes());

/// 64-bit FNV-1a of `bytes`, at compile time.
const fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        h ^= bytes[i] as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
        i += 1;
    }
    h
}

/// Name used for the compiled-in defaults in messages and `toolcap config`.
pub const DEFAULTS_ORIGIN: &str = "built-in thresholds.toml";

/// How the built-in threshold of the `[tools.KEY]` entry was chosen: the
/// `# chosen: ...` comment (and its `#   ...` continuation lines) written
/// above its `threshold` in `thresholds.toml`, the figures of the next-use
/// benchmark's sweep (`benches/nextuse/thresholds.py`), joined into one line.
/// `None` for a key the built-in file has no such comment for.
pub fn threshold_basis(key: &str) -> Option<String> {
    let header = format!("[tools.{key}]");
    let mut inside = false;
    let mut parts: Vec<&str> = Vec::new();
    for line in DEFAULT_TOML.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            if inside {
                break;
            }
            inside = t == header;
            continue;
        }
        if !inside {
            continue;
        }
        if let Some(rest) = t.strip_prefix("# chosen: ") {
            parts = vec![rest.trim()];
        } else if let Some(rest) = t.strip_prefix("#   ").filter(|_| !parts.is_empty()) {
            parts.push(rest.trim());
        } else if !parts.is_empty() {
            break;
        }
    }
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// Environment variable holding extra bypassed tool names, comma-separated.
pub const BYPASS_ENV: &str = "TOOL_RESULT_BYPASS_TOOLS";

/// Environment variable naming a user config file (used when `--config` is absent).
pub const CONFIG_ENV: &str = "TOOLCAP_CONFIG";

/// Tool family: decides which part of a result is kept and which recovery hints are built.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Default,
    serde::Serialize,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::Display,
    strum::VariantArray,
    strum::EnumCount,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Family {
    /// A file's content (`read_file`, `Read`, `view`...): the head is kept.
    ReadFile,
    /// Search results (`grep_content`, `Grep`, `rg`...): matches by file.
    Grep,
    /// A command's output (`shell`, `bash`...): head, tail and error lines.
    Shell,
    /// Web search results: titles, URLs, snippets.
    WebSearch,
    /// A fetched web page (HTML or markdown).
    WebFetch,
    /// File listings (`glob`, `find`...).
    Glob,
    /// Any other tool (MCP tools included). The default: a harness's own
    /// family's entry is of this one (no built-in rule applies to it).
    #[default]
    Generic,
}

impl Family {
    /// Every family, in declaration order.
    pub const ALL: [Family; <Family as strum::EnumCount>::COUNT] =
        toolcap_text::all_variants(<Family as strum::VariantArray>::VARIANTS);

    /// The family's name as in `thresholds.toml` and the `--json` report.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The family named `s` (`read_file`, `grep`, ...), if any.
    pub fn parse(s: &str) -> Option<Family> {
        s.parse().ok()
    }
}

/// Which part of an oversized result is kept.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, strum::IntoStaticStr, strum::EnumString,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
pub enum Shape {
    /// The first lines.
    Head,
    /// The last lines.
    Tail,
    /// Some first lines, most of the budget on the last lines, and error-looking
    /// lines from the omitted middle where the budget allows.
    HeadTail,
}

impl Shape {
    /// The shape's name as in `thresholds.toml` (`head`, `tail`, `head_tail`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The shape named `s`, if any.
    pub fn parse(s: &str) -> Option<Shape> {
        s.parse().ok()
    }
}

/// Argument roles: which of a tool's argument keys carry what.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct ArgKeys {
    /// Keys holding a file or directory path (`path`, `file_path`, ...).
    pub path: Vec<String>,
    /// Keys holding a search pattern or regex.
    pub pattern: Vec<String>,
    /// Keys holding a shell command.
    pub command: Vec<String>,
    /// Keys holding a search query.
    pub query: Vec<String>,
    /// Keys holding a URL.
    pub url: Vec<String>,
    /// Keys holding a command's exit code.
    pub exit_code: Vec<String>,
}

/// One `[tools.NAME]` entry, validated.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ToolEntry {
    /// The entry's key in `[tools.KEY]`.
    pub key: String,
    /// The family deciding what is kept and which hints are built.
    pub family: Family,
    /// Tool names (globs allowed) this entry covers.
    pub names: Vec<String>,
    /// Results longer than this many characters are cut.
    pub threshold: usize,
    /// Which part of an oversized result is kept.
    pub shape: Shape,
    /// Which argument keys carry what, for the hints.
    pub args: ArgKeys,
    /// What `threshold` and `max_kept` count: characters or tokens.
    pub unit: Unit,
    /// How much of the original is kept when a result is cut, in `unit`.
    pub max_kept: usize,
    /// Remove terminal noise (ANSI escapes, `\r` overwrites, repeated lines) before
    /// measuring and cutting.
    pub clean: bool,
    /// Cut a result that parses as JSON into smaller valid JSON instead of lines.
    pub json: bool,
}

/// What a tool's sizes count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    /// Unicode scalar values (what Python's `len()` counts).
    Chars,
    /// Tokens of a tiktoken encoding.
    Tokens(Encoding),
}

impl Unit {
    /// `chars` or `tokens`, as in the `--json` report's `unit`.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Chars => "chars",
            Unit::Tokens(_) => "tokens",
        }
    }
}

/// Where an effective setting came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// The compiled-in `thresholds.toml`.
    Default,
    /// A user config file.
    File(PathBuf),
    /// An environment variable.
    Env(&'static str),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::File(p) => write!(f, "file {}", p.display()),
            Source::Env(v) => write!(f, "env {v}"),
        }
    }
}

/// The effective, validated configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// Characters of the original kept when a result is cut (default 2000).
    pub max_kept_chars: usize,
    /// Tokens kept when a tool counts in tokens and sets no `max_kept` (default 500).
    pub max_kept_tokens: usize,
    /// Tool names whose results pass through unchanged.
    pub bypass: Vec<String>,
    /// Tool entries in matching order (user entries first).
    pub tools: Vec<ToolEntry>,
    /// The harness's own tools that suggestions call.
    pub suggest: Suggest,
    /// How long and how much a result store keeps (`[store]`).
    pub store: StoreConfig,
    /// Where each setting came from, by dotted key (`tools.shell.threshold`).
    pub sources: BTreeMap<String, Source>,
    /// Budgets that follow the model's context (`[budget]`).
    pub budget: BudgetConfig,
}

impl Config {
    /// The compiled-in defaults alone (no user file, no environment).
    pub fn defaults() -> Config {
        match Config::from_sources(None, None) {
            Ok(c) => c,
            // The defaults are validated by a unit test; reaching this is a build defect.
            Err(e) => panic!("the built-in thresholds.toml is invalid: {e}"),
        }
    }

    /// Defaults, merged with the user file at `path` (if any).
    pub fn from_file(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            origin: path.display().to_string(),
            key: "(file)".to_string(),
            problem: format!("cannot read the config file: {e}"),
            fix: "pass an existing, readable TOML file with --config (or TOOLCAP_CONFIG)"
                .to_string(),
            kind: ConfigErrorKind::Unreadable,
            source: Some(std::sync::Arc::new(e)),
            line: None,
        })?;
        Config::from_sources(Some((&text, path)), None)
    }

    /// What the CLI uses: defaults < user file (`path`, else `$TOOLCAP_CONFIG`) < env
    /// (`$TOOL_RESULT_BYPASS_TOOLS`).
    pub fn load(path: Option<&Path>) -> Result<Config, ConfigError> {
        let env_path = std::env::var_os(CONFIG_ENV)
            .filter(|p| !p.is_empty())
            .map(PathBuf::from);
        let path = path.map(Path::to_path_buf).or(env_path);
        let text = match &path {
            Some(p) => Some(std::fs::read_to_string(p).map_err(|e| ConfigError {
                origin: p.display().to_string(),
                key: "(file)".to_string(),
                problem: format!("cannot read the config file: {e}"),
                fix: format!(
                    "pass an existing, readable TOML file with --config (or {CONFIG_ENV})"
                ),
                kind: ConfigErrorKind::Unreadable,
                source: Some(std::sync::Arc::new(e)),
                line: None,
            })?),
            None => None,
        };
        let bypass_env = std::env::var_os(BYPASS_ENV).map(|raw| {
            use std::io::Write;
            let (names, bad) = bypass_names(&raw);
            for b in bad {
                let _ = writeln!(
                    std::io::stderr(),
                    "toolcap: {BYPASS_ENV}: the name {b} is not valid UTF-8 and is skipped; the other names are used"
                );
            }
            names
        });
        let user = match (&text, &path) {
            (Some(t), Some(p)) => Some((t.as_str(), p.as_path())),
            _ => None,
        };
        Config::from_sources(user, bypass_env.as_deref())
    }

    /// Merge the defaults with an optional user file (text + its path, for messages)
    /// and an optional `TOOL_RESULT_BYPASS_TOOLS` value; validate the result.
    pub fn from_sources(
        user: Option<(&str, &Path)>,
        bypass_env: Option<&str>,
    ) -> Result<Config, ConfigError> {
        // the built-in file alone: its table, compiled in (no TOML parsed)
        if user.is_none() && bypass_env.is_none() && compiled::SOURCE_HASH == DEFAULT_HASH {
            return Ok(compiled::config());
        }
        Config::parse_sources(user, bypass_env)
    }

    /// [`Self::from_sources`], the built-in file parsed too.
    fn parse_sources(
        user: Option<(&str, &Path)>,
        bypass_env: Option<&str>,
    ) -> Result<Config, ConfigError> {
        let mut layers = vec![parse_layer(DEFAULT_TOML, DEFAULTS_ORIGIN, Source::Default)?];
        if let Some((text, path)) = user {
            layers.push(parse_layer(
                text,
                &path.display().to_string(),
                Source::File(path.to_path_buf()),
            )?);
        }
        // where each file's keys are, for the errors of merging and validating
        let lines: Vec<(String, KeyLines)> = layers
            .iter()
            .map(|l| (l.origin.clone(), l.lines.clone()))
            .collect();
        Config::merged(layers, bypass_env).map_err(|e| e.located(&lines))
    }

    /// The layers merged in order, the environment's bypass added, validated.
    fn merged(layers: Vec<Layer>, bypass_env: Option<&str>) -> Result<Config, ConfigError> {
        let mut m = Merged::default();
        for layer in layers {
            merge_layer(&mut m, layer)?;
        }
        if let Some(env) = bypass_env {
            let mut added = false;
            for name in env.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                if !m.bypass.iter().any(|b| b == name) {
                    m.bypass.push(name.to_string());
                    added = true;
                }
            }
            if added {
                m.sources
                    .insert("bypass".to_string(), Source::Env(BYPASS_ENV));
            }
        }
        // The recovery tools pass through whatever `bypass` a file sets (paging
        // through a stored result must never cut it again), unless a file lists
        // them under `never_bypass`; a tool there is never bypassed.
        for name in recovery_tools::RECOVERY_TOOLS {
            if !m.bypass.iter().any(|b| b == name) {
                m.bypass.push(name.to_string());
            }
        }
        let never = std::mem::take(&mut m.never_bypass);
        m.bypass.retain(|b| !never.contains(b));
        finish(m)
    }

    /// The entry for a call of `tool` with `args`: an entry naming the tool
    /// with a condition on an argument that the call meets (`"str_replace_editor
    /// command=view"`: the tool's `view` sub-command; see [`conditional_name`]),
    /// else [`Self::entry_for`] the name alone.
    pub fn entry_for_call(&self, tool: &str, args: &serde_json::Value) -> &ToolEntry {
        let meets = |n: &str| {
            conditional_name(n).is_some_and(|(t, key, value)| {
                t == tool
                    && args
                        .get(key)
                        .and_then(serde_json::Value::as_str)
                        .is_some_and(|v| v == value)
            })
        };
        self.tools
            .iter()
            .find(|t| t.names.iter().any(|n| meets(n)))
            .unwrap_or_else(|| self.entry_for(tool))
    }

    /// The entry for a tool name: exact names first (user entries before defaults),
    /// then glob patterns in order, else the generic entry. A name with a
    /// condition on an argument ([`conditional_name`]) is never matched here.
    pub fn entry_for(&self, tool: &str) -> &ToolEntry {
        let exact = self.tools.iter().find(|t| {
            t.names
                .iter()
                .any(|n| !is_glob(n) && n == tool && conditional_name(n).is_none())
        });
        let glob = || {
            self.tools.iter().find(|t| {
                t.names
                    .iter()
                    .any(|n| is_glob(n) && conditional_name(n).is_none() && glob_match(n, tool))
            })
        };
        exact.or_else(glob).unwrap_or_else(|| self.generic_entry())
    }

    fn generic_entry(&self) -> &ToolEntry {
        // `finish` guarantees a `generic` entry exists.
        self.tools
            .iter()
            .find(|t| t.key == "generic")
            .unwrap_or(&self.tools[self.tools.len() - 1])
    }

    /// Whether results of `tool` pass through unchanged.
    pub fn is_bypassed(&self, tool: &str) -> bool {
        self.bypass.iter().any(|b| {
            if is_glob(b) {
                glob_match(b, tool)
            } else {
                b == tool
            }
        })
    }

    /// The effective settings, one `key = value  # source` line each, as TOML.
    pub fn describe(&self) -> String {
        let src = |k: &str| {
            self.sources
                .get(k)
                .map_or_else(|| "default".to_string(), ToString::to_string)
        };
        let q = |s: &str| toml::Value::String(s.to_string()).to_string();
        let list = |v: &[String]| {
            let items: Vec<String> = v.iter().map(|s| q(s)).collect();
            format!("[{}]", items.join(", "))
        };
        let mut out = String::new();
        out.push_str(&format!(
            "max_kept_chars = {}  # {}\n",
            self.max_kept_chars,
            src("max_kept_chars")
        ));
        out.push_str(&format!(
            "max_kept_tokens = {}  # {}\n",
            self.max_kept_tokens,
            src("max_kept_tokens")
        ));
        out.push_str(&format!(
            "bypass = {}  # {}\n",
            list(&self.bypass),
            src("bypass")
        ));
        for t in &self.tools {
            let k = format!("tools.{}", t.key);
            out.push_str(&format!("\n[{k}]\n"));
            out.push_str(&format!(
                "family = {}  # {}\n",
                q(t.family.as_str()),
                src(&format!("{k}.family"))
            ));
            out.push_str(&format!(
                "names = {}  # {}\n",
                list(&t.names),
                src(&format!("{k}.names"))
            ));
            let threshold_src = src(&format!("{k}.threshold"));
            out.push_str(&format!("threshold = {}  # {threshold_src}\n", t.threshold));
            if threshold_src == "default"
                && let Some(basis) = threshold_basis(&t.key)
            {
                out.push_str(&format!("# chosen: {basis}\n"));
            }
            out.push_str(&format!(
                "shape = {}  # {}\n",
                q(t.shape.as_str()),
                src(&format!("{k}.shape"))
            ));
            match t.unit {
                Unit::Chars => out.push_str(&format!(
                    "unit = \"chars\"  # {}\n",
                    src(&format!("{k}.unit"))
                )),
                Unit::Tokens(e) => out.push_str(&format!(
                    "unit = \"tokens\"  # {}\nencoding = {}  # {}\n",
                    src(&format!("{k}.unit")),
                    q(e.as_str()),
                    src(&format!("{k}.unit"))
                )),
            }
            out.push_str(&format!(
                "max_kept = {}  # {}\n",
                t.max_kept,
                src(&format!("{k}.max_kept"))
            ));
            out.push_str(&format!(
                "clean = {}  # {}\n",
                t.clean,
                src(&format!("{k}.clean"))
            ));
            out.push_str(&format!(
                "json = {}  # {}\n",
                t.json,
                src(&format!("{k}.json"))
            ));
            for (role, keys) in t.args.roles() {
                if !keys.is_empty() {
                    out.push_str(&format!(
                        "args.{role} = {}  # {}\n",
                        list(keys),
                        src(&format!("{k}.args.{role}"))
                    ));
                }
            }
        }
        out.push('\n');
        out.push_str(&format!(
            "[suggest]\npreset = {}  # {}\n",
            q(&self.suggest.preset),
            src("suggest.preset")
        ));
        for (tool, fields) in self.suggest.fields() {
            out.push_str(&format!("[suggest.{tool}]\n"));
            for (field, value) in fields {
                out.push_str(&format!(
                    "{field} = {}  # {}\n",
                    q(value),
                    src(&format!("suggest.{tool}.{field}"))
                ));
            }
            if tool == "shell" && self.suggest.shell.argv {
                out.push_str(&format!("argv = true  # {}\n", src("suggest.shell.argv")));
            }
            let args = match tool {
                "grep" => Some(&self.suggest.grep.args),
                "web_fetch" => Some(&self.suggest.web_fetch.args),
                _ => None,
            };
            if let Some(a) = args.filter(|a| !a.is_empty()) {
                let items: Vec<String> = a
                    .iter()
                    .map(|(k, v)| {
                        let key = if k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                            k.clone()
                        } else {
                            q(k)
                        };
                        format!("{key} = {v}")
                    })
                    .collect();
                out.push_str(&format!(
                    "args = {{ {} }}  # {}\n",
                    items.join(", "),
                    src(&format!("suggest.{tool}.args"))
                ));
            }
        }
        out.push_str(&self.store.describe(&src));
        out.push('\n');
        out.push_str(&self.budget.describe(&src));
        out
    }
}

impl Default for Config {
    fn default() -> Self {
        Config::defaults()
    }
}

impl ArgKeys {
    /// (role, keys) pairs in a fixed order.
    pub fn roles(&self) -> [(&'static str, &Vec<String>); 6] {
        [
            ("path", &self.path),
            ("pattern", &self.pattern),
            ("command", &self.command),
            ("query", &self.query),
            ("url", &self.url),
            ("exit_code", &self.exit_code),
        ]
    }
}

/// The comma-separated names of a `TOOL_RESULT_BYPASS_TOOLS` value, as one string
/// of the names that are valid UTF-8, and the others (shown lossily, quoted) to
/// warn about: one bad byte costs its own name, not the whole variable.
pub(crate) fn bypass_names(raw: &std::ffi::OsStr) -> (String, Vec<String>) {
    if let Some(s) = raw.to_str() {
        return (s.to_string(), Vec::new());
    }
    let bytes = raw.as_encoded_bytes();
    let (mut good, mut bad) = (Vec::new(), Vec::new());
    for part in bytes.split(|&b| b == b',') {
        match std::str::from_utf8(part) {
            Ok(name) => good.push(name),
            Err(_) => bad.push(format!("{:?}", String::from_utf8_lossy(part).trim())),
        }
    }
    (good.join(","), bad)
}
