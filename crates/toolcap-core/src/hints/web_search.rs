//! web_search: a list of search results was cut.
//!
//! **What it does.** Counts the results actually present (a JSON array of results,
//! a numbered list, `---`-separated blocks, markdown links, or bare URLs — the first
//! that finds any), says how many were shown, lists the domains seen, and suggests
//! refining the query to a domain that really occurs in the results, and fetching
//! the first result that was cut off.
//!
//! **Why.** "~10 results" is a guess; the model needs to know whether it saw 3 of 30
//! results, and where they come from, to decide between refining and fetching.
//!
//! **Example.** `web_search(query="lifetime elision site:doc.rust-lang.org")`

use crate::text::static_regex;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::{
    Context, Entry, Fact, Intent, Listing, Note, Purpose, RecoveryModel, Source, Suggestion, Title,
    top_counts,
};
use crate::cut::index::LineIndex;

/// One search result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub title: Option<String>,
    pub url: Option<String>,
    /// 0-based line of the result text where the result starts (None for JSON).
    pub line: Option<usize>,
}

static URL: LazyLock<Regex> = LazyLock::new(|| static_regex(r#"https?://[^\s<>"'()\[\]]+"#));
static MD_LINK: LazyLock<Regex> =
    LazyLock::new(|| static_regex(r"\[([^\]]+)\]\((https?://[^)\s]+)\)"));
static NUMBERED: LazyLock<Regex> = LazyLock::new(|| static_regex(r"^\s{0,3}(\d{1,3})[.)]\s+(.*)$"));

/// Parse the results; returns the format found and the hits.
pub fn parse(idx: &LineIndex<'_>) -> (&'static str, Vec<Hit>) {
    if let Ok(v) = serde_json::from_str::<Value>(idx.text)
        && let Some(items) = result_array(&v)
    {
        let hits = items
            .iter()
            .map(|it| Hit {
                title: str_field(it, &["title", "name", "headline"]),
                url: str_field(it, &["url", "link", "href", "uri"]),
                line: None,
            })
            .collect();
        return ("JSON results", hits);
    }
    let n = idx.len();
    // Numbered list: items numbered 1, 2, 3, ... in order.
    let mut hits = Vec::new();
    let mut expect = 1;
    for i in 0..n {
        let l = idx.line(i);
        if let Some(c) = NUMBERED.captures(l)
            && c.get(1).and_then(|m| m.as_str().parse::<usize>().ok()) == Some(expect)
        {
            expect += 1;
            let rest = c.get(2).map_or("", |m| m.as_str());
            hits.push(hit_from_block(idx, i, rest));
        }
    }
    if hits.len() >= 2 {
        return ("numbered list", hits);
    }
    // Blocks separated by `---` lines: each block with text is one result.
    if (0..n).any(|i| idx.line(i).trim() == "---") {
        let mut hits = Vec::new();
        let mut in_block = false;
        for i in 0..n {
            let l = idx.line(i).trim();
            if l == "---" {
                in_block = false;
            } else if !l.is_empty() && !in_block {
                in_block = true;
                hits.push(hit_from_block(idx, i, idx.line(i)));
            }
        }
        if hits.len() >= 2 {
            return ("--- separated blocks", hits);
        }
    }
    // Markdown links, then bare URLs: one result per line that has one.
    let mut md = Vec::new();
    let mut bare = Vec::new();
    for i in 0..n {
        let l = idx.line(i);
        if let Some(c) = MD_LINK.captures(l) {
            md.push(Hit {
                title: c.get(1).map(|m| m.as_str().to_string()),
                url: c.get(2).map(|m| m.as_str().to_string()),
                line: Some(i),
            });
        } else if let Some(m) = URL.find(l) {
            bare.push(Hit {
                title: None,
                url: Some(m.as_str().to_string()),
                line: Some(i),
            });
        }
    }
    if !md.is_empty() {
        return ("markdown links", md);
    }
    ("URLs", bare)
}

/// The array of results in a JSON search response.
fn result_array(v: &Value) -> Option<&Vec<Value>> {
    match v {
        Value::Array(a) if a.iter().all(Value::is_object) && !a.is_empty() => Some(a),
        Value::Object(o) => {
            for k in [
                "results",
                "items",
                "organic_results",
                "organic",
                "data",
                "hits",
                "value",
            ] {
                if let Some(a) = o.get(k).and_then(result_array) {
                    return Some(a);
                }
            }
            o.get("web").and_then(result_array)
        }
        _ => None,
    }
}

fn str_field(v: &Value, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|k| v.get(*k).and_then(Value::as_str))
        .map(str::to_string)
}

/// A hit starting at line `i` whose first line's text (after the number) is `first`:
/// a markdown link gives title and URL; else the first URL in the next few lines.
fn hit_from_block(idx: &LineIndex<'_>, i: usize, first: &str) -> Hit {
    if let Some(c) = MD_LINK.captures(first) {
        return Hit {
            title: c.get(1).map(|m| m.as_str().to_string()),
            url: c.get(2).map(|m| m.as_str().to_string()),
            line: Some(i),
        };
    }
    let url = (i..(i + 4).min(idx.len()))
        .find_map(|j| URL.find(idx.line(j)).map(|m| m.as_str().to_string()));
    let title = first
        .trim()
        .trim_start_matches(['#', '*', ' '])
        .trim_end_matches('*')
        .trim();
    Hit {
        title: (!title.is_empty() && !title.starts_with("http")).then(|| title.to_string()),
        url,
        line: Some(i),
    }
}

/// The host of a URL (`https://docs.rs/x` → `docs.rs`), without `www.`.
pub fn domain(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let host = rest.split(['/', '?', '#']).next()?;
    let host = host.rsplit('@').next()?;
    let host = host.split(':').next()?;
    let host = host.strip_prefix("www.").unwrap_or(host);
    (!host.is_empty()).then_some(host)
}

/// The recovery section of cut search results: how many were shown, their
/// domains, the results not shown, and narrower searches and the first
/// result cut off.
pub fn model(ctx: &Context<'_>) -> RecoveryModel {
    let mut r = RecoveryModel::default();
    let query = ctx.arg(|a| &a.query);
    let (format, hits) = parse(ctx.idx);
    let shown = shown_hits(ctx, &hits);
    r.facts.push(Fact::SearchResults {
        query: query.clone(),
        shown,
        total: hits.len(),
        format,
    });
    r.facts.push(Fact::Result(ctx.size()));
    let domains: Vec<(String, usize)> = top_counts(
        hits.iter()
            .filter_map(|h| h.url.as_deref().and_then(domain)),
    )
    .into_iter()
    .map(|(d, n)| (d.to_string(), n))
    .collect();
    if !domains.is_empty() {
        r.facts.push(Fact::Domains(domains.clone()));
    }
    let cut_off: Vec<(usize, &Hit)> = hits.iter().enumerate().skip(shown).collect();
    if !cut_off.is_empty() {
        let lines = cut_off
            .iter()
            .map(|(i, h)| Entry::Hit {
                n: i + 1,
                title: h.title.clone(),
                url: h.url.clone(),
                line: h.line.map(|l| l + 1),
            })
            .collect();
        let title = Title::ResultsNotShown {
            count: cut_off.len(),
        };
        r.structure = Some(Listing::capped(title, lines, "results", 10));
    }
    r.suggestions.extend(super::next_stored_lines(ctx));
    match &query {
        Some(q) => refine(ctx, q, &domains, &mut r),
        None => r.notes.push(Note::NoQuery),
    }
    r.suggestions.extend(first_cut_off(ctx, &cut_off));
    r
}

/// The same search on the domain most results are from (when they are from
/// several), and for the exact phrase.
fn refine(ctx: &Context<'_>, q: &str, domains: &[(String, usize)], r: &mut RecoveryModel) {
    // `site:` narrows only when the results are on several sites
    if domains.len() > 1
        && !q.contains("site:")
        && let Some((d, n)) = domains.first()
    {
        r.suggestions.extend(ctx.offer(
            Source::Nowhere,
            Intent::WebSearch {
                query: format!("{q} site:{d}"),
            },
            Purpose::SameSearchOn {
                domain: d.clone(),
                results: *n,
            },
        ));
    }
    if !q.starts_with('"') {
        r.suggestions.extend(ctx.offer(
            Source::Nowhere,
            Intent::WebSearch {
                query: format!("\"{q}\""),
            },
            Purpose::ExactPhrase,
        ));
    }
}

/// The first result cut off that has a URL: fetched, or its first bytes
/// with `curl` when no fetch tool is configured.
fn first_cut_off(ctx: &Context<'_>, cut_off: &[(usize, &Hit)]) -> Option<Suggestion> {
    let (n, h, u) = cut_off
        .iter()
        .find_map(|(i, h)| h.url.as_deref().map(|u| (i + 1, h, u)))?;
    let fetch = ctx.offer(
        Source::Nowhere,
        Intent::Fetch { url: u.to_string() },
        Purpose::FetchResult {
            n,
            title: h.title.clone(),
        },
    );
    let curl = || {
        let q = crate::quote::shell_word(u)?;
        let budget = ctx.shell_budget();
        ctx.offer(
            Source::Nowhere,
            Intent::Shell(format!("curl -sL {q} | head -c {budget}")),
            Purpose::ResultHead {
                bytes: budget,
                n,
                title: h.title.clone(),
            },
        )
    };
    fetch.or_else(curl)
}

/// How many results the model saw whole: results whose starting line is shown and
/// whose next result's start (or the end) is shown too. JSON results count as shown
/// when their URL appears in the kept text.
fn shown_hits(ctx: &Context<'_>, hits: &[Hit]) -> usize {
    let mut n = 0;
    for (i, h) in hits.iter().enumerate() {
        let ok = match h.line {
            Some(l) => {
                let end = hits.get(i + 1).and_then(|x| x.line).unwrap_or(l + 1);
                (l..end.max(l + 1)).all(|j| j >= ctx.idx.len() || ctx.line_shown(j))
            }
            // a JSON result is shown when its URL is (titles and snippets may
            // be shortened; the URL never is)
            None => h.url.as_deref().is_some_and(|u| ctx.shown.contains(u)),
        };
        if !ok {
            break;
        }
        n += 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_results_state_their_counts_and_domains_as_data() {
        // a real search's results, as a numbered list of markdown links
        let text = crate::test_fixture("web_search/interior_mutability.md");
        let args = serde_json::json!({"query": "interior mutability"});
        let m = crate::hints::head_cut("web_search", text, 10, &args, None, None, model);
        // counted here from the text itself
        let urls: Vec<&str> = text
            .lines()
            .filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit()))
            .filter_map(|l| l.split("](").nth(1))
            .map(|u| u.trim_end_matches(')'))
            .collect();
        let shown = text
            .lines()
            .take(10)
            .filter(|l| l.chars().next().is_some_and(|c| c.is_ascii_digit()))
            .count()
            - 1;
        assert_eq!(
            m.facts[0],
            Fact::SearchResults {
                query: Some("interior mutability".into()),
                shown,
                total: urls.len(),
                format: "numbered list",
            }
        );
        let Fact::Domains(domains) = &m.facts[2] else {
            panic!("no domains: {:?}", m.facts);
        };
        let in_docs = urls
            .iter()
            .filter(|u| u.starts_with("https://doc.rust-lang.org/"))
            .count();
        assert_eq!(domains[0], ("doc.rust-lang.org".to_string(), in_docs));
        assert_eq!(domains.iter().map(|(_, n)| n).sum::<usize>(), urls.len());
        let l = m.structure.clone().expect("results not shown");
        assert_eq!(
            l.title,
            Title::ResultsNotShown {
                count: urls.len() - shown
            }
        );
        assert!(matches!(
            &l.lines[0],
            Entry::Hit { n, url: Some(u), .. } if *n == shown + 1 && u == urls[shown]
        ));
        assert!(m.notes.is_empty());
    }

    fn parse_str(s: &str) -> (&'static str, Vec<Hit>) {
        parse(&LineIndex::new(s))
    }

    #[test]
    fn numbered_markdown() {
        let (f, h) = parse_str(
            "1. [A](https://a.com/x)\n   snippet\n2. [B](https://www.b.org/y)\n   1. not a result\n",
        );
        assert_eq!(f, "numbered list");
        assert_eq!(h.len(), 2);
        assert_eq!(h[1].url.as_deref(), Some("https://www.b.org/y"));
        assert_eq!(domain("https://www.b.org/y"), Some("b.org"));
    }

    #[test]
    fn json_results() {
        let (f, h) = parse_str(
            r#"{"results":[{"title":"A","url":"https://a.com"},{"title":"B","link":"http://b.com/p"}]}"#,
        );
        assert_eq!(f, "JSON results");
        assert_eq!(h.len(), 2);
        assert_eq!(h[1].url.as_deref(), Some("http://b.com/p"));
    }

    #[test]
    fn dash_blocks() {
        let (f, h) = parse_str(
            "Title: A\nURL: https://a.com\n---\nTitle: B\nURL: https://b.com\n---\nTitle: C\nURL: https://c.com\n",
        );
        assert_eq!(f, "--- separated blocks");
        assert_eq!(h.len(), 3);
        assert_eq!(h[2].url.as_deref(), Some("https://c.com"));
    }
}
