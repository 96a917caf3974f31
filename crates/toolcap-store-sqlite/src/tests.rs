//! Tests of the SQLite store through the recovery tools.

use serde_json::json;
use toolcap_store::lines::{SearchOptions, get_lines, search_tool_output};
use toolcap_store::{Record, ResultStore};

use crate::SqliteStore;

#[test]
fn lines_split_across_the_stores_chunks_are_read_whole() {
    // SQLite keeps outputs in 1 MiB chunks: lines cross chunk boundaries here
    let dir = tempfile::tempdir().expect("tempdir");
    let s = SqliteStore::open(dir.path().join("s.db")).expect("open");
    let out: String = (1..=200_000)
        .map(|i| {
            if i % 50_000 == 0 {
                format!("needle {i} ✓\n")
            } else {
                format!("line {i} é\n")
            }
        })
        .collect();
    assert!(out.len() > 2 << 20);
    s.put(&Record::new("d", "c1", "bash", &json!({}), &out))
        .expect("put");
    let opts = SearchOptions {
        context: 1,
        ..SearchOptions::default()
    };
    let r = search_tool_output(&s, "d", "c1", "^needle", &opts).expect("search");
    assert!(
        r.text.starts_with("4 of 200000 lines match \"^needle\"; showing all (lines 50000-200000):\n49999- line 49999 é\n50000: needle 50000 ✓\n50001- line 50001 é\n--\n"),
        "{}",
        &r.text[..300.min(r.text.len())]
    );
    let r = get_lines(&s, "d", "c1", 149_999, Some(150_001), 2000).expect("lines");
    assert_eq!(r.text, "line 149999 é\nneedle 150000 ✓\nline 150001 é\n");
}
