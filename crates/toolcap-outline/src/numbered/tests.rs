use super::*;

fn rows(r: &Read) -> (Form, usize, usize, usize) {
    (r.form, r.first_row, r.last_row, r.first_line)
}

#[test]
fn cat_n_and_claude_code_tab() {
    let t = "     1\timport os\n     2\t\n     3\tdef f():\n     4\t    return 1\n";
    let r = detect(t).unwrap();
    assert_eq!(rows(&r), (Form::Tab, 1, 4, 1));
    assert_eq!(r.source, "import os\n\ndef f():\n    return 1\n");
    // Claude Code 2.1: no padding, from line 400
    let r = detect("400\tclass A:\n401\t    x = 1\n402\t\n403\tdef g(): pass").unwrap();
    assert_eq!(rows(&r), (Form::Tab, 1, 4, 400));
    assert_eq!(r.line_of_row(4), 403);
}

#[test]
fn nl_skips_blank_lines() {
    let t = "     1\ta = 1\n       \n     2\tb = 2\n     3\tc = 3\n";
    let r = detect(t).unwrap();
    assert_eq!(rows(&r), (Form::TabSkippingBlank, 1, 4, 1));
    assert_eq!(r.source, "a = 1\n\nb = 2\nc = 3\n");
}

#[test]
fn swe_agent_window_with_header_and_footer() {
    let t = "[File: /repo/a.py (900 lines total)]\n(99 more lines above)\n100:class A:\n101:    x = 1\n102:\n103:    def f(self):\n(797 more lines below)\n";
    let r = detect(t).unwrap();
    assert_eq!(rows(&r), (Form::Colon, 3, 6, 100));
    assert_eq!(r.path.as_deref(), Some("/repo/a.py"));
    assert_eq!(r.total_lines, Some(900));
    assert_eq!(r.source, "\n\nclass A:\n    x = 1\n\n    def f(self):\n\n");
    assert_eq!(r.body(), "class A:\n    x = 1\n\n    def f(self):\n");
}

#[test]
fn opencode_and_copilot_and_arrow() {
    let t = "<path>/p/a.rs</path>\n<type>file</type>\n<content>\n1: fn a() {}\n2: \n3: fn b() {}\n\n(End of file - total 3 lines)\n</content>";
    let r = detect(t).unwrap();
    assert_eq!(rows(&r), (Form::ColonSpace, 4, 6, 1));
    assert_eq!(r.path.as_deref(), Some("/p/a.rs"));
    let r = detect("9. a\n10. b\n11. c\n").unwrap();
    assert_eq!(rows(&r), (Form::Dot, 1, 3, 9));
    let r = detect("     7→x = 1\n     8→y = 2\n     9→z = 3\n").unwrap();
    assert_eq!(
        (r.form, r.source.as_str()),
        (Form::Arrow, "x = 1\ny = 2\nz = 3\n")
    );
}

#[test]
fn gemini_truncated_header() {
    let t = "\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines 5-7 of 10 total lines.\nAction: ...\n\n--- FILE CONTENT (truncated) ---\nx = 5\ny = 6\nz = 7\n";
    let r = detect(t).unwrap();
    assert_eq!(rows(&r), (Form::Plain, 7, 9, 5));
}

#[test]
fn not_a_read() {
    // numbers that do not count up by one, or too few rows, or a long tail
    assert!(detect("1\ta\n3\tb\n5\tc\n").is_none());
    assert!(detect("1\ta\n2\tb\n").is_none());
    let mut t = "1:a\n2:b\n3:c\n".to_string();
    t.push_str(&"other\n".repeat(20));
    assert!(detect(&t).is_none());
    assert!(detect("error: x\nwarning: y\n").is_none());
}
