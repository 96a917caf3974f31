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
