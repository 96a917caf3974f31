//! The page: escaped HTML, inline CSS, the figures as a JSON block.

use serde_json::Value;

use super::super::discover::{self, Found};
use super::text::{esc, n, when};
use super::{Cut, FULL_CHARS, Page, Stored, svg};

fn plural(k: u64, one: &str, many: &str) -> String {
    format!("{} {}", n(k), if k == 1 { one } else { many })
}

fn u(v: &Value, k: &str) -> u64 {
    v.get(k).and_then(Value::as_u64).unwrap_or(0)
}

/// JSON for a `<script type="application/json">` block: no `<` to end it early,
/// and every character [`visible_char`](super::super::common::visible_char)
/// names as a `\uXXXX` escape (the same string to a JSON reader; a view of the
/// page's source is not reordered by a bidi override).
fn script_json(v: &Value) -> String {
    let mut out = String::new();
    for c in v.to_string().chars() {
        if c == '<' || super::super::common::visible_char(c).is_some() {
            let mut units = [0u16; 2];
            for u in c.encode_utf16(&mut units) {
                out.push_str(&format!("\\u{u:04x}"));
            }
        } else {
            out.push(c);
        }
    }
    out
}

const CSS: &str = "
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
main{max-width:1200px;margin:0 auto;padding:24px}
h1{font-size:24px;margin:0 0 4px}h2{font-size:18px;margin:32px 0 8px;border-bottom:1px solid #d8dce3;padding-bottom:4px}
.note{background:#fff6db;border:1px solid #e8d48a;padding:8px 12px;border-radius:6px}
.muted{color:#5b6474}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(160px,1fr));gap:12px;margin-top:16px}
.card{background:#fff;border:1px solid #d8dce3;border-radius:8px;padding:10px 12px}
.card b{display:block;font-size:22px}
table{border-collapse:collapse;width:100%;background:#fff;font-size:13px}
th,td{border:1px solid #e1e4ea;padding:4px 8px;text-align:left;vertical-align:top}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
code{font:12px/1.4 ui-monospace,Menlo,Consolas,monospace;word-break:break-all}
.chart{background:#fff;border:1px solid #d8dce3;border-radius:8px}
.bar{fill:#3b7dd8}.axis{stroke:#8a93a3}.lab{font-size:11px;fill:#3c4452}.val{font-size:11px;fill:#1d2330}
details{background:#fff;border:1px solid #d8dce3;border-radius:6px;margin:6px 0;padding:6px 10px}
summary{cursor:pointer}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:10px;margin-top:8px}
.pair pre{margin:0;max-height:480px;overflow:auto;background:#0f1420;color:#e6e9ef;padding:8px;border-radius:6px;font:12px/1.35 ui-monospace,Menlo,Consolas,monospace;white-space:pre-wrap;word-break:break-all}
.pair h4{margin:0 0 4px;font-size:13px}
.pair p{margin:4px 0 0;font-size:12px}
";

pub fn page(p: &Page) -> String {
    let mut out = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>toolcap report</title><style>",
    );
    out.push_str(CSS);
    out.push_str("</style></head><body><main>\n");
    out.push_str(&header(p));
    out.push_str(&totals(&p.gain["totals"]));
    out.push_str(&days(&p.gain));
    out.push_str(&tools(&p.gain));
    out.push_str(&projects(&p.gain));
    out.push_str(&largest(&p.largest));
    out.push_str(&calls(p));
    out.push_str(&missed(&p.agents));
    out.push_str(&cut(p));
    out.push_str(&format!(
        "<script type=\"application/json\" id=\"toolcap-gain\">{}</script>\n",
        script_json(&p.gain)
    ));
    out.push_str("</main></body></html>\n");
    out
}

fn header(p: &Page) -> String {
    let mut out = format!(
        "<h1>toolcap report</h1><p class=\"muted\">{} · made {} UTC from the stores in <code>{}</code> ({} read)</p>\n\
         <p class=\"note\"><b>Before you share this page:</b> it holds the commands your agents ran and the outputs they got back \
         (the largest results, the recovery calls with what they searched for, and each cut result's full output, up to {} characters each). \
         It was made on this machine from files on this machine; nothing was sent anywhere, and the page loads nothing from the network.</p>\n",
        esc(&p.scope),
        esc(&when(toolcap_store::now_ms())),
        esc(p.gain["state_dir"].as_str().unwrap_or("")),
        plural(u(&p.gain, "stores"), "store", "stores"),
        n(FULL_CHARS as u64),
    );
    for s in &p.skipped {
        out.push_str(&format!(
            "<p class=\"note\">skipped: <code>{}</code></p>\n",
            esc(s)
        ));
    }
    out
}

/// A card: a figure with its JSON key in `data-k` (the tests read them back).
fn card(label: &str, key: &str, v: u64, extra: &str) -> String {
    format!(
        "<div class=\"card\"><span class=\"muted\">{}</span><b data-k=\"{key}\" data-v=\"{v}\">{}</b>{extra}</div>",
        esc(label),
        n(v)
    )
}

fn totals(t: &Value) -> String {
    let mut out = String::from("<h2>In all</h2><div class=\"cards\" id=\"totals\">");
    out.push_str(&card(
        "results seen",
        "results_seen",
        u(t, "results_seen"),
        "",
    ));
    out.push_str(&card(
        "results cut",
        "results_cut",
        u(t, "results_cut"),
        &format!(
            "<span class=\"muted\">{}% of those seen</span>",
            u(t, "cut_rate_pct")
        ),
    ));
    out.push_str(&card(
        "chars of the full results",
        "chars_original",
        u(t, "chars_original"),
        "",
    ));
    out.push_str(&card(
        "chars the model was shown",
        "chars_shown",
        u(t, "chars_shown"),
        "",
    ));
    out.push_str(&card(
        "chars saved",
        "chars_saved",
        u(t, "chars_saved"),
        &format!(
            "<span class=\"muted\">{}% of the full results</span>",
            u(t, "chars_saved_pct")
        ),
    ));
    out.push_str(&card(
        "cut results asked back",
        "cut_asked_back",
        u(t, "cut_asked_back"),
        &format!(
            "<span class=\"muted\"><span data-k=\"calls_on_cut\" data-v=\"{}\">{}</span> on them, {} per cut result</span>",
            u(t, "calls_on_cut"),
            plural(u(t, "calls_on_cut"), "recovery call", "recovery calls"),
            esc(t["calls_per_cut"].as_str().unwrap_or("0.00"))
        ),
    ));
    out.push_str(&card(
        "recovery calls",
        "recovery_calls",
        u(t, "recovery_calls"),
        "",
    ));
    out.push_str("</div>\n");
    out
}

/// A table of figures rows: `key` names each row in `data-row`.
fn figures_table(rows: &[Value], key: &str, head: &str) -> String {
    let mut out = format!(
        "<table><tr><th>{}</th><th class=\"num\">results seen</th><th class=\"num\">cut</th><th class=\"num\">chars</th><th class=\"num\">shown</th><th class=\"num\">saved</th><th class=\"num\">asked back</th><th class=\"num\">recovery calls</th></tr>",
        esc(head)
    );
    for r in rows {
        let name = r[key].as_str().unwrap_or("");
        out.push_str(&format!(
            "<tr data-row=\"{}\"><td><code>{}</code></td>",
            esc(name),
            esc(name)
        ));
        for k in [
            "results_seen",
            "results_cut",
            "chars_original",
            "chars_shown",
            "chars_saved",
            "cut_asked_back",
            "recovery_calls",
        ] {
            out.push_str(&format!(
                "<td class=\"num\" data-k=\"{k}\" data-v=\"{v}\">{}</td>",
                n(u(r, k)),
                v = u(r, k)
            ));
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>\n");
    out
}

fn rows_of<'a>(gain: &'a Value, k: &str) -> &'a [Value] {
    gain[k].as_array().map_or(&[], Vec::as_slice)
}

fn days(gain: &Value) -> String {
    let days = rows_of(gain, "days");
    let mut out = String::from("<h2>Characters saved per day (UTC)</h2>");
    if days.is_empty() {
        return out + "<p class=\"muted\">Nothing recorded yet.</p>\n";
    }
    let latest = &days[days.len().saturating_sub(60)..];
    let bars: Vec<(String, u64)> = latest
        .iter()
        .map(|d| {
            (
                d["date"].as_str().unwrap_or("").to_string(),
                u(d, "chars_saved"),
            )
        })
        .collect();
    out.push_str(&svg::columns("characters saved per day", &bars));
    if latest.len() < days.len() {
        out.push_str(&format!(
            "<p class=\"muted\">The chart shows the latest {} days of {}; the table has them all.</p>",
            latest.len(),
            days.len()
        ));
    }
    out.push_str("<details><summary>the days as a table</summary>");
    out.push_str(&figures_table(days, "date", "day"));
    out.push_str("</details>\n");
    out
}

fn tools(gain: &Value) -> String {
    let tools = rows_of(gain, "tools");
    let mut out = String::from("<h2>Characters saved per tool</h2>");
    if tools.is_empty() {
        return out + "<p class=\"muted\">Nothing recorded yet.</p>\n";
    }
    let mut bars: Vec<(String, u64)> = tools
        .iter()
        .map(|t| {
            (
                t["tool"].as_str().unwrap_or("").to_string(),
                u(t, "chars_saved"),
            )
        })
        .collect();
    bars.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    out.push_str(&svg::rows("characters saved per tool", &bars));
    out.push_str(&figures_table(tools, "tool", "tool"));
    out
}

fn projects(gain: &Value) -> String {
    let ps = rows_of(gain, "projects");
    if ps.is_empty() {
        return String::new();
    }
    String::from("<h2>Per project</h2>") + &figures_table(ps, "name", "project store")
}

/// What a stored result's call was: its command, path or URL, else its arguments.
fn what(meta: &toolcap_store::Meta) -> String {
    let a = &meta.tool_args;
    for k in [
        "command",
        "cmd",
        "file_path",
        "path",
        "url",
        "pattern",
        "query",
    ] {
        if let Some(s) = a.get(k).and_then(Value::as_str) {
            return s.to_string();
        }
    }
    let s = a.to_string();
    if s == "null" || s == "{}" {
        String::new()
    } else {
        s
    }
}

fn largest(rows: &[Stored]) -> String {
    let mut out = String::from("<h2>The largest results</h2>");
    if rows.is_empty() {
        return out + "<p class=\"muted\">No stored results.</p>\n";
    }
    out.push_str("<table><tr><th>project</th><th>tool</th><th>command or argument</th><th class=\"num\">chars</th><th class=\"num\">lines</th><th>cut</th><th>when (UTC)</th></tr>");
    for s in rows {
        let m = &s.meta;
        out.push_str(&format!(
            "<tr><td>{}</td><td><code>{}</code></td><td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td><td>{}</td></tr>",
            esc(&s.project),
            esc(&m.tool_name),
            esc(&what(m)),
            n(m.size.chars as u64),
            n(m.size.lines as u64),
            if m.truncated { "cut" } else { "whole" },
            esc(&when(m.created_at_ms))
        ));
    }
    out.push_str("</table>\n");
    out
}

fn calls(p: &Page) -> String {
    let mut out = format!(
        "<h2>Recovery calls</h2><p class=\"muted\">{} in all{}</p>",
        n(p.calls_total as u64),
        if p.calls_total > p.calls.len() {
            format!(", the latest {} below", p.calls.len())
        } else {
            String::new()
        }
    );
    if p.calls.is_empty() {
        return out;
    }
    out.push_str("<table><tr><th>when (UTC)</th><th>project</th><th>result id</th><th>tool</th><th>asked for</th><th>what</th><th class=\"num\">reply chars</th><th>outcome</th></tr>");
    for (project, c) in &p.calls {
        let asked = [
            c.pattern.clone(),
            c.symbol.clone(),
            c.path.clone(),
            c.start_line.map(|s| {
                format!(
                    "lines {s}-{}",
                    c.end_line.map_or(String::new(), |e| e.to_string())
                )
            }),
            c.offset.map(|o| format!("from char {o}")),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" · ");
        out.push_str(&format!(
            "<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td><code>{}</code></td><td>{}</td><td><code>{}</code></td><td class=\"num\">{}</td><td>{}</td></tr>",
            esc(&when(c.at_ms)),
            esc(project),
            esc(&c.tool_call_id),
            esc(&c.recovery_tool),
            esc(&format!("{:?}", c.ask).to_lowercase()),
            esc(&asked),
            n(c.reply_chars),
            esc(&format!("{:?}", c.outcome).to_lowercase()),
        ));
    }
    out.push_str("</table>\n");
    out
}

fn missed(agents: &[Found]) -> String {
    let mut out = String::from("<h2>What the agents' own logs show</h2>");
    if agents.is_empty() {
        return out
            + "<p class=\"muted\">No session logs of Claude Code, Codex, Gemini CLI or opencode were found for this scope (<code>toolcap discover</code> reads them).</p>\n";
    }
    out.push_str("<table><tr><th>agent</th><th>logs read</th><th class=\"num\">sessions</th><th class=\"num\">tool results</th><th class=\"num\">over the threshold</th><th class=\"num\">through toolcap</th><th class=\"num\">missed</th><th class=\"num\">recovery calls</th><th class=\"num\">unreadable lines</th></tr>");
    for f in agents {
        let sum = |g: fn(&discover::Group) -> u64| f.groups.values().map(g).sum::<u64>();
        out.push_str(&format!(
            "<tr data-agent-total=\"{}\"><td>{}</td><td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
            f.agent.name(),
            f.agent.display(),
            esc(&f.root.display().to_string()),
            n(f.sessions),
            n(f.results),
            n(sum(|g| g.over_threshold)),
            n(sum(|g| g.through_toolcap)),
            n(sum(discover::missed)),
            n(f.recovery.values().sum()),
            n(f.unreadable_lines),
        ));
    }
    out.push_str("</table>\n<p class=\"muted\">Results over toolcap's threshold that did not go through toolcap (<code>toolcap discover --agent AGENT</code> has the whole table):</p>");
    let head = "<table><tr><th>agent</th><th>tool</th><th class=\"num\">calls</th><th class=\"num\">chars</th><th class=\"num\">shown</th><th class=\"num\">through toolcap</th><th class=\"num\">missed</th><th>why</th><th class=\"num\">toolcap would show</th></tr>";
    let mut rows = String::new();
    for f in agents {
        for (k, g) in &f.groups {
            let why = match (g.not_capped, g.tool_not_covered) {
                (0, 0) => continue,
                (_, 0) => format!(
                    "not installed (<code>toolcap install {}</code>)",
                    f.agent.name()
                ),
                (0, _) => "tool not covered".to_string(),
                _ => "not installed; tool not covered".to_string(),
            };
            rows.push_str(&format!(
                "<tr data-agent=\"{}\"><td>{}</td><td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\" data-k=\"missed\" data-v=\"{}\">{}</td><td>{why}</td><td class=\"num\">{}</td></tr>",
                f.agent.name(),
                f.agent.display(),
                esc(&discover::label(k)),
                n(g.calls),
                if g.size_lower_bound > 0 {
                    format!("at least {}", n(g.chars))
                } else {
                    n(g.chars)
                },
                n(g.shown_chars),
                n(g.through_toolcap),
                discover::missed(g),
                n(discover::missed(g)),
                n(g.would_show_chars),
            ));
        }
    }
    if rows.is_empty() {
        out.push_str("<p>None: every result over the threshold went through toolcap.</p>\n");
        return out;
    }
    out.push_str(head);
    out.push_str(&rows);
    out.push_str("</table>\n");
    out
}

/// The `toolcap show` command that prints a stored result whole (POSIX quoted).
fn show_command(c: &Cut) -> String {
    let m = &c.meta;
    let store = c.store.display().to_string();
    let words = [
        m.tool_call_id.as_str(),
        store.as_str(),
        m.dialog_id.as_str(),
    ]
    .map(|w| toolcap_text::quote::shell_word(w).unwrap_or_default());
    format!(
        "toolcap show {} --store {} --dialog {}",
        words[0], words[1], words[2]
    )
}

fn cut_one(c: &Cut) -> String {
    let m = &c.meta;
    let total = m.size.chars as u64;
    let view_chars = c.view.as_deref().map_or(0, |v| v.chars().count() as u64);
    let (full_head, full_foot) = if (c.full.chars().count() as u64) < total {
        (
            format!("the first {} of {} chars", n(FULL_CHARS as u64), n(total)),
            format!(
                "<p class=\"muted\">The rest is in the store: <code>{}</code> prints it all.</p>",
                esc(&show_command(c))
            ),
        )
    } else {
        (format!("all {} chars", n(total)), String::new())
    };
    let recorded = c.shown_recorded.map_or(String::new(), |s| {
        format!(
            "<p class=\"muted\">The record says the model was shown {} chars.</p>",
            n(s)
        )
    });
    let view = match &c.view {
        Some(v) => format!(
            "<h4>the view ({} chars, replayed from the stored output)</h4><pre>{}</pre>",
            n(view_chars),
            esc(v)
        ),
        None => format!(
            "<h4>the view (not replayed)</h4><p class=\"muted\">The output is {} bytes, more than the {} the page replays.</p>",
            n(m.size.bytes as u64),
            n(super::REPLAY_MAX_BYTES as u64)
        ),
    };
    format!(
        "<details data-view-chars=\"{view_chars}\" data-shown-chars=\"{}\"><summary><code>{}</code> <code>{}</code> · {} chars · {} UTC · {}</summary>\
         <div class=\"pair\"><div>{view}{recorded}</div>\
         <div><h4>the full output ({full_head})</h4><pre>{}</pre>{full_foot}</div></div></details>\n",
        c.shown_recorded.map_or_else(String::new, |s| s.to_string()),
        esc(&m.tool_name),
        esc(&what(m)),
        n(total),
        esc(&when(m.created_at_ms)),
        esc(&c.project),
        esc(&c.full),
    )
}

fn cut(p: &Page) -> String {
    let mut out = format!(
        "<h2>Cut results: the view beside the full output</h2><p class=\"muted\">{} cut results stored{}</p>",
        n(p.cut_total as u64),
        if p.cut_total > p.cut.len() {
            format!(", the latest {} below", p.cut.len())
        } else {
            String::new()
        }
    );
    for c in &p.cut {
        out.push_str(&cut_one(c));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_for_html_and_the_json_block() {
        assert_eq!(
            esc("\u{1b}[31mred\u{0}\r\n\tx\u{7f}"),
            "\u{241b}[31mred\u{2400}\r\n\tx\u{2421}"
        );
        assert_eq!(
            esc("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
        let v = serde_json::json!({"x": "</script><script>alert(1)</script>"});
        let s = script_json(&v);
        assert!(!s.contains('<'), "{s}");
        assert_eq!(serde_json::from_str::<Value>(&s).unwrap(), v);
    }
}
