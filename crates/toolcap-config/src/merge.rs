//! Merging layers key by key: compiled defaults < user file < environment.

use std::collections::BTreeMap;

use super::parse::{Layer, RawSuggest, RawTool, RawTop, positive};
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
        mut top,
        tools,
        lines: _,
    } = layer;
    merge_top(m, &mut top, &origin, &source)?;
    merge_tools(m, tools, &origin, &source)?;
    if let Some(st) = top.store {
        store::merge(&mut m.store, st, &origin, &source, &mut m.sources)?;
    }
    if let Some(s) = top.suggest {
        merge_suggest(m, s, &origin, &source)?;
    }
    Ok(())
}

/// Records which layer set each key: a value the layer gives replaces the
/// merged one, and the key's source becomes the layer.
struct Setter<'a> {
    sources: &'a mut BTreeMap<String, Source>,
    source: &'a Source,
}

impl Setter<'_> {
    /// `slot` takes `value` if the layer gives one, and `key` (built only
    /// then) records the layer as its source.
    fn set<T>(&mut self, slot: &mut T, value: Option<T>, key: impl FnOnce() -> String) {
        if let Some(v) = value {
            *slot = v;
            self.sources.insert(key(), self.source.clone());
        }
    }
}

/// The top-level keys: the kept sizes, `bypass`, `[budget]`, `never_bypass`.
fn merge_top(
    m: &mut Merged,
    top: &mut RawTop,
    origin: &str,
    source: &Source,
) -> Result<(), ConfigError> {
    let chars = top
        .max_kept_chars
        .map(|v| positive(v, origin, "max_kept_chars"))
        .transpose()?;
    let mut w = Setter {
        sources: &mut m.sources,
        source,
    };
    w.set(
        &mut m.max_kept_chars,
        chars.map(|v| Some((v, source.clone()))),
        || "max_kept_chars".into(),
    );
    let tokens = top
        .max_kept_tokens
        .map(|v| positive(v, origin, "max_kept_tokens"))
        .transpose()?;
    w.set(&mut m.max_kept_tokens, tokens.map(Some), || {
        "max_kept_tokens".into()
    });
    w.set(&mut m.bypass, top.bypass.take().map(trimmed), || {
        "bypass".into()
    });
    m.budget
        .merge(top.budget.take(), origin, source, &mut m.sources)?;
    let mut w = Setter {
        sources: &mut m.sources,
        source,
    };
    w.set(
        &mut m.never_bypass,
        top.never_bypass.take().map(trimmed),
        || "never_bypass".into(),
    );
    Ok(())
}

/// Tool names trimmed, the empty ones dropped.
fn trimmed(names: Vec<String>) -> Vec<String> {
    names
        .into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The `[tools.*]` entries, key by key over the merged entries; the entries a
/// user file adds are matched before the defaults.
fn merge_tools(
    m: &mut Merged,
    tools: Vec<(String, RawTool)>,
    origin: &str,
    source: &Source,
) -> Result<(), ConfigError> {
    let is_user = *source != Source::Default;
    let mut new_user_entries = Vec::new();
    for (key, raw) in tools {
        let k = format!("tools.{key}");
        let checked = Checked::parse(&raw, &k, origin)?;
        let existing = m.tools.iter_mut().position(|t| t.key == key);
        let idx = match existing {
            Some(i) => i,
            None => {
                m.tools.push(MergedTool::new(key, origin));
                if is_user {
                    new_user_entries.push(m.tools.len() - 1);
                }
                m.tools.len() - 1
            }
        };
        let mut w = Setter {
            sources: &mut m.sources,
            source,
        };
        checked.apply(raw, &mut m.tools[idx], &k, &mut w);
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
    Ok(())
}

impl MergedTool {
    /// A new entry `key`, named first by the file `origin`, with nothing set.
    fn new(key: String, origin: &str) -> MergedTool {
        MergedTool {
            key,
            created_by: origin.to_string(),
            family: None,
            names: Vec::new(),
            threshold: None,
            shape: None,
            args: ArgKeys::default(),
            unit: None,
            max_kept: None,
            clean: None,
            json: None,
        }
    }
}

/// The values of one `[tools.NAME]` table that need checking, checked.
struct Checked {
    family: Option<(Family, String)>,
    shape: Option<Shape>,
    threshold: Option<(usize, String)>,
    max_kept: Option<usize>,
    unit: Option<Unit>,
}

impl Checked {
    /// The table `raw` (key `k`, from `origin`) checked: its family, shape,
    /// threshold, `max_kept`, unit and encoding, in that order.
    fn parse(raw: &RawTool, k: &str, origin: &str) -> Result<Checked, ConfigError> {
        let family = match raw.family.as_deref() {
            Some(f) => Some((
                Family::parse(f).ok_or_else(|| {
                    ConfigError::new(
                        origin.to_string(),
                        &format!("{k}.family"),
                        ConfigErrorKind::UnknownName,
                        format!("unknown family {f:?}"),
                        format!("use one of: {}", Family::ALL.map(Family::as_str).join(", ")),
                    )
                })?,
                origin.to_string(),
            )),
            None => None,
        };
        let shape = match raw.shape.as_deref() {
            Some(s) => Some(Shape::parse(s).ok_or_else(|| {
                ConfigError::new(
                    origin.to_string(),
                    &format!("{k}.shape"),
                    ConfigErrorKind::UnknownName,
                    format!("unknown shape {s:?}"),
                    "use \"head\", \"tail\" or \"head_tail\"".to_string(),
                )
            })?),
            None => None,
        };
        let threshold = match raw.threshold {
            Some(t) => Some((
                positive(t, origin, &format!("{k}.threshold"))?,
                origin.to_string(),
            )),
            None => None,
        };
        let max_kept = match raw.max_kept {
            Some(v) => Some(positive(v, origin, &format!("{k}.max_kept"))?),
            None => None,
        };
        let unit = unit(raw.unit.as_deref(), raw.encoding.as_deref(), k, origin)?;
        Ok(Checked {
            family,
            shape,
            threshold,
            max_kept,
            unit,
        })
    }

    /// The entry `t` takes every value the table gives, each key recorded.
    fn apply(self, raw: RawTool, t: &mut MergedTool, k: &str, w: &mut Setter<'_>) {
        w.set(&mut t.family, self.family.map(Some), || {
            format!("{k}.family")
        });
        w.set(&mut t.names, raw.names, || format!("{k}.names"));
        w.set(&mut t.threshold, self.threshold.map(Some), || {
            format!("{k}.threshold")
        });
        w.set(&mut t.shape, self.shape.map(Some), || format!("{k}.shape"));
        w.set(&mut t.unit, self.unit.map(Some), || format!("{k}.unit"));
        w.set(&mut t.max_kept, self.max_kept.map(Some), || {
            format!("{k}.max_kept")
        });
        w.set(&mut t.clean, raw.clean.map(Some), || format!("{k}.clean"));
        w.set(&mut t.json, raw.json.map(Some), || format!("{k}.json"));
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
                w.set(slot, new, || format!("{k}.args.{role}"));
            }
        }
    }
}

/// The unit of the entry `k` from its `unit` and `encoding` keys (none when
/// neither is set; `encoding` alone means tokens).
fn unit(
    unit: Option<&str>,
    encoding: Option<&str>,
    k: &str,
    origin: &str,
) -> Result<Option<Unit>, ConfigError> {
    let err = |key: &str, kind, problem: String, fix: &str| {
        ConfigError::new(
            origin.to_string(),
            &format!("{k}.{key}"),
            kind,
            problem,
            fix.to_string(),
        )
    };
    match (unit, encoding) {
        (None, None) => Ok(None),
        (Some("chars"), None) => Ok(Some(Unit::Chars)),
        (Some("chars"), Some(_)) => Err(err(
            "encoding",
            ConfigErrorKind::Conflict,
            "an encoding only applies to unit = \"tokens\"".into(),
            "remove encoding, or set unit = \"tokens\"",
        )),
        (Some("tokens") | None, enc) => {
            let enc = enc.unwrap_or("o200k_base");
            let e = Encoding::parse(enc).ok_or_else(|| {
                err(
                    "encoding",
                    ConfigErrorKind::UnknownName,
                    format!("unknown encoding {enc:?}"),
                    "use \"o200k_base\" or \"cl100k_base\"",
                )
            })?;
            if !cfg!(feature = "tokens") {
                return Err(err(
                    "unit",
                    ConfigErrorKind::NotBuilt,
                    "token units need toolcap built with the `tokens` feature".into(),
                    "rebuild with --features tokens, or use unit = \"chars\"",
                ));
            }
            Ok(Some(Unit::Tokens(e)))
        }
        (Some(u), _) => Err(err(
            "unit",
            ConfigErrorKind::UnknownName,
            format!("unknown unit {u:?}"),
            "use \"chars\" or \"tokens\"",
        )),
    }
}

/// `[suggest]`: a preset sets every key first; the file's own keys then
/// override it.
fn merge_suggest(
    m: &mut Merged,
    s: RawSuggest,
    origin: &str,
    source: &Source,
) -> Result<(), ConfigError> {
    if let Some(name) = &s.preset {
        merge_preset(m, name, origin, source)?;
    }
    merge_suggest_args(
        m,
        "grep",
        s.grep.as_ref().and_then(|g| g.args.clone()),
        origin,
        source,
    )?;
    merge_suggest_args(
        m,
        "web_fetch",
        s.web_fetch.as_ref().and_then(|g| g.args.clone()),
        origin,
        source,
    )?;
    if let Some(v) = s.shell.as_ref().and_then(|x| x.argv) {
        m.argv = Some(v);
        m.sources
            .insert("suggest.shell.argv".into(), source.clone());
    }
    merge_suggest_names(m, s, source);
    Ok(())
}

/// `suggest.preset = name`: every `[suggest.*]` key of the preset.
fn merge_preset(
    m: &mut Merged,
    name: &str,
    origin: &str,
    source: &Source,
) -> Result<(), ConfigError> {
    let p = presets::preset(name).ok_or_else(|| {
        ConfigError::new(
            origin.to_string(),
            "suggest.preset",
            ConfigErrorKind::UnknownName,
            format!("unknown preset {name:?}"),
            format!(
                "use one of: {}",
                presets::PRESETS.map(|p| format!("{p:?}")).join(", ")
            ),
        )
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
    m.preset = Some(name.to_string());
    m.sources.insert("suggest.preset".into(), source.clone());
    Ok(())
}

/// `suggest.TOOL.args`: fixed arguments of every call of `tool`.
fn merge_suggest_args(
    m: &mut Merged,
    tool: &str,
    a: Option<toml::Table>,
    origin: &str,
    source: &Source,
) -> Result<(), ConfigError> {
    if let Some(a) = a {
        let v = serde_json::to_value(&a).map_err(|e| ConfigError {
            origin: origin.to_string(),
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
}

/// The tool and argument names of `[suggest.*]` (`suggest.read.path`, ...).
fn merge_suggest_names(m: &mut Merged, s: RawSuggest, source: &Source) {
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
