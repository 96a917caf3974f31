//! Tests of a page's text.

use super::markup::NAMED;
use super::*;

#[test]
fn blocks_headings_lists_and_references() {
    let html = "<!DOCTYPE html><html><head><title>T</title><style>p{}</style></head>\
        <body><nav><a href=/>Home</a> <a>Menu</a></nav>\
        <h1>Strings &amp; text</h1><p>A  <b>string</b>\n is   UTF-8 &#8212; see \
        <a href=\"x\">the&nbsp;docs</a>.</p><ul><li>one</li><li>two &lt;3</li></ul>\
        <script>var x = '<p>no</p>';</script><pre>fn main() {\n    let s = 1;\n}</pre>\
        <footer>© 2026</footer></body></html>";
    let p = page_text(html);
    assert_eq!(
        p.text,
        "# Strings & text\n\nA string is UTF-8 — see the docs.\n\n- one\n- two <3\nfn main() {\n    let s = 1;\n}\n"
    );
}

#[test]
fn only_main_when_there_is_one() {
    let html = "<body><div class=x>Sidebar words</div><main><h2>Title</h2><p>Body</p></main><div>after</div></body>";
    assert_eq!(page_text(html).text, "## Title\n\nBody\n");
}

#[test]
fn the_reference_table_is_sorted_for_its_search() {
    assert!(NAMED.windows(2).all(|w| w[0].0 < w[1].0));
    assert!(NAMED.len() > 240);
}

#[test]
fn source_positions_map_back_exactly() {
    let html = "<p>alpha beta</p>\n<p>gamma &amp; delta</p>";
    let p = page_text(html);
    assert_eq!(p.text, "alpha beta\n\ngamma & delta\n");
    // right after "alpha bet": inside a verbatim word
    let t = p.text.find("beta").unwrap() + 3;
    assert_eq!(&html[..p.source_end(t)], "<p>alpha bet");
    // right after "alpha beta": the end of that word
    let t = p.text.find("beta").unwrap() + 4;
    assert_eq!(&html[..p.source_end(t)], "<p>alpha beta");
    // after the decoded '&': the whole reference
    let t = p.text.find('&').unwrap() + 1;
    assert_eq!(
        &html[..p.source_end(t)],
        "<p>alpha beta</p>\n<p>gamma &amp;"
    );
    assert_eq!(p.source_end(p.text.len()), html.len() - "</p>".len());
}

#[test]
fn broken_markup_does_not_lose_text_or_panic() {
    for html in [
        "a < b and c > d",
        "<p>unclosed <b>bold",
        "<div attr=\"a>b\">quoted</div>",
        "<script>never closed",
        "<!-- never closed",
        "&#xFFFFFFFF; &#0; &bogus; &",
        "caf&eacute; &Eacute;t&eacute; &shy; &euro;5",
        "<",
        "",
        "<p>é</p><p>日本</p>",
    ] {
        let p = page_text(html);
        for t in 0..=p.text.len() {
            if p.text.is_char_boundary(t) {
                let s = p.source_end(t);
                assert!(
                    s <= html.len() && html.is_char_boundary(s),
                    "{html:?} at {t}"
                );
            }
        }
    }
    assert_eq!(page_text("a < b and c > d").text, "a < b and c > d\n");
    assert_eq!(page_text("<div attr=\"a>b\">quoted</div>").text, "quoted\n");
    assert_eq!(page_text("&#0; &bogus; &").text, "\u{FFFD} &bogus; &\n");
    assert_eq!(
        page_text("caf&eacute; &Eacute;t&eacute;&shy; &euro;5").text,
        "café Été €5\n"
    );
}
