//! Logs: lines per level, and where the first and last errors are.

use std::sync::LazyLock;
use toolcap_text::text::static_regex;

use regex::Regex;

use super::{Format, TextOutline, plural, short};

static LOG_LEVEL: LazyLock<Regex> = LazyLock::new(|| {
    static_regex(
        r"\b(TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|CRITICAL|CRIT|FATAL|PANIC|SEVERE)\b",
    )
});

/// Log level of a line, normalized: WARNING -> WARN, ERR -> ERROR, ...
fn level_of(line: &str) -> Option<&'static str> {
    let m = LOG_LEVEL.find(line)?;
    Some(match m.as_str() {
        "TRACE" => "TRACE",
        "DEBUG" => "DEBUG",
        "INFO" | "NOTICE" => "INFO",
        "WARN" | "WARNING" => "WARN",
        "ERROR" | "ERR" | "SEVERE" => "ERROR",
        _ => "FATAL",
    })
}

pub(super) fn log(text: &str) -> Option<TextOutline> {
    const LEVELS: [&str; 6] = ["FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE"];
    let mut counts = [0usize; 6];
    let mut first_error: Option<(usize, &str)> = None;
    let mut last_error: Option<(usize, &str)> = None;
    let mut total = 0;
    for (i, l) in text.lines().enumerate() {
        total += 1;
        let Some(level) = level_of(l) else { continue };
        if let Some(k) = LEVELS.iter().position(|x| *x == level) {
            counts[k] += 1;
        }
        if matches!(level, "ERROR" | "FATAL") {
            if first_error.is_none() {
                first_error = Some((i + 1, l));
            }
            last_error = Some((i + 1, l));
        }
    }
    let leveled: usize = counts.iter().sum();
    if leveled == 0 {
        return None;
    }
    let per_level: Vec<String> = LEVELS
        .iter()
        .zip(counts)
        .filter(|(_, n)| *n > 0)
        .map(|(l, n)| format!("{l} {}", toolcap_text::text::thousands(n)))
        .collect();
    let mut lines = vec![format!(
        "{} (of {} with a level)",
        per_level.join(", "),
        plural(total, "line", "lines")
    )];
    if let Some((n, l)) = first_error {
        lines.push(format!("first error, line {n}: {}", short(l, 160)));
    }
    if let Some((n, l)) = last_error
        && Some(n) != first_error.map(|(f, _)| f)
    {
        lines.push(format!("last error, line {n}: {}", short(l, 160)));
    }
    Some(TextOutline {
        format: Format::Log,
        title: "Log levels".to_string(),
        lines,
    })
}

/// Whether a line carries a log level word.
pub(super) fn has_level(line: &str) -> bool {
    LOG_LEVEL.is_match(line)
}
