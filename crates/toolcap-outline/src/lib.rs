//! Code-structure outline: the definitions of a source file (classes,
//! functions, impl blocks, ...) with their line ranges and nesting, extracted
//! with tree-sitter.
//!
//! One mechanism serves every language. Each language has a query file
//! (`queries/<lang>.scm`) whose patterns capture definition nodes as
//! `@definition.<kind>` and their names as `@name` (and, optionally, the body as
//! `@body`: the text before it becomes the symbol's `detail`). A containment
//! pass over the captured ranges then
//! - keeps definitions at module level and inside containers (modules,
//!   classes, impl/trait blocks), at any depth, including those under
//!   conditional or other compound statements;
//! - drops everything nested inside a non-container (a function body, a
//!   constant's initializer, ...);
//! - turns functions whose nearest enclosing definition is a class, impl,
//!   trait or interface into methods.
//!
//! The query does not run over the whole tree: a walk runs it anchored at
//! each node whose kind can start one of its patterns (read from the query
//! text), and does not descend into a definition whose contents the
//! containment pass would drop (a function, a constant, a `@scope`) or into
//! a comment. Function bodies, most of a source file, are never visited, so
//! the outline costs little more than the parse it starts with.
//!
//! A crate of toolcap's workspace (above `toolcap-cut`); the `toolcap` crate
//! re-exports its public items as `toolcap::outline`.

#![warn(missing_docs)]

// the floors below, under the paths these modules used in the one crate
use toolcap_cut as cut;
use toolcap_text::quote;

mod cache;
pub mod detect;
pub mod html;
pub mod json_shape;
mod languages;
mod lookup;
pub mod numbered;
mod parse;
mod preprocess;
mod query;
mod recover;
#[cfg(test)]
mod tests;
pub mod text;
mod walk;

pub use languages::Language;
pub use lookup::UnknownLanguage;
pub use parse::top_level_boundary;

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use tree_sitter::Parser;

use languages::compiled_query;

/// The extension of a path's file name, lowercased.
pub fn extension(path: &str) -> Option<String> {
    let name = path.rsplit(['/', '\\']).next()?;
    let (stem, ext) = name.rsplit_once('.')?;
    (!stem.is_empty() && !ext.is_empty()).then(|| ext.to_ascii_lowercase())
}

/// The kind of a symbol.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    strum::IntoStaticStr,
    strum::Display,
    strum::VariantArray,
    strum::EnumCount,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Kind {
    /// A module, namespace or package.
    Module,
    /// A class (or object, record, actor).
    Class,
    /// A struct.
    Struct,
    /// An enum.
    Enum,
    /// A union.
    Union,
    /// A trait.
    Trait,
    /// An interface or protocol.
    Interface,
    /// An impl block or extension.
    Impl,
    /// A function outside a class-like container.
    Function,
    /// A function directly inside a class-like container, or defined outside its type (`void A::f()`, Go receivers).
    Method,
    /// A constant.
    Constant,
    /// A type alias or typedef.
    Type,
    /// A macro.
    Macro,
}

impl Kind {
    /// Every kind, in declaration order.
    pub const ALL: [Kind; <Kind as strum::EnumCount>::COUNT] =
        toolcap_text::all_variants(<Kind as strum::VariantArray>::VARIANTS);

    /// Lowercase name, as serialized: "function", "impl", ...
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Whether definitions nested inside this one are part of the outline.
    /// Anything nested in a non-container (a function body, a constant's
    /// initializer) is left out.
    pub fn is_container(self) -> bool {
        self == Kind::Module || self.has_methods()
    }

    /// Whether a function directly inside this is a method (C++, C#, Swift
    /// structs and Java enums have methods).
    fn has_methods(self) -> bool {
        matches!(
            self,
            Kind::Class
                | Kind::Struct
                | Kind::Enum
                | Kind::Union
                | Kind::Trait
                | Kind::Interface
                | Kind::Impl
        )
    }
}

impl FromStr for Kind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Kind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| format!("unknown symbol kind {s:?}"))
    }
}

/// One definition in the outline.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Symbol {
    /// What the definition is.
    pub kind: Kind,
    /// The definition's name as written (a C++ method defined outside its
    /// class: the last segment, with the class in `parent`).
    pub name: String,
    /// 1-based line holding the definition's name (not a decorator or
    /// attribute above it).
    pub line: usize,
    /// 1-based last line of the definition (trailing comments excluded).
    pub end_line: usize,
    /// Nesting depth among the outline's symbols; 0 = top level.
    pub depth: usize,
    /// Name of the enclosing symbol, if any. A method defined outside its
    /// type (Go `func (s *Server) Serve()`, C++ `void Server::serve() {}`) has
    /// the type's name as parent, at depth 0 or, inside a namespace, one
    /// deeper than the namespace.
    pub parent: Option<String>,
    /// Extra text: for an impl block its header, e.g. "impl Display for Foo".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// A symbol as the dense outline writer takes it
/// (`toolcap_render::outline::dense_within`): its kind's word, its name, its
/// lines and depth, and an impl block's header as the label its line starts
/// with (`impl Display for Foo`). The recovery section's structure lines and
/// `get_continuation(outline=true)` both list an outline this way.
///
/// ```
/// use toolcap_outline::{Language, outline};
/// use toolcap_render::outline::Def;
///
/// let src = "struct Foo;\nimpl std::fmt::Display for Foo {\n    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result { Ok(()) }\n}\n";
/// let o = outline(src, Language::Rust).expect("a Rust outline");
/// let defs: Vec<Def> = o.symbols.iter().map(Def::from).collect();
/// assert_eq!((defs[0].kind, defs[0].name.as_str(), defs[0].label.as_deref()), ("struct", "Foo", None));
/// assert_eq!(defs[1].label.as_deref(), Some("impl std::fmt::Display for Foo"));
/// assert_eq!((defs[2].kind, defs[2].line, defs[2].depth), ("method", 3, 1));
/// ```
impl From<&Symbol> for toolcap_render::outline::Def {
    fn from(s: &Symbol) -> toolcap_render::outline::Def {
        toolcap_render::outline::Def {
            kind: s.kind.as_str(),
            name: s.name.clone(),
            label: match (&s.detail, s.kind) {
                (Some(d), Kind::Impl) => Some(d.clone()),
                _ => None,
            },
            line: s.line,
            end_line: s.end_line,
            depth: s.depth,
        }
    }
}

/// Why an outline does not cover the whole source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// Parsing the whole source would have taken more work than the budget
    /// allows.
    TimeBudget,
    /// The source is larger than the size cap.
    SizeCap,
}

impl Stop {
    /// "the time budget", "the size cap".
    pub fn describe(self) -> &'static str {
        match self {
            Stop::TimeBudget => "the time budget",
            Stop::SizeCap => "the size cap",
        }
    }
}

/// The outline of one source text.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Outline {
    /// [`Language::name`].
    pub language: &'static str,
    /// Number of lines in the source.
    pub lines: usize,
    /// The outline does not cover the whole source: only lines
    /// 1-`covered_lines` were outlined (see `stopped_by`).
    pub partial: bool,
    /// The outline covers lines 1 to this (all of them unless `partial`).
    pub covered_lines: usize,
    /// What stopped the outline short of the end, when `partial`.
    pub stopped_by: Option<Stop>,
    /// The parser found syntax errors in the covered part: the symbols are a
    /// best effort.
    pub syntax_errors: bool,
    /// With `syntax_errors`, the lines read best-effort: each error is
    /// contained to the statement it sits in (read without that statement's
    /// body, or without the statement), so definitions there may be missing
    /// or their lines off; the rest of the outline is read as without the
    /// error. Empty (and left out of the JSON) without errors.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub best_effort: Vec<LineSpan>,
    /// Definitions in source order.
    pub symbols: Vec<Symbol>,
}

/// Lines `start` to `end` (1-based, inclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub struct LineSpan {
    /// First line.
    pub start: usize,
    /// Last line.
    pub end: usize,
}

impl fmt::Display for LineSpan {
    /// `12` or `12-40`, with thousands separators.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.start == self.end {
            f.write_str(&toolcap_text::text::thousands(self.start))
        } else {
            write!(
                f,
                "{}-{}",
                toolcap_text::text::thousands(self.start),
                toolcap_text::text::thousands(self.end)
            )
        }
    }
}

/// Limits on the cost of one outline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Options {
    /// Budget for parsing, default 100 ms, counted in the parser's work at
    /// a fixed rate per millisecond (about the speed of an unloaded machine
    /// here), not in wall time: the same source, language and options give
    /// the same outline on every run. A source the parser cannot get through
    /// within it is outlined up to a boundary (see [`top_level_boundary`])
    /// in the first half of what the parser got through, and the outline is
    /// `partial` with `stopped_by` [`Stop::TimeBudget`]. `None`: no limit.
    pub budget: Option<Duration>,
    /// Sources larger than this many bytes are outlined up to a top-level
    /// boundary before it. Default: 8 MiB.
    pub max_bytes: usize,
    /// A source up to this many bytes is always outlined whole, whatever
    /// the budget. Default: 256 KiB (30-50 ms of parsing here).
    pub always_bytes: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            budget: Some(DEFAULT_BUDGET),
            max_bytes: DEFAULT_MAX_BYTES,
            always_bytes: DEFAULT_ALWAYS_BYTES,
        }
    }
}

/// Default [`Options::budget`].
pub const DEFAULT_BUDGET: Duration = Duration::from_millis(100);
/// Default [`Options::max_bytes`].
pub const DEFAULT_MAX_BYTES: usize = 8 << 20;
/// Default [`Options::always_bytes`].
pub const DEFAULT_ALWAYS_BYTES: usize = 256 << 10;

/// Why an outline could not be made (a build or grammar problem, not a
/// property of the source: a source with syntax errors still gets one).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OutlineError {
    /// The grammar could not be loaded into a parser.
    #[error("cannot load the tree-sitter grammar for {language}: {message}")]
    #[non_exhaustive]
    Grammar {
        /// [`Language::name`].
        language: &'static str,
        /// tree-sitter's message.
        message: String,
        /// tree-sitter's error (a grammar of an ABI version it cannot load).
        #[source]
        source: tree_sitter::LanguageError,
    },
    /// The language's outline query does not compile.
    #[error("invalid outline query for {language} (crates/toolcap-outline/src/{file}): {message}")]
    #[non_exhaustive]
    Query {
        /// [`Language::name`].
        language: &'static str,
        /// The query file(s).
        file: String,
        /// What is wrong with it (tree-sitter's message, with the capture or
        /// node it names).
        message: String,
    },
    /// tree-sitter returned no tree.
    #[error("tree-sitter could not parse the {language} source")]
    #[non_exhaustive]
    Parse {
        /// [`Language::name`].
        language: &'static str,
    },
}

impl OutlineError {
    /// The grammar of `lang` could not be loaded.
    pub(crate) fn grammar(lang: Language, e: tree_sitter::LanguageError) -> OutlineError {
        OutlineError::Grammar {
            language: lang.name(),
            message: e.to_string(),
            source: e,
        }
    }
}

/// Load the language's grammar and compile its outline query (once per
/// process), reporting any problem. [`outline`] does this on first use; this
/// lets a caller or a test check every language up front.
pub fn check_language(lang: Language) -> Result<(), OutlineError> {
    compiled_query(lang)?;
    Parser::new()
        .set_language(&(lang.spec().grammar)())
        .map_err(|e| OutlineError::grammar(lang, e))
}

/// Extract the outline of `source` with the default [`Options`] (a 100 ms
/// budget). Never panics; a source with syntax errors gives a best-effort
/// outline with `syntax_errors` set.
pub fn outline(source: &str, lang: Language) -> Result<Outline, OutlineError> {
    outline_with(source, lang, &Options::default())
}

/// How many outlines were served from the cache in this process.
pub fn cache_hits() -> u64 {
    cache::hits()
}

/// Extract the outline of `source` within `options`' limits. Repeated calls
/// with the same content, language and options return the cached outline.
pub fn outline_with(
    source: &str,
    lang: Language,
    options: &Options,
) -> Result<Outline, OutlineError> {
    let key = cache::key(source, lang, options);
    if let Some(found) = cache::get(&key) {
        return Ok(found);
    }
    let o = parse::compute(source, lang, options)?;
    // Every outline is reproducible (the budget counts the parser's work,
    // not time), so every one is kept.
    cache::put(key, &o);
    Ok(o)
}
