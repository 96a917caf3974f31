//! Thresholds and tool mapping: load, merge (compiled defaults < user file < env), validate.
//!
//! The defaults live in `thresholds.toml` at the repository root and are compiled in.
//! A user file is parsed with the same schema (every key optional, unknown keys are
//! errors) and merged over them key by key; `TOOL_RESULT_BYPASS_TOOLS` adds bypassed
//! tools last. Validation happens once, in [`Config::from_sources`], and every error
//! names the file, the key and the fix.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::measure::Encoding;

/// The compiled-in defaults (`thresholds.toml`).
pub const DEFAULT_TOML: &str = include_str!("../thresholds.toml");

/// Name used for the compiled-in defaults in messages and `toolcap config`.
pub const DEFAULTS_ORIGIN: &str = "built-in thresholds.toml";

/// Environment variable holding extra bypassed tool names, comma-separated.
pub const BYPASS_ENV: &str = "TOOL_RESULT_BYPASS_TOOLS";

/// Environment variable naming a user config file (used when `--config` is absent).
pub const CONFIG_ENV: &str = "TOOLCAP_CONFIG";

/// Tool family: decides which part of a result is kept and which recovery hints are built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    ReadFile,
    Grep,
    Shell,
    WebSearch,
    WebFetch,
    Glob,
    Generic,
}

impl Family {
    pub const ALL: [Family; 7] = [
        Family::ReadFile,
        Family::Grep,
        Family::Shell,
        Family::WebSearch,
        Family::WebFetch,
        Family::Glob,
        Family::Generic,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Family::ReadFile => "read_file",
            Family::Grep => "grep",
            Family::Shell => "shell",
            Family::WebSearch => "web_search",
            Family::WebFetch => "web_fetch",
            Family::Glob => "glob",
            Family::Generic => "generic",
        }
    }

    pub fn parse(s: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.as_str() == s)
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Which part of an oversized result is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
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
    pub fn as_str(self) -> &'static str {
        match self {
            Shape::Head => "head",
            Shape::Tail => "tail",
            Shape::HeadTail => "head_tail",
        }
    }

    pub fn parse(s: &str) -> Option<Shape> {
        match s {
            "head" => Some(Shape::Head),
            "tail" => Some(Shape::Tail),
            "head_tail" => Some(Shape::HeadTail),
            _ => None,
        }
    }
}

/// Argument roles: which of a tool's argument keys carry what.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct ArgKeys {
    pub path: Vec<String>,
    pub pattern: Vec<String>,
    pub command: Vec<String>,
    pub query: Vec<String>,
    pub url: Vec<String>,
    pub exit_code: Vec<String>,
}

/// One `[tools.NAME]` entry, validated.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ToolEntry {
    /// The entry's key in `[tools.KEY]`.
    pub key: String,
    pub family: Family,
    pub names: Vec<String>,
    /// Results longer than this many characters are cut.
    pub threshold: usize,
    pub shape: Shape,
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
    Chars,
    Tokens(Encoding),
}

impl Unit {
    pub fn name(self) -> &'static str {
        match self {
            Unit::Chars => "chars",
            Unit::Tokens(_) => "tokens",
        }
    }
}

/// The harness's own tools that suggestions call, with their argument names.
/// An empty `tool` means "no such tool": suggestions fall back to the shell tool.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Suggest {
    pub shell: ShellTool,
    pub grep: GrepTool,
    pub web_search: SearchTool,
    pub web_fetch: FetchTool,
    pub glob: GlobTool,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ShellTool {
    pub tool: String,
    pub command: String,
}
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GrepTool {
    pub tool: String,
    pub pattern: String,
    pub path: String,
}
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SearchTool {
    pub tool: String,
    pub query: String,
}
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FetchTool {
    pub tool: String,
    pub url: String,
    pub save_to: String,
}
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GlobTool {
    pub tool: String,
    pub pattern: String,
    pub path: String,
}

/// Where an effective setting came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Default,
    File(PathBuf),
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
    pub suggest: Suggest,
    /// Where each setting came from, by dotted key (`tools.shell.threshold`).
    pub sources: BTreeMap<String, Source>,
}

/// A configuration error: which file, which key, what is wrong, and the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: {key}: {problem}\n  fix: {fix}")]
pub struct ConfigError {
    /// The file (or environment variable) the bad value came from.
    pub origin: String,
    /// Dotted key path, or `(file)` for errors about the file as a whole.
    pub key: String,
    pub problem: String,
    pub fix: String,
}

// ---------------------------------------------------------------------------
// Raw (file) schema: every key optional, unknown keys rejected.

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTop {
    max_kept_chars: Option<i64>,
    max_kept_tokens: Option<i64>,
    bypass: Option<Vec<String>>,
    suggest: Option<RawSuggest>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTool {
    family: Option<String>,
    names: Option<Vec<String>>,
    threshold: Option<i64>,
    shape: Option<String>,
    args: Option<RawArgs>,
    unit: Option<String>,
    encoding: Option<String>,
    max_kept: Option<i64>,
    clean: Option<bool>,
    json: Option<bool>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawArgs {
    path: Option<Vec<String>>,
    pattern: Option<Vec<String>>,
    command: Option<Vec<String>>,
    query: Option<Vec<String>>,
    url: Option<Vec<String>>,
    exit_code: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSuggest {
    shell: Option<RawShellTool>,
    grep: Option<RawGrepTool>,
    web_search: Option<RawSearchTool>,
    web_fetch: Option<RawFetchTool>,
    glob: Option<RawGlobTool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawShellTool {
    tool: Option<String>,
    command: Option<String>,
}
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGrepTool {
    tool: Option<String>,
    pattern: Option<String>,
    path: Option<String>,
}
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSearchTool {
    tool: Option<String>,
    query: Option<String>,
}
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFetchTool {
    tool: Option<String>,
    url: Option<String>,
    save_to: Option<String>,
}
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGlobTool {
    tool: Option<String>,
    pattern: Option<String>,
    path: Option<String>,
}

/// One parsed layer (defaults or a user file) with its origin.
struct Layer {
    origin: String,
    source: Source,
    top: RawTop,
    /// `[tools.*]` entries in file order.
    tools: Vec<(String, RawTool)>,
}

fn parse_layer(text: &str, origin: &str, source: Source) -> Result<Layer, ConfigError> {
    let table: toml::Table = toml::from_str(text).map_err(|e| ConfigError {
        origin: origin.to_string(),
        key: "(file)".to_string(),
        problem: format!("not valid TOML: {}", e.to_string().trim_end()),
        fix: "correct the TOML syntax at the position shown".to_string(),
    })?;
    let mut tools_table = None;
    let mut rest = toml::Table::new();
    for (k, v) in table {
        if k == "tools" {
            tools_table = Some(v);
        } else {
            rest.insert(k, v);
        }
    }
    let top: RawTop = RawTop::deserialize(rest.clone())
        .map_err(|e| with_culprit(schema_error(origin, "", &e), "", culprit::<RawTop>(&rest)))?;
    let mut tools = Vec::new();
    if let Some(t) = tools_table {
        let toml::Value::Table(t) = t else {
            return Err(ConfigError {
                origin: origin.to_string(),
                key: "tools".to_string(),
                problem: "must be a table of [tools.NAME] entries".to_string(),
                fix: "write each tool as a [tools.NAME] section".to_string(),
            });
        };
        for (name, v) in t {
            let key = format!("tools.{name}");
            if !v.is_table() {
                return Err(ConfigError {
                    origin: origin.to_string(),
                    key,
                    problem: "must be a table".to_string(),
                    fix: format!("write it as a [tools.{name}] section"),
                });
            }
            let raw = RawTool::deserialize(v.clone()).map_err(|e| {
                let c = v.as_table().and_then(culprit::<RawTool>);
                with_culprit(schema_error(origin, &key, &e), &key, c)
            })?;
            tools.push((name, raw));
        }
    }
    Ok(Layer {
        origin: origin.to_string(),
        source,
        top,
        tools,
    })
}

/// Turn a serde error from a section into a ConfigError naming the key.
/// The key of `table` whose value alone fails to deserialize as `T` (serde's
/// type errors do not say which key they are about).
fn culprit<T: serde::de::DeserializeOwned>(table: &toml::Table) -> Option<String> {
    table.iter().find_map(|(k, v)| {
        let mut one = toml::Table::new();
        one.insert(k.clone(), v.clone());
        T::deserialize(one).is_err().then(|| k.clone())
    })
}

/// Name the culprit key in an error that could only name its section.
fn with_culprit(mut e: ConfigError, section: &str, culprit: Option<String>) -> ConfigError {
    if let Some(k) = culprit
        && (e.key == "(file)" || e.key == section)
    {
        e.key = if section.is_empty() {
            k
        } else {
            format!("{section}.{k}")
        };
    }
    e
}

fn schema_error(origin: &str, section: &str, e: &toml::de::Error) -> ConfigError {
    let msg = e.message().trim_end().to_string();
    // serde's messages name the field in backticks: "unknown field `x`, expected ..."
    let field = msg
        .split('`')
        .nth(1)
        .filter(|_| msg.starts_with("unknown field") || msg.starts_with("invalid type"))
        .map(str::to_string);
    let key = match (&field, section.is_empty()) {
        (Some(f), true) if msg.starts_with("unknown field") => f.clone(),
        (Some(f), false) if msg.starts_with("unknown field") => format!("{section}.{f}"),
        (_, true) => "(file)".to_string(),
        (_, false) => section.to_string(),
    };
    let fix = if msg.starts_with("unknown field") {
        "remove or rename this key (the valid keys are listed in the message; `toolcap config` shows the effective settings)".to_string()
    } else {
        "give the value the type shown in thresholds.toml".to_string()
    };
    ConfigError {
        origin: origin.to_string(),
        key,
        problem: msg,
        fix,
    }
}

fn positive(v: i64, origin: &str, key: &str) -> Result<usize, ConfigError> {
    if v <= 0 {
        return Err(ConfigError {
            origin: origin.to_string(),
            key: key.to_string(),
            problem: format!("must be a positive number of characters, got {v}"),
            fix: "set it to a whole number greater than 0".to_string(),
        });
    }
    usize::try_from(v).map_err(|_| ConfigError {
        origin: origin.to_string(),
        key: key.to_string(),
        problem: format!("{v} is too large"),
        fix: "use a smaller number".to_string(),
    })
}

/// Builder state while merging layers.
#[derive(Default)]
struct Merged {
    max_kept_chars: Option<(usize, Source)>,
    max_kept_tokens: Option<usize>,
    bypass: Vec<String>,
    /// (key, family, names, threshold, shape, args) with per-field sources
    tools: Vec<MergedTool>,
    sources: BTreeMap<String, Source>,
    suggest: BTreeMap<String, String>,
}

struct MergedTool {
    key: String,
    /// Where the entry first appeared (the file that named a new tool).
    created_by: String,
    family: Option<(Family, String)>, // family + origin (for errors)
    names: Vec<String>,
    threshold: Option<(usize, String)>,
    shape: Option<Shape>,
    args: ArgKeys,
    unit: Option<Unit>,
    max_kept: Option<usize>,
    clean: Option<bool>,
    json: Option<bool>,
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
            })?),
            None => None,
        };
        let bypass_env = std::env::var(BYPASS_ENV).ok();
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
        let mut layers = vec![parse_layer(DEFAULT_TOML, DEFAULTS_ORIGIN, Source::Default)?];
        if let Some((text, path)) = user {
            layers.push(parse_layer(
                text,
                &path.display().to_string(),
                Source::File(path.to_path_buf()),
            )?);
        }
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
        finish(m)
    }

    /// The entry for a tool name: exact names first (user entries before defaults),
    /// then glob patterns in order, else the generic entry.
    pub fn entry_for(&self, tool: &str) -> &ToolEntry {
        let exact = self
            .tools
            .iter()
            .find(|t| t.names.iter().any(|n| !is_glob(n) && n == tool));
        let glob = || {
            self.tools
                .iter()
                .find(|t| t.names.iter().any(|n| is_glob(n) && glob_match(n, tool)))
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
                .map(ToString::to_string)
                .unwrap_or_else(|| "default".to_string())
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
            out.push_str(&format!(
                "threshold = {}  # {}\n",
                t.threshold,
                src(&format!("{k}.threshold"))
            ));
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
        for (tool, fields) in self.suggest.fields() {
            out.push_str(&format!("[suggest.{tool}]\n"));
            for (field, value) in fields {
                out.push_str(&format!(
                    "{field} = {}  # {}\n",
                    q(value),
                    src(&format!("suggest.{tool}.{field}"))
                ));
            }
        }
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

impl Suggest {
    /// (tool, [(field, value)]) for display.
    pub fn fields(&self) -> Vec<(&'static str, Vec<(&'static str, &str)>)> {
        vec![
            (
                "shell",
                vec![
                    ("tool", &*self.shell.tool),
                    ("command", &*self.shell.command),
                ],
            ),
            (
                "grep",
                vec![
                    ("tool", &*self.grep.tool),
                    ("pattern", &*self.grep.pattern),
                    ("path", &*self.grep.path),
                ],
            ),
            (
                "web_search",
                vec![
                    ("tool", &*self.web_search.tool),
                    ("query", &*self.web_search.query),
                ],
            ),
            (
                "web_fetch",
                vec![
                    ("tool", &*self.web_fetch.tool),
                    ("url", &*self.web_fetch.url),
                    ("save_to", &*self.web_fetch.save_to),
                ],
            ),
            (
                "glob",
                vec![
                    ("tool", &*self.glob.tool),
                    ("pattern", &*self.glob.pattern),
                    ("path", &*self.glob.path),
                ],
            ),
        ]
    }
}

/// (role name, value from the layer, the merged value it replaces)
type RoleSlot<'a> = (&'static str, Option<Vec<String>>, &'a mut Vec<String>);

fn merge_layer(m: &mut Merged, layer: Layer) -> Result<(), ConfigError> {
    let Layer {
        origin,
        source,
        top,
        tools,
    } = layer;
    let is_user = source != Source::Default;
    if let Some(v) = top.max_kept_chars {
        let v = positive(v, &origin, "max_kept_chars")?;
        m.max_kept_chars = Some((v, source.clone()));
        m.sources.insert("max_kept_chars".into(), source.clone());
    }
    if let Some(v) = top.max_kept_tokens {
        m.max_kept_tokens = Some(positive(v, &origin, "max_kept_tokens")?);
        m.sources.insert("max_kept_tokens".into(), source.clone());
    }
    if let Some(b) = top.bypass {
        m.bypass = b
            .into_iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        m.sources.insert("bypass".into(), source.clone());
    }
    let mut new_user_entries = Vec::new();
    for (key, raw) in tools {
        let k = format!("tools.{key}");
        let family = match raw.family.as_deref() {
            Some(f) => Some((
                Family::parse(f).ok_or_else(|| ConfigError {
                    origin: origin.clone(),
                    key: format!("{k}.family"),
                    problem: format!("unknown family {f:?}"),
                    fix: format!("use one of: {}", Family::ALL.map(Family::as_str).join(", ")),
                })?,
                origin.clone(),
            )),
            None => None,
        };
        let shape = match raw.shape.as_deref() {
            Some(s) => Some(Shape::parse(s).ok_or_else(|| ConfigError {
                origin: origin.clone(),
                key: format!("{k}.shape"),
                problem: format!("unknown shape {s:?}"),
                fix: "use \"head\", \"tail\" or \"head_tail\"".to_string(),
            })?),
            None => None,
        };
        let threshold = match raw.threshold {
            Some(t) => Some((
                positive(t, &origin, &format!("{k}.threshold"))?,
                origin.clone(),
            )),
            None => None,
        };
        let max_kept = match raw.max_kept {
            Some(v) => Some(positive(v, &origin, &format!("{k}.max_kept"))?),
            None => None,
        };
        let unit = match (raw.unit.as_deref(), raw.encoding.as_deref()) {
            (None, None) => None,
            (Some("chars"), None) => Some(Unit::Chars),
            (Some("chars"), Some(_)) => {
                return Err(ConfigError {
                    origin: origin.clone(),
                    key: format!("{k}.encoding"),
                    problem: "an encoding only applies to unit = \"tokens\"".into(),
                    fix: "remove encoding, or set unit = \"tokens\"".into(),
                });
            }
            (Some("tokens") | None, enc) => {
                let enc = enc.unwrap_or("o200k_base");
                let e = Encoding::parse(enc).ok_or_else(|| ConfigError {
                    origin: origin.clone(),
                    key: format!("{k}.encoding"),
                    problem: format!("unknown encoding {enc:?}"),
                    fix: "use \"o200k_base\" or \"cl100k_base\"".into(),
                })?;
                if !cfg!(feature = "tokens") {
                    return Err(ConfigError {
                        origin: origin.clone(),
                        key: format!("{k}.unit"),
                        problem: "token units need toolcap built with the `tokens` feature".into(),
                        fix: "rebuild with --features tokens, or use unit = \"chars\"".into(),
                    });
                }
                Some(Unit::Tokens(e))
            }
            (Some(u), _) => {
                return Err(ConfigError {
                    origin: origin.clone(),
                    key: format!("{k}.unit"),
                    problem: format!("unknown unit {u:?}"),
                    fix: "use \"chars\" or \"tokens\"".into(),
                });
            }
        };
        let existing = m.tools.iter_mut().position(|t| t.key == key);
        let idx = match existing {
            Some(i) => i,
            None => {
                m.tools.push(MergedTool {
                    key: key.clone(),
                    created_by: origin.clone(),
                    family: None,
                    names: Vec::new(),
                    threshold: None,
                    shape: None,
                    args: ArgKeys::default(),
                    unit: None,
                    max_kept: None,
                    clean: None,
                    json: None,
                });
                if is_user {
                    new_user_entries.push(m.tools.len() - 1);
                }
                m.tools.len() - 1
            }
        };
        let t = &mut m.tools[idx];
        if let Some(f) = family {
            t.family = Some(f);
            m.sources.insert(format!("{k}.family"), source.clone());
        }
        if let Some(n) = raw.names {
            t.names = n;
            m.sources.insert(format!("{k}.names"), source.clone());
        }
        if let Some(th) = threshold {
            t.threshold = Some(th);
            m.sources.insert(format!("{k}.threshold"), source.clone());
        }
        if let Some(s) = shape {
            t.shape = Some(s);
            m.sources.insert(format!("{k}.shape"), source.clone());
        }
        if let Some(u) = unit {
            t.unit = Some(u);
            m.sources.insert(format!("{k}.unit"), source.clone());
        }
        if let Some(v) = max_kept {
            t.max_kept = Some(v);
            m.sources.insert(format!("{k}.max_kept"), source.clone());
        }
        if let Some(v) = raw.clean {
            t.clean = Some(v);
            m.sources.insert(format!("{k}.clean"), source.clone());
        }
        if let Some(v) = raw.json {
            t.json = Some(v);
            m.sources.insert(format!("{k}.json"), source.clone());
        }
        if let Some(a) = raw.args {
            let slots: [RoleSlot<'_>; 6] = [
                ("path", a.path, &mut t.args.path),
                ("pattern", a.pattern, &mut t.args.pattern),
                ("command", a.command, &mut t.args.command),
                ("query", a.query, &mut t.args.query),
                ("url", a.url, &mut t.args.url),
                ("exit_code", a.exit_code, &mut t.args.exit_code),
            ];
            for (role, new, slot) in slots {
                if let Some(v) = new {
                    *slot = v;
                    m.sources.insert(format!("{k}.args.{role}"), source.clone());
                }
            }
        }
    }
    // User-added entries are matched before the defaults.
    if !new_user_entries.is_empty() {
        let mut user: Vec<MergedTool> = Vec::new();
        let mut rest: Vec<MergedTool> = Vec::new();
        for (i, t) in std::mem::take(&mut m.tools).into_iter().enumerate() {
            if new_user_entries.contains(&i) {
                user.push(t);
            } else {
                rest.push(t);
            }
        }
        user.extend(rest);
        m.tools = user;
    }
    if let Some(s) = top.suggest {
        let mut set = |tool: &str, field: &str, v: Option<String>| {
            if let Some(v) = v {
                m.suggest.insert(format!("{tool}.{field}"), v);
                m.sources
                    .insert(format!("suggest.{tool}.{field}"), source.clone());
            }
        };
        if let Some(x) = s.shell {
            set("shell", "tool", x.tool);
            set("shell", "command", x.command);
        }
        if let Some(x) = s.grep {
            set("grep", "tool", x.tool);
            set("grep", "pattern", x.pattern);
            set("grep", "path", x.path);
        }
        if let Some(x) = s.web_search {
            set("web_search", "tool", x.tool);
            set("web_search", "query", x.query);
        }
        if let Some(x) = s.web_fetch {
            set("web_fetch", "tool", x.tool);
            set("web_fetch", "url", x.url);
            set("web_fetch", "save_to", x.save_to);
        }
        if let Some(x) = s.glob {
            set("glob", "tool", x.tool);
            set("glob", "pattern", x.pattern);
            set("glob", "path", x.path);
        }
    }
    Ok(())
}

fn finish(m: Merged) -> Result<Config, ConfigError> {
    let origin_of = |key: &str| -> String {
        match m.sources.get(key) {
            Some(Source::File(p)) => p.display().to_string(),
            Some(Source::Env(v)) => format!("env {v}"),
            _ => DEFAULTS_ORIGIN.to_string(),
        }
    };
    let Some((max_kept_chars, _)) = m.max_kept_chars.clone() else {
        return Err(ConfigError {
            origin: DEFAULTS_ORIGIN.into(),
            key: "max_kept_chars".into(),
            problem: "missing".into(),
            fix: "set max_kept_chars".into(),
        });
    };
    let mut tools = Vec::new();
    for t in &m.tools {
        let k = format!("tools.{}", t.key);
        let family = match &t.family {
            Some((f, _)) => *f,
            // only a user file can name a tool that is not a family
            None => Family::parse(&t.key).ok_or_else(|| ConfigError {
                origin: t.created_by.clone(),
                key: format!("{k}.family"),
                problem: format!(
                    "missing: the entry's name {:?} is not a family, so it needs a family key",
                    t.key
                ),
                fix: format!(
                    "add family = \"...\" (one of: {})",
                    Family::ALL.map(Family::as_str).join(", ")
                ),
            })?,
        };
        let threshold = match &t.threshold {
            Some((v, _)) => *v,
            None => default_threshold(&m, family),
        };
        let fam = m.tools.iter().find(|d| d.key == family.as_str());
        let unit = t.unit.or(fam.and_then(|f| f.unit)).unwrap_or(Unit::Chars);
        let clean = t.clean.or(fam.and_then(|f| f.clean)).unwrap_or(false);
        let json = t.json.or(fam.and_then(|f| f.json)).unwrap_or(true);
        let (max_kept, kept_key) = match (t.max_kept, unit) {
            (Some(v), _) => (v, format!("{k}.max_kept")),
            (None, Unit::Chars) => (max_kept_chars, "max_kept_chars".to_string()),
            (None, Unit::Tokens(_)) => (
                m.max_kept_tokens.unwrap_or(500),
                "max_kept_tokens".to_string(),
            ),
        };
        if threshold <= max_kept {
            let key = format!("{k}.threshold");
            let user_set = |key: &str| !matches!(m.sources.get(key), None | Some(Source::Default));
            // Blame whichever the user set; prefer the threshold.
            let bad_key = if user_set(&key) || !user_set(&kept_key) {
                key.clone()
            } else {
                kept_key.clone()
            };
            let u = unit.name();
            return Err(ConfigError {
                origin: origin_of(&bad_key),
                key: bad_key,
                problem: format!(
                    "{key} = {threshold} {u} is not greater than {kept_key} = {max_kept} {u}"
                ),
                fix: format!("raise {key} above {max_kept} or lower {kept_key} below {threshold}"),
            });
        }
        let shape = t.shape.unwrap_or(match family {
            Family::Shell => Shape::HeadTail,
            _ => Shape::Head,
        });
        let mut args = t.args.clone();
        if let Some(fam_entry) = m.tools.iter().find(|d| d.key == family.as_str()) {
            // a user entry of a family inherits that family's argument keys where unset
            let inherit = |mine: &mut Vec<String>, theirs: &Vec<String>| {
                if mine.is_empty() {
                    mine.clone_from(theirs);
                }
            };
            inherit(&mut args.path, &fam_entry.args.path);
            inherit(&mut args.pattern, &fam_entry.args.pattern);
            inherit(&mut args.command, &fam_entry.args.command);
            inherit(&mut args.query, &fam_entry.args.query);
            inherit(&mut args.url, &fam_entry.args.url);
            inherit(&mut args.exit_code, &fam_entry.args.exit_code);
        }
        for n in &t.names {
            if n.trim().is_empty() {
                return Err(ConfigError {
                    origin: origin_of(&format!("{k}.names")),
                    key: format!("{k}.names"),
                    problem: "contains an empty name".into(),
                    fix: "remove the empty string from the list".into(),
                });
            }
        }
        tools.push(ToolEntry {
            key: t.key.clone(),
            family,
            names: t.names.clone(),
            threshold,
            shape,
            args,
            unit,
            max_kept,
            clean,
            json,
        });
    }
    if !tools.iter().any(|t| t.key == "generic") {
        return Err(ConfigError {
            origin: DEFAULTS_ORIGIN.into(),
            key: "tools.generic".into(),
            problem: "missing".into(),
            fix: "add a [tools.generic] entry".into(),
        });
    }
    let get = |k: &str| m.suggest.get(k).cloned().unwrap_or_default();
    let suggest = Suggest {
        shell: ShellTool {
            tool: get("shell.tool"),
            command: get("shell.command"),
        },
        grep: GrepTool {
            tool: get("grep.tool"),
            pattern: get("grep.pattern"),
            path: get("grep.path"),
        },
        web_search: SearchTool {
            tool: get("web_search.tool"),
            query: get("web_search.query"),
        },
        web_fetch: FetchTool {
            tool: get("web_fetch.tool"),
            url: get("web_fetch.url"),
            save_to: get("web_fetch.save_to"),
        },
        glob: GlobTool {
            tool: get("glob.tool"),
            pattern: get("glob.pattern"),
            path: get("glob.path"),
        },
    };
    // A named tool needs its argument names.
    for (tool, fields) in suggest.fields() {
        let named = fields.first().is_some_and(|(_, v)| !v.is_empty());
        for (field, value) in &fields[1..] {
            if named && value.is_empty() && !(tool == "web_fetch" && *field == "save_to") {
                let key = format!("suggest.{tool}.{field}");
                return Err(ConfigError {
                    origin: origin_of(&key),
                    key,
                    problem: "is empty while the tool is named".into(),
                    fix: format!(
                        "name the argument of the {tool} tool, or set suggest.{tool}.tool = \"\""
                    ),
                });
            }
        }
    }
    if suggest.shell.tool.is_empty() {
        return Err(ConfigError {
            origin: origin_of("suggest.shell.tool"),
            key: "suggest.shell.tool".into(),
            problem: "is empty; suggestions need a tool that runs shell commands".into(),
            fix: "name the harness's shell tool (e.g. \"bash\")".into(),
        });
    }
    Ok(Config {
        max_kept_chars,
        max_kept_tokens: m.max_kept_tokens.unwrap_or(500),
        bypass: m.bypass,
        tools,
        suggest,
        sources: m.sources,
    })
}

/// The file that set any key of the entry `k` (a user entry's own file).
fn default_threshold(m: &Merged, family: Family) -> usize {
    m.tools
        .iter()
        .find(|t| t.key == family.as_str())
        .or_else(|| m.tools.iter().find(|t| t.key == "generic"))
        .and_then(|t| t.threshold.as_ref().map(|(v, _)| *v))
        .unwrap_or(3500)
}

fn is_glob(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// Shell-style glob match on tool names: `*`, `?`, `[abc]`, `[a-z]`, `[!x]`.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    glob_at(&p, &n)
}

fn glob_at(p: &[char], n: &[char]) -> bool {
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() {
            match p[pi] {
                '*' => {
                    star = Some((pi, ni));
                    pi += 1;
                    continue;
                }
                '?' => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                '[' => {
                    if let Some((matched, next)) = class_match(&p[pi..], n[ni])
                        && matched
                    {
                        pi += next;
                        ni += 1;
                        continue;
                    }
                }
                c if c == n[ni] => {
                    pi += 1;
                    ni += 1;
                    continue;
                }
                _ => {}
            }
        }
        match star {
            Some((sp, sn)) => {
                pi = sp + 1;
                ni = sn + 1;
                star = Some((sp, sn + 1));
            }
            None => return false,
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// Match a `[...]` class at the start of `p`; returns (matched, length of the class).
fn class_match(p: &[char], c: char) -> Option<(bool, usize)> {
    let end = p.iter().skip(1).position(|&x| x == ']')? + 1;
    let mut body = &p[1..end];
    let negate = matches!(body.first(), Some('!') | Some('^'));
    if negate {
        body = &body[1..];
    }
    let mut i = 0;
    let mut hit = false;
    while i < body.len() {
        if i + 2 < body.len() && body[i + 1] == '-' {
            if body[i] <= c && c <= body[i + 2] {
                hit = true;
            }
            i += 3;
        } else {
            if body[i] == c {
                hit = true;
            }
            i += 1;
        }
    }
    Some((hit != negate, end + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(text: &str) -> Result<Config, ConfigError> {
        Config::from_sources(Some((text, Path::new("my.toml"))), None)
    }

    #[test]
    fn defaults_load_and_match_the_seed_thresholds() {
        let c = Config::defaults();
        assert_eq!(c.max_kept_chars, 2000);
        let th = |n: &str| c.entry_for(n).threshold;
        assert_eq!(th("read_file"), 3500);
        assert_eq!(th("grep_content"), 3500);
        assert_eq!(th("execute_shell"), 3500);
        assert_eq!(th("web_fetch"), 5000);
        assert_eq!(th("web_search"), 4000);
        assert_eq!(th("glob_files"), 3500);
        assert_eq!(th("some_mcp_tool"), 3500);
        assert_eq!(c.entry_for("Bash").family, Family::Shell);
        assert_eq!(c.entry_for("run_command").family, Family::Shell);
        assert_eq!(c.entry_for("some_mcp_tool").family, Family::Generic);
        assert!(c.is_bypassed("get_continuation"));
        assert!(c.is_bypassed("fetch_tool_output"));
        assert!(c.is_bypassed("get_tool_result"));
        assert!(!c.is_bypassed("bash"));
    }

    #[test]
    fn user_file_overrides_and_adds_tools_with_globs() {
        let c = user(
            "max_kept_chars = 1000\n[tools.shell]\nthreshold = 8000\n\
             [tools.mine]\nfamily = \"grep\"\nnames = [\"mcp__*__search\"]\n",
        )
        .unwrap();
        assert_eq!(c.max_kept_chars, 1000);
        assert_eq!(c.entry_for("bash").threshold, 8000);
        let e = c.entry_for("mcp__github__search");
        assert_eq!(e.key, "mine");
        assert_eq!(e.family, Family::Grep);
        // inherits the grep family's threshold and argument keys
        assert_eq!(e.threshold, 3500);
        assert!(e.args.pattern.contains(&"pattern".to_string()));
        assert_eq!(
            c.sources.get("tools.shell.threshold"),
            Some(&Source::File("my.toml".into()))
        );
    }

    #[test]
    fn unknown_key_names_file_key_and_fix() {
        let e = user("[tools.shell]\nthresold = 10\n").unwrap_err();
        assert_eq!(e.origin, "my.toml");
        assert_eq!(e.key, "tools.shell.thresold");
        assert!(e.problem.contains("unknown field"), "{e}");
        let e = user("max_kept = 10\n").unwrap_err();
        assert_eq!(e.key, "max_kept");
    }

    #[test]
    fn threshold_must_exceed_max_kept() {
        let e = user("[tools.grep]\nthreshold = 2000\n").unwrap_err();
        assert_eq!(e.key, "tools.grep.threshold");
        assert!(e.problem.contains("not greater than max_kept_chars = 2000"));
        assert!(e.fix.contains("raise tools.grep.threshold above 2000"));
        let e = user("max_kept_chars = 9000\n").unwrap_err();
        assert_eq!(e.key, "max_kept_chars");
    }

    #[test]
    fn bad_sizes_and_shapes() {
        assert_eq!(
            user("max_kept_chars = 0\n").unwrap_err().key,
            "max_kept_chars"
        );
        let e = user("[tools.shell]\nthreshold = -5\n").unwrap_err();
        assert!(e.problem.contains("positive"));
        let e = user("[tools.shell]\nshape = \"middle\"\n").unwrap_err();
        assert_eq!(e.key, "tools.shell.shape");
        assert!(e.fix.contains("head_tail"));
        let e = user("[tools.x]\nnames = [\"x\"]\n").unwrap_err();
        assert_eq!(e.key, "tools.x.family");
        let e = user("[tools.x]\nfamily = \"nope\"\n").unwrap_err();
        assert!(e.fix.contains("read_file"));
        let e = user("max_kept_chars = \"big\"\n").unwrap_err();
        assert!(e.problem.contains("invalid type"), "{e}");
        let e = user("this is not toml").unwrap_err();
        assert_eq!(e.key, "(file)");
    }

    #[test]
    fn env_bypass_trims_and_ignores_empty() {
        let c = Config::from_sources(None, Some(" foo, ,bar ,,")).unwrap();
        assert!(c.is_bypassed("foo"));
        assert!(c.is_bypassed("bar"));
        assert!(!c.is_bypassed(""));
        assert!(c.is_bypassed("get_continuation"));
        assert_eq!(c.sources.get("bypass"), Some(&Source::Env(BYPASS_ENV)));
    }

    #[test]
    fn globs() {
        assert!(glob_match("mcp__*", "mcp__x__y"));
        assert!(glob_match("read_?ile", "read_file"));
        assert!(glob_match("[Bb]ash", "Bash"));
        assert!(!glob_match("[!B]ash", "Bash"));
        assert!(!glob_match("a*b", "acbd"));
        assert!(glob_match("a*b*", "acbd"));
    }

    #[test]
    fn suggest_tool_needs_argument_names() {
        let e = user("[suggest.grep]\npattern = \"\"\n").unwrap_err();
        assert_eq!(e.key, "suggest.grep.pattern");
        let c = user("[suggest.grep]\ntool = \"\"\n").unwrap();
        assert!(c.suggest.grep.tool.is_empty());
    }

    #[test]
    fn describe_lists_sources() {
        let c = Config::from_sources(
            Some(("[tools.web_fetch]\nthreshold = 9000\n", Path::new("u.toml"))),
            Some("zzz"),
        )
        .unwrap();
        let d = c.describe();
        assert!(d.contains("threshold = 9000  # file u.toml"), "{d}");
        assert!(d.contains("# env TOOL_RESULT_BYPASS_TOOLS"), "{d}");
        assert!(d.contains("max_kept_chars = 2000  # default"), "{d}");
    }
}
