//! Validation, once, after the layers are merged: every error names the file,
//! the key and the fix.

use super::merge::{Merged, MergedTool};
use super::{
    Config, ConfigError, ConfigErrorKind, DEFAULTS_ORIGIN, Family, Shape, Source, Suggest,
    ToolEntry, Unit,
};

pub(super) fn finish(m: Merged) -> Result<Config, ConfigError> {
    let Some((max_kept_chars, _)) = m.max_kept_chars.clone() else {
        return Err(ConfigError {
            origin: DEFAULTS_ORIGIN.into(),
            key: "max_kept_chars".into(),
            problem: "missing".into(),
            fix: "set max_kept_chars".into(),
            kind: ConfigErrorKind::Missing,
            source: None,
            line: None,
        });
    };
    let tools = m
        .tools
        .iter()
        .map(|t| tool_entry(&m, t, max_kept_chars))
        .collect::<Result<Vec<ToolEntry>, ConfigError>>()?;
    if !tools.iter().any(|t| t.key == "generic") {
        return Err(ConfigError {
            origin: DEFAULTS_ORIGIN.into(),
            key: "tools.generic".into(),
            problem: "missing".into(),
            fix: "add a [tools.generic] entry".into(),
            kind: ConfigErrorKind::Missing,
            source: None,
            line: None,
        });
    }
    let suggest = suggest(&m)?;
    Ok(Config {
        budget: m.budget.finish(),
        max_kept_chars,
        max_kept_tokens: m.max_kept_tokens.unwrap_or(500),
        bypass: m.bypass,
        tools,
        suggest,
        store: m.store,
        sources: m.sources,
    })
}

/// Where `key` was set, as errors name it: the file, `env VAR` or the defaults.
fn origin_of(m: &Merged, key: &str) -> String {
    match m.sources.get(key) {
        Some(Source::File(p)) => p.display().to_string(),
        Some(Source::Env(v)) => format!("env {v}"),
        _ => DEFAULTS_ORIGIN.to_string(),
    }
}

/// The merged entry `t` checked and completed: what it leaves unset comes from
/// its family's entry, then from the top-level settings.
fn tool_entry(m: &Merged, t: &MergedTool, max_kept_chars: usize) -> Result<ToolEntry, ConfigError> {
    let k = format!("tools.{}", t.key);
    let family = match &t.family {
        Some((f, _)) => *f,
        // only a user file can name a tool that is not a family
        None => Family::parse(&t.key).ok_or_else(|| ConfigError {
            origin: t.created_by.clone(),
            key: format!("{k}.family"),
            problem: format!(
                "missing: the entry's name {:?} is not a family, so it needs a family key",
                t.key
            ),
            fix: format!(
                "add family = \"...\" (one of: {})",
                Family::ALL.map(Family::as_str).join(", ")
            ),
            kind: ConfigErrorKind::Missing,
            source: None,
            line: None,
        })?,
    };
    let threshold = match &t.threshold {
        Some((v, _)) => *v,
        None => default_threshold(m, family),
    };
    let fam = m.tools.iter().find(|d| d.key == family.as_str());
    let unit = t.unit.or(fam.and_then(|f| f.unit)).unwrap_or(Unit::Chars);
    let clean = t.clean.or(fam.and_then(|f| f.clean)).unwrap_or(false);
    let json = t.json.or(fam.and_then(|f| f.json)).unwrap_or(true);
    let kept = match (t.max_kept, unit) {
        (Some(v), _) => (v, format!("{k}.max_kept")),
        (None, Unit::Chars) => (max_kept_chars, "max_kept_chars".to_string()),
        (None, Unit::Tokens(_)) => (
            m.max_kept_tokens.unwrap_or(500),
            "max_kept_tokens".to_string(),
        ),
    };
    check_threshold(m, &k, threshold, &kept, unit)?;
    // like the unit, cleaning and JSON: the family's row in thresholds.toml
    let shape = t.shape.or(fam.and_then(|f| f.shape)).unwrap_or(Shape::Head);
    let mut args = t.args.clone();
    if let Some(fam_entry) = fam {
        // a user entry of a family inherits that family's argument keys where unset
        let inherit = |mine: &mut Vec<String>, theirs: &Vec<String>| {
            if mine.is_empty() {
                mine.clone_from(theirs);
            }
        };
        inherit(&mut args.path, &fam_entry.args.path);
        inherit(&mut args.pattern, &fam_entry.args.pattern);
        inherit(&mut args.command, &fam_entry.args.command);
        inherit(&mut args.query, &fam_entry.args.query);
        inherit(&mut args.url, &fam_entry.args.url);
        inherit(&mut args.exit_code, &fam_entry.args.exit_code);
    }
    if t.names.iter().any(|n| n.trim().is_empty()) {
        return Err(ConfigError {
            origin: origin_of(m, &format!("{k}.names")),
            key: format!("{k}.names"),
            problem: "contains an empty name".into(),
            fix: "remove the empty string from the list".into(),
            kind: ConfigErrorKind::Invalid,
            source: None,
            line: None,
        });
    }
    if let Some(n) = t
        .names
        .iter()
        .find(|n| n.trim().contains(char::is_whitespace) && crate::conditional_name(n).is_none())
    {
        return Err(ConfigError {
            origin: origin_of(m, &format!("{k}.names")),
            key: format!("{k}.names"),
            problem: format!(
                "{n:?} is neither a tool name (tool names have no spaces) nor TOOL KEY=VALUE"
            ),
            fix: "write a tool name or pattern, or a tool and a condition on one of its \
                  arguments: \"str_replace_editor command=view\""
                .into(),
            kind: ConfigErrorKind::Invalid,
            source: None,
            line: None,
        });
    }
    Ok(ToolEntry {
        key: t.key.clone(),
        family,
        names: t.names.clone(),
        threshold,
        shape,
        args,
        unit,
        max_kept: kept.0,
        clean,
        json,
    })
}

/// The entry `k`'s threshold must be above what it keeps (`kept`: the size and
/// the key it comes from); the error blames whichever of the two the user set.
fn check_threshold(
    m: &Merged,
    k: &str,
    threshold: usize,
    (max_kept, kept_key): &(usize, String),
    unit: Unit,
) -> Result<(), ConfigError> {
    if threshold > *max_kept {
        return Ok(());
    }
    let key = format!("{k}.threshold");
    let user_set = |key: &str| !matches!(m.sources.get(key), None | Some(Source::Default));
    // Blame whichever the user set; prefer the threshold.
    let bad_key = if user_set(&key) || !user_set(kept_key) {
        key.clone()
    } else {
        kept_key.clone()
    };
    let u = unit.name();
    Err(ConfigError {
        origin: origin_of(m, &bad_key),
        key: bad_key,
        problem: format!("{key} = {threshold} {u} is not greater than {kept_key} = {max_kept} {u}"),
        fix: format!("raise {key} above {max_kept} or lower {kept_key} below {threshold}"),
        kind: ConfigErrorKind::Conflict,
        source: None,
        line: None,
    })
}

/// The `[suggest]` settings, checked: a named tool needs its argument names.
fn suggest(m: &Merged) -> Result<Suggest, ConfigError> {
    let get = |k: &str| m.suggest.get(k).cloned().unwrap_or_default();
    let args = |t: &str| m.suggest_args.get(t).cloned().unwrap_or_default();
    let suggest = Suggest::from_keys(
        m.preset.clone().unwrap_or_else(|| "generic".to_string()),
        m.argv.unwrap_or(false),
        get,
        args,
    );
    // A named tool needs its argument names (a read tool's range arguments
    // are each optional, but it needs one way to ask for lines).
    for (tool, fields) in suggest.fields() {
        let named = fields.first().is_some_and(|(_, v)| !v.is_empty());
        let optional = |f: &str| {
            (tool == "web_fetch" && f == "save_to")
                || (tool == "grep" && matches!(f, "ignore_case" | "include"))
                || (tool == "read" && matches!(f, "start" | "limit" | "end" | "head" | "tail"))
        };
        for (field, value) in &fields[1..] {
            if named && value.is_empty() && !optional(field) {
                let key = format!("suggest.{tool}.{field}");
                return Err(ConfigError {
                    origin: origin_of(m, &key),
                    key,
                    problem: "is empty while the tool is named".into(),
                    fix: format!(
                        "name the argument of the {tool} tool, or set suggest.{tool}.tool = \"\""
                    ),
                    kind: ConfigErrorKind::Missing,
                    source: None,
                    line: None,
                });
            }
        }
    }
    let r = &suggest.read;
    if !r.tool.is_empty()
        && !(!r.start.is_empty() && (!r.limit.is_empty() || !r.end.is_empty()))
        && r.head.is_empty()
        && r.tail.is_empty()
    {
        let key = "suggest.read.start".to_string();
        return Err(ConfigError {
            origin: origin_of(m, "suggest.read.tool"),
            key,
            problem: "the read tool is named but no way to ask it for lines is".into(),
            fix: "set start and limit (or start and end), or head and/or tail, or set suggest.read.tool = \"\"".into(),
            kind: ConfigErrorKind::Missing,
            source: None,
            line: None,
        });
    }
    Ok(suggest)
}

/// The threshold of an entry of `family` that sets none: the family's entry's,
/// else `generic`'s, else 3500.
pub(super) fn default_threshold(m: &Merged, family: Family) -> usize {
    m.tools
        .iter()
        .find(|t| t.key == family.as_str())
        .or_else(|| m.tools.iter().find(|t| t.key == "generic"))
        .and_then(|t| t.threshold.as_ref().map(|(v, _)| *v))
        .unwrap_or(3500)
}
