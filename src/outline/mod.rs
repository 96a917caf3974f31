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

mod languages;
pub(crate) mod text;

pub use languages::Language;

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::ControlFlow;
use std::str::FromStr;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

use tree_sitter::{Node, ParseOptions, Parser, Query, QueryCursor, StreamingIterator};

/// The kind of a symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Module,
    Class,
    Struct,
    Enum,
    Union,
    Trait,
    Interface,
    Impl,
    Function,
    Method,
    Constant,
    Type,
    Macro,
}

impl Kind {
    /// Every kind, in declaration order.
    pub const ALL: [Kind; 13] = [
        Kind::Module,
        Kind::Class,
        Kind::Struct,
        Kind::Enum,
        Kind::Union,
        Kind::Trait,
        Kind::Interface,
        Kind::Impl,
        Kind::Function,
        Kind::Method,
        Kind::Constant,
        Kind::Type,
        Kind::Macro,
    ];

    /// Lowercase name, as serialized: "function", "impl", ...
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Module => "module",
            Kind::Class => "class",
            Kind::Struct => "struct",
            Kind::Enum => "enum",
            Kind::Union => "union",
            Kind::Trait => "trait",
            Kind::Interface => "interface",
            Kind::Impl => "impl",
            Kind::Function => "function",
            Kind::Method => "method",
            Kind::Constant => "constant",
            Kind::Type => "type",
            Kind::Macro => "macro",
        }
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

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
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
    pub kind: Kind,
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
    /// depth 0 and the type's name as parent.
    pub parent: Option<String>,
    /// Extra text: for an impl block its header, e.g. "impl Display for Foo".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// Why an outline does not cover the whole source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// Parsing the whole source would have taken longer than the time budget.
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
    /// Definitions in source order.
    pub symbols: Vec<Symbol>,
}

/// Limits on the cost of one outline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Options {
    /// Wall-clock budget for parsing and querying. Default: 100 ms. When the
    /// whole source cannot be outlined within it, a prefix ending at a
    /// top-level boundary is, and the outline is `partial`. `None`: no limit.
    pub budget: Option<Duration>,
    /// Sources larger than this many bytes are outlined up to a top-level
    /// boundary before it. Default: 8 MiB.
    pub max_bytes: usize,
    /// A source up to this many bytes is always outlined whole, without a
    /// deadline, whatever the machine's load, so its outline is reproducible.
    /// Default: 256 KiB (30-50 ms of parsing here).
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

#[derive(Debug, thiserror::Error)]
pub enum OutlineError {
    #[error("cannot load the tree-sitter grammar for {language}: {message}")]
    Grammar {
        language: &'static str,
        message: String,
    },
    #[error("invalid outline query for {language} (src/outline/{file}): {message}")]
    Query {
        language: &'static str,
        file: String,
        message: String,
    },
    #[error("tree-sitter could not parse the {language} source")]
    Parse { language: &'static str },
}

/// What a capture in an outline query stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// `@definition.<kind>`: a definition node.
    Definition(Kind),
    /// `@name`: the node holding the definition's name.
    Name,
    /// `@body`: the text before it is the symbol's detail.
    Body,
    /// `@parent`: the name of the type a method belongs to, when the method is
    /// defined outside it (Go receivers).
    Parent,
    /// `@scope`: a node that is not a symbol but hides every definition inside
    /// it (an anonymous function's body).
    Scope,
    /// `@transparent`: a node inside a `@scope` node that undoes it for its
    /// own contents (an immediately invoked function wrapping a module).
    Transparent,
    /// `@overload`: an overload signature (TypeScript); the next definition
    /// of the same name at the same level starts at its line.
    Overload,
}

/// A language's query with its capture roles resolved.
pub(crate) struct CompiledQuery {
    query: Query,
    roles: Vec<Role>,
    /// Indexed by node kind id: whether some pattern can start at a node of
    /// that kind. None: any kind can start a match.
    roots: Option<Vec<bool>>,
}

impl CompiledQuery {
    /// Whether some pattern may match starting at a node of this kind.
    fn may_start_at(&self, kind_id: u16) -> bool {
        self.roots
            .as_ref()
            .is_none_or(|roots| roots.get(usize::from(kind_id)).copied().unwrap_or(false))
    }
}

fn compile_query(lang: Language) -> Result<CompiledQuery, String> {
    let spec = lang.spec();
    let grammar = (spec.grammar)();
    let query = Query::new(&grammar, spec.query_source).map_err(|e| e.to_string())?;
    let mut roles = Vec::with_capacity(query.capture_names().len());
    for capture in query.capture_names() {
        let role = match capture.strip_prefix("definition.") {
            Some(kind) => Role::Definition(kind.parse::<Kind>()?),
            None => match *capture {
                "name" => Role::Name,
                "body" => Role::Body,
                "parent" => Role::Parent,
                "scope" => Role::Scope,
                "transparent" => Role::Transparent,
                "overload" => Role::Overload,
                _ => {
                    return Err(format!(
                        "unexpected capture @{capture} (expected @definition.<kind>, @name, \
                         @body, @parent, @scope, @transparent or @overload)"
                    ));
                }
            },
        };
        roles.push(role);
    }
    if !roles.iter().any(|r| matches!(r, Role::Definition(_))) {
        return Err("no @definition.<kind> capture".to_string());
    }
    if !roles.contains(&Role::Name) {
        return Err("no @name capture".to_string());
    }
    let roots = root_kinds(&grammar, &query, spec.query_source);
    Ok(CompiledQuery {
        query,
        roles,
        roots,
    })
}

/// A table, indexed by node kind id, of the kinds at which some pattern of
/// `query` can start: each pattern's first node, read from its text. None (a
/// match can start anywhere) when a pattern starts with a wildcard, a
/// supertype or anything [`read_root`] does not read.
fn root_kinds(grammar: &tree_sitter::Language, query: &Query, source: &str) -> Option<Vec<bool>> {
    let mut roots = Vec::new();
    for i in 0..query.pattern_count() {
        read_root(source.get(query.start_byte_for_pattern(i)..)?, &mut roots)?;
    }
    let mut table = vec![false; grammar.node_kind_count()];
    for (name, named) in roots {
        let mut found = false;
        for (id, slot) in table.iter_mut().enumerate() {
            let id = u16::try_from(id).ok()?;
            if grammar.node_kind_for_id(id) == Some(name) && grammar.node_kind_is_named(id) == named
            {
                if grammar.node_kind_is_supertype(id) {
                    return None;
                }
                *slot = true;
                found = true;
            }
        }
        if !found {
            return None;
        }
    }
    Some(table)
}

/// Read the pattern node at the start of `s`, adding the kinds (name,
/// named) it can start at to `roots`; the rest of the text after it. `(kind
/// ...)`, `"literal"` and alternations `[...]` of those are read; None for
/// anything else (`(_)`, `(supertype/kind)`, `(ERROR)`, a grouping `((a)
/// (b))`, ...).
fn read_root<'a>(s: &'a str, roots: &mut Vec<(&'a str, bool)>) -> Option<&'a str> {
    let s = skip_trivia(s);
    match s.as_bytes().first()? {
        b'(' => {
            let inner = s.get(1..)?;
            let end = inner
                .find(|c: char| c.is_whitespace() || "()[]\"@:/;".contains(c))
                .unwrap_or(inner.len());
            let name = inner.get(..end)?;
            if name.is_empty()
                || name == "_"
                || name == "ERROR"
                || name == "MISSING"
                || inner.get(end..)?.starts_with('/')
            {
                return None;
            }
            roots.push((name, true));
            skip_balanced(s)
        }
        b'"' => {
            let inner = s.get(1..)?;
            let end = inner.find(['"', '\\'])?;
            if !inner.get(end..)?.starts_with('"') {
                return None; // an escape: not worth reading
            }
            roots.push((inner.get(..end)?, false));
            inner.get(end + 1..)
        }
        b'[' => {
            let mut rest = s.get(1..)?;
            loop {
                rest = skip_trivia(rest);
                if let Some(after) = rest.strip_prefix(']') {
                    return Some(after);
                }
                rest = skip_suffixes(read_root(rest, roots)?);
            }
        }
        _ => None,
    }
}

/// `s` without leading whitespace and `;` comments.
fn skip_trivia(mut s: &str) -> &str {
    loop {
        s = s.trim_start();
        match s.strip_prefix(';') {
            Some(comment) => s = comment.find('\n').map_or("", |i| &comment[i..]),
            None => return s,
        }
    }
}

/// `s` without the captures (`@name`) and quantifiers after a pattern node.
fn skip_suffixes(mut s: &str) -> &str {
    loop {
        s = skip_trivia(s);
        if let Some(capture) = s.strip_prefix('@') {
            let end = capture
                .find(|c: char| !(c.is_alphanumeric() || "_.-".contains(c)))
                .unwrap_or(capture.len());
            s = &capture[end..];
        } else if let Some(rest) = s.strip_prefix(['?', '*', '+']) {
            s = rest;
        } else {
            return s;
        }
    }
}

/// The text after the parenthesized or bracketed group `s` starts with
/// (strings and comments inside it skipped); None if it is not closed.
fn skip_balanced(s: &str) -> Option<&str> {
    let mut depth = 0usize;
    let mut chars = s.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return s.get(i + 1..);
                }
            }
            '"' => loop {
                match chars.next()?.1 {
                    '\\' => {
                        chars.next()?;
                    }
                    '"' => break,
                    _ => {}
                }
            },
            ';' => while chars.next()?.1 != '\n' {},
            _ => {}
        }
    }
    None
}

/// The language's compiled query, built once per process on first use.
fn compiled_query(lang: Language) -> Result<&'static CompiledQuery, OutlineError> {
    let spec = lang.spec();
    spec.compiled
        .get_or_init(|| compile_query(lang))
        .as_ref()
        .map_err(|message| OutlineError::Query {
            language: spec.name,
            file: spec.query_files.join(" + "),
            message: message.clone(),
        })
}

/// Load the language's grammar and compile its outline query (once per
/// process), reporting any problem. [`outline`] does this on first use; this
/// lets a caller or a test check every language up front.
pub fn check_language(lang: Language) -> Result<(), OutlineError> {
    compiled_query(lang)?;
    Parser::new()
        .set_language(&(lang.spec().grammar)())
        .map_err(|e| OutlineError::Grammar {
            language: lang.name(),
            message: e.to_string(),
        })
}

/// Extract the outline of `source` with the default [`Options`] (a 100 ms
/// budget). Never panics; a source with syntax errors gives a best-effort
/// outline with `syntax_errors` set.
pub fn outline(source: &str, lang: Language) -> Result<Outline, OutlineError> {
    outline_with(source, lang, &Options::default())
}

/// Outlines kept for repeated requests, keyed by language, options and a
/// hash of the content.
static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(|| Mutex::new(Cache::default()));

/// At most this many outlines are cached; the oldest is dropped first.
const CACHE_ENTRIES: usize = 64;

#[derive(Default)]
struct Cache {
    entries: VecDeque<(CacheKey, Arc<Cached>)>,
    hits: u64,
}

/// An outline as the cache keeps it: the symbols' strings in one buffer, so
/// keeping (and later evicting) it costs a few allocations rather than up to
/// three per symbol (cloning the `Outline` cost 2% of outlining 1 MB).
struct Cached {
    /// The outline without its symbols.
    outline: Outline,
    symbols: Vec<CachedSymbol>,
    strings: String,
}

/// A [`Symbol`] with its strings as ranges of [`Cached::strings`].
struct CachedSymbol {
    kind: Kind,
    name: std::ops::Range<usize>,
    line: usize,
    end_line: usize,
    depth: usize,
    parent: Option<std::ops::Range<usize>>,
    detail: Option<std::ops::Range<usize>>,
}

impl Cached {
    fn new(o: &Outline) -> Cached {
        let len = o
            .symbols
            .iter()
            .map(|s| {
                s.name.len()
                    + s.parent.as_ref().map_or(0, String::len)
                    + s.detail.as_ref().map_or(0, String::len)
            })
            .sum();
        let mut strings = String::with_capacity(len);
        let mut keep = |s: &str| {
            let start = strings.len();
            strings.push_str(s);
            start..strings.len()
        };
        let symbols = o
            .symbols
            .iter()
            .map(|s| CachedSymbol {
                kind: s.kind,
                name: keep(&s.name),
                line: s.line,
                end_line: s.end_line,
                depth: s.depth,
                parent: s.parent.as_deref().map(&mut keep),
                detail: s.detail.as_deref().map(&mut keep),
            })
            .collect();
        Cached {
            outline: Outline {
                symbols: Vec::new(),
                ..*o
            },
            symbols,
            strings,
        }
    }

    fn outline(&self) -> Outline {
        let text = |r: &std::ops::Range<usize>| {
            self.strings.get(r.clone()).unwrap_or_default().to_string()
        };
        Outline {
            symbols: self
                .symbols
                .iter()
                .map(|s| Symbol {
                    kind: s.kind,
                    name: text(&s.name),
                    line: s.line,
                    end_line: s.end_line,
                    depth: s.depth,
                    parent: s.parent.as_ref().map(text),
                    detail: s.detail.as_ref().map(text),
                })
                .collect(),
            ..self.outline
        }
    }
}

#[derive(Clone, PartialEq, Eq)]
struct CacheKey {
    lang: Language,
    options: Options,
    len: usize,
    hash: u64,
}

fn cache_key(source: &str, lang: Language, options: &Options) -> CacheKey {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    source.hash(&mut h);
    CacheKey {
        lang,
        options: *options,
        len: source.len(),
        hash: h.finish(),
    }
}

/// How many outlines were served from the cache in this process.
pub fn cache_hits() -> u64 {
    CACHE.lock().map_or(0, |c| c.hits)
}

/// Extract the outline of `source` within `options`' limits. Repeated calls
/// with the same content, language and options return the cached outline.
pub fn outline_with(
    source: &str,
    lang: Language,
    options: &Options,
) -> Result<Outline, OutlineError> {
    let key = cache_key(source, lang, options);
    if let Ok(mut cache) = CACHE.lock()
        && let Some(found) = cache
            .entries
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, o)| Arc::clone(o))
    {
        cache.hits += 1;
        drop(cache);
        return Ok(found.outline());
    }
    let o = compute(source, lang, options)?;
    // A time-limited partial outline depends on the machine's speed at the
    // moment: only complete or size-capped outlines are reproducible.
    if o.stopped_by != Some(Stop::TimeBudget) {
        let cached = Arc::new(Cached::new(&o));
        if let Ok(mut cache) = CACHE.lock() {
            if cache.entries.len() >= CACHE_ENTRIES {
                cache.entries.pop_front();
            }
            cache.entries.push_back((key, cached));
        }
    }
    Ok(o)
}

/// Share of the budget the first, whole-source attempt may use; the rest is
/// for a prefix sized by the speed the first attempt showed.
const FIRST_TRY_SHARE: f64 = 0.5;

fn compute(source: &str, lang: Language, options: &Options) -> Result<Outline, OutlineError> {
    let language = lang.name();
    let compiled = compiled_query(lang)?;
    let start = Instant::now();
    let mut parser = KeptParser::take(lang)?;
    let parser = parser.get();
    let lines = count_lines(source);
    let mut stopped_by = None;
    let mut end = source.len();
    if end > options.max_bytes {
        end = top_level_boundary(source, options.max_bytes);
        stopped_by = Some(Stop::SizeCap);
    }
    let first_deadline = options.budget.map(|b| start + b.mul_f64(FIRST_TRY_SHARE));
    // A source up to `always_bytes` is outlined whole, without a deadline.
    let first_deadline = first_deadline.filter(|_| end > options.always_bytes);
    let tree = match parse_until(parser, &source[..end], first_deadline) {
        Parsed::Tree(tree) => Some(tree),
        Parsed::Failed => return Err(OutlineError::Parse { language }),
        Parsed::Stopped { reached } => {
            // Size the prefix by the speed seen so far, leaving room for the
            // query, and cut it at a top-level boundary.
            let elapsed = start.elapsed().as_secs_f64().max(1e-6);
            let left = options
                .budget
                .map_or(0.0, |b| b.as_secs_f64() - elapsed)
                .max(0.0);
            let rate = reached as f64 / elapsed;
            let want = (rate * left * 0.5) as usize;
            stopped_by = Some(Stop::TimeBudget);
            parser.reset();
            end = top_level_boundary(source, want.min(end));
            let deadline = options.budget.map(|b| start + b);
            match parse_until(parser, &source[..end], deadline) {
                Parsed::Tree(tree) => Some(tree),
                Parsed::Failed => return Err(OutlineError::Parse { language }),
                Parsed::Stopped { reached } => {
                    // The machine slowed down: outline half of what the
                    // parser got through in time, whatever it takes.
                    parser.reset();
                    end = top_level_boundary(source, reached / 2);
                    match parse_until(parser, &source[..end], None) {
                        Parsed::Tree(tree) => Some(tree),
                        _ => None,
                    }
                }
            }
        }
    };
    let Some(tree) = tree else {
        return Ok(Outline {
            language,
            lines,
            partial: true,
            covered_lines: 0,
            stopped_by,
            syntax_errors: false,
            symbols: Vec::new(),
        });
    };
    let prefix = &source[..end];
    let root = tree.root_node();
    let defs = collect(compiled, root, prefix);
    let covered_lines = if end == source.len() {
        lines
    } else {
        // The prefix ends at a line start: its lines are whole.
        count_lines(prefix)
    };
    Ok(Outline {
        language,
        lines,
        partial: covered_lines < lines,
        covered_lines,
        stopped_by: if covered_lines < lines {
            stopped_by
        } else {
            None
        },
        syntax_errors: root.has_error(),
        symbols: nest(defs, lang.spec().module_methods),
    })
}

thread_local! {
    /// This thread's parser, kept from one outline to the next with the
    /// language it is set to, so an outline parses with the same work as a
    /// bare parse with a parser at hand (creating and freeing one per outline
    /// showed as up to 5% of outlining 1 MB, much of it glibc consolidating
    /// the chunks the tree freed).
    static PARSER: RefCell<Option<(Language, Parser)>> = const { RefCell::new(None) };
}

/// This thread's kept parser (or a new one) set to a language, put back
/// when dropped.
struct KeptParser {
    lang: Language,
    parser: Option<Parser>,
}

impl KeptParser {
    fn take(lang: Language) -> Result<KeptParser, OutlineError> {
        let kept = PARSER
            .try_with(|p| p.try_borrow_mut().ok().and_then(|mut p| p.take()))
            .ok()
            .flatten();
        let parser = match kept {
            Some((kept_lang, mut parser)) if kept_lang == lang => {
                parser.reset();
                parser
            }
            kept => {
                let mut parser = kept.map_or_else(Parser::new, |(_, p)| p);
                parser.reset();
                parser.set_language(&(lang.spec().grammar)()).map_err(|e| {
                    OutlineError::Grammar {
                        language: lang.name(),
                        message: e.to_string(),
                    }
                })?;
                parser
            }
        };
        Ok(KeptParser {
            lang,
            parser: Some(parser),
        })
    }

    fn get(&mut self) -> &mut Parser {
        self.parser.get_or_insert_with(Parser::new)
    }
}

impl Drop for KeptParser {
    fn drop(&mut self) {
        if let Some(parser) = self.parser.take() {
            let _ = PARSER.try_with(|p| {
                if let Ok(mut p) = p.try_borrow_mut() {
                    *p = Some((self.lang, parser));
                }
            });
        }
    }
}

enum Parsed {
    Tree(tree_sitter::Tree),
    /// The deadline passed after the parser had read this many bytes.
    Stopped {
        reached: usize,
    },
    Failed,
}

/// Parse `text`, giving up at `deadline`.
fn parse_until(parser: &mut Parser, text: &str, deadline: Option<Instant>) -> Parsed {
    let bytes = text.as_bytes();
    let mut reached = 0usize;
    let mut stopped = false;
    let mut progress = |state: &tree_sitter::ParseState| {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            reached = state.current_byte_offset();
            stopped = true;
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    let options = ParseOptions::new().progress_callback(&mut progress);
    let tree = parser.parse_with_options(
        &mut |i, _| bytes.get(i..).unwrap_or(&[]),
        None,
        Some(options),
    );
    match tree {
        Some(tree) => Parsed::Tree(tree),
        None if stopped => Parsed::Stopped { reached },
        None => Parsed::Failed,
    }
}

/// A byte offset at most `limit` where a top-level construct starts: the
/// start of a line at column 0 that does not close a block, preferably after
/// a blank line. Definitions before it are whole.
pub fn top_level_boundary(source: &str, limit: usize) -> usize {
    if limit >= source.len() {
        return source.len();
    }
    let bytes = source.as_bytes();
    // Line starts at or before `limit`, scanning backwards.
    let line_start_before = |mut i: usize| {
        while i > 0 && bytes.get(i - 1) != Some(&b'\n') {
            i -= 1;
        }
        i
    };
    let opens_top_level = |i: usize| {
        bytes
            .get(i)
            .is_some_and(|&b| !b.is_ascii_whitespace() && !matches!(b, b'}' | b')' | b']'))
    };
    let previous_blank = |i: usize| {
        if i == 0 {
            return true;
        }
        let p = line_start_before(i - 1);
        bytes
            .get(p..i)
            .is_some_and(|l| l.iter().all(u8::is_ascii_whitespace))
    };
    let first = line_start_before(limit);
    // Look back at most 1 MiB for a line start after a blank line, then for
    // any column-0 line start.
    let floor = first.saturating_sub(1 << 20);
    let mut fallback = None;
    let mut i = first;
    loop {
        if opens_top_level(i) {
            if previous_blank(i) {
                return i;
            }
            fallback.get_or_insert(i);
        }
        if i <= floor || i == 0 {
            break;
        }
        i = line_start_before(i - 1);
    }
    fallback.unwrap_or(first)
}

fn count_lines(source: &str) -> usize {
    let newlines = memchr::memchr_iter(b'\n', source.as_bytes()).count();
    if source.is_empty() || source.ends_with('\n') {
        newlines
    } else {
        newlines + 1
    }
}

/// What a captured node is, before nesting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum DefKind {
    Symbol(Kind),
    /// Hides what is inside; not shown.
    Scope,
    /// Undoes an enclosing scope for what is inside; not shown.
    Transparent,
    /// An overload signature: lends its line to the next definition of the
    /// same name; not shown.
    Overload,
}

impl DefKind {
    /// Whether the definitions inside this one are left out of the outline.
    fn hides(self) -> bool {
        match self {
            DefKind::Symbol(k) => !k.is_container(),
            DefKind::Scope => true,
            DefKind::Transparent | DefKind::Overload => false,
        }
    }
}

/// A captured definition, before nesting.
struct Def {
    kind: DefKind,
    name: String,
    start_byte: usize,
    end_byte: usize,
    line: usize,
    end_line: usize,
    detail: Option<String>,
    /// Explicit parent (a Go method's receiver type).
    parent: Option<String>,
    pattern: usize,
}

/// The definitions captured so far, by node id. Looked up once per node
/// walked, so keyed with a cheap hash of the id (an address).
type ByNode = HashMap<usize, Def, std::hash::BuildHasherDefault<NodeIdHasher>>;

/// Hashes a node id with one wide multiplication, folding the high half
/// into the low so every bit of the address counts.
#[derive(Default)]
struct NodeIdHasher(u64);

impl Hasher for NodeIdHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b) ^ self.0.rotate_left(8));
        }
    }

    fn write_u64(&mut self, n: u64) {
        let product = u128::from(n ^ self.0) * 0x9E37_79B9_7F4A_7C15;
        self.0 = (product as u64) ^ ((product >> 64) as u64);
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// One `Def` per captured node (the first pattern listed wins when several
/// match the same node), in source order, outer first.
///
/// Rather than running the query over the whole tree, walk the tree and run
/// it anchored at each node a pattern can start at, and do not descend into
/// a definition that hides its contents (a function, a constant, a scope):
/// what it holds would be dropped by [`nest`] anyway. The definitions kept
/// are the ones a query over the whole tree finds, less only hidden ones.
fn collect(compiled: &CompiledQuery, root: Node<'_>, source: &str) -> Vec<Def> {
    let mut cursor = QueryCursor::new();
    // Matches starting at the node the query runs on, not below it.
    cursor.set_max_start_depth(Some(0));
    let mut by_node = ByNode::default();
    let mut walk = root.walk();
    'walk: loop {
        let node = walk.node();
        if compiled.may_start_at(node.kind_id()) {
            let mut matches = cursor.matches(&compiled.query, node, source.as_bytes());
            while let Some(m) = matches.next() {
                record(compiled, m, source, &mut by_node);
            }
        }
        // Every match capturing this node started at it or above it, so its
        // definition is known. A type alias whose text starts at its name
        // hides only what follows it: descend. A comment (an extra node:
        // a doc comment has children) holds no definitions; an extra with
        // a syntax error may be a skipped token wrapping code: descend.
        let skip = (node.is_extra() && !node.has_error())
            || by_node
                .get(&node.id())
                .is_some_and(|d| d.kind.hides() && d.start_byte == node.start_byte());
        if !skip && walk.goto_first_child() {
            continue;
        }
        while !walk.goto_next_sibling() {
            if !walk.goto_parent() {
                break 'walk;
            }
        }
    }
    sorted(by_node)
}

/// The reference for [`collect`]: the query over the whole tree.
#[cfg(test)]
fn collect_whole_tree(compiled: &CompiledQuery, root: Node<'_>, source: &str) -> Vec<Def> {
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(&compiled.query, root, source.as_bytes());
    let mut by_node = ByNode::default();
    while let Some(m) = matches.next() {
        record(compiled, m, source, &mut by_node);
    }
    sorted(by_node)
}

/// Record the definition a match captures in `by_node`, unless an earlier
/// pattern already captured the same node.
fn record(
    compiled: &CompiledQuery,
    m: &tree_sitter::QueryMatch<'_, '_>,
    source: &str,
    by_node: &mut ByNode,
) {
    let mut def = None;
    let mut name = None;
    let mut body = None;
    let mut parent = None;
    for capture in m.captures() {
        match compiled.roles.get(capture.index as usize) {
            Some(Role::Definition(kind)) => def = Some((DefKind::Symbol(*kind), capture.node)),
            Some(Role::Scope) => def = Some((DefKind::Scope, capture.node)),
            Some(Role::Transparent) => def = Some((DefKind::Transparent, capture.node)),
            Some(Role::Overload) => def = Some((DefKind::Overload, capture.node)),
            Some(Role::Name) => name = Some(capture.node),
            Some(Role::Body) => body = Some(capture.node),
            Some(Role::Parent) => parent = Some(capture.node),
            None => {}
        }
    }
    let Some((kind, node)) = def else {
        return;
    };
    if by_node
        .get(&node.id())
        .is_some_and(|seen| seen.pattern <= m.pattern_index)
    {
        return;
    }
    if matches!(kind, DefKind::Symbol(_)) && name.is_none() {
        return;
    }
    let detail = body.and_then(|body| {
        let header = collapse_whitespace(text(source, node.start_byte(), body.start_byte()));
        (!header.is_empty()).then_some(header)
    });
    let name_text = name
        .map(|n| collapse_whitespace(text(source, n.start_byte(), n.end_byte())))
        .unwrap_or_default();
    // A type alias's own text starts at its name: a `typedef struct S
    // {...} T;` lists struct S and type T side by side, not S inside T.
    let start_byte = match (kind, name) {
        (DefKind::Symbol(Kind::Type), Some(n)) => n.start_byte().max(node.start_byte()),
        _ => node.start_byte(),
    };
    let def = Def {
        kind,
        name: name_text,
        start_byte,
        end_byte: node.end_byte(),
        line: name.map_or(node.start_position().row, |n| n.start_position().row) + 1,
        end_line: last_line(node),
        detail,
        parent: parent
            .map(|p| collapse_whitespace(text(source, p.start_byte(), p.end_byte())))
            .filter(|p| !p.is_empty()),
        pattern: m.pattern_index,
    };
    by_node.insert(node.id(), def);
}

/// The definitions in source order, outer first.
fn sorted(by_node: ByNode) -> Vec<Def> {
    let mut defs: Vec<Def> = by_node.into_values().collect();
    defs.sort_by(|a, b| {
        a.start_byte
            .cmp(&b.start_byte)
            .then(b.end_byte.cmp(&a.end_byte))
            .then(a.line.cmp(&b.line))
    });
    defs
}

/// `source[start..end]`, or "" if that is not a valid range.
fn text(source: &str, start: usize, end: usize) -> &str {
    source.get(start..end).unwrap_or("")
}

fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// 1-based last line of a definition: the end of its last descendant that is
/// not a comment (an "extra"), so a comment trailing a Python block does not
/// extend it; a node ending at column 0 ends on the previous line.
fn last_line(node: Node<'_>) -> usize {
    let start_row = node.start_position().row;
    let mut last = node;
    loop {
        let mut next = None;
        for i in (0..last.child_count()).rev() {
            let Some(child) = last.child(i) else {
                continue;
            };
            if !child.is_extra() && child.end_byte() > child.start_byte() {
                next = Some(child);
                break;
            }
        }
        match next {
            Some(child) => last = child,
            None => break,
        }
    }
    let end = last.end_position();
    let row = if end.column == 0 && end.row > start_row {
        end.row - 1
    } else {
        end.row
    };
    row + 1
}

/// The containment pass: drop definitions inside non-containers (and inside
/// scopes), turn functions directly inside classes/impls/traits into
/// methods, and compute depth and parent.
fn nest(defs: Vec<Def>, module_methods: bool) -> Vec<Symbol> {
    struct Frame {
        start_byte: usize,
        end_byte: usize,
        kind: DefKind,
        symbol: Option<usize>,
    }
    let mut symbols: Vec<Symbol> = Vec::with_capacity(defs.len());
    let mut stack: Vec<Frame> = Vec::new();
    // The first overload signature of a run: (name, line, enclosing frames).
    let mut overload: Option<(String, usize, usize)> = None;
    for def in defs {
        while stack
            .last()
            .is_some_and(|top| !(top.start_byte <= def.start_byte && def.end_byte <= top.end_byte))
        {
            stack.pop();
        }
        // The innermost frame that decides: a transparent frame lifts the
        // scopes around it.
        if stack.last().is_some_and(|f| f.kind.hides()) {
            continue;
        }
        let container = stack.iter().rev().find_map(|f| match f.kind {
            DefKind::Symbol(k) => Some(k),
            _ => None,
        });
        let parent = stack.iter().rev().find_map(|f| f.symbol);
        let kind = match def.kind {
            DefKind::Symbol(kind) => kind,
            DefKind::Overload => {
                if !overload
                    .as_ref()
                    .is_some_and(|(n, _, d)| *n == def.name && *d == stack.len())
                {
                    overload = Some((def.name, def.line, stack.len()));
                }
                continue;
            }
            other => {
                stack.push(Frame {
                    start_byte: def.start_byte,
                    end_byte: def.end_byte,
                    kind: other,
                    symbol: None,
                });
                continue;
            }
        };
        let kind = match (kind, container) {
            (Kind::Function, Some(c)) if c.has_methods() || module_methods && c == Kind::Module => {
                Kind::Method
            }
            (kind, _) => kind,
        };
        let depth = stack.iter().filter(|f| f.symbol.is_some()).count();
        let line = match overload.take() {
            Some((n, line, d)) if n == def.name && d == stack.len() => line,
            _ => def.line,
        };
        let mut name = def.name;
        let mut parent_name = parent.and_then(|i| symbols.get(i)).map(|p| p.name.clone());
        let mut kind = kind;
        if parent_name.is_none() {
            if let Some(p) = def.parent {
                // A method defined outside its type (Go receivers).
                parent_name = Some(p);
            } else if kind == Kind::Function
                && let Some((scope, last)) = split_qualified(&name)
            {
                // `void Server::serve() {}` (C++): a method of Server.
                parent_name = Some(scope.to_string());
                kind = Kind::Method;
                name = last.to_string();
            }
        }
        // A definition whose name is missing (syntax error) still counts for
        // nesting but is not shown.
        let symbol = if name.is_empty() {
            None
        } else {
            symbols.push(Symbol {
                kind,
                name,
                line,
                end_line: def.end_line.max(line),
                depth,
                parent: parent_name,
                detail: def.detail,
            });
            Some(symbols.len() - 1)
        };
        stack.push(Frame {
            start_byte: def.start_byte,
            end_byte: def.end_byte,
            kind: DefKind::Symbol(kind),
            symbol,
        });
    }
    symbols
}

/// `a::B::c` -> (`a::B`, `c`), splitting at the last `::` outside template
/// arguments; None when there is no such `::` or a side would be empty.
fn split_qualified(name: &str) -> Option<(&str, &str)> {
    let mut depth = 0i32;
    let mut split = None;
    let bytes = name.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b':' if depth == 0 && bytes.get(i + 1) == Some(&b':') => {
                split = Some(i);
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    let i = split?;
    let (scope, last) = (name.get(..i)?.trim(), name.get(i + 2..)?.trim());
    (!scope.is_empty() && !last.is_empty()).then_some((scope, last))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (kind, name, line, end_line, depth, parent) of a symbol.
    #[cfg(any(feature = "lang-rust", feature = "lang-python"))]
    type Row<'a> = (Kind, &'a str, usize, usize, usize, Option<&'a str>);

    #[cfg(any(feature = "lang-rust", feature = "lang-python"))]
    fn rows(outline: &Outline) -> Vec<Row<'_>> {
        outline
            .symbols
            .iter()
            .map(|s| {
                (
                    s.kind,
                    s.name.as_str(),
                    s.line,
                    s.end_line,
                    s.depth,
                    s.parent.as_deref(),
                )
            })
            .collect()
    }

    #[cfg(any(feature = "lang-rust", feature = "lang-python"))]
    fn assert_rows(outline: &Outline, expected: &[Row<'_>]) {
        let got = rows(outline);
        assert_eq!(got, expected, "\nsymbols: {:#?}", outline.symbols);
    }

    #[cfg(feature = "lang-python")]
    mod python {
        use super::*;
        use Kind::*;

        fn py(source: &str) -> Outline {
            outline(source, Language::Python).expect("python outline")
        }

        #[test]
        fn decorated_and_async_defs_use_the_def_line() {
            let o = py(r#"import functools


@functools.cache
@other(
    arg,
)
def cached(x):
    return x


async def fetch(url):
    return url


@decorator
async def both():
    pass


@dataclass
class Point:
    x: int

    @property
    def norm(self):
        return 0

    @staticmethod
    async def make():
        pass
"#);
            assert_eq!(o.language, "python");
            assert_eq!(o.lines, 31);
            assert!(!o.partial && !o.syntax_errors);
            assert_rows(
                &o,
                &[
                    (Function, "cached", 8, 9, 0, None),
                    (Function, "fetch", 12, 13, 0, None),
                    (Function, "both", 17, 18, 0, None),
                    (Class, "Point", 22, 31, 0, None),
                    (Method, "norm", 26, 27, 1, Some("Point")),
                    (Method, "make", 30, 31, 1, Some("Point")),
                ],
            );
            assert!(o.symbols.iter().all(|s| s.detail.is_none()));
        }

        #[test]
        fn defs_under_module_and_class_level_blocks() {
            let o = py(r#"from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from os import PathLike

    class Proto:
        def meth(self): ...
else:
    def fallback():
        pass

try:
    from _fast import speedup
except ImportError:
    def speedup(x):
        return x
finally:
    pass


class Compat:
    if sys.version_info >= (3, 12):
        def new(self):
            pass
    else:
        def old(self):
            pass

    try:
        import json
    except ImportError:
        class Json:
            def loads(self, s):
                pass

    with suppress(Exception):
        def guarded(self):
            pass

    for _name in ("a", "b"):
        def looped(self):
            pass
"#);
            assert_rows(
                &o,
                &[
                    (Class, "Proto", 6, 7, 0, None),
                    (Method, "meth", 7, 7, 1, Some("Proto")),
                    (Function, "fallback", 9, 10, 0, None),
                    (Function, "speedup", 15, 16, 0, None),
                    (Class, "Compat", 21, 42, 0, None),
                    (Method, "new", 23, 24, 1, Some("Compat")),
                    (Method, "old", 26, 27, 1, Some("Compat")),
                    (Class, "Json", 32, 34, 1, Some("Compat")),
                    (Method, "loads", 33, 34, 2, Some("Json")),
                    (Method, "guarded", 37, 38, 1, Some("Compat")),
                    (Method, "looped", 41, 42, 1, Some("Compat")),
                ],
            );
        }

        #[test]
        fn defs_inside_function_bodies_are_excluded() {
            let o = py(r#"def outer():
    def inner():
        class Hidden:
            def deep(self):
                pass
    if True:
        def conditional():
            pass
    return inner


class C:
    def method(self):
        def helper():
            pass
        class Local:
            pass
        return helper
"#);
            assert_rows(
                &o,
                &[
                    (Function, "outer", 1, 9, 0, None),
                    (Class, "C", 12, 18, 0, None),
                    (Method, "method", 13, 18, 1, Some("C")),
                ],
            );
        }

        #[test]
        fn trailing_comments_do_not_extend_end_line() {
            let o = py(r#"class A:
    def f(self):
        return 1
        # a comment indented like the body

    # a comment at class-body level


# module-level comment
def g(): pass  # same line
"#);
            assert_rows(
                &o,
                &[
                    (Class, "A", 1, 3, 0, None),
                    (Method, "f", 2, 3, 1, Some("A")),
                    (Function, "g", 10, 10, 0, None),
                ],
            );
        }

        #[test]
        fn syntax_errors_give_a_partial_best_effort_outline() {
            let o = py(
                "class Ok:\n    def fine(self):\n        pass\n\ndef broken(:\n    pass\n\ndef after():\n    pass\n",
            );
            assert!(o.syntax_errors);
            assert!(!o.partial, "syntax errors do not make the outline partial");
            assert_eq!(o.covered_lines, 9);
            let names: Vec<&str> = o.symbols.iter().map(|s| s.name.as_str()).collect();
            assert!(names.contains(&"Ok"), "{names:?}");
            assert!(names.contains(&"fine"), "{names:?}");
            assert!(names.contains(&"after"), "{names:?}");
        }

        #[test]
        fn serializes_to_the_documented_json() {
            let o = py("class A:\n    def f(self):\n        pass\n");
            let json = serde_json::to_value(&o).unwrap();
            assert_eq!(
                json,
                serde_json::json!({
                    "language": "python",
                    "lines": 3,
                    "partial": false,
                    "covered_lines": 3,
                    "stopped_by": null,
                    "syntax_errors": false,
                    "symbols": [
                        {"kind": "class", "name": "A", "line": 1, "end_line": 3, "depth": 0, "parent": null},
                        {"kind": "method", "name": "f", "line": 2, "end_line": 3, "depth": 1, "parent": "A"},
                    ],
                })
            );
        }
    }

    #[cfg(feature = "lang-rust")]
    mod rust {
        use super::*;
        use Kind::*;

        fn rs(source: &str) -> Outline {
            outline(source, Language::Rust).expect("rust outline")
        }

        fn details(outline: &Outline) -> Vec<(&str, Option<&str>)> {
            outline
                .symbols
                .iter()
                .map(|s| (s.name.as_str(), s.detail.as_deref()))
                .collect()
        }

        #[test]
        fn impl_blocks_are_named_by_their_type() {
            let o = rs(r#"use std::fmt;

/// A foo.
#[derive(Debug)]
pub struct Foo<T> {
    x: T,
}

impl fmt::Display for Foo<u8> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "foo")
    }
}

impl<T: Clone>
    Foo<T>
{
    pub const N: usize = 3;

    #[inline]
    pub fn new(x: T) -> Self {
        Self { x }
    }
}

unsafe impl<'a, T> Send for &'a [T] {}
impl<T> std::ops::Deref for crate::a::Bar<T> {}
"#);
            assert_rows(
                &o,
                &[
                    (Struct, "Foo", 5, 7, 0, None),
                    (Impl, "Foo", 9, 13, 0, None),
                    (Method, "fmt", 10, 12, 1, Some("Foo")),
                    (Impl, "Foo", 16, 24, 0, None), // the line of its name
                    (Constant, "N", 18, 18, 1, Some("Foo")),
                    (Method, "new", 21, 23, 1, Some("Foo")),
                    (Impl, "&'a [T]", 26, 26, 0, None),
                    (Impl, "Bar", 27, 27, 0, None),
                ],
            );
            assert_eq!(
                details(&o),
                [
                    ("Foo", None),
                    ("Foo", Some("impl fmt::Display for Foo<u8>")),
                    ("fmt", None),
                    ("Foo", Some("impl<T: Clone> Foo<T>")),
                    ("N", None),
                    ("new", None),
                    ("&'a [T]", Some("unsafe impl<'a, T> Send for &'a [T]")),
                    ("Bar", Some("impl<T> std::ops::Deref for crate::a::Bar<T>")),
                ]
            );
        }

        #[test]
        fn trait_items_are_methods_types_and_constants() {
            let o = rs(r#"pub trait Shape: Sized {
    type Item;
    const SIDES: u32;

    fn area(&self) -> f64;

    fn name(&self) -> &str {
        "shape"
    }
}

impl Shape for Square {
    type Item = u8;
    const SIDES: u32 = 4;
    fn area(&self) -> f64 { 1.0 }
}
"#);
            assert_rows(
                &o,
                &[
                    (Trait, "Shape", 1, 10, 0, None),
                    (Type, "Item", 2, 2, 1, Some("Shape")),
                    (Constant, "SIDES", 3, 3, 1, Some("Shape")),
                    (Method, "area", 5, 5, 1, Some("Shape")),
                    (Method, "name", 7, 9, 1, Some("Shape")),
                    (Impl, "Square", 12, 16, 0, None),
                    (Type, "Item", 13, 13, 1, Some("Square")),
                    (Constant, "SIDES", 14, 14, 1, Some("Square")),
                    (Method, "area", 15, 15, 1, Some("Square")),
                ],
            );
        }

        #[test]
        fn modules_macros_constants_types_unions() {
            let o = rs(r#"mod declared;

pub mod inner {
    pub enum E {
        A,
        B,
    }

    pub union U {
        a: u32,
        b: f32,
    }

    static COUNTER: AtomicUsize = AtomicUsize::new(0);

    #[macro_export]
    macro_rules! square {
        ($x:expr) => {
            $x * $x
        };
    }

    mod deeper {
        pub fn f() {}
    }
}

pub const MAX: usize = 10;
pub type Alias<T> = Vec<T>;
"#);
            assert_rows(
                &o,
                &[
                    (Module, "declared", 1, 1, 0, None),
                    (Module, "inner", 3, 26, 0, None),
                    (Enum, "E", 4, 7, 1, Some("inner")),
                    (Union, "U", 9, 12, 1, Some("inner")),
                    (Constant, "COUNTER", 14, 14, 1, Some("inner")),
                    (Macro, "square", 17, 21, 1, Some("inner")),
                    (Module, "deeper", 23, 25, 1, Some("inner")),
                    (Function, "f", 24, 24, 2, Some("deeper")),
                    (Constant, "MAX", 28, 28, 0, None),
                    (Type, "Alias", 29, 29, 0, None),
                ],
            );
        }

        #[test]
        fn items_inside_function_bodies_are_excluded() {
            let o = rs(r#"fn main() {
    fn helper() {}
    struct Local;
    impl Local {
        fn method(&self) {}
    }
    const X: u8 = 1;
    macro_rules! local { () => {} }
}

impl Foo {
    fn run(&self) {
        fn nested() {}
    }
}

const _: () = {
    fn hidden() {}
};
"#);
            assert_rows(
                &o,
                &[
                    (Function, "main", 1, 9, 0, None),
                    (Impl, "Foo", 11, 15, 0, None),
                    (Method, "run", 12, 14, 1, Some("Foo")),
                    (Constant, "_", 17, 19, 0, None),
                ],
            );
        }

        #[test]
        fn the_cache_gives_back_the_same_outline() {
            let source =
                "impl<T> fmt::Display for Foo<T> {\n    fn fmt(&self) {}\n}\nmod é { fn ü() {} }\n";
            let first = rs(source);
            assert!(first.symbols.iter().any(|s| s.detail.is_some()));
            assert!(first.symbols.iter().any(|s| s.parent.is_some()));
            assert_eq!(Cached::new(&first).outline(), first);
            let hits = cache_hits();
            assert_eq!(rs(source), first);
            assert!(cache_hits() > hits);
        }

        #[test]
        fn attributes_and_doc_comments_are_not_the_line() {
            let o = rs("/// Doc.\n#[test]\n#[ignore]\nfn t() {\n}\n");
            assert_rows(&o, &[(Function, "t", 4, 5, 0, None)]);
            assert_eq!(o.lines, 5);
        }

        #[test]
        fn syntax_errors_give_a_partial_best_effort_outline() {
            let o = rs("struct A;\nfn broken( {\n\nfn after() {}\nimpl A {\n    fn m(&self) {}\n");
            assert!(o.syntax_errors);
            assert!(!o.partial);
            let names: Vec<&str> = o.symbols.iter().map(|s| s.name.as_str()).collect();
            assert!(names.contains(&"A"), "{names:?}");
        }
    }

    /// The outline of `source` from [`collect`] and from the query over the
    /// whole tree ([`collect_whole_tree`]), for the source and for cuts of it
    /// (syntax errors); a message on the first difference.
    fn compare_walk_with_whole_tree(lang: Language, source: &str) -> Result<usize, String> {
        let compiled = compiled_query(lang).map_err(|e| e.to_string())?;
        let mut parser = Parser::new();
        parser
            .set_language(&lang.grammar())
            .map_err(|e| e.to_string())?;
        let mut symbols = 0;
        let cuts = [source.len(), source.len() / 3, source.len() * 2 / 3];
        for cut in cuts {
            let Some(text) = (0..=cut).rev().find_map(|i| source.get(..i)) else {
                continue;
            };
            let tree = parser.parse(text, None).ok_or("no tree")?;
            let module_methods = lang.spec().module_methods;
            let walked = nest(collect(compiled, tree.root_node(), text), module_methods);
            let whole = nest(
                collect_whole_tree(compiled, tree.root_node(), text),
                module_methods,
            );
            if walked != whole {
                let i = walked
                    .iter()
                    .zip(&whole)
                    .position(|(a, b)| a != b)
                    .unwrap_or(walked.len().min(whole.len()));
                return Err(format!(
                    "{lang} (first {cut} bytes): {} symbols walking, {} querying the whole \
                     tree; first difference at {i}: {:?} vs {:?}",
                    walked.len(),
                    whole.len(),
                    walked.get(i),
                    whole.get(i)
                ));
            }
            symbols += walked.len();
        }
        Ok(symbols)
    }

    /// Source files under `dir` (recursively) in a language of this build,
    /// sorted, skipping files over 2 MB.
    fn sources_under(dir: &std::path::Path, out: &mut Vec<(Language, std::path::PathBuf)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut paths: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            if path.is_dir() {
                sources_under(&path, out);
            } else if let Some(lang) = path
                .extension()
                .and_then(|e| e.to_str())
                .and_then(Language::from_extension)
                && std::fs::metadata(&path).is_ok_and(|m| m.len() <= 2 << 20)
            {
                out.push((lang, path));
            }
        }
    }

    /// The walk that skips what hides its contents finds the same outline as
    /// the query over the whole tree: on the samples, the fixtures and this
    /// crate's sources, and on every source under the directories listed in
    /// `TOOLCAP_OUTLINE_DIFF_DIR` when set (`:`-separated, e.g. a checkout
    /// and `~/.cargo/registry/src`).
    #[test]
    fn walk_finds_what_the_whole_tree_query_finds() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        for dir in ["tests", "fixtures", "src", "benches"] {
            sources_under(&root.join(dir), &mut files);
        }
        if let Some(dirs) = std::env::var_os("TOOLCAP_OUTLINE_DIFF_DIR") {
            for dir in std::env::split_paths(&dirs) {
                sources_under(&dir, &mut files);
            }
        }
        let mut failures = Vec::new();
        let mut symbols = 0;
        for (lang, path) in &files {
            let Ok(bytes) = std::fs::read(path) else {
                continue;
            };
            let source = String::from_utf8_lossy(&bytes);
            match compare_walk_with_whole_tree(*lang, &source) {
                Ok(n) => symbols += n,
                Err(e) => failures.push(format!("{}: {e}", path.display())),
            }
        }
        eprintln!(
            "{} files, {symbols} symbols, {} differences",
            files.len(),
            failures.len()
        );
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        assert!(symbols > 0);
    }

    #[test]
    fn pattern_roots_are_read_from_the_query_text() {
        let mut roots = Vec::new();
        let rest = read_root(
            "; c\n[(a) @x (b name: (c)) \"lit\"]* @y\n(next)",
            &mut roots,
        );
        assert_eq!(roots, [("a", true), ("b", true), ("lit", false)]);
        assert_eq!(rest.map(str::trim_start), Some("* @y\n(next)"));
        let mut roots = Vec::new();
        assert_eq!(
            read_root("(f \")\" ; )\n (g)) rest", &mut roots),
            Some(" rest")
        );
        for wild in [
            "(_) @x",
            "((a) (b))",
            "(expression/identifier)",
            "(ERROR)",
            "_",
            "(a",
        ] {
            assert_eq!(read_root(wild, &mut Vec::new()), None, "{wild}");
        }
    }

    #[test]
    fn every_language_has_a_root_table() {
        for lang in Language::all() {
            let compiled = compiled_query(*lang).expect("query");
            assert!(
                compiled.roots.is_some(),
                "{lang}: every pattern start is read"
            );
        }
    }

    #[test]
    fn every_language_query_builds() {
        for lang in Language::all() {
            if let Err(e) = check_language(*lang) {
                panic!("{e}");
            }
        }
    }

    #[test]
    fn kind_names_round_trip() {
        for kind in Kind::ALL {
            assert_eq!(kind.as_str().parse::<Kind>(), Ok(kind));
            assert_eq!(
                serde_json::to_value(kind).unwrap(),
                serde_json::Value::String(kind.as_str().to_string())
            );
        }
    }

    #[test]
    fn count_lines_counts_last_unterminated_line() {
        assert_eq!(count_lines(""), 0);
        assert_eq!(count_lines("a"), 1);
        assert_eq!(count_lines("a\n"), 1);
        assert_eq!(count_lines("a\nb"), 2);
        assert_eq!(count_lines("\n\n"), 2);
    }
}
