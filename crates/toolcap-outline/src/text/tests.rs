//! Unit tests of the non-code outlines.

use super::*;

const MAX: usize = 40;

fn lines(o: &TextOutline) -> Vec<&str> {
    o.lines.iter().map(String::as_str).collect()
}

#[test]
fn markdown_headings_have_levels_lines_and_sections() {
    let md = "Title\n=====\n\nintro\n\n## Install\n\n```sh\n# not a heading\n```\n\n### From source ###\ntext\n\nUsage\n-----\n\n# Appendix\nend\n";
    let o = outline_capped(Format::Markdown, md, MAX).expect("headings");
    assert_eq!(o.title, "Headings (5)");
    assert_eq!(
        lines(&o),
        [
            "# Title (lines 1-17)",
            "  ## Install (lines 6-14)",
            "    ### From source (lines 12-14)",
            "  ## Usage (lines 15-17)",
            "# Appendix (lines 18-19)",
        ]
    );
}

#[test]
fn json_skeleton_is_depth_limited_with_exact_counts() {
    let j = r#"{"name":"x","deps":[{"id":1,"v":"a"},{"id":2}],"meta":{"a":{"deep":{"deeper":1}}}}"#;
    let o = outline_capped(Format::Json, j, MAX).expect("json");
    assert_eq!(
        lines(&o),
        [
            "- object (3 keys)",
            "  - \"name\": string (1 char)",
            "  - \"deps\": array[2] of object (keys: id 2, v 1)",
            "    - \"[0]\": object (2 keys)",
            "  - \"meta\": object (1 key)",
            "    - \"a\": object (1 key)",
        ]
    );
}

#[test]
fn yaml_and_toml_top_level_keys_with_lines() {
    let y = "# config\nname: app\nservices:\n  web:\n    image: nginx\n\n  db: {}\n\"quoted key\": 1\n---\nother: 2\n";
    let o = outline_capped(Format::Yaml, y, MAX).expect("yaml");
    assert_eq!(o.title, "Top-level keys (4 in 2 documents)");
    assert_eq!(
        lines(&o),
        [
            "name (lines 2-2)",
            "services (lines 3-7)",
            "\"quoted key\" (lines 8-9)",
            "other (lines 10-10)",
        ]
    );
    let t = "title = \"x\"\ndesc = \"\"\"\n[not] = a table\n\"\"\"\n\n[package]\nname = \"a\"\n\n[[bin]]\nname = \"b\"\n";
    let o = outline_capped(Format::Toml, t, MAX).expect("toml");
    assert_eq!(o.title, "Top-level keys and tables (4)");
    assert_eq!(
        lines(&o),
        [
            "title (lines 1-1)",
            "desc (lines 2-4)",
            "[package] (lines 6-7)",
            "[[bin]] (lines 9-10)",
        ]
    );
}

#[test]
fn csv_counts_rows_columns_and_delimiter() {
    let c = "id,name,note\n1,a,\"multi\nline, with comma\"\n2,b,plain\n3,c\n";
    let o = outline_capped(Format::Csv, c, MAX).expect("csv");
    assert_eq!(
        lines(&o),
        [
            "3 data rows after the header, 3 columns, delimiter: comma; 1 row with a different number of fields",
            "1. id",
            "2. name",
            "3. note",
        ]
    );
    let t = "a\tb\n1\t2\n";
    let o = outline_capped(Format::Tsv, t, MAX).expect("tsv");
    assert_eq!(o.format, Format::Tsv);
    assert_eq!(
        o.lines[0],
        "1 data row after the header, 2 columns, delimiter: tab"
    );
}

#[test]
fn logs_count_levels_and_locate_errors() {
    let l = "2024-01-01 INFO start\n2024-01-01 WARNING slow\nplain line\n2024-01-01 ERROR boom 1\n2024-01-01 INFO mid\n2024-01-01 ERROR boom 2\n";
    assert_eq!(detect(None, l), Some(Format::Log));
    let o = outline_capped(Format::Log, l, MAX).expect("log");
    assert_eq!(
        lines(&o),
        [
            "ERROR 2, WARN 1, INFO 2 (of 6 lines with a level)",
            "first error, line 4: 2024-01-01 ERROR boom 1",
            "last error, line 6: 2024-01-01 ERROR boom 2",
        ]
    );
}

#[test]
fn html_title_and_headings() {
    let h = "<!DOCTYPE html><html><head><title>The Page</title></head>\n<body>\n<h1>Top</h1>\n<h2>Sub &amp; more</h2>\n</body></html>\n";
    let o = outline_capped(Format::Html, h, MAX).expect("html");
    assert_eq!(o.title, "Page structure (2 headings)");
    assert_eq!(
        lines(&o),
        [
            "title: The Page",
            "h1 Top (line 3)",
            "  h2 Sub & more (line 4)"
        ]
    );
}

#[test]
fn a_heading_inside_an_html_comment_is_not_listed() {
    let md =
        "# Title\n\n<!--\n## Hidden draft\n-->\n\n## Shown\n<!-- one line -->\n## Also shown\n";
    let h: Vec<String> = markdown_headings(md).into_iter().map(|h| h.text).collect();
    assert_eq!(h, ["Title", "Shown", "Also shown"]);
}

#[test]
fn code_in_an_undetected_language_is_not_markdown() {
    let perl = "package ExtUtils::MM_Unix;\n\nuse strict;\nuse warnings;\n\n# Heading-like comment\n\n# Another one\nsub new {\n}\n";
    assert_eq!(detect(None, perl), None);
    let py = "# Licence\n# more\n\nimport re\nimport sys\n\n# Section\n\ndef f(x):\n    return x\n";
    assert_eq!(detect(None, py), None);
    assert_eq!(
        detect(None, "#!/bin/sh\n# Usage\n# Options\necho hi\n"),
        None
    );
    let doc = "# Title\n\nSome text.\n\n## Usage\n\n```python\nimport os\nimport re\ndef f():\n    pass\n```\n";
    assert_eq!(detect(None, doc), Some(Format::Markdown));
}

#[test]
fn hash_comments_of_a_script_are_not_markdown_headings() {
    let script = "# Settings\nimport os\nROOT = os.getcwd()\n\n# Run\nprint(ROOT)\nrows = [1, 2]\n";
    assert_eq!(detect(None, script), None);
    let doc = "# Title\n\nSome text.\n\n## Usage\n\n```python\nx = 1\ny = f(x)\nprint(y)\n```\n";
    assert_eq!(detect(None, doc), Some(Format::Markdown));
}

#[test]
fn detection_by_extension_then_content() {
    assert_eq!(detect(Some("a/b.yml"), ""), Some(Format::Yaml));
    assert_eq!(detect(Some("Cargo.toml"), ""), Some(Format::Toml));
    assert_eq!(detect(Some("x.TSV"), ""), Some(Format::Tsv));
    assert_eq!(detect(None, "[1, 2]"), Some(Format::Json));
    assert_eq!(detect(None, "# A\ntext\n## B\n"), Some(Format::Markdown));
    assert_eq!(detect(None, "just words\n"), None);
}

#[test]
fn long_listings_are_capped_and_counted() {
    let md: String = (1..=50).map(|i| format!("# H{i}\n")).collect();
    let o = outline_capped(Format::Markdown, &md, MAX).expect("md");
    assert_eq!(o.lines.len(), MAX);
    assert_eq!(o.lines[MAX - 1], "... and 11 more headings");
}

#[test]
fn the_rest_is_counted_from_all_entries_whatever_the_cap() {
    // issue 17: a YAML of 133 keys listed 24 and said "16 more"
    let y: String = (0..133).map(|i| format!("key{i}:\n  a: {i}\n")).collect();
    let o = outline_capped(Format::Yaml, &y, 25).expect("yaml");
    assert_eq!(o.title, "Top-level keys (133)");
    assert_eq!(o.lines.len(), 25);
    assert_eq!(o.lines[24], "... and 109 more keys");
    let t: String = (0..60).map(|i| format!("[t{i}]\nx = 1\n")).collect();
    let o = outline_capped(Format::Toml, &t, 25).expect("toml");
    assert_eq!(o.lines[24], "... and 36 more keys and tables");
    let m: String = (0..30).map(|i| format!("H{i}\n===\n\ntext\n")).collect();
    let o = outline_capped(Format::Markdown, &m, 25).expect("md");
    assert_eq!(o.lines[24], "... and 6 more headings");
    assert_eq!(Format::from_name("Markdown"), Some(Format::Markdown));
    assert_eq!(Format::from_name("md"), Some(Format::Markdown));
    assert_eq!(Format::from_name("rust"), None);
}

/// The names strum derives are the report's (serde's) and `--lang`'s: every
/// name and usual extension parses, in any case and with spaces around it;
/// nothing else does.
#[test]
fn format_names_and_aliases() {
    let names: Vec<&str> = Format::ALL.iter().map(|f| f.as_str()).collect();
    assert_eq!(
        names,
        [
            "markdown", "json", "yaml", "toml", "csv", "tsv", "log", "html"
        ]
    );
    for f in Format::ALL {
        assert_eq!(serde_json::to_value(f).unwrap(), f.as_str());
        assert_eq!(Format::from_name(f.as_str()), Some(f));
        assert_eq!(Format::from_name(&f.as_str().to_uppercase()), Some(f));
    }
    for (alias, f) in [
        ("md", Format::Markdown),
        ("mdx", Format::Markdown),
        ("jsonc", Format::Json),
        ("yml", Format::Yaml),
        (" YML ", Format::Yaml),
        ("htm", Format::Html),
        ("xhtml", Format::Html),
    ] {
        assert_eq!(Format::from_name(alias), Some(f), "{alias}");
    }
    for other in ["", "rst", "markdow", "text", "geojson"] {
        assert_eq!(Format::from_name(other), None, "{other}");
    }
}
