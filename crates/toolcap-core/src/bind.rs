//! What the `toolcap` command line and the Python and Node bindings share: the
//! conversions from what a user types or passes — a store spec, `cut` / `all`, a
//! language name, a tool format, tool arguments as JSON — into the library's
//! types, and the report back as the JSON object of `toolcap process --json`.
//!
//! One place, so that every front end accepts the same words and says the same
//! thing when it does not (each prefixes the error with its own name for the
//! value: `--lang` on the command line, `language=` in Python).
//!
//! ```
//! use toolcap_core::bind::{self, Lang, StoreSpec};
//!
//! // `--lang` / `language=`: a code language or a text format
//! let lang: Lang = "py".parse()?;
//! assert_eq!(lang.language().map(|l| l.name()), Some("python"));
//! let md: Lang = "markdown".parse()?;
//! assert_eq!(md.text_format(), Some("markdown"));
//! assert!("cobol".parse::<Lang>().is_err());
//!
//! // a store spec: "memory", a postgres:// URL, or something that reads as a path
//! assert!(matches!(StoreSpec::parse("memory")?, StoreSpec::Memory { .. }));
//! assert!(matches!(StoreSpec::parse("./results.db")?, StoreSpec::At(_)));
//! assert!(StoreSpec::parse("memry").is_err()); // a typo, not a file named `memry`
//!
//! // tool arguments as JSON text (OpenAI's `function.arguments`)
//! let args = bind::args_from_json(r#"{"path": "a.py"}"#)?;
//! assert_eq!(args["path"], "a.py");
//! # Ok::<(), toolcap_core::bind::BindError>(())
//! ```

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::Processed;
pub use crate::args::{ArgsError, tool_args};
use crate::outline::Language;
#[doc(no_inline)]
pub use crate::outline::UnknownLanguage;
use crate::outline::text::Format;
use crate::store::tools::ToolFormat;
use crate::store::{self, Location, MemoryStore, ResultStore, SaveWhen, StoreError};

/// A value a user passed that cannot be converted; the message names the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum BindError {
    /// A store spec that is neither `memory`, a `postgres://` URL nor a path.
    #[error(
        "store {spec:?}: not a store; use \"memory\", a SQLite file path (with a / or a .db, .sqlite or .sqlite3 suffix) or a postgres:// URL"
    )]
    UnknownStore {
        /// The spec as given.
        spec: String,
    },
    /// A save-when name other than `cut` / `all`.
    #[error("save {name:?}: use \"cut\" (keep the results that were cut) or \"all\"")]
    UnknownSaveWhen {
        /// The name as given.
        name: String,
    },
    /// A tool format other than `openai` / `anthropic`.
    #[error("format {name:?}: unknown tool format; use \"openai\" or \"anthropic\"")]
    UnknownToolFormat {
        /// The name as given.
        name: String,
    },
    /// An unknown language (or text format) name.
    #[error(transparent)]
    Language(#[from] UnknownLanguage),
    /// Malformed tool arguments.
    #[error(transparent)]
    Args(#[from] ArgsError),
    /// Context figures that say nothing usable (see [`Context::check`]).
    #[error("{problem}; {fix}")]
    Context {
        /// What is wrong, naming the figure (`context_used`, `model`).
        problem: String,
        /// How to fix it.
        fix: String,
    },
}

// ---------------------------------------------------------------------------
// Languages and text formats.

/// What `--lang` (CLI) and `language=` (bindings) name: a code language, whose
/// outline tree-sitter makes, or a text format (`markdown`, `json`, `yaml`, ...),
/// whose outline is a listing of headings, keys or fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Lang {
    /// A programming language.
    Code(Language),
    /// A non-code text format.
    Text(Format),
}

impl FromStr for Lang {
    type Err = UnknownLanguage;

    /// A language name or alias (case-insensitive), else a text format's name or
    /// usual extension (`md`, `yml`); a code language wins where both match.
    fn from_str(s: &str) -> Result<Lang, UnknownLanguage> {
        if let Some(l) = Language::from_name(s) {
            return Ok(Lang::Code(l));
        }
        Format::from_name(s)
            .map(Lang::Text)
            .ok_or_else(|| UnknownLanguage::new(s).or_text_format())
    }
}

impl Lang {
    /// Parse an optional name: `None` stays `None`.
    pub fn parse_opt(name: Option<&str>) -> Result<Option<Lang>, UnknownLanguage> {
        name.map(str::parse).transpose()
    }

    /// The code language, when it is one.
    pub fn language(self) -> Option<Language> {
        match self {
            Lang::Code(l) => Some(l),
            Lang::Text(_) => None,
        }
    }

    /// The text format's name as the processor reports it in `language`
    /// (`markdown`, `json`, ...), when it is one.
    pub fn text_format(self) -> Option<&'static str> {
        match self {
            Lang::Code(_) => None,
            Lang::Text(f) => Some(f.as_str()),
        }
    }

    /// The canonical name: `python`, `markdown`.
    pub fn name(self) -> &'static str {
        match self {
            Lang::Code(l) => l.name(),
            Lang::Text(f) => f.as_str(),
        }
    }

    /// Apply to a tool call about to be processed: returns the language override
    /// for [`crate::ToolCall::lang`]; a text format is passed as the arguments'
    /// `language` key (unless the arguments already name one), which is how the
    /// processor takes a result's format.
    pub fn apply(self, args: &mut Value) -> Option<Language> {
        if let (Some(f), Value::Object(m)) = (self.text_format(), &mut *args) {
            m.entry("language")
                .or_insert_with(|| Value::String(f.into()));
        }
        self.language()
    }
}

/// The code languages' names, comma-separated, in table order.
pub fn language_names() -> String {
    Language::all()
        .iter()
        .map(|l| l.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The text formats' names, comma-separated.
pub fn text_format_names() -> String {
    Format::ALL
        .iter()
        .map(|f| f.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

// ---------------------------------------------------------------------------
// Stores.

/// The default byte limit of a [`StoreSpec::Memory`] store opened from the spec
/// `memory`: 64 MiB of outputs; past it the oldest results are dropped first (a
/// recovery call for one says it was dropped).
pub const DEFAULT_MEMORY_LIMIT_BYTES: usize = 64 * 1024 * 1024;

/// Where full results are kept, as a user names it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StoreSpec {
    /// In memory, for the life of the store object; at most `limit_bytes` of
    /// outputs (oldest dropped first), or unbounded.
    Memory {
        /// The byte limit, or `None` for none.
        limit_bytes: Option<usize>,
    },
    /// A SQLite file or a PostgreSQL database.
    At(Location),
}

/// Whether opening a SQLite store may create the directory its file goes in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Dirs {
    /// The directory must exist (a path the user typed: a typo is an error, not
    /// a new directory tree).
    #[default]
    MustExist,
    /// Create missing directories (a default location the user did not type).
    Create,
}

impl StoreSpec {
    /// A spec as a binding takes it: `memory` (with [`DEFAULT_MEMORY_LIMIT_BYTES`]),
    /// a `postgres://` / `postgresql://` URL, or a SQLite file path — something
    /// that reads as a path: it holds a path separator or ends in `.db`,
    /// `.sqlite` or `.sqlite3`. Anything else (`memry`) is
    /// [`BindError::UnknownStore`], not a new file of that name.
    pub fn parse(spec: &str) -> Result<StoreSpec, BindError> {
        let s = spec.trim();
        if s.eq_ignore_ascii_case("memory") {
            return Ok(StoreSpec::Memory {
                limit_bytes: Some(DEFAULT_MEMORY_LIMIT_BYTES),
            });
        }
        if store::location::is_url(s) || looks_like_path(s) {
            return Self::path_or_url(spec).map_err(|_| BindError::UnknownStore {
                spec: spec.to_string(),
            });
        }
        Err(BindError::UnknownStore {
            spec: spec.to_string(),
        })
    }

    /// A spec from a flag or variable that names a store location (`--store PATH`,
    /// `TOOLCAP_STORE`): a `postgres://` URL, else a SQLite file path of any name.
    /// A malformed URL is [`StoreError::BadLocation`].
    pub fn path_or_url(spec: impl AsRef<OsStr>) -> Result<StoreSpec, StoreError> {
        Location::parse(spec).map(StoreSpec::At)
    }

    /// Open (creating the SQLite file or the PostgreSQL tables if needed). With
    /// [`Dirs::MustExist`], a SQLite path whose directory is missing is
    /// [`StoreError::BadLocation`] naming it.
    pub fn open(&self, dirs: Dirs) -> Result<Arc<dyn ResultStore>, StoreError> {
        match self {
            StoreSpec::Memory { limit_bytes } => Ok(Arc::new(match limit_bytes {
                Some(n) => MemoryStore::with_limit(*n),
                None => MemoryStore::new(),
            })),
            StoreSpec::At(at) => {
                if dirs == Dirs::MustExist {
                    at.check_dir()?;
                }
                at.open()
            }
        }
    }
}

/// Whether a store spec reads as a file path rather than a word.
pub fn looks_like_path(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    s.contains('/')
        || s.contains(std::path::MAIN_SEPARATOR)
        || [".db", ".sqlite", ".sqlite3"]
            .iter()
            .any(|ext| lower.len() > ext.len() && lower.ends_with(ext))
}

/// A SQLite store path's directory must exist: it is not created.
pub fn check_dir(path: &Path) -> Result<(), StoreError> {
    store::location::check_dir(path)
}

/// Open the SQLite store at `path`; with [`Dirs::MustExist`] its directory must
/// exist.
#[cfg(feature = "sqlite")]
pub fn open_sqlite(path: &Path, dirs: Dirs) -> Result<store::SqliteStore, StoreError> {
    if dirs == Dirs::MustExist {
        check_dir(path)?;
    }
    store::SqliteStore::open(path)
}

/// Which results to keep: `cut` or `all`.
pub fn save_when(name: &str) -> Result<SaveWhen, BindError> {
    SaveWhen::parse(name).ok_or_else(|| BindError::UnknownSaveWhen {
        name: name.to_string(),
    })
}

/// The recovery tools' definition format: `openai` or `anthropic`.
pub fn tool_format(name: &str) -> Result<ToolFormat, BindError> {
    ToolFormat::parse(name).ok_or_else(|| BindError::UnknownToolFormat {
        name: name.to_string(),
    })
}

/// The default store path of the command line (see [`store::default_store_path`]).
pub fn default_store_path() -> Option<PathBuf> {
    store::default_store_path()
}

// ---------------------------------------------------------------------------
// The context left.

/// What a front end was told of the room left in the model's context: the
/// CLI's `--context-left`, `--context-limit`, `--context-used`, `--model`;
/// Python's `context_left=`...; Node's `{ contextLeft, ... }`. Token counts.
/// [`Context::check`] says whether the figures can be used, the same way in
/// every front end; [`Context::window`] hands them to a [`crate::ToolCall`].
///
/// ```
/// use toolcap_config::Config;
/// use toolcap_core::bind::Context;
///
/// let config = Config::defaults();
/// let ctx = Context { limit: Some(200_000), used: Some(150_000), ..Context::default() };
/// assert!(ctx.check(&config).is_ok());
/// let by_model = Context { model: Some("claude-sonnet-4-5".into()), used: Some(150_000), ..Context::default() };
/// assert!(by_model.check(&config).is_ok());
/// // tokens used, but of what window?
/// let used = Context { used: Some(150_000), ..Context::default() };
/// assert!(used.check(&config).unwrap_err().to_string().contains("context_limit"));
///
/// // a JSON body's `context_left`, `context_limit`, `context_used`, `model`
/// // (`#[serde(flatten)]` it into a request's fields)
/// let body: Context = serde_json::from_str(r#"{"context_left": 9000}"#).unwrap();
/// assert_eq!(body.left, Some(9000));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
pub struct Context {
    /// Tokens left in the window.
    #[serde(rename = "context_left", default)]
    pub left: Option<usize>,
    /// The window's size in tokens.
    #[serde(rename = "context_limit", default)]
    pub limit: Option<usize>,
    /// Tokens used so far.
    #[serde(rename = "context_used", default)]
    pub used: Option<usize>,
    /// The model's name (its window from `[budget.models]`).
    #[serde(default)]
    pub model: Option<String>,
}

impl Context {
    /// Whether the figures can be used: `context_used` needs a window
    /// (`context_limit`, or a `model` in `[budget.models]`), and a `model`
    /// without `context_left` or `context_limit` must be in the table.
    pub fn check(&self, config: &crate::Config) -> Result<(), BindError> {
        if let Some(m) = &self.model
            && m.trim().is_empty()
        {
            return Err(BindError::Context {
                problem: "model: the name is empty".into(),
                fix: "pass the model's name, e.g. claude-sonnet-4-5".into(),
            });
        }
        let window_needed = self.left.is_none() && self.limit.is_none();
        match &self.model {
            Some(m) if window_needed && config.budget.window_of(m).is_none() => {
                Err(BindError::Context {
                    problem: format!(
                        "model {m:?}: its context window is not in [budget.models]"
                    ),
                    fix: format!(
                        "pass context_limit (the window in tokens), or add the model to a config file: [budget.models] {} = TOKENS (`toolcap config` lists the known ones)",
                        toml::Value::String(m.clone())
                    ),
                })
            }
            None if window_needed && self.used.is_some() => Err(BindError::Context {
                problem: "context_used: tokens used of a window that is not given".into(),
                fix: "pass context_limit (the window in tokens) or model too, or context_left instead"
                    .into(),
            }),
            _ => Ok(()),
        }
    }

    /// The figures as a [`crate::ToolCall::context`].
    pub fn window(&self) -> crate::ContextWindow<'_> {
        crate::ContextWindow {
            left: self.left,
            limit: self.limit,
            used: self.used,
            model: self.model.as_deref(),
            max_result_chars: None,
        }
    }

    /// Whether nothing was said.
    pub fn is_empty(&self) -> bool {
        self.window().is_empty()
    }
}

// ---------------------------------------------------------------------------
// Tool arguments and the report.

/// Tool arguments from JSON text (OpenAI's `function.arguments`): an object;
/// blank text is `{}`.
pub fn args_from_json(text: &str) -> Result<Value, ArgsError> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    crate::args::json_object(text)
}

/// The report as the JSON object `toolcap process --json` prints: the
/// serialized [`Processed`], with `tool_call_id` appended when given.
pub fn report_json(processed: &Processed, tool_call_id: Option<&str>) -> Value {
    let mut v = serde_json::to_value(processed).unwrap_or(Value::Null);
    if let (Some(id), Value::Object(m)) = (tool_call_id, &mut v) {
        m.insert("tool_call_id".into(), Value::String(id.to_string()));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_specs() {
        assert_eq!(
            StoreSpec::parse("memory"),
            Ok(StoreSpec::Memory {
                limit_bytes: Some(DEFAULT_MEMORY_LIMIT_BYTES)
            })
        );
        for path in ["results.db", "x.sqlite", "a/b", "./memry", "/tmp/r.SQLITE3"] {
            assert!(
                matches!(StoreSpec::parse(path), Ok(StoreSpec::At(_))),
                "{path}"
            );
        }
        for word in ["memry", "sqlite", ".db", "", "results"] {
            let e = StoreSpec::parse(word).unwrap_err();
            assert_eq!(
                e,
                BindError::UnknownStore {
                    spec: word.to_string()
                }
            );
            assert!(e.to_string().contains("\"memory\""), "{e}");
        }
        let at = StoreSpec::parse("postgres://u@h/db").unwrap();
        assert!(matches!(at, StoreSpec::At(l) if l.is_postgres()));
    }

    #[test]
    fn a_missing_directory_is_not_created() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("no/such/dir/x.db");
        let spec = StoreSpec::parse(path.to_str().unwrap()).unwrap();
        let e = spec.open(Dirs::MustExist).unwrap_err();
        assert!(e.is_usage());
        assert!(e.to_string().contains("does not exist"), "{e}");
        assert!(!dir.path().join("no").exists());
        #[cfg(feature = "sqlite")]
        {
            spec.open(Dirs::Create).unwrap();
            assert!(path.exists());
        }
    }

    #[test]
    fn langs_and_formats() {
        assert_eq!(
            "Rust".parse::<Lang>().unwrap().language(),
            Language::from_name("rust")
        );
        assert_eq!("yml".parse::<Lang>().unwrap().text_format(), Some("yaml"));
        let e = "cobol".parse::<Lang>().unwrap_err();
        assert_eq!(e.name(), "cobol");
        assert!(e.to_string().contains("python") && e.to_string().contains("markdown"));
        let mut args = serde_json::json!({});
        assert_eq!("md".parse::<Lang>().unwrap().apply(&mut args), None);
        assert_eq!(args["language"], "markdown");
    }

    #[test]
    fn names() {
        assert!(save_when("all").is_ok());
        assert!(
            save_when("some")
                .unwrap_err()
                .to_string()
                .contains("\"cut\"")
        );
        assert!(tool_format("gemini").is_err());
        assert_eq!(args_from_json("  ").unwrap(), serde_json::json!({}));
        assert!(args_from_json("[1]").is_err());
    }
}
