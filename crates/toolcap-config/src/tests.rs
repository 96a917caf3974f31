//! Config loading, merging and validation, as a user sees them.

use std::path::Path;

use super::*;

fn user(text: &str) -> Result<Config, ConfigError> {
    Config::from_sources(Some((text, Path::new("my.toml"))), None)
}

#[test]
fn defaults_load_and_match_the_seed_thresholds() {
    let c = Config::defaults();
    assert_eq!(c.max_kept_chars, 2000);
    let th = |n: &str| c.entry_for(n).threshold;
    assert_eq!(th("read_file"), 3500);
    assert_eq!(th("grep_content"), 3500);
    assert_eq!(th("execute_shell"), 3500);
    assert_eq!(th("web_fetch"), 5000);
    assert_eq!(th("web_search"), 4000);
    assert_eq!(th("glob_files"), 3500);
    assert_eq!(th("some_mcp_tool"), 3500);
    assert_eq!(c.entry_for("Bash").family, Family::Shell);
    assert_eq!(c.entry_for("run_command").family, Family::Shell);
    assert_eq!(c.entry_for("some_mcp_tool").family, Family::Generic);
    assert!(c.is_bypassed("get_continuation"));
    assert!(c.is_bypassed("fetch_tool_output"));
    assert!(c.is_bypassed("get_tool_result"));
    assert!(c.is_bypassed("search_tool_output"));
    assert!(!c.is_bypassed("bash"));
}

#[test]
fn user_file_overrides_and_adds_tools_with_globs() {
    let c = user(
        "max_kept_chars = 1000\n[tools.shell]\nthreshold = 8000\n\
         [tools.mine]\nfamily = \"grep\"\nnames = [\"mcp__*__search\"]\n",
    )
    .unwrap();
    assert_eq!(c.max_kept_chars, 1000);
    assert_eq!(c.entry_for("bash").threshold, 8000);
    let e = c.entry_for("mcp__github__search");
    assert_eq!(e.key, "mine");
    assert_eq!(e.family, Family::Grep);
    // inherits the grep family's threshold and argument keys
    assert_eq!(e.threshold, 3500);
    assert!(e.args.pattern.contains(&"pattern".to_string()));
    assert_eq!(
        c.sources.get("tools.shell.threshold"),
        Some(&Source::File("my.toml".into()))
    );
}

#[test]
fn unknown_key_names_file_key_and_fix() {
    let e = user("[tools.shell]\nthresold = 10\n").unwrap_err();
    assert_eq!(e.origin, "my.toml");
    assert_eq!(e.key, "tools.shell.thresold");
    assert!(e.problem.contains("unknown field"), "{e}");
    assert_eq!(e.kind(), ConfigErrorKind::Schema);
    assert!(
        std::error::Error::source(&e).is_some(),
        "the TOML error is kept"
    );
    let e = user("max_kept = 10\n").unwrap_err();
    assert_eq!(e.key, "max_kept");
}

#[test]
fn threshold_must_exceed_max_kept() {
    let e = user("[tools.grep]\nthreshold = 2000\n").unwrap_err();
    assert_eq!(e.key, "tools.grep.threshold");
    assert!(e.problem.contains("not greater than max_kept_chars = 2000"));
    assert!(e.fix.contains("raise tools.grep.threshold above 2000"));
    assert_eq!(e.kind(), ConfigErrorKind::Conflict);
    let e = user("max_kept_chars = 9000\n").unwrap_err();
    assert_eq!(e.key, "max_kept_chars");
}

#[test]
fn bad_sizes_and_shapes() {
    assert_eq!(
        user("max_kept_chars = 0\n").unwrap_err().key,
        "max_kept_chars"
    );
    let e = user("[tools.shell]\nthreshold = -5\n").unwrap_err();
    assert!(e.problem.contains("positive"));
    assert_eq!(e.kind(), ConfigErrorKind::Invalid);
    let e = user("[tools.shell]\nshape = \"middle\"\n").unwrap_err();
    assert_eq!(e.key, "tools.shell.shape");
    assert!(e.fix.contains("head_tail"));
    assert_eq!(e.kind(), ConfigErrorKind::UnknownName);
    let e = user("[tools.x]\nnames = [\"x\"]\n").unwrap_err();
    assert_eq!(e.key, "tools.x.family");
    assert_eq!(e.kind(), ConfigErrorKind::Missing);
    let e = user("[tools.x]\nfamily = \"nope\"\n").unwrap_err();
    assert!(e.fix.contains("read_file"));
    assert_eq!(e.kind(), ConfigErrorKind::UnknownName);
    let e = user("max_kept_chars = \"big\"\n").unwrap_err();
    assert!(e.problem.contains("invalid type"), "{e}");
    assert_eq!(e.kind(), ConfigErrorKind::Schema);
    let e = user("this is not toml").unwrap_err();
    assert_eq!(e.key, "(file)");
    assert_eq!(e.kind(), ConfigErrorKind::Syntax);
    assert!(
        std::error::Error::source(&e).is_some(),
        "the TOML error is kept"
    );
    let e = Config::from_file(Path::new("/nonexistent/toolcap.toml")).unwrap_err();
    assert_eq!(e.kind(), ConfigErrorKind::Unreadable);
    let io = std::error::Error::source(&e).and_then(|s| s.downcast_ref::<std::io::Error>());
    assert_eq!(
        io.map(std::io::Error::kind),
        Some(std::io::ErrorKind::NotFound)
    );
    assert!(
        e.to_string()
            .starts_with("/nonexistent/toolcap.toml: (file): cannot read"),
        "{e}"
    );
}

#[test]
fn env_bypass_trims_and_ignores_empty() {
    let c = Config::from_sources(None, Some(" foo, ,bar ,,")).unwrap();
    assert!(c.is_bypassed("foo"));
    assert!(c.is_bypassed("bar"));
    assert!(!c.is_bypassed(""));
    assert!(c.is_bypassed("get_continuation"));
    assert_eq!(c.sources.get("bypass"), Some(&Source::Env(BYPASS_ENV)));
}

#[test]
fn a_user_bypass_list_keeps_the_recovery_tools_bypassed() {
    let user = "bypass = [\"todo\"]\n";
    let c = Config::from_sources(Some((user, Path::new("u.toml"))), None).unwrap();
    assert!(c.is_bypassed("todo"));
    for t in recovery_tools::RECOVERY_TOOLS {
        assert!(c.is_bypassed(t), "{t}");
    }
    // unless a file says otherwise, by the opposite key
    let user = "bypass = [\"todo\"]\nnever_bypass = [\"get_tool_result\", \"todo\"]\n";
    let c =
        Config::from_sources(Some((user, Path::new("u.toml"))), Some("get_tool_result")).unwrap();
    assert!(!c.is_bypassed("get_tool_result"));
    assert!(!c.is_bypassed("todo"));
    assert!(c.is_bypassed("get_continuation"));
}

#[test]
fn globs() {
    assert!(glob_match("mcp__*", "mcp__x__y"));
    assert!(glob_match("read_?ile", "read_file"));
    assert!(glob_match("[Bb]ash", "Bash"));
    assert!(!glob_match("[!B]ash", "Bash"));
    assert!(!glob_match("a*b", "acbd"));
    assert!(glob_match("a*b*", "acbd"));
}

#[test]
fn suggest_tool_needs_argument_names() {
    let e = user("[suggest.grep]\npattern = \"\"\n").unwrap_err();
    assert_eq!(e.key, "suggest.grep.pattern");
    let c = user("[suggest.grep]\ntool = \"\"\n").unwrap();
    assert!(c.suggest.grep.tool.is_empty());
}

#[test]
fn describe_lists_sources() {
    let c = Config::from_sources(
        Some(("[tools.web_fetch]\nthreshold = 9000\n", Path::new("u.toml"))),
        Some("zzz"),
    )
    .unwrap();
    let d = c.describe();
    assert!(d.contains("threshold = 9000  # file u.toml"), "{d}");
    assert!(d.contains("# env TOOL_RESULT_BYPASS_TOOLS"), "{d}");
    assert!(d.contains("max_kept_chars = 2000  # default"), "{d}");
}

#[test]
fn presets_set_the_tool_names_and_explicit_keys_still_win() {
    let c = user("[suggest]\npreset = \"claude-code\"\n").unwrap();
    assert_eq!(c.suggest.preset, "claude-code");
    assert_eq!(c.suggest.shell.tool, "Bash");
    assert_eq!(
        (c.suggest.read.tool.as_str(), c.suggest.read.path.as_str()),
        ("Read", "file_path")
    );
    assert_eq!(c.suggest.grep.args["output_mode"], "content");
    assert_eq!(
        c.sources.get("suggest.shell.tool"),
        Some(&Source::File("my.toml".into()))
    );
    let c = user("[suggest]\npreset = \"mcp-filesystem\"\n[suggest.glob]\ntool = \"\"\n").unwrap();
    assert!(c.suggest.shell.tool.is_empty());
    assert_eq!(c.suggest.read.head, "head");
    assert!(c.suggest.glob.tool.is_empty());
    let c = user("[suggest]\npreset = \"codex\"\n").unwrap();
    assert!(c.suggest.shell.argv);
    // the defaults are the generic preset
    let d = Config::defaults();
    assert_eq!(d.suggest.preset, "generic");
    assert_eq!(
        d.suggest,
        user("[suggest]\npreset = \"generic\"\n").unwrap().suggest
    );
    assert!(d.describe().contains("preset = \"generic\"  # default"));
}

#[test]
fn an_unknown_preset_names_the_key_and_the_valid_values() {
    let e = user("[suggest]\npreset = \"cursor\"\n").unwrap_err();
    assert_eq!(e.origin, "my.toml");
    assert_eq!(e.key, "suggest.preset");
    assert!(e.problem.contains("\"cursor\""), "{e}");
    assert_eq!(e.kind(), ConfigErrorKind::UnknownName);
    assert!(
        e.fix.contains("\"claude-code\"") && e.fix.contains("\"mcp-filesystem\""),
        "{e}"
    );
    // a read tool needs a way to ask for lines
    let e = user("[suggest.read]\ntool = \"cat_lines\"\npath = \"p\"\n").unwrap_err();
    assert_eq!(e.key, "suggest.read.start");
}

/// The names strum derives are the ones `thresholds.toml`, the `--json` report
/// (serde) and `Display` use, and each parses back to its value.
#[test]
fn family_and_shape_names_are_the_config_names() {
    let names: Vec<&str> = Family::ALL.iter().map(|f| f.as_str()).collect();
    assert_eq!(
        names,
        [
            "read_file",
            "grep",
            "shell",
            "web_search",
            "web_fetch",
            "glob",
            "generic"
        ]
    );
    for f in Family::ALL {
        assert_eq!(Family::parse(f.as_str()), Some(f));
        assert_eq!(f.to_string(), f.as_str());
        assert_eq!(serde_json::to_value(f).unwrap(), f.as_str());
    }
    assert_eq!(Family::parse("ReadFile"), None);
    assert_eq!(Family::parse("read-file"), None);
    for (s, name) in [
        (Shape::Head, "head"),
        (Shape::Tail, "tail"),
        (Shape::HeadTail, "head_tail"),
    ] {
        assert_eq!(s.as_str(), name);
        assert_eq!(Shape::parse(name), Some(s));
        assert_eq!(serde_json::to_value(s).unwrap(), name);
    }
    assert_eq!(Shape::parse("headtail"), None);
    for (s, name) in [
        (BudgetSource::Config, "config"),
        (BudgetSource::Context, "context"),
        (BudgetSource::Model, "model"),
        (BudgetSource::SizeHint, "size_hint"),
    ] {
        assert_eq!(s.as_str(), name);
        assert_eq!(serde_json::to_value(s).unwrap(), name);
    }
}

/// A misspelled key: the message names the file, the full dotted key serde
/// was at, its line, the valid keys and the fix.
#[test]
fn misspelled_key_message() {
    let e = user("max_kept_chars = 1000\n\n[tools.shell]\nthreshold = 9000\nmax_kep = 10\n")
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "my.toml: tools.shell.max_kep: unknown field `max_kep`, expected one of \
         `family`, `names`, `threshold`, `shape`, `args`, `unit`, `encoding`, `max_kept`, \
         `clean`, `json` (line 5)\n  fix: remove or rename this key (the valid keys are listed in the \
         message; `toolcap config` shows the effective settings)"
    );
    assert_eq!((e.key.as_str(), e.line()), ("tools.shell.max_kep", Some(5)));
    assert_eq!(e.kind(), ConfigErrorKind::Schema);
}

/// A value of the wrong type three tables deep: the key is the whole path
/// (not its section), the line the value's, the type in TOML's words.
#[test]
fn wrong_type_deep_in_a_table_message() {
    let e = user(
        "[suggest.read]\ntool = \"cat_lines\"\npath = \"p\"\nstart = \"s\"\n\n\
         [tools.mine]\nfamily = \"grep\"\nnames = [\"x\"]\nargs = { path = \"file\" }\n",
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "my.toml: tools.mine.args.path: invalid type: string \"file\", expected an \
         array (line 9)\n  fix: give the value the type shown in thresholds.toml"
    );
    let e = user("[budget]\nfraction = 0.5\nmin_threshold = 2.5\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "my.toml: budget.min_threshold: invalid type: floating point `2.5`, \
         expected a whole number (line 3)\n  fix: give the value the type shown in thresholds.toml"
    );
    // a tool entry that is not a table
    let e = user("[tools]\nmine = 3\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "my.toml: tools.mine: invalid type: integer `3`, expected a [tools.NAME] \
         table (line 2)\n  fix: write it as a [tools.mine] section"
    );
}

/// An unknown tool family: found after parsing (by the merge), its line
/// comes from where the key is written.
#[test]
fn unknown_family_message() {
    let e = user("bypass = [\"a\"]\n\n[tools.mine]\nnames = [\"x\"]\nfamily = \"grepp\"\n")
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "my.toml: tools.mine.family: unknown family \"grepp\" (line 5)\n  fix: use one of: \
         read_file, grep, shell, web_search, web_fetch, glob, generic"
    );
    assert_eq!(e.kind(), ConfigErrorKind::UnknownName);
    // a TOML syntax error keeps the parser's position and says the line too
    let e = user("a = 1\nx = [\n").unwrap_err();
    assert_eq!((e.key.as_str(), e.line()), ("(file)", Some(2)));
    assert!(
        e.to_string()
            .contains("TOML parse error at line 2, column 6"),
        "{e}"
    );
}

/// A user entry of a family takes the family's shape from its row (the
/// user's own `[tools.shell]` included), as it takes its unit and cleaning.
#[test]
fn user_entries_inherit_their_familys_shape() {
    let c = user("[tools.mine]\nfamily = \"shell\"\nnames = [\"x\"]\n").unwrap();
    assert_eq!(c.entry_for("x").shape, Shape::HeadTail);
    assert!(c.entry_for("x").clean);
    let c = user("[tools.mine]\nfamily = \"grep\"\nnames = [\"x\"]\n").unwrap();
    assert_eq!(c.entry_for("x").shape, Shape::Head);
    let c = user(
        "[tools.shell]\nshape = \"tail\"\n[tools.mine]\nfamily = \"shell\"\nnames = [\"x\"]\n",
    )
    .unwrap();
    assert_eq!(c.entry_for("x").shape, Shape::Tail);
    assert_eq!(c.entry_for("bash").shape, Shape::Tail);
}

/// Issue 43 item 6: every built-in threshold carries the next-use benchmark's
/// figures that chose it, and is the value those figures name: within the
/// range that cost least, or the value kept where the figures cannot choose.
#[test]
fn each_built_in_threshold_is_the_one_its_note_chose() {
    let c = Config::defaults();
    for t in &c.tools {
        let basis = threshold_basis(&t.key)
            .unwrap_or_else(|| panic!("[tools.{}] has no `# chosen:` note", t.key));
        assert!(basis.contains("next-use benchmark"), "{basis}");
        let n = |s: &str| s.replace(',', "").parse::<usize>().ok();
        let kept = basis
            .split("kept at ")
            .nth(1)
            .and_then(|r| n(r.split([' ', ';', ')']).next().unwrap_or_default()));
        let least = basis.split("least at ").nth(1).map(|r| {
            // `3,500, in 100% of ...` or `3,500-30,000, in ...`
            let span = r.split(", in ").next().unwrap_or_default();
            let (lo, hi) = span.split_once('-').unwrap_or((span, span));
            (
                n(lo),
                n(hi).or(if hi == "never" {
                    Some(usize::MAX)
                } else {
                    None
                }),
            )
        });
        let ok = match (kept, least) {
            (Some(k), _) => k == t.threshold,
            (None, Some((Some(lo), Some(hi)))) => lo <= t.threshold && t.threshold <= hi,
            _ => false,
        };
        assert!(ok, "[tools.{}] threshold {}: {basis}", t.key, t.threshold);
    }
    // one note each, read as one line
    assert!(threshold_basis("shell").is_some_and(|b| !b.contains('\n') && !b.contains('#')));
    assert_eq!(threshold_basis("no_such_entry"), None);
}
