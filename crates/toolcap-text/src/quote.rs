//! Quoting untrusted strings for where they land: POSIX shell words and JSON strings
//! inside `tool(arg="...")` calls.

/// Quote `s` as one POSIX shell word. Plain words (letters, digits and `_./:=@%+,-`)
/// stay bare; anything else is wrapped in single quotes, with each `'` written as
/// `'\''`. A newline inside single quotes is literal in POSIX shells.
///
/// Returns `None` for strings holding a NUL byte, which no shell argument can carry.
pub fn shell_word(s: &str) -> Option<String> {
    if s.contains('\0') {
        return None;
    }
    if !s.is_empty()
        && s.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'_' | b'.' | b'/' | b':' | b'=' | b'@' | b'%' | b'+' | b',' | b'-'
                )
        })
    {
        return Some(s.to_string());
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        if c == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    Some(out)
}

/// Quote a file path as one shell word that no command can mistake for an option:
/// a relative path starting with `-` gets a `./` prefix.
pub fn shell_path(path: &str) -> Option<String> {
    if path.starts_with('-') {
        shell_word(&format!("./{path}"))
    } else {
        shell_word(path)
    }
}

/// A string as a JSON string literal (quotes included).
pub fn json_string(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}

/// Whether a shell command is a plain sequence of plain words, safe to splice
/// before `2>&1 | ...` as it is.
pub fn is_plain_command(cmd: &str) -> bool {
    !cmd.trim().is_empty()
        // `-x ...` as the start of a command line is taken for an option of the shell
        && !cmd.trim_start().starts_with('-')
        && cmd.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b' ' | b'_' | b'.' | b'/' | b':' | b'=' | b'@' | b'%' | b'+' | b',' | b'-'
                )
        })
}

/// A command that re-runs `cmd` (as the harness's shell would) with its output
/// piped into `filter`: plain commands stay readable, anything else goes through
/// `bash -c` as one single-quoted word so its own operators stay its own.
pub fn rerun_piped(cmd: &str, filter: &str) -> Option<String> {
    if is_plain_command(cmd) {
        Some(format!("{} 2>&1 | {filter}", cmd.trim()))
    } else {
        Some(format!("{} 2>&1 | {filter}", bash_c(cmd)?))
    }
}

/// `bash -c '<cmd>'`: `cmd` as one single-quoted word, after `--` when it starts
/// with `-` (bash would take it for options).
pub fn bash_c(cmd: &str) -> Option<String> {
    let q = shell_word(cmd)?;
    Some(if cmd.starts_with('-') {
        format!("bash -c -- {q}")
    } else {
        format!("bash -c {q}")
    })
}

/// `s` as a regular expression that matches exactly `s`: the characters that
/// are special in POSIX extended, PCRE and Rust regexes (`\\.+*?()|[]{}^$`) are
/// escaped with a backslash, and nothing else is (GNU grep warns about a stray
/// `\\` before other characters). For a grep tool whose pattern is a regex:
/// `_$ZodTypeInternals` becomes `_\\$ZodTypeInternals`.
pub fn regex_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    for c in s.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// Run `printf '%s\0' WORD` through sh and get back the argument it saw.
    fn through_sh(word: &str) -> Vec<u8> {
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("printf '%s' {word}"))
            .output()
            .expect("sh runs");
        out.stdout
    }

    #[test]
    fn hostile_words_survive_sh_as_one_literal() {
        for s in [
            "plain.txt",
            "with space.py",
            "it's.rs",
            "a\"b",
            "$(touch PWNED)",
            "`id`",
            "a;b|c&d",
            "new\nline",
            "-rf",
            "",
            "ünïcødé ✓",
            "back\\slash",
            "'",
            "''",
        ] {
            let q = shell_word(s).unwrap();
            assert_eq!(through_sh(&q), s.as_bytes(), "quoted as {q}");
        }
        assert_eq!(shell_word("a\0b"), None);
    }

    #[test]
    fn paths_never_look_like_options() {
        assert_eq!(shell_path("-n").unwrap(), "./-n");
        assert_eq!(shell_path("/abs/-x").unwrap(), "/abs/-x");
        assert_eq!(shell_path("my file").unwrap(), "'my file'");
    }

    #[test]
    fn json_strings_escape_quotes_and_newlines() {
        assert_eq!(json_string("a\"b\nc\\"), r#""a\"b\nc\\""#);
    }

    #[test]
    fn rerun_keeps_operators_inside_the_command() {
        assert_eq!(
            rerun_piped("cargo test --all", "tail -n 50").unwrap(),
            "cargo test --all 2>&1 | tail -n 50"
        );
        let r = rerun_piped("make && echo 'done' # hi", "tail -n 5").unwrap();
        assert_eq!(
            r,
            "bash -c 'make && echo '\\''done'\\'' # hi' 2>&1 | tail -n 5"
        );
        let out = Command::new("sh")
            .arg("-c")
            .arg(rerun_piped("echo one; echo 'two'", "tail -n 1").unwrap())
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "two\n");
    }

    #[test]
    fn regex_literals_match_themselves() {
        for name in [
            "_$ZodTypeInternals",
            "a.b",
            "f(x)",
            "[T]",
            "x+y*z?",
            "^a|b$",
            "{1}",
            "a\\b",
        ] {
            let re = regex::Regex::new(&format!("^{}$", regex_literal(name))).expect("valid regex");
            assert!(re.is_match(name), "{name}");
            assert!(!re.is_match(&format!("{name}x")), "{name}");
        }
        assert_eq!(regex_literal("_$ZodTypeInternals"), "_\\$ZodTypeInternals");
        assert_eq!(regex_literal("x86_64-linux-gnu"), "x86_64-linux-gnu");
    }
}
