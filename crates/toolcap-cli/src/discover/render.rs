//! `toolcap discover`'s text report.

use super::{Found, missed};

fn n(x: u64) -> String {
    toolcap_text::text::thousands(usize::try_from(x).unwrap_or(usize::MAX))
}

fn plural(k: u64, one: &str, many: &str) -> String {
    format!("{} {}", n(k), if k == 1 { one } else { many })
}

/// `tool` or `tool kind`.
pub fn label((t, k): &(String, String)) -> String {
    if k.is_empty() {
        t.clone()
    } else {
        format!("{t} {k}")
    }
}

fn head(f: &Found) -> String {
    let mut out = format!(
        "{} in {}: {}, {}",
        f.agent.logs(),
        f.root.display(),
        plural(f.sessions, "session", "sessions"),
        plural(f.results, "tool result", "tool results")
    );
    if f.unreadable_lines > 0 {
        out.push_str(&format!(
            ", {} unreadable lines skipped",
            n(f.unreadable_lines)
        ));
    }
    out.push('\n');
    if f.persisted > 0 {
        out.push_str(&format!(
            "{} persisted by {} read from their files{}\n",
            plural(f.persisted, "output", "outputs"),
            f.agent.display(),
            if f.persisted_missing > 0 {
                format!(
                    " ({} files gone: their preview counted)",
                    n(f.persisted_missing)
                )
            } else {
                String::new()
            }
        ));
    }
    let lower: u64 = f.groups.values().map(|g| g.size_lower_bound).sum();
    if lower > 0 {
        out.push_str(&format!(
            "{} cut by the agent with no whole copy kept: their chars are at least the part kept\n",
            plural(lower, "output", "outputs")
        ));
    }
    out
}

pub fn text(f: &Found) -> String {
    let mut out = head(f);
    if f.groups.is_empty() {
        return out;
    }
    let w = f
        .groups
        .keys()
        .map(|k| label(k).chars().count().min(40))
        .max()
        .unwrap_or(4)
        .max(4);
    out.push_str(&format!(
        "\n{:<w$}  {:>6}  {:>11}  {:>11}  {:>6}  {:>8}  {:>11}  {:>12}\n",
        "tool", "calls", "chars", "shown", "over", "toolcap", "not capped", "would show"
    ));
    for (k, g) in &f.groups {
        let l: String = label(k).chars().take(40).collect();
        out.push_str(&format!(
            "{l:<w$}  {:>6}  {:>11}  {:>11}  {:>6}  {:>8}  {:>11}  {:>12}\n",
            n(g.calls),
            n(g.chars),
            n(g.shown_chars),
            n(g.over_threshold),
            n(g.through_toolcap),
            n(missed(g)),
            n(g.would_show_chars)
        ));
    }
    let uncovered: Vec<String> = f
        .groups
        .iter()
        .filter(|(_, g)| g.tool_not_covered > 0)
        .map(|(k, _)| label(k))
        .collect();
    let not_capped: u64 = f.groups.values().map(|g| g.not_capped).sum();
    out.push('\n');
    if not_capped > 0 {
        out.push_str(&format!(
            "{} results over the threshold did not go through toolcap though it covers their tool: not installed for these sessions (`toolcap install {}`)\n",
            n(not_capped),
            f.agent.name()
        ));
    }
    if !uncovered.is_empty() {
        out.push_str(&format!(
            "over the threshold in tools toolcap does not cap in {}: {}\n",
            f.agent.name(),
            uncovered.join(", ")
        ));
    }
    let calls: u64 = f.recovery.values().sum();
    out.push_str(&format!("recovery calls: {}", n(calls)));
    if calls > 0 {
        let by: Vec<String> = f
            .recovery
            .iter()
            .map(|(k, v)| format!("{k} {}", n(*v)))
            .collect();
        out.push_str(&format!(" ({})", by.join(", ")));
    }
    out.push('\n');
    out
}
