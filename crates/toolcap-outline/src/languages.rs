//! The language table: the one place that knows each supported language's
//! name, aliases, file extensions, shebang interpreters, grammar, outline
//! query file, what the parser is given instead of the source
//! (`super::preprocess`), the lines that point at it when content is
//! sniffed (`super::detect`) and the lines only its code starts with
//! (`super::text`). Looking a language up by these is `super::lookup`.
//!
//! Every language is behind a cargo feature (`lang-rust`, `lang-python`, ...);
//! a build without the feature has no variant, no grammar and no query for it.

use std::borrow::Cow;
use std::sync::OnceLock;

#[cfg_attr(
    not(any(
        feature = "lang-c",
        feature = "lang-cpp",
        feature = "lang-csharp",
        feature = "lang-bash",
        feature = "lang-kotlin",
        feature = "lang-scala",
        feature = "lang-swift"
    )),
    allow(unused_imports)
)]
use super::OutlineError;
use super::query::{CompiledQuery, compile_query};

/// What the parser is given instead of a language's source (same length; see
/// `super::preprocess`).
pub(crate) type Preprocess = fn(&str) -> Cow<'_, str>;

/// How a language is sniffed from content without a file name (`super::detect`):
/// one row per language of the table, every language included (a build without
/// one still counts its lines, so they are not taken for another language's).
pub(crate) struct Sniff {
    /// [`Spec::name`].
    pub(crate) name: &'static str,
    /// Line patterns that point at the language; each counts once per line it
    /// matches.
    pub(crate) patterns: &'static [&'static str],
    /// A dialect of another language (TypeScript of JavaScript, C++ of C): the
    /// base's name and how many lines of its own it needs. With that many, the
    /// base's lines count for it too; with fewer, it is not a candidate. The two
    /// are never each other's runner-up.
    pub(crate) dialect_of: Option<(&'static str, usize)>,
    /// Lines at the left margin that only this language's code starts with
    /// (a Python `def`, a C `#include`): three of them in a text make it code,
    /// never Markdown whose headings are `#` comments (`super::text`).
    pub(crate) margin: &'static [&'static str],
}

/// Languages that are sniffed as code but have no outline (no grammar): their
/// code is not taken for text.
static SNIFF_ONLY: &[Sniff] = &[Sniff {
    name: "perl",
    patterns: &[],
    dialect_of: None,
    margin: &[
        r"^package\s+[\w:]+\s*;",
        r"^use\s+(strict|warnings|[\w:]+(\s+[^;]*)?)\s*;",
        r"^sub\s+\w+\s*\{?",
    ],
}];

/// Every row's sniffing: the language table's, built or not, then the
/// languages without an outline.
pub(crate) fn sniff_rows() -> impl Iterator<Item = &'static Sniff> {
    SNIFF.iter().chain(SNIFF_ONLY)
}

/// Everything known about one language.
pub(crate) struct Spec {
    pub(crate) language: Language,
    /// Canonical lowercase name, as shown in output.
    pub(crate) name: &'static str,
    /// Other names accepted by [`Language::from_name`].
    pub(crate) aliases: &'static [&'static str],
    /// File extensions without the dot, lowercase.
    pub(crate) extensions: &'static [&'static str],
    /// Shebang interpreter program names (basename, without version suffix
    /// where [`Language::from_interpreter`] can strip it).
    pub(crate) interpreters: &'static [&'static str],
    /// Paths of the outline query files, relative to `crates/toolcap-outline/src/` (for
    /// messages); their texts are concatenated in this order.
    pub(crate) query_files: &'static [&'static str],
    /// The outline query text (the files above, embedded).
    pub(crate) query_source: &'static str,
    /// The tree-sitter grammar.
    pub(crate) grammar: fn() -> tree_sitter::Language,
    /// A `def` directly inside a `module` is a method (Ruby: modules are mixins).
    pub(crate) module_methods: bool,
    /// What the parser is given instead of the source, if it needs a step.
    pub(crate) preprocess: Option<Preprocess>,
    /// The compiled query, built on first use (see `super::compiled_query`).
    pub(crate) compiled: OnceLock<Result<CompiledQuery, String>>,
}

/// `Some` of what is given, else `None` (an optional setting of a row).
macro_rules! optional {
    () => {
        None
    };
    ($x:expr) => {
        Some($x)
    };
}

/// Declares the language table: one row per language, each behind its cargo
/// feature. Generates the [`Language`] enum, one static [`Spec`] per row, the
/// table and the lookup from variant to row.
macro_rules! languages {
    ($(
        $(#[$doc:meta])*
        $variant:ident, $static:ident, feature = $feature:literal {
            name: $name:literal,
            aliases: [$($alias:literal),* $(,)?],
            extensions: [$($ext:literal),* $(,)?],
            interpreters: [$($interp:literal),* $(,)?],
            queries: [$($query:literal),+ $(,)?],
            grammar: $grammar:expr,
            $(module_methods: $mm:literal,)?
            $(preprocess: $pre:expr,)?
            sniff: [$($sniff:literal),* $(,)?],
            $(dialect_of: $base:literal needing $min:literal,)?
            $(margin: [$($margin:literal),* $(,)?],)?
        }
    )*) => {
        /// A language the outline can be extracted for. Each variant exists
        /// only when its cargo feature (`lang-<name>`) is enabled.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Language {
            $(
                #[doc = concat!("`", $name, "` (cargo feature `", $feature, "`).")]
                $(#[$doc])*
                #[cfg(feature = $feature)]
                $variant,
            )*
        }

        $(
            #[cfg(feature = $feature)]
            static $static: Spec = Spec {
                language: Language::$variant,
                name: $name,
                aliases: &[$($alias),*],
                extensions: &[$($ext),*],
                interpreters: &[$($interp),*],
                query_files: &[$(concat!("queries/", $query)),+],
                query_source: concat!($(include_str!(concat!("queries/", $query)), "\n"),+),
                grammar: || $grammar.into(),
                module_methods: false $(|| $mm)?,
                preprocess: optional!($($pre)?),
                compiled: OnceLock::new(),
            };
        )*

        /// Every row's sniffing, built or not, in table order.
        static SNIFF: &[Sniff] = &[
            $(
                Sniff {
                    name: $name,
                    patterns: &[$($sniff),*],
                    dialect_of: optional!($(($base, $min))?),
                    margin: &[$($($margin),*)?],
                },
            )*
        ];

        /// The table. Order is the order of [`Language::all`].
        pub(super) static SPECS: &[&Spec] = &[
            $(
                #[cfg(feature = $feature)]
                &$static,
            )*
        ];

        pub(super) static ALL: &[Language] = &[
            $(
                #[cfg(feature = $feature)]
                Language::$variant,
            )*
        ];

        impl Language {
            pub(crate) fn spec(self) -> &'static Spec {
                match self {
                    $(
                        #[cfg(feature = $feature)]
                        Language::$variant => &$static,
                    )*
                }
            }
        }
    };
}

languages! {
    Rust, RUST, feature = "lang-rust" {
        name: "rust",
        aliases: ["rs"],
        extensions: ["rs"],
        interpreters: ["rust-script", "run-cargo-script"],
        queries: ["rust.scm"],
        grammar: tree_sitter_rust::LANGUAGE,
        sniff: [
            r"^\s*(pub(\([\w:]+\))?\s+)?(async\s+)?(unsafe\s+)?fn \w",
            r"^\s*impl(<.*>)?\s",
            r"^\s*use [\w:{}, *]+;\s*$",
            r"^\s*#\[(derive|cfg|test)\b",
            r"^\s*(pub\s+)?mod \w+;",
            r"^\s*pub(\([\w:]+\))? (struct|enum|trait) ",
        ],
    }
    Python, PYTHON, feature = "lang-python" {
        name: "python",
        aliases: ["py", "python3", "python2", "py3"],
        extensions: ["py", "pyi", "pyw"],
        interpreters: ["python", "python3", "python2", "pypy", "pypy3"],
        queries: ["python.scm"],
        grammar: tree_sitter_python::LANGUAGE,
        sniff: [
            r"^(async\s+)?def \w+.*:\s*$",
            r"^\s+(async\s+)?def \w+\(.*:\s*$",
            r"^class \w+.*:\s*$",
            r"^(import \w[\w.]*(\s+as \w+)?\s*$|from [\w.]+ import )",
            r#"^if __name__ == ['"]__main__['"]:"#,
        ],
        margin: [
            r"^(async\s+)?def\s+\w+\s*\(",
            r"^class\s+\w+\s*[(:]",
            r"^import\s+[\w.]+(\s+as\s+\w+)?\s*(,\s*[\w.]+)*\s*$",
            r"^from\s+[\w.]+\s+import\s",
        ],
    }
    /// JavaScript, JSX included.
    JavaScript, JAVASCRIPT, feature = "lang-javascript" {
        name: "javascript",
        aliases: ["js", "jsx", "node", "ecmascript"],
        extensions: ["js", "jsx", "mjs", "cjs"],
        interpreters: ["node", "nodejs", "deno", "bun", "qjs"],
        queries: ["javascript.scm", "ecmascript.scm"],
        grammar: tree_sitter_javascript::LANGUAGE,
        sniff: [
            r"^(export )?(async )?function\*? \w+\(",
            r"^(const|let|var) \{?[\w, ]+\}? = require\(",
            r"^module\.exports\b",
            r#"^import .* from ['"]"#,
            r"^export (default )?(class|const|function|async)\b",
            r"^\s*(const|let) \w+ = (async )?\(.*\) =>",
        ],
    }
    TypeScript, TYPESCRIPT, feature = "lang-typescript" {
        name: "typescript",
        aliases: ["ts"],
        extensions: ["ts", "mts", "cts"],
        interpreters: ["ts-node", "tsx"],
        queries: ["typescript.scm", "ecmascript.scm"],
        grammar: tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
        sniff: [
            r"^(export )?(declare )?(interface|type) \w+.*[={]",
            r"^(export )?(abstract )?class \w+.* implements ",
            r"\w+\??: (string|number|boolean|void|unknown|any)\b[;,)=]",
            r"^(export )?enum \w+ \{",
        ],
        dialect_of: "javascript" needing 2,
    }
    /// TypeScript with JSX: its own grammar (JSX breaks the TypeScript one).
    Tsx, TSX, feature = "lang-typescript" {
        name: "tsx",
        aliases: ["typescriptreact"],
        extensions: ["tsx"],
        interpreters: [],
        queries: ["typescript.scm", "ecmascript.scm"],
        grammar: tree_sitter_typescript::LANGUAGE_TSX,
        sniff: [],
    }
    Go, GO, feature = "lang-go" {
        name: "go",
        aliases: ["golang"],
        extensions: ["go"],
        interpreters: ["gorun"],
        queries: ["go.scm"],
        grammar: tree_sitter_go::LANGUAGE,
        sniff: [
            r"^package \w+\s*$",
            r"^func (\(\w+ \*?[\w\[\]]+\) )?\w+(\[.*\])?\(",
            r"^import \($",
            r"^\s+\w+(, \w+)* := ",
            r"^type \w+ (struct|interface) \{",
        ],
    }
    Java, JAVA, feature = "lang-java" {
        name: "java",
        aliases: [],
        extensions: ["java"],
        interpreters: ["java", "jshell"],
        queries: ["java.scm"],
        grammar: tree_sitter_java::LANGUAGE,
        sniff: [
            r"^package [\w.]+;\s*$",
            r"^import (static )?[\w.]+(\.\*)?;\s*$",
            r"^\s*(public |private |protected )?(abstract |final |static )*(class|interface|enum|record) \w+.*\{\s*$",
            r"^\s*@Override\b",
            r"^\s*(public|private|protected) (static )?(final )?[\w<>\[\], ]+ \w+\(.*\)\s*(throws [\w, ]+)?\{?\s*$",
        ],
    }
    C, C_LANG, feature = "lang-c" {
        name: "c",
        aliases: [],
        extensions: ["c", "h"],
        interpreters: ["tcc"],
        queries: ["c.scm"],
        grammar: tree_sitter_c::LANGUAGE,
        preprocess: super::preprocess::c::prepare,
        sniff: [
            r#"^#\s*include\s*[<"]"#,
            r"^#\s*(define|ifdef|ifndef|endif)\b",
            r"^(static\s+)?(inline\s+)?(const\s+)?(int|void|char|unsigned|long|size_t|bool|struct \w+)\s*\**\s*\w+\(.*\)\s*\{?\s*$",
            r"^typedef\s",
        ],
        margin: [
            r"^#include\s*[<\x22]",
        ],
    }
    Cpp, CPP, feature = "lang-cpp" {
        name: "cpp",
        aliases: ["c++", "cxx"],
        extensions: ["cpp", "cc", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp", "tpp", "inl"],
        interpreters: [],
        queries: ["cpp.scm"],
        grammar: tree_sitter_cpp::LANGUAGE,
        preprocess: super::preprocess::c::prepare,
        sniff: [
            r"^\s*namespace \w*\s*\{",
            r"^\s*template\s*<",
            r"\bstd::",
            r"^\s*(public|private|protected):\s*$",
            r"^#include <(iostream|string|vector|memory|map|algorithm)>",
        ],
        dialect_of: "c" needing 1,
    }
    CSharp, CSHARP, feature = "lang-csharp" {
        name: "csharp",
        aliases: ["c#", "cs"],
        extensions: ["cs", "csx"],
        interpreters: ["dotnet-script"],
        queries: ["csharp.scm"],
        grammar: tree_sitter_c_sharp::LANGUAGE,
        preprocess: super::preprocess::conditionals::blank_conditionals,
        sniff: [
            r"^using [\w.]+;\s*$",
            r"^\s*namespace [\w.]+\s*[;{]?\s*$",
            r"^\s*(public|internal|private|protected)\s+(sealed |static |partial |abstract )*(class|interface|struct|record|enum)\s",
            r"\{\s*get;",
            r"^\s*\[\w+(\(.*\))?\]\s*$",
        ],
    }
    Ruby, RUBY, feature = "lang-ruby" {
        name: "ruby",
        aliases: ["rb"],
        extensions: ["rb", "rake", "gemspec", "ru", "rbw"],
        interpreters: ["ruby", "jruby", "truffleruby"],
        queries: ["ruby.scm"],
        grammar: tree_sitter_ruby::LANGUAGE,
        module_methods: true,
        sniff: [
            r"^\s*def (self\.)?\w+[?!=]?(\(.*\))?\s*$",
            r#"^require(_relative)? ['"]"#,
            r"^\s*module [A-Z]\w*(::\w+)*\s*$",
            r"^\s*class [A-Z]\w*(::\w+)*( < [\w:]+)?\s*$",
            r"^\s*attr_(reader|accessor|writer) :",
        ],
        margin: [
            r"^require\s+['\x22]",
            r"^module\s+[A-Z]\w*",
        ],
    }
    Php, PHP, feature = "lang-php" {
        name: "php",
        aliases: [],
        extensions: ["php", "phtml", "php3", "php4", "php5", "php7", "php8", "phps"],
        interpreters: ["php"],
        queries: ["php.scm"],
        grammar: tree_sitter_php::LANGUAGE_PHP,
        sniff: [
            r"^<\?php",
            r"^\s*(public |private |protected )?function \w+\(.*\$",
        ],
    }
    Bash, BASH, feature = "lang-bash" {
        name: "bash",
        aliases: ["sh", "shell", "zsh", "ksh"],
        extensions: ["sh", "bash", "zsh", "ksh", "bats"],
        interpreters: ["bash", "sh", "zsh", "ksh", "dash", "ash", "mksh", "bats"],
        queries: ["bash.scm"],
        grammar: tree_sitter_bash::LANGUAGE,
        preprocess: super::preprocess::bash::blank_bash_expansions,
        sniff: [
            r"^\s*(if|elif|while|for|until) .*; (then|do)\s*$",
            r"^\s*(fi|done|esac)\s*$",
            r"^\s*(function \w+|\w+\(\))\s*\{\s*$",
            r"^\s*(export|local|readonly) \w+=",
            r"^\s*set -[euxo]+",
        ],
        margin: [
            r"^\w+\s*\(\)\s*\{",
        ],
    }
    Kotlin, KOTLIN, feature = "lang-kotlin" {
        name: "kotlin",
        aliases: ["kt"],
        extensions: ["kt", "kts"],
        interpreters: ["kotlin", "kscript"],
        queries: ["kotlin.scm"],
        grammar: tree_sitter_kotlin_ng::LANGUAGE,
        preprocess: super::preprocess::kotlin::rename_kotlin_modifier_calls,
        sniff: [
            r"^\s*(private |internal |public |override |suspend )*fun (<.*> )?[\w.]+\(",
            r"^\s*(data |sealed |open |abstract )?class \w+.*\(.*\)",
            r"^\s*(private |internal )?val \w+(: [\w<>?]+)? =",
            r"^import [\w.]+\s*$",
        ],
    }
    Swift, SWIFT, feature = "lang-swift" {
        name: "swift",
        aliases: [],
        extensions: ["swift"],
        interpreters: ["swift"],
        queries: ["swift.scm"],
        grammar: tree_sitter_swift::LANGUAGE,
        preprocess: super::preprocess::swift::blank_swift_case_conditionals,
        sniff: [
            r"^import (Foundation|UIKit|SwiftUI|AppKit|Combine)\s*$",
            r"^\s*(public |private |internal |@\w+ )*func \w+.*\) (throws )?->",
            r"^\s*guard (let|var) ",
            r"^\s*(public )?(struct|protocol|extension) \w+.*\{\s*$",
        ],
    }
    Scala, SCALA, feature = "lang-scala" {
        name: "scala",
        aliases: ["sc"],
        extensions: ["scala", "sc", "sbt"],
        interpreters: ["scala", "amm", "scala-cli"],
        queries: ["scala.scm"],
        grammar: tree_sitter_scala::LANGUAGE,
        preprocess: super::preprocess::scala::rename_scala3_keywords,
        sniff: [
            r"^\s*(case )?object \w+",
            r"^\s*def \w+(\[.*\])?(\(.*\))*(: [\w\[\], ]+)? =",
            r"^\s*(sealed |abstract |final )*(case class|trait) \w+",
            r"^import [\w.]+\.(_|\{.*\})\s*$",
        ],
    }
    Lua, LUA, feature = "lang-lua" {
        name: "lua",
        aliases: [],
        extensions: ["lua"],
        interpreters: ["lua", "luajit", "texlua"],
        queries: ["lua.scm"],
        grammar: tree_sitter_lua::LANGUAGE,
        sniff: [
            r"^\s*local function \w",
            r"^\s*local \w+ = require",
            r"^function [\w.:]+\(",
            r"^\s*local \w+ = \{\s*\}?\s*$",
            r"^return \w+\s*$",
        ],
    }
}

/// What the parser is given for `source` in `lang`: the source as the language's
/// row in the table prepares it ([`Language`]'s `preprocess`), always at the
/// same length. Borrowed when nothing changes.
pub(super) fn prepare(source: &str, lang: Language) -> Cow<'_, str> {
    match lang.spec().preprocess {
        Some(prepare) => prepare(source),
        None => Cow::Borrowed(source),
    }
}

/// The language's compiled query, built once per process on first use.
pub(super) fn compiled_query(lang: Language) -> Result<&'static CompiledQuery, OutlineError> {
    let spec = lang.spec();
    spec.compiled
        .get_or_init(|| compile_query(&(spec.grammar)(), spec.query_source))
        .as_ref()
        .map_err(|message| OutlineError::Query {
            language: spec.name,
            file: spec.query_files.join(" + "),
            message: message.clone(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_has_one_row_per_variant() {
        assert_eq!(SPECS.len(), ALL.len());
        for (spec, lang) in SPECS.iter().zip(ALL) {
            assert_eq!(spec.language, *lang);
            assert_eq!(lang.spec().name, spec.name);
        }
    }
}
