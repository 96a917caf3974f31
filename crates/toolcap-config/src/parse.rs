//! The file schema (every key optional, unknown keys rejected) and parsing one
//! layer (the defaults or a user file) with errors that name the key.

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde_path_to_error::Segment;
use toml::de::{DeTable, DeValue};

use super::error::line_number;
use super::{ConfigError, ConfigErrorKind, Source, budget, store};

// ---------------------------------------------------------------------------
// Raw (file) schema: every key optional, unknown keys rejected.

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a TOML document of settings")]
pub(super) struct RawTop {
    pub(super) max_kept_chars: Option<i64>,
    pub(super) max_kept_tokens: Option<i64>,
    pub(super) bypass: Option<Vec<String>>,
    pub(super) never_bypass: Option<Vec<String>>,
    pub(super) suggest: Option<RawSuggest>,
    /// `[budget]`, parsed on its own (so that its errors name `budget.KEY`).
    pub(super) budget: Option<budget::RawBudget>,
    pub(super) store: Option<store::RawStore>,
    /// `[tools.NAME]` entries in the file's order (taken into [`Layer::tools`]).
    #[serde(default, deserialize_with = "ordered_tools")]
    pub(super) tools: Vec<(String, RawTool)>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [tools.NAME] table")]
pub(super) struct RawTool {
    pub(super) family: Option<String>,
    pub(super) names: Option<Vec<String>>,
    pub(super) threshold: Option<i64>,
    pub(super) shape: Option<String>,
    pub(super) args: Option<RawArgs>,
    pub(super) unit: Option<String>,
    pub(super) encoding: Option<String>,
    pub(super) max_kept: Option<i64>,
    pub(super) clean: Option<bool>,
    pub(super) json: Option<bool>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table of argument keys (path = [\"...\"], ...)"
)]
pub(super) struct RawArgs {
    pub(super) path: Option<Vec<String>>,
    pub(super) pattern: Option<Vec<String>>,
    pub(super) command: Option<Vec<String>>,
    pub(super) query: Option<Vec<String>>,
    pub(super) url: Option<Vec<String>>,
    pub(super) exit_code: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, expecting = "a [suggest] table")]
pub(super) struct RawSuggest {
    pub(super) preset: Option<String>,
    pub(super) shell: Option<RawShellTool>,
    pub(super) read: Option<RawReadTool>,
    pub(super) grep: Option<RawGrepTool>,
    pub(super) web_search: Option<RawSearchTool>,
    pub(super) web_fetch: Option<RawFetchTool>,
    pub(super) glob: Option<RawGlobTool>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table naming a tool and its argument keys"
)]
pub(super) struct RawShellTool {
    pub(super) tool: Option<String>,
    pub(super) command: Option<String>,
    pub(super) argv: Option<bool>,
}
#[derive(Debug, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table naming a tool and its argument keys"
)]
pub(super) struct RawReadTool {
    pub(super) tool: Option<String>,
    pub(super) path: Option<String>,
    pub(super) start: Option<String>,
    pub(super) limit: Option<String>,
    pub(super) end: Option<String>,
    pub(super) head: Option<String>,
    pub(super) tail: Option<String>,
}
#[derive(Debug, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table naming a tool and its argument keys"
)]
pub(super) struct RawGrepTool {
    pub(super) tool: Option<String>,
    pub(super) pattern: Option<String>,
    pub(super) path: Option<String>,
    pub(super) ignore_case: Option<String>,
    pub(super) include: Option<String>,
    pub(super) args: Option<toml::Table>,
}
#[derive(Debug, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table naming a tool and its argument keys"
)]
pub(super) struct RawSearchTool {
    pub(super) tool: Option<String>,
    pub(super) query: Option<String>,
}
#[derive(Debug, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table naming a tool and its argument keys"
)]
pub(super) struct RawFetchTool {
    pub(super) tool: Option<String>,
    pub(super) url: Option<String>,
    pub(super) save_to: Option<String>,
    pub(super) args: Option<toml::Table>,
}
#[derive(Debug, Default, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table naming a tool and its argument keys"
)]
pub(super) struct RawGlobTool {
    pub(super) tool: Option<String>,
    pub(super) pattern: Option<String>,
    pub(super) path: Option<String>,
}

/// One parsed layer (defaults or a user file) with its origin.
pub(super) struct Layer {
    pub(super) origin: String,
    pub(super) source: Source,
    pub(super) top: RawTop,
    /// `[tools.*]` entries in file order.
    pub(super) tools: Vec<(String, RawTool)>,
    /// The line of each key in the text (dotted path, 1-based), for the
    /// messages of the stages after parsing.
    pub(super) lines: KeyLines,
}

/// The line (1-based) each dotted key path is written on.
pub(super) type KeyLines = BTreeMap<String, usize>;

/// `[tools]` as the `(NAME, entry)` pairs in the file's order (a second
/// `[tools.NAME]` of the same name is a TOML error already).
fn ordered_tools<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<(String, RawTool)>, D::Error> {
    struct Tools;
    impl<'de> Visitor<'de> for Tools {
        type Value = Vec<(String, RawTool)>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a table of [tools.NAME] entries")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut tools = Vec::new();
            while let Some((name, tool)) = map.next_entry::<String, RawTool>()? {
                tools.push((name, tool));
            }
            Ok(tools)
        }
    }
    d.deserialize_map(Tools)
}

pub(super) fn parse_layer(text: &str, origin: &str, source: Source) -> Result<Layer, ConfigError> {
    let doc = DeTable::parse(text).map_err(|mut e| {
        e.set_input(Some(text));
        ConfigError {
            origin: origin.to_string(),
            key: "(file)".to_string(),
            problem: format!("not valid TOML: {}", e.to_string().trim_end()),
            fix: "correct the TOML syntax at the position shown".to_string(),
            kind: ConfigErrorKind::Syntax,
            line: e.span().and_then(|s| line_number(line_of(text, s.start))),
            source: Some(std::sync::Arc::new(e)),
        }
    })?;
    let mut lines = KeyLines::new();
    // where each line ends, found once (a key's line is then a binary search)
    let ends: Vec<usize> = text
        .bytes()
        .enumerate()
        .filter_map(|(i, b)| (b == b'\n').then_some(i))
        .collect();
    key_lines(&ends, "", doc.get_ref(), &mut lines);
    let mut top: RawTop = serde_path_to_error::deserialize(toml::Deserializer::from(doc))
        .map_err(|e| schema_error(origin, text, &lines, e))?;
    let tools = std::mem::take(&mut top.tools);
    Ok(Layer {
        origin: origin.to_string(),
        source,
        top,
        tools,
        lines,
    })
}

/// The 1-based line of byte `at` of `text`.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()
        .iter()
        .take(at)
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Record the line of every key of `table` (and of the tables inside it)
/// under its dotted path from `prefix`.
/// `ends`: the offsets of the text's newlines.
fn key_lines(ends: &[usize], prefix: &str, table: &DeTable<'_>, lines: &mut KeyLines) {
    for (k, v) in table {
        let path = if prefix.is_empty() {
            k.get_ref().to_string()
        } else {
            format!("{prefix}.{}", k.get_ref())
        };
        if let DeValue::Table(t) = v.get_ref() {
            key_lines(ends, &path, t, lines);
        }
        let at = k.span().start;
        lines.insert(path, ends.partition_point(|&e| e < at) + 1);
    }
}

/// A value that does not fit the schema: its key is the path serde was at
/// (`tools.grep.threshold`, `suggest.read.start`), its line the value's (or
/// the key's) line in the file.
fn schema_error(
    origin: &str,
    text: &str,
    lines: &KeyLines,
    e: serde_path_to_error::Error<toml::de::Error>,
) -> ConfigError {
    let key = dotted(e.path());
    let inner = e.into_inner();
    let problem = toml_words(inner.message().trim_end());
    let unknown = problem.starts_with("unknown field");
    let fix = match key.as_str() {
        _ if unknown => "remove or rename this key (the valid keys are listed in the message; `toolcap config` shows the effective settings)".to_string(),
        "tools" => "write each tool as a [tools.NAME] section".to_string(),
        k if k.starts_with("tools.") && !k["tools.".len()..].contains('.') => {
            format!("write it as a [{k}] section")
        }
        _ => "give the value the type shown in thresholds.toml".to_string(),
    };
    let line = inner
        .span()
        .map(|s| line_of(text, s.start))
        .or_else(|| lines.get(&key).copied())
        .and_then(line_number);
    ConfigError {
        origin: origin.to_string(),
        key,
        problem,
        fix,
        kind: ConfigErrorKind::Schema,
        line,
        source: Some(std::sync::Arc::new(inner)),
    }
}

/// serde's names of the types a value should have, in TOML's words (`expected
/// i64` is `expected a whole number`).
fn toml_words(message: &str) -> String {
    [
        ("expected i64", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected a boolean", "expected true or false"),
        ("expected a sequence", "expected an array"),
        ("expected a map", "expected a table"),
    ]
    .iter()
    .fold(message.to_string(), |m, (serde, toml)| {
        m.replace(serde, toml)
    })
}

/// serde's path as a dotted key (`tools.grep.args.path`), `(file)` when empty.
fn dotted(path: &serde_path_to_error::Path) -> String {
    let parts: Vec<String> = path
        .iter()
        .map(|seg| match seg {
            Segment::Map { key } => key.clone(),
            Segment::Seq { index } => format!("[{index}]"),
            Segment::Enum { variant } => variant.clone(),
            Segment::Unknown => "?".to_string(),
        })
        .collect();
    if parts.is_empty() {
        return "(file)".to_string();
    }
    parts.join(".").replace(".[", "[")
}

pub(super) fn positive(v: i64, origin: &str, key: &str) -> Result<usize, ConfigError> {
    if v <= 0 {
        // the unit the key counts in (a tool's figures: its `unit`)
        let unit = if key.ends_with("_tokens") {
            "a positive number of tokens"
        } else if key.ends_with("_chars") {
            "a positive number of characters"
        } else {
            "a positive number (of characters, or of tokens with unit = \"tokens\")"
        };
        return Err(ConfigError {
            origin: origin.to_string(),
            key: key.to_string(),
            problem: format!("must be {unit}, got {v}"),
            fix: "set it to a whole number greater than 0".to_string(),
            kind: ConfigErrorKind::Invalid,
            source: None,
            line: None,
        });
    }
    usize::try_from(v).map_err(|_| ConfigError {
        origin: origin.to_string(),
        key: key.to_string(),
        problem: format!("{v} is too large"),
        fix: "use a smaller number".to_string(),
        kind: ConfigErrorKind::Invalid,
        source: None,
        line: None,
    })
}
