//! The language table: the one place that knows each supported language's
//! name, aliases, file extensions, shebang interpreters, grammar and outline
//! query file.
//!
//! Every language is behind a cargo feature (`lang-rust`, `lang-python`, ...);
//! a build without the feature has no variant, no grammar and no query for it.

use std::fmt;
use std::sync::OnceLock;

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
    /// Paths of the outline query files, relative to `src/outline/` (for
    /// messages); their texts are concatenated in this order.
    pub(crate) query_files: &'static [&'static str],
    /// The outline query text (the files above, embedded).
    pub(crate) query_source: &'static str,
    /// The tree-sitter grammar.
    pub(crate) grammar: fn() -> tree_sitter::Language,
    /// A `def` directly inside a `module` is a method (Ruby: modules are mixins).
    pub(crate) module_methods: bool,
    /// The compiled query, built on first use (see `super::compiled_query`).
    pub(crate) compiled: OnceLock<Result<super::query::CompiledQuery, String>>,
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
                compiled: OnceLock::new(),
            };
        )*

        /// The table. Order is the order of [`Language::all`].
        static SPECS: &[&Spec] = &[
            $(
                #[cfg(feature = $feature)]
                &$static,
            )*
        ];

        static ALL: &[Language] = &[
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
    }
    Python, PYTHON, feature = "lang-python" {
        name: "python",
        aliases: ["py", "python3", "python2", "py3"],
        extensions: ["py", "pyi", "pyw"],
        interpreters: ["python", "python3", "python2", "pypy", "pypy3"],
        queries: ["python.scm"],
        grammar: tree_sitter_python::LANGUAGE,
    }
    /// JavaScript, JSX included.
    JavaScript, JAVASCRIPT, feature = "lang-javascript" {
        name: "javascript",
        aliases: ["js", "jsx", "node", "ecmascript"],
        extensions: ["js", "jsx", "mjs", "cjs"],
        interpreters: ["node", "nodejs", "deno", "bun", "qjs"],
        queries: ["javascript.scm", "ecmascript.scm"],
        grammar: tree_sitter_javascript::LANGUAGE,
    }
    TypeScript, TYPESCRIPT, feature = "lang-typescript" {
        name: "typescript",
        aliases: ["ts"],
        extensions: ["ts", "mts", "cts"],
        interpreters: ["ts-node", "tsx"],
        queries: ["typescript.scm", "ecmascript.scm"],
        grammar: tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
    }
    /// TypeScript with JSX: its own grammar (JSX breaks the TypeScript one).
    Tsx, TSX, feature = "lang-typescript" {
        name: "tsx",
        aliases: ["typescriptreact"],
        extensions: ["tsx"],
        interpreters: [],
        queries: ["typescript.scm", "ecmascript.scm"],
        grammar: tree_sitter_typescript::LANGUAGE_TSX,
    }
    Go, GO, feature = "lang-go" {
        name: "go",
        aliases: ["golang"],
        extensions: ["go"],
        interpreters: ["gorun"],
        queries: ["go.scm"],
        grammar: tree_sitter_go::LANGUAGE,
    }
    Java, JAVA, feature = "lang-java" {
        name: "java",
        aliases: [],
        extensions: ["java"],
        interpreters: ["java", "jshell"],
        queries: ["java.scm"],
        grammar: tree_sitter_java::LANGUAGE,
    }
    C, C_LANG, feature = "lang-c" {
        name: "c",
        aliases: [],
        extensions: ["c", "h"],
        interpreters: ["tcc"],
        queries: ["c.scm"],
        grammar: tree_sitter_c::LANGUAGE,
    }
    Cpp, CPP, feature = "lang-cpp" {
        name: "cpp",
        aliases: ["c++", "cxx"],
        extensions: ["cpp", "cc", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp", "tpp", "inl"],
        interpreters: [],
        queries: ["cpp.scm"],
        grammar: tree_sitter_cpp::LANGUAGE,
    }
    CSharp, CSHARP, feature = "lang-csharp" {
        name: "csharp",
        aliases: ["c#", "cs"],
        extensions: ["cs", "csx"],
        interpreters: ["dotnet-script"],
        queries: ["csharp.scm"],
        grammar: tree_sitter_c_sharp::LANGUAGE,
    }
    Ruby, RUBY, feature = "lang-ruby" {
        name: "ruby",
        aliases: ["rb"],
        extensions: ["rb", "rake", "gemspec", "ru", "rbw"],
        interpreters: ["ruby", "jruby", "truffleruby"],
        queries: ["ruby.scm"],
        grammar: tree_sitter_ruby::LANGUAGE,
        module_methods: true,
    }
    Php, PHP, feature = "lang-php" {
        name: "php",
        aliases: [],
        extensions: ["php", "phtml", "php3", "php4", "php5", "php7", "php8", "phps"],
        interpreters: ["php"],
        queries: ["php.scm"],
        grammar: tree_sitter_php::LANGUAGE_PHP,
    }
    Bash, BASH, feature = "lang-bash" {
        name: "bash",
        aliases: ["sh", "shell", "zsh", "ksh"],
        extensions: ["sh", "bash", "zsh", "ksh", "bats"],
        interpreters: ["bash", "sh", "zsh", "ksh", "dash", "ash", "mksh", "bats"],
        queries: ["bash.scm"],
        grammar: tree_sitter_bash::LANGUAGE,
    }
    Kotlin, KOTLIN, feature = "lang-kotlin" {
        name: "kotlin",
        aliases: ["kt"],
        extensions: ["kt", "kts"],
        interpreters: ["kotlin", "kscript"],
        queries: ["kotlin.scm"],
        grammar: tree_sitter_kotlin_ng::LANGUAGE,
    }
    Swift, SWIFT, feature = "lang-swift" {
        name: "swift",
        aliases: [],
        extensions: ["swift"],
        interpreters: ["swift"],
        queries: ["swift.scm"],
        grammar: tree_sitter_swift::LANGUAGE,
    }
    Scala, SCALA, feature = "lang-scala" {
        name: "scala",
        aliases: ["sc"],
        extensions: ["scala", "sc", "sbt"],
        interpreters: ["scala", "amm", "scala-cli"],
        queries: ["scala.scm"],
        grammar: tree_sitter_scala::LANGUAGE,
    }
    Lua, LUA, feature = "lang-lua" {
        name: "lua",
        aliases: [],
        extensions: ["lua"],
        interpreters: ["lua", "luajit", "texlua"],
        queries: ["lua.scm"],
        grammar: tree_sitter_lua::LANGUAGE,
    }
}

impl Language {
    /// Every language compiled into this build, in table order.
    pub fn all() -> &'static [Language] {
        ALL
    }

    /// Canonical lowercase name: "rust", "python".
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// Other accepted names, e.g. "rs"; "py", "python3".
    pub fn aliases(self) -> &'static [&'static str] {
        self.spec().aliases
    }

    /// File extensions without the dot: "rs"; "py", "pyi", "pyw".
    pub fn extensions(self) -> &'static [&'static str] {
        self.spec().extensions
    }

    /// Shebang interpreter program names: "python", "python3", ...
    pub fn interpreters(self) -> &'static [&'static str] {
        self.spec().interpreters
    }

    /// The outline query files, relative to `src/outline/` (their texts are
    /// concatenated: TypeScript's query extends JavaScript's).
    pub fn query_files(self) -> &'static [&'static str] {
        self.spec().query_files
    }

    /// The tree-sitter grammar.
    pub fn grammar(self) -> tree_sitter::Language {
        (self.spec().grammar)()
    }

    /// Look a language up by name or alias, case-insensitively.
    pub fn from_name(s: &str) -> Option<Language> {
        let s = s.trim();
        SPECS
            .iter()
            .find(|spec| {
                spec.name.eq_ignore_ascii_case(s)
                    || spec.aliases.iter().any(|a| a.eq_ignore_ascii_case(s))
            })
            .map(|spec| spec.language)
    }

    /// The language of a file's content, as `toolcap outline` and the processor
    /// decide it: the shebang's interpreter, else the file name's extension (a `.h`
    /// header that reads as C++ is C++), else — with no path — what the content
    /// looks like. `None` when nothing tells (or the extension is not code).
    pub fn detect(path: Option<&str>, text: &str) -> Option<Language> {
        super::detect::language(None, path, text).map(|(l, _)| l)
    }

    /// Look a language up by file extension (with or without the leading
    /// dot), case-insensitively.
    pub fn from_extension(ext: &str) -> Option<Language> {
        let ext = ext.strip_prefix('.').unwrap_or(ext);
        SPECS
            .iter()
            .find(|spec| spec.extensions.iter().any(|e| e.eq_ignore_ascii_case(ext)))
            .map(|spec| spec.language)
    }

    /// Look a language up by shebang interpreter: a program name or path
    /// (`python3`, `/usr/bin/python3.11`, `pypy3.10`, `python.exe`). A trailing
    /// version (`3.11`, `-3.12`) is ignored when the exact name is unknown.
    pub fn from_interpreter(prog: &str) -> Option<Language> {
        let prog = prog.trim();
        let base = prog.rsplit(['/', '\\']).next().unwrap_or(prog);
        let base = strip_suffix_ignore_case(base, ".exe").unwrap_or(base);
        if base.is_empty() {
            return None;
        }
        let find = |name: &str| {
            SPECS
                .iter()
                .find(|spec| {
                    spec.interpreters
                        .iter()
                        .any(|i| i.eq_ignore_ascii_case(name))
                })
                .map(|spec| spec.language)
        };
        if let Some(lang) = find(base) {
            return Some(lang);
        }
        // "python3.11" -> "python3" -> "python"; "python-3.12" -> "python".
        let unversioned = base.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        let unversioned = unversioned.strip_suffix('-').unwrap_or(unversioned);
        if unversioned.len() < base.len() && !unversioned.is_empty() {
            return find(unversioned);
        }
        None
    }
}

fn strip_suffix_ignore_case<'a>(s: &'a str, suffix: &str) -> Option<&'a str> {
    let cut = s.len().checked_sub(suffix.len())?;
    let (head, tail) = (s.get(..cut)?, s.get(cut..)?);
    tail.eq_ignore_ascii_case(suffix).then_some(head)
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Language {
    type Err = UnknownLanguage;

    /// A language name or alias, case-insensitively ([`Language::from_name`]).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Language::from_name(s).ok_or_else(|| UnknownLanguage::new(s, false))
    }
}

/// A name that is no language (nor alias) of this build; where text formats are
/// accepted too (`toolcap::bind::Lang`), none of those either. The message lists
/// the names to use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownLanguage {
    name: String,
    text_formats: bool,
}

impl UnknownLanguage {
    pub(crate) fn new(name: &str, text_formats: bool) -> UnknownLanguage {
        UnknownLanguage {
            name: name.to_string(),
            text_formats,
        }
    }

    /// The name as given.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Display for UnknownLanguage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known: Vec<&str> = ALL.iter().map(|l| l.name()).collect();
        write!(
            f,
            "unknown language {:?}; use one of: {}",
            self.name,
            known.join(", ")
        )?;
        if self.text_formats {
            let formats: Vec<&str> = super::text::Format::ALL
                .iter()
                .map(|f| f.as_str())
                .collect();
            write!(f, "; or a text format: {}", formats.join(", "))?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownLanguage {}

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

    #[test]
    fn names_and_extensions_are_unambiguous() {
        let mut seen = std::collections::HashSet::new();
        for lang in Language::all() {
            for n in std::iter::once(&lang.name()).chain(lang.aliases()) {
                assert!(seen.insert(n.to_ascii_lowercase()), "duplicate name {n}");
                assert_eq!(Language::from_name(n), Some(*lang));
            }
        }
        let mut seen = std::collections::HashSet::new();
        for lang in Language::all() {
            for e in lang.extensions() {
                assert!(seen.insert(*e), "duplicate extension {e}");
                assert_eq!(Language::from_extension(e), Some(*lang));
            }
            for i in lang.interpreters() {
                assert_eq!(Language::from_interpreter(i), Some(*lang));
            }
        }
    }

    #[cfg(feature = "lang-rust")]
    #[test]
    fn rust_lookups() {
        assert_eq!(Language::from_name("Rust"), Some(Language::Rust));
        assert_eq!(Language::from_name("RS"), Some(Language::Rust));
        assert_eq!(Language::from_extension("rs"), Some(Language::Rust));
        assert_eq!(Language::from_extension(".RS"), Some(Language::Rust));
        assert_eq!(
            Language::from_interpreter("rust-script"),
            Some(Language::Rust)
        );
        assert_eq!(Language::Rust.name(), "rust");
        assert_eq!(Language::Rust.to_string(), "rust");
        assert_eq!("rs".parse::<Language>(), Ok(Language::Rust));
    }

    #[cfg(feature = "lang-python")]
    #[test]
    fn python_lookups() {
        for n in ["python", "PY", "python3", "Python3"] {
            assert_eq!(Language::from_name(n), Some(Language::Python), "{n}");
        }
        for e in ["py", "pyi", "pyw", "PY"] {
            assert_eq!(Language::from_extension(e), Some(Language::Python), "{e}");
        }
        for i in [
            "python",
            "python3",
            "python3.11",
            "python2.7",
            "/usr/bin/python3.12",
            "/usr/local/bin/pypy3.10",
            "python-3.12",
            "python.exe",
            "C:\\Python311\\python.exe",
        ] {
            assert_eq!(Language::from_interpreter(i), Some(Language::Python), "{i}");
        }
    }

    #[test]
    fn unknown_lookups() {
        for s in ["", "pythonx", "3.11", ".", "rustc", "cobol", "fortran"] {
            assert_eq!(Language::from_name(s), None, "{s}");
            assert_eq!(Language::from_extension(s), None, "{s}");
            assert_eq!(Language::from_interpreter(s), None, "{s}");
        }
        assert_eq!(Language::from_interpreter("/usr/bin/"), None);
        assert_eq!(Language::from_interpreter("perl"), None);
        assert!("cobol".parse::<Language>().is_err());
    }
}
