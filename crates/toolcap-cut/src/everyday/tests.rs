use super::*;

#[test]
fn a_unified_diff_is_read_by_its_hunk_counts() {
    let text = "--- a.txt\t2024-01-01\n+++ b.txt\t2024-01-02\n@@ -1,3 +1,3 @@\n one\n--- two\n+++ two\n three\n";
    let e = Builder::of(Kind::Diff, text);
    let Some(View::Diff(d)) = e.view else {
        panic!("{e:?}")
    };
    assert_eq!(d.files_total, 1);
    assert_eq!((d.files[0].added, d.files[0].removed), (1, 1));
    assert_eq!(d.files[0].path, "b.txt");
    assert_eq!((d.files[0].start, d.files[0].end), (1, 7));
}

fn diff_view(text: &str) -> DiffView {
    match Builder::of(Kind::Diff, text).view {
        Some(View::Diff(d)) => d,
        v => panic!("{v:?}"),
    }
}

#[test]
fn a_log_without_patches_is_its_commits() {
    let text = "commit 0123456789abcdef0123456789abcdef01234567 (HEAD -> main)\nAuthor: a <a@x>\nDate:   now\n\n    fix TypeError in the parser\n\n    body line\n\ncommit 1111111111111111111111111111111111111111\nMerge: 0123456 2222222\nAuthor: a <a@x>\nDate:   then\n\n    Merge branch 'x'\n";
    let d = diff_view(text);
    assert_eq!(d.commits_total, 2);
    assert_eq!(d.commits[0].subject, "fix TypeError in the parser");
    assert_eq!((d.commits[0].start, d.commits[0].end), (1, 8));
    assert_eq!(d.commits[1].subject, "Merge branch 'x'");
    assert_eq!((d.commits[1].start, d.commits[1].end), (9, 14));
    assert_eq!(d.files_total, 0);
}

#[test]
fn a_combined_diff_and_a_binary_file_are_files_of_their_commit() {
    let text = "commit 0123456789abcdef0123456789abcdef01234567\nAuthor: a\n\n    m\n\ndiff --cc src/a.rs\nindex 1,2..3\n--- a/src/a.rs\n+++ b/src/a.rs\n@@@ -1,2 -1,2 +1,3 @@@\n  x\n+ y\n -z\ndiff --git a/logo.png b/logo.png\nBinary files a/logo.png and b/logo.png differ\n";
    let d = diff_view(text);
    assert_eq!(d.files_total, 2);
    assert_eq!(d.files[0].path, "src/a.rs");
    assert_eq!((d.files[0].start, d.files[0].end), (6, 13));
    assert_eq!(d.files[1].path, "logo.png");
    assert_eq!((d.files[1].start, d.files[1].end), (14, 15));
    assert_eq!(d.commits[0].files, 2);
}

fn grep_view(kind: Kind, text: &str) -> GrepView {
    match Builder::of(kind, text).view {
        Some(View::Grep(g)) => g,
        v => panic!("{v:?}"),
    }
}

#[test]
fn grep_formats_are_read_as_grep_prints_them() {
    // file:line:text, with context lines and separators; a path with `-1-` in it
    let text = "a/test-1-x.py-3-ctx\na/test-1-x.py:4:hit ValueError\n--\nb.py:10:hit\nb.py:12:hit\nBinary file c.bin matches\n";
    let g = grep_view(Kind::Grep(GrepMode::Lines), text);
    assert_eq!(
        (g.matches, g.context, g.binary, g.files_total),
        (3, 1, 1, 2)
    );
    assert_eq!(g.files[0].path, "a/test-1-x.py");
    assert_eq!((g.files[1].path.as_str(), g.files[1].matches), ("b.py", 2));
    assert_eq!((g.files[1].start, g.files[1].end), (4, 5));
    // count mode: `file:N`, a file with none counted as searched
    let g = grep_view(Kind::Grep(GrepMode::Count), "x.py:3\ny.py:0\nz:w.py:12\n");
    assert_eq!((g.matches, g.files_matching, g.files_total), (15, 2, 3));
    assert_eq!(g.files[2].path, "z:w.py");
    // one file's numbered lines
    let g = grep_view(Kind::Grep(GrepMode::Lines), "3:a\n4-b\n9:c\n");
    assert_eq!((g.matches, g.context, g.files_total), (2, 1, 0));
}

fn listing_view(kind: Kind, text: &str) -> ListingView {
    match Builder::of(kind, text).view {
        Some(View::Listing(l)) => l,
        v => panic!("{v:?}"),
    }
}

#[test]
fn listings_count_entries_per_directory() {
    let find = ".\n./a\n./a/x\n./a/y\n./b\n./b/c\n./b/c/z\n./top.txt\n";
    let l = listing_view(Kind::Listing(ListingMode::Paths), find);
    assert_eq!(l.root.as_deref(), Some("."));
    assert_eq!(l.entries, 7);
    let g: Vec<(&str, usize, usize, usize)> = l
        .groups
        .iter()
        .map(|g| (g.path.as_str(), g.entries, g.start, g.end))
        .collect();
    assert_eq!(g, [("./a", 2, 2, 4), ("./b", 2, 5, 7)]);
    assert_eq!(l.top_entries, 1);
    let ls = "d:\ntotal 8\ndrwxr-xr-x 2 u u 4096 Jan 1 .\ndrwxr-xr-x 2 u u 4096 Jan 1 ..\n-rw-r--r-- 1 u u 1 Jan 1 f\ndrwxr-xr-x 2 u u 4096 Jan 1 e\n\nd/e:\n-rw-r--r-- 1 u u 1 Jan 1 g\n";
    let l = listing_view(Kind::Listing(ListingMode::Sections), ls);
    let g: Vec<(&str, usize, usize, usize)> = l
        .groups
        .iter()
        .map(|g| (g.path.as_str(), g.entries, g.start, g.end))
        .collect();
    assert_eq!(g, [("d", 2, 1, 6), ("d/e", 1, 8, 9)]);
    let tree = ".\n├── src\n│   ├── a.rs\n│   └── b.rs\n└── Cargo.toml\n\n1 directory, 3 files\n";
    let l = listing_view(Kind::Listing(ListingMode::Tree), tree);
    let g: Vec<(&str, usize, usize, usize)> = l
        .groups
        .iter()
        .map(|g| (g.path.as_str(), g.entries, g.start, g.end))
        .collect();
    assert_eq!(g, [("src", 2, 2, 4), ("Cargo.toml", 0, 5, 5)]);
    assert_eq!(l.summary.as_deref(), Some("1 directory, 3 files"));
    assert_eq!(l.entries, 4);
}

#[test]
fn sizes_are_of_the_lines_as_stored() {
    let e = Builder::of(Kind::Listing(ListingMode::Paths), "é\r\nab\nlast");
    assert_eq!(e.lines, 3);
    assert_eq!(e.lines_within(1, 3, 100), Some((3, 3 + 3 + 4)));
    assert_eq!(e.lines_within(1, 3, 6), Some((2, 6)));
    assert_eq!(e.lines_within(3, 3, 3), None);
}

#[test]
fn a_streamed_output_reads_as_the_whole() {
    let text = "commit 0123456789abcdef0123456789abcdef01234567\nAuthor: a\n\n    s\n\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";
    let whole = Builder::of(Kind::Diff, text);
    for size in [1, 2, 7] {
        let mut b = Builder::new(Kind::Diff);
        for piece in text.as_bytes().chunks(size) {
            b.feed(piece);
        }
        assert_eq!(b.finish(), whole, "pieces of {size}");
    }
}

#[test]
fn lines_that_are_not_paths_are_no_listing() {
    let text = "./a.log\n  2024-01-01 ERROR x\n\tat y\n  more\n./b\n";
    assert_eq!(
        Builder::of(Kind::Listing(ListingMode::Paths), text).view,
        None
    );
}

#[test]
fn a_log_of_one_line_a_commit_is_counted() {
    let text = "b0c83f6 store tools: flags\n9c87692 shell hints: error lines\n47e70e1 x\n";
    let d = diff_view(text);
    assert_eq!(d.commits_total, 3);
    assert_eq!(d.commits[1].subject, "shell hints: error lines");
    assert_eq!(Builder::of(Kind::Diff, "not a log\nb0c83f6 x\n").view, None);
}
