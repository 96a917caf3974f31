//! `toolcap outline` (a file's structure) and `toolcap langs`.

use std::path::PathBuf;

use clap::Args;
use serde_json::{Map, Value};
use toolcap_core::bind::{self, Lang};
use toolcap_outline::text;
use toolcap_outline::{Kind, Language, Options, Outline};
use toolcap_text::text::thousands;

use super::common::{Failure, lang_names, other, parse_lang, read_input, usage, write_out};

#[derive(Args)]
pub struct OutlineArgs {
    file: PathBuf,
    /// Language, overriding detection (see `toolcap langs`).
    #[arg(long)]
    lang: Option<String>,
    #[arg(long)]
    json: bool,
    /// Budget in milliseconds (0: none), counted in parser work at a fixed
    /// rate, not wall time: the same file gives the same outline on every
    /// run. Past it, the outline covers a prefix of the file and says so.
    #[arg(long, value_name = "MS", default_value_t = 100)]
    budget_ms: u64,
    /// Outline at most this many bytes of the file (a prefix ending at a
    /// top-level boundary).
    #[arg(long, value_name = "BYTES", default_value_t = toolcap_outline::DEFAULT_MAX_BYTES)]
    max_bytes: usize,
}

pub fn outline(a: OutlineArgs) -> Result<(), Failure> {
    let lang = parse_lang(a.lang.as_deref())?;
    let bytes = read_input(Some(&a.file))?;
    let text = String::from_utf8_lossy(&bytes);
    let path = a.file.display().to_string();
    // A text format (`--lang markdown`, or no code language detected and a
    // `.md`/`.json`/... name or content): its non-code outline.
    let (code, format) = match lang {
        Some(Lang::Code(l)) => (Some(l), None),
        Some(Lang::Text(f)) => (None, Some(f)),
        _ => (None, None),
    };
    let detected = match format {
        Some(_) => None,
        None => code.or_else(|| Language::detect(Some(&path), &text)),
    };
    let Some(lang) = detected else {
        return match format.or_else(|| text::detect(Some(&path), &text)) {
            Some(format) => outline_text(&path, format, &text, a.json),
            None => Err(usage(format!(
                "{path}: cannot tell the language from the file name or content; pass --lang NAME (one of: {}; or a text format: {})",
                lang_names(),
                bind::text_format_names()
            ))),
        };
    };
    let options = Options {
        budget: (a.budget_ms > 0).then(|| std::time::Duration::from_millis(a.budget_ms)),
        max_bytes: a.max_bytes,
        ..Options::default()
    };
    let o = toolcap_outline::outline_with(&text, lang, &options)
        .map_err(|e| other(format!("{path}: outline failed: {e}")))?;
    let out = if a.json {
        let mut v = serde_json::to_value(&o).map_err(|e| other(e.to_string()))?;
        if let Value::Object(m) = &mut v {
            let mut with_path = Map::new();
            with_path.insert("path".into(), Value::String(path));
            with_path.extend(std::mem::take(m));
            *m = with_path;
        }
        format!("{v}\n")
    } else {
        render(&path, &o)
    };
    write_out(out.as_bytes())
}

/// The outline of a non-code text: `PATH: FORMAT, N lines`, the listing's
/// title, then its lines (all of them: no cap); `--json`: `path`, `format`,
/// `lines`, `title`, `entries` (null title and no entries when there is
/// nothing to list).
fn outline_text(path: &str, format: text::Format, source: &str, json: bool) -> Result<(), Failure> {
    let lines = source.lines().count();
    let o = text::outline_capped(format, source, usize::MAX);
    let out = if json {
        let v = serde_json::json!({
            "path": path,
            "format": format.as_str(),
            "lines": lines,
            "title": o.as_ref().map(|o| o.title.clone()),
            "entries": o.as_ref().map_or(&[][..], |o| &o.lines[..]),
        });
        format!("{v}\n")
    } else {
        let mut out = format!(
            "{path}: {}, {} line{}\n",
            format.as_str(),
            thousands(lines),
            if lines == 1 { "" } else { "s" }
        );
        match &o {
            Some(o) => {
                out.push_str(&o.title);
                out.push('\n');
                for l in &o.lines {
                    out.push_str(l);
                    out.push('\n');
                }
            }
            None => out.push_str("nothing to outline\n"),
        }
        out
    };
    write_out(out.as_bytes())
}

/// ` (syntax errors: lines 48-51 and 210-213 read best-effort)`, or "".
fn syntax_note(o: &Outline) -> String {
    if !o.syntax_errors {
        return String::new();
    }
    if o.best_effort.is_empty() {
        return " (syntax errors: best effort)".to_string();
    }
    /// Line ranges listed; the rest are counted.
    const LISTED: usize = 6;
    let mut spans: Vec<String> = o
        .best_effort
        .iter()
        .take(LISTED)
        .map(ToString::to_string)
        .collect();
    let rest = o.best_effort.len().saturating_sub(LISTED);
    if rest > 0 {
        spans.push(format!(
            "{} more {}",
            thousands(rest),
            if rest == 1 { "range" } else { "ranges" }
        ));
    }
    let listed = match spans.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, init)) => format!("{} and {last}", init.join(", ")),
        None => String::new(),
    };
    format!(" (syntax errors: lines {listed} read best-effort)")
}

fn render(path: &str, o: &Outline) -> String {
    let mut out = format!(
        "{path}: {}, {} lines, {} symbols{}{}\n",
        o.language,
        thousands(o.lines),
        o.symbols.len(),
        match o.stopped_by {
            Some(stop) if o.partial => format!(
                " (partial: lines 1-{} of {}; {} stopped it)",
                thousands(o.covered_lines),
                thousands(o.lines),
                stop.describe()
            ),
            _ => String::new(),
        },
        syntax_note(o)
    );
    // The names of the symbols the current one is listed under, by depth.
    let mut under: Vec<&str> = Vec::new();
    for s in &o.symbols {
        under.truncate(s.depth);
        let listed_under = s.depth.checked_sub(1).and_then(|d| under.get(d)).copied();
        let label = match (&s.detail, s.kind, &s.parent) {
            (Some(d), Kind::Impl, _) => d.clone(),
            // A method defined outside its type, at file level or in a
            // namespace: `method Server.start`.
            (_, _, Some(p)) if listed_under != Some(p.as_str()) => {
                format!("{} {p}.{}", s.kind.as_str(), s.name)
            }
            _ => format!("{} {}", s.kind.as_str(), s.name),
        };
        under.push(&s.name);
        out.push_str(&format!(
            "{}{label} (lines {}-{})\n",
            "  ".repeat(s.depth),
            s.line,
            s.end_line
        ));
    }
    out
}

pub fn langs() -> Result<(), Failure> {
    let mut rows = vec![[
        "language".to_string(),
        "extensions".to_string(),
        "aliases".to_string(),
        "interpreters".to_string(),
        "query".to_string(),
    ]];
    for l in Language::all() {
        rows.push([
            l.name().to_string(),
            l.extensions().join(" "),
            l.aliases().join(" "),
            l.interpreters().join(" "),
            l.query_files().join(" + "),
        ]);
    }
    let mut widths = [0usize; 5];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in &rows {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            line.push_str(&format!("{cell:<w$}"));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    write_out(out.as_bytes())
}
