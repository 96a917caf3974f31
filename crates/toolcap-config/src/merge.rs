//! Merging layers key by key: compiled defaults < user file < environment.

use std::collections::BTreeMap;

use super::parse::{Layer, positive};
use super::{
    ArgKeys, ConfigError, ConfigErrorKind, Encoding, Family, Shape, Source, StoreConfig, Unit,
    budget, presets, store,
};

/// Builder state while merging layers.
#[derive(Default)]
pub(super) struct Merged {
    pub(super) max_kept_chars: Option<(usize, Source)>,
    pub(super) max_kept_tokens: Option<usize>,
    pub(super) bypass: Vec<String>,
    /// `never_bypass`: tools cut like any other even where `bypass` or the
    /// recovery tools' own default would let them through.
    pub(super) never_bypass: Vec<String>,
    /// (key, family, names, threshold, shape, args) with per-field sources
    pub(super) tools: Vec<MergedTool>,
    pub(super) sources: BTreeMap<String, Source>,
    pub(super) suggest: BTreeMap<String, String>,
    /// `suggest.preset`
    pub(super) preset: Option<String>,
    /// `suggest.shell.argv`
    pub(super) argv: Option<bool>,
    /// `suggest.TOOL.args` by tool
    pub(super) suggest_args: BTreeMap<String, serde_json::Map<String, serde_json::Value>>,
    /// `[budget]`
    pub(super) budget: budget::MergedBudget,
    /// `[store]`
    pub(super) store: StoreConfig,
}

pub(super) struct MergedTool {
    pub(super) key: String,
    /// Where the entry first appeared (the file that named a new tool).
    pub(super) created_by: String,
    pub(super) family: Option<(Family, String)>, // family + origin (for errors)
    pub(super) names: Vec<String>,
    pub(super) threshold: Option<(usize, String)>,
    pub(super) shape: Option<Shape>,
    pub(super) args: ArgKeys,
    pub(super) unit: Option<Unit>,
    pub(super) max_kept: Option<usize>,
    pub(super) clean: Option<bool>,
    pub(super) json: Option<bool>,
}

/// (role name, value from the layer, the merged value it replaces)
pub(super) type RoleSlot<'a> = (&'static str, Option<Vec<String>>, &'a mut Vec<String>);

pub(super) fn merge_layer(m: &mut Merged, layer: Layer) -> Result<(), ConfigError> {
    let Layer {
        origin,
        source,
        top,
        tools,
        lines: _,
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
    m.budget
        .merge(top.budget, &origin, &source, &mut m.sources)?;
    if let Some(b) = top.never_bypass {
        m.never_bypass = b
            .into_iter()
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
            .collect();
        m.sources.insert("never_bypass".into(), source.clone());
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
                    kind: ConfigErrorKind::UnknownName,
                    source: None,
                    line: None,
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
                kind: ConfigErrorKind::UnknownName,
                source: None,
                line: None,
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
                    kind: ConfigErrorKind::Conflict,
                    source: None,
                    line: None,
                });
            }
            (Some("tokens") | None, enc) => {
                let enc = enc.unwrap_or("o200k_base");
                let e = Encoding::parse(enc).ok_or_else(|| ConfigError {
                    origin: origin.clone(),
                    key: format!("{k}.encoding"),
                    problem: format!("unknown encoding {enc:?}"),
                    fix: "use \"o200k_base\" or \"cl100k_base\"".into(),
                    kind: ConfigErrorKind::UnknownName,
                    source: None,
                    line: None,
                })?;
                if !cfg!(feature = "tokens") {
                    return Err(ConfigError {
                        origin: origin.clone(),
                        key: format!("{k}.unit"),
                        problem: "token units need toolcap built with the `tokens` feature".into(),
                        fix: "rebuild with --features tokens, or use unit = \"chars\"".into(),
                        kind: ConfigErrorKind::NotBuilt,
                        source: None,
                        line: None,
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
                    kind: ConfigErrorKind::UnknownName,
                    source: None,
                    line: None,
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
    if let Some(st) = top.store {
        store::merge(&mut m.store, st, &origin, &source, &mut m.sources)?;
    }
    if let Some(s) = top.suggest {
        // a preset sets every key first; the file's own keys then override it
        if let Some(name) = &s.preset {
            let p = presets::preset(name).ok_or_else(|| ConfigError {
                origin: origin.clone(),
                key: "suggest.preset".to_string(),
                problem: format!("unknown preset {name:?}"),
                fix: format!(
                    "use one of: {}",
                    presets::PRESETS.map(|p| format!("{p:?}")).join(", ")
                ),
                kind: ConfigErrorKind::UnknownName,
                source: None,
                line: None,
            })?;
            for (k, v) in p.strings {
                m.suggest.insert(k.to_string(), v.to_string());
                m.sources.insert(format!("suggest.{k}"), source.clone());
            }
            m.argv = Some(p.argv);
            m.sources
                .insert("suggest.shell.argv".into(), source.clone());
            m.suggest_args.clear();
            for t in ["grep", "web_fetch"] {
                m.sources
                    .insert(format!("suggest.{t}.args"), source.clone());
            }
            for (t, a) in p.args {
                if let serde_json::Value::Object(o) = a {
                    m.suggest_args.insert(t.to_string(), o);
                }
            }
            m.preset = Some(name.clone());
            m.sources.insert("suggest.preset".into(), source.clone());
        }
        let mut set_args = |tool: &str, a: Option<toml::Table>| -> Result<(), ConfigError> {
            if let Some(a) = a {
                let v = serde_json::to_value(&a).map_err(|e| ConfigError {
                    origin: origin.clone(),
                    key: format!("suggest.{tool}.args"),
                    problem: format!("cannot be used as tool arguments: {e}"),
                    fix: "give plain strings, numbers, booleans, arrays or tables".into(),
                    kind: ConfigErrorKind::Invalid,
                    source: Some(std::sync::Arc::new(e)),
                    line: None,
                })?;
                if let serde_json::Value::Object(o) = v {
                    m.suggest_args.insert(tool.to_string(), o);
                }
                m.sources
                    .insert(format!("suggest.{tool}.args"), source.clone());
            }
            Ok(())
        };
        set_args("grep", s.grep.as_ref().and_then(|g| g.args.clone()))?;
        set_args(
            "web_fetch",
            s.web_fetch.as_ref().and_then(|g| g.args.clone()),
        )?;
        if let Some(v) = s.shell.as_ref().and_then(|x| x.argv) {
            m.argv = Some(v);
            m.sources
                .insert("suggest.shell.argv".into(), source.clone());
        }
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
        if let Some(x) = s.read {
            set("read", "tool", x.tool);
            set("read", "path", x.path);
            set("read", "start", x.start);
            set("read", "limit", x.limit);
            set("read", "end", x.end);
            set("read", "head", x.head);
            set("read", "tail", x.tail);
        }
        if let Some(x) = s.grep {
            set("grep", "tool", x.tool);
            set("grep", "pattern", x.pattern);
            set("grep", "path", x.path);
            set("grep", "ignore_case", x.ignore_case);
            set("grep", "include", x.include);
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
