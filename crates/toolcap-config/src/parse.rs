//! The file schema (every key optional, unknown keys rejected) and parsing one
//! layer (the defaults or a user file) with errors that name the key.

use serde::Deserialize;

use super::{ConfigError, ConfigErrorKind, Source, budget, store};

// ---------------------------------------------------------------------------
// Raw (file) schema: every key optional, unknown keys rejected.

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawTop {
    pub(super) max_kept_chars: Option<i64>,
    pub(super) max_kept_tokens: Option<i64>,
    pub(super) bypass: Option<Vec<String>>,
    pub(super) never_bypass: Option<Vec<String>>,
    pub(super) suggest: Option<RawSuggest>,
    /// `[budget]`, parsed on its own (so that its errors name `budget.KEY`).
    #[serde(skip)]
    pub(super) budget: Option<budget::RawBudget>,
    pub(super) store: Option<store::RawStore>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
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
#[serde(deny_unknown_fields)]
pub(super) struct RawArgs {
    pub(super) path: Option<Vec<String>>,
    pub(super) pattern: Option<Vec<String>>,
    pub(super) command: Option<Vec<String>>,
    pub(super) query: Option<Vec<String>>,
    pub(super) url: Option<Vec<String>>,
    pub(super) exit_code: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
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
#[serde(deny_unknown_fields)]
pub(super) struct RawShellTool {
    pub(super) tool: Option<String>,
    pub(super) command: Option<String>,
    pub(super) argv: Option<bool>,
}
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
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
#[serde(deny_unknown_fields)]
pub(super) struct RawGrepTool {
    pub(super) tool: Option<String>,
    pub(super) pattern: Option<String>,
    pub(super) path: Option<String>,
    pub(super) ignore_case: Option<String>,
    pub(super) include: Option<String>,
    pub(super) args: Option<toml::Table>,
}
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSearchTool {
    pub(super) tool: Option<String>,
    pub(super) query: Option<String>,
}
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawFetchTool {
    pub(super) tool: Option<String>,
    pub(super) url: Option<String>,
    pub(super) save_to: Option<String>,
    pub(super) args: Option<toml::Table>,
}
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
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
}

pub(super) fn parse_layer(text: &str, origin: &str, source: Source) -> Result<Layer, ConfigError> {
    let table: toml::Table = toml::from_str(text).map_err(|e| ConfigError {
        origin: origin.to_string(),
        key: "(file)".to_string(),
        problem: format!("not valid TOML: {}", e.to_string().trim_end()),
        fix: "correct the TOML syntax at the position shown".to_string(),
        kind: ConfigErrorKind::Syntax,
        source: Some(std::sync::Arc::new(e)),
    })?;
    let mut tools_table = None;
    let mut budget_table = None;
    let mut rest = toml::Table::new();
    for (k, v) in table {
        if k == "tools" {
            tools_table = Some(v);
        } else if k == "budget" {
            budget_table = Some(v);
        } else {
            rest.insert(k, v);
        }
    }
    let mut top: RawTop = RawTop::deserialize(rest.clone())
        .map_err(|e| with_culprit(schema_error(origin, "", &e), "", culprit::<RawTop>(&rest)))?;
    if let Some(v) = budget_table {
        let raw = budget::RawBudget::deserialize(v.clone()).map_err(|e| {
            let c = v.as_table().and_then(culprit::<budget::RawBudget>);
            with_culprit(schema_error(origin, "budget", &e), "budget", c)
        })?;
        top.budget = Some(raw);
    }
    let mut tools = Vec::new();
    if let Some(t) = tools_table {
        let toml::Value::Table(t) = t else {
            return Err(ConfigError {
                origin: origin.to_string(),
                key: "tools".to_string(),
                problem: "must be a table of [tools.NAME] entries".to_string(),
                fix: "write each tool as a [tools.NAME] section".to_string(),
                kind: ConfigErrorKind::Schema,
                source: None,
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
                    kind: ConfigErrorKind::Schema,
                    source: None,
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
pub(super) fn culprit<T: serde::de::DeserializeOwned>(table: &toml::Table) -> Option<String> {
    table.iter().find_map(|(k, v)| {
        let mut one = toml::Table::new();
        one.insert(k.clone(), v.clone());
        T::deserialize(one).is_err().then(|| k.clone())
    })
}

/// Name the culprit key in an error that could only name its section.
pub(super) fn with_culprit(
    mut e: ConfigError,
    section: &str,
    culprit: Option<String>,
) -> ConfigError {
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

pub(super) fn schema_error(origin: &str, section: &str, e: &toml::de::Error) -> ConfigError {
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
        kind: ConfigErrorKind::Schema,
        source: Some(std::sync::Arc::new(e.clone())),
    }
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
        });
    }
    usize::try_from(v).map_err(|_| ConfigError {
        origin: origin.to_string(),
        key: key.to_string(),
        problem: format!("{v} is too large"),
        fix: "use a smaller number".to_string(),
        kind: ConfigErrorKind::Invalid,
        source: None,
    })
}
