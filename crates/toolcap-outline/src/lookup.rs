//! Looking a language up: by name or alias, file extension and shebang
//! interpreter (the rows of `super::languages`), and the error for a name
//! that is none.

use std::fmt;

use super::Language;
use super::languages::{ALL, SPECS};

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

    /// The outline query files, relative to `crates/toolcap-outline/src/` (their texts are
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
        Language::from_name(s).ok_or_else(|| UnknownLanguage::new(s))
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
    /// `name`, which is no language (nor alias) of this build: what
    /// [`Language`]'s `FromStr` returns. The message lists the language names.
    ///
    /// ```
    /// use toolcap_outline::UnknownLanguage;
    ///
    /// let e = UnknownLanguage::new("cobol");
    /// assert_eq!(e.name(), "cobol");
    /// assert!(e.to_string().starts_with("unknown language \"cobol\"; use one of: rust, python"));
    /// assert!(!e.to_string().contains("text format"));
    /// ```
    pub fn new(name: &str) -> UnknownLanguage {
        UnknownLanguage {
            name: name.to_string(),
            text_formats: false,
        }
    }

    /// The same error where a text format ([`text::Format`](crate::text::Format))
    /// is accepted too, as by `toolcap outline --lang` and `toolcap::bind::Lang`:
    /// the message lists the formats' names after the languages'.
    ///
    /// ```
    /// use toolcap_outline::UnknownLanguage;
    ///
    /// let e = UnknownLanguage::new("cobol").or_text_format();
    /// assert!(e.to_string().ends_with("; or a text format: markdown, json, yaml, toml, csv, tsv, log, html"));
    /// ```
    pub fn or_text_format(mut self) -> UnknownLanguage {
        self.text_formats = true;
        self
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
