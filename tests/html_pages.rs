//! `web_fetch` of HTML pages: the page is kept as its text, with a note and an exact
//! marker, whatever the page's shape (markup-heavy, text at the very end, several
//! blocks on one line), and the output is never processed twice.

use serde_json::json;
use toolcap::{Config, Reason, ToolResultProcessor};

fn fetch(html: &str) -> toolcap::Processed {
    let p = ToolResultProcessor::new(Config::defaults());
    p.process(
        "web_fetch",
        html,
        &json!({"url": "https://example.org/page.html"}),
    )
}

/// Processing what the model saw again leaves it as it is.
fn stable(out: &toolcap::Processed) {
    let again = fetch(&out.text);
    assert!(
        matches!(again.reason, Reason::AlreadyCut | Reason::UnderThreshold),
        "{:?}: {}",
        again.reason,
        out.text
    );
    assert_eq!(again.text, out.text);
}

#[test]
fn a_markup_heavy_page_shows_its_whole_text_and_says_so() {
    let style = format!("<style>{}</style>", ".x{color:red}\n".repeat(400));
    // the text is the page's very end: nothing of it is omitted
    let html = format!(
        "<!DOCTYPE html>\n<html><head>{style}</head>\n<body><h1>Hello</h1>\n<p>Short page."
    );
    let out = fetch(&html);
    assert_eq!(out.reason, Reason::Cut);
    let h = out.html.expect("shown as text");
    assert_eq!((h.text_chars, h.shown_chars), (20, 20));
    assert!(
        out.text.contains("# Hello\n\nShort page.\n"),
        "{}",
        out.text
    );
    assert!(
        out.text.contains(&format!(
            "[... nothing of the page's text omitted: the rest of its {} chars is markup, scripts and styles ...]",
            toolcap_text::text::thousands(html.chars().count())
        )),
        "{}",
        out.text
    );
    assert_eq!(out.omitted.chars, 0);
    stable(&out);

    // the same with markup after the text: omitted, and said to be markup only
    let html = format!(
        "{html}</p>\n<script>{}</script>\n</body></html>\n",
        "var a = 1;\n".repeat(300)
    );
    let out = fetch(&html);
    // every line after the one the text ends on
    let last_text_line = html
        .lines()
        .position(|l| l.contains("Short page."))
        .unwrap();
    let tail_lines = html.lines().count() - (last_text_line + 1);
    assert!(
        out.text
            .contains("; markup only: the page's whole text is shown above ...]"),
        "{}",
        out.text
    );
    assert_eq!(out.omitted.lines, tail_lines);
    stable(&out);
}

#[test]
fn a_long_page_is_cut_within_its_text_with_exact_counts() {
    // one paragraph per line, each with a reference that decodes to one char
    let mut html = String::from("<html><body><main>\n");
    for i in 1..=300 {
        html.push_str(&format!("<p>Paragraph {i} &amp; some words of text.</p>\n"));
    }
    html.push_str("</main></body></html>\n");
    let out = fetch(&html);
    let h = out.html.expect("shown as text");
    let shown: Vec<&str> = out
        .text
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("[... "))
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(shown[0], "Paragraph 1 & some words of text.");
    let n = shown.len();
    assert!(n > 20 && n < 300, "{n} paragraphs shown");
    // the omitted part starts with the first paragraph not shown, counted exactly
    let lines: Vec<&str> = html.split_inclusive('\n').collect();
    let first = n + 2; // line 1 is the <html> line
    assert!(lines[first - 1].contains(&format!("Paragraph {} &amp;", n + 1)));
    let omitted: usize = lines[first - 1..].iter().map(|l| l.chars().count()).sum();
    assert_eq!(out.omitted.chars, omitted);
    assert!(
        out.text.contains(&format!(
            "omitted (lines {first}-{} of {}) ...]",
            lines.len(),
            lines.len()
        )),
        "{}",
        out.text
    );
    assert!(h.shown_chars <= 2000);
    stable(&out);
}

#[test]
fn stored_pages_are_read_on_from_their_start() {
    let store = std::sync::Arc::new(toolcap::MemoryStore::new());
    let p = ToolResultProcessor::new(Config::defaults())
        .with_store(store, toolcap::store::SaveWhen::Cut);
    let html = format!(
        "<html><body>{}</body></html>",
        "<p>word word word</p>\n".repeat(400)
    );
    let args = json!({"url": "https://example.org/"});
    let mut call = toolcap::ToolCall::new("web_fetch", &args);
    call.id = Some("call_page");
    let out = p.process_call(&call, &html);
    let s = out.stored.expect("stored");
    // what was shown is the page's text, not a prefix of it: reading on starts at 0
    assert_eq!(s.offset, 0);
}

#[test]
fn a_streamed_page_is_shown_as_in_memory() {
    // a page far over the size a stream is otherwise held to
    let mut html = String::from("<!DOCTYPE html>\n<html><head><title>Big</title></head><body>\n");
    for i in 1..=20_000 {
        html.push_str(&format!(
            "<div class=\"row\"><p>Row {i}: caf&eacute; &amp; text</p></div>\n"
        ));
    }
    html.push_str("</body></html>\n");
    assert!(html.len() > 1_000_000);
    let p = ToolResultProcessor::new(Config::defaults());
    let args = json!({"url": "https://example.org/big"});
    let call = toolcap::ToolCall::new("web_fetch", &args);
    let mem = p.process_call(&call, &html);
    assert!(mem.html.is_some(), "{}", mem.text);
    let (streamed, _) = p
        .process_stream(&call, std::io::Cursor::new(html.as_bytes()))
        .unwrap();
    assert_eq!(streamed.text, mem.text);
    assert_eq!(
        serde_json::to_value(&streamed).unwrap(),
        serde_json::to_value(&mem).unwrap()
    );
}
