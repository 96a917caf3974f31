//! Claude Code's Bash tool script read back: the model's command inside the
//! script Claude Code hands its shell prefix (`toolcap shell-prefix
//! claude-code`) or runs through `toolcap run` (the hook's rewrite), as the
//! model wrote it.

/// The model's command inside Claude Code's Bash tool script, or None when
/// `script` is not one (a hook, an MCP server, a shape not seen before).
pub fn claude_command(script: &str) -> Option<String> {
    claude_command_from(script, || std::env::var("__CLAUDE_CC_COMMAND_TEXT").ok())
}

/// [`claude_command`] with the environment's command text given.
fn claude_command_from(
    script: &str,
    command_text: impl FnOnce() -> Option<String>,
) -> Option<String> {
    // every Bash tool script ends by telling Claude Code where the shell is now
    let (body, cwd_file) = script.rsplit_once(" && pwd -P >| ")?;
    if cwd_file.contains('\n') || !cwd_file.contains("claude-") {
        return None;
    }
    // the command as an eval argument: `... && eval WORD < /dev/null`
    if let Some((_, tail)) = body.rsplit_once("&& eval ") {
        let word = tail.strip_suffix(" < /dev/null").unwrap_or(tail);
        return unquote(word);
    }
    // or carried in the environment (long commands): `'eval' $__CLAUDE_CC_COMMAND_TEXT`
    if body.ends_with("'eval' $__CLAUDE_CC_COMMAND_TEXT\"") {
        return command_text();
    }
    None
}

/// One POSIX shell word without its quoting: `'...'` runs, `"..."` runs (with
/// `\"`, `\\`, `` \` `` and `\$`), `\x` escapes and plain characters. None when
/// the word holds anything the shell would expand or split (`$`, a backquote,
/// blanks or operators outside quotes).
fn unquote(word: &str) -> Option<String> {
    let mut out = String::with_capacity(word.len());
    let mut chars = word.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => loop {
                match chars.next()? {
                    '\'' => break,
                    c => out.push(c),
                }
            },
            '"' => loop {
                match chars.next()? {
                    '"' => break,
                    '\\' => match chars.next()? {
                        c @ ('"' | '\\' | '`' | '$') => out.push(c),
                        '\n' => {}
                        c => {
                            out.push('\\');
                            out.push(c);
                        }
                    },
                    '$' | '`' => return None,
                    c => out.push(c),
                }
            },
            '\\' => match chars.next()? {
                '\n' => {}
                c => out.push(c),
            },
            c if c.is_whitespace() || "$`;&|<>()*?[]{}~#".contains(c) => return None,
            c => out.push(c),
        }
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SNAP: &str = "source /h/.claude/shell-snapshots/snapshot-bash-1-x.sh 2>/dev/null || true && { \\builtin shopt -u extglob || \\builtin setopt NO_EXTENDED_GLOB; } >/dev/null 2>&1 || true";

    #[test]
    fn the_models_command_is_read_back_from_the_script() {
        let s =
            format!("{SNAP} && eval 'cd sub && pwd' < /dev/null && pwd -P >| /tmp/claude-fe11-cwd");
        assert_eq!(claude_command(&s).as_deref(), Some("cd sub && pwd"));
        let s = format!(
            "{SNAP} && eval 'echo '\\''it'\\''s'\\''' < /dev/null && pwd -P >| /tmp/claude-1-cwd"
        );
        assert_eq!(claude_command(&s).as_deref(), Some("echo 'it's'"));
        let s = format!("{SNAP} && eval ls < /dev/null && pwd -P >| /tmp/claude-081b-cwd");
        assert_eq!(claude_command(&s).as_deref(), Some("ls"));
        let s = format!("{SNAP} && eval 'a\nb' < /dev/null && pwd -P >| /tmp/claude-2-cwd");
        assert_eq!(claude_command(&s).as_deref(), Some("a\nb"));
    }

    /// A word as Claude Code writes it into its script: bare when it has
    /// nothing the shell treats specially, else single quotes, a quote inside
    /// written `'"'"'` (as 2.1.328 does, claude-scripts.jsonl).
    fn claude_quote(s: &str) -> String {
        let plain = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
        if !s.is_empty() && s.chars().all(plain) {
            s.to_string()
        } else {
            format!("'{}'", s.replace('\'', "'\"'\"'"))
        }
    }

    /// Every command of the corpus of real agent commands
    /// (fixtures/agent-commands) is read back exactly from the script Claude
    /// Code hands its prefix: the only way the prefix could miss a foreground
    /// command the hook noted (tests/agent_commands.rs counts the rest).
    #[test]
    fn every_corpus_command_is_read_back_from_its_script() {
        let path = toolcap_testkit::fixture_path("agent-commands/commands.jsonl");
        let corpus = std::fs::read_to_string(&path).unwrap_or_default();
        let mut commands = 0;
        let mut missed = Vec::new();
        for line in corpus.lines() {
            let entry: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
            let Some(command) = entry["command"].as_str() else {
                continue;
            };
            commands += 1;
            let script = format!(
                "{SNAP} && eval {} < /dev/null && pwd -P >| /tmp/claude-5a1e-cwd",
                claude_quote(command)
            );
            if claude_command(&script).as_deref() != Some(command) {
                missed.push(command.to_string());
            }
        }
        assert!(
            commands >= 300,
            "{} holds {commands} commands",
            path.display()
        );
        assert!(missed.is_empty(), "not read back: {missed:#?}");
    }

    /// The scripts Claude Code 2.1.328 itself built for the corpus commands
    /// (recorded by scripts/record-claude-scripts.py with a prefix that runs
    /// nothing): each gives back exactly the command the model wrote, so the
    /// hook's note is found. Its quoting (`'"'"'` for a quote, long commands in
    /// `$__CLAUDE_CC_COMMAND_TEXT`) is Claude Code's own.
    #[test]
    fn every_recorded_claude_script_gives_back_its_command() {
        let path = toolcap_testkit::fixture_path("agent-commands/claude-scripts.jsonl");
        let recorded = std::fs::read_to_string(&path).unwrap_or_default();
        let mut lines = recorded.lines();
        // the first line holds the scripts' heads: a script is heads[head] + tail
        let heads: serde_json::Value =
            serde_json::from_str(lines.next().unwrap_or_default()).unwrap_or_default();
        let mut scripts = 0;
        let mut missed = Vec::new();
        for line in lines {
            let entry: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
            let (Some(command), Some(head), Some(tail)) = (
                entry["command"].as_str(),
                entry["head"]
                    .as_u64()
                    .and_then(|i| heads["heads"][i as usize].as_str()),
                entry["tail"].as_str(),
            ) else {
                missed.push((line.to_string(), "not an entry".to_string()));
                continue;
            };
            let script = format!("{head}{tail}");
            let script = script.as_str();
            scripts += 1;
            // a long command comes in `$__CLAUDE_CC_COMMAND_TEXT`, as recorded
            let text = entry["command_text"].as_str().map(str::to_string);
            let read_back = claude_command_from(script, || text);
            if read_back.as_deref() != Some(command) {
                missed.push((command.to_string(), script.to_string()));
            }
        }
        assert!(scripts >= 300, "{} holds {scripts} scripts", path.display());
        assert!(missed.is_empty(), "not read back: {missed:#?}");
    }

    #[test]
    fn other_scripts_are_not_bash_tool_commands() {
        for s in [
            "/tmp/exp/posthook.py",
            "'/usr/bin/node' '/srv/mcp.js' '--stdio'",
            "make && pwd -P >| /tmp/out",
            "eval $(x) && pwd -P >| /tmp/claude-1-cwd",
        ] {
            assert_eq!(claude_command(s), None, "{s:?}");
        }
    }

    #[test]
    fn unquote_refuses_what_the_shell_would_expand() {
        assert_eq!(
            unquote("'a b'\"c\\\"d\"e\\ f").as_deref(),
            Some("a bc\"de f")
        );
        assert_eq!(unquote("$HOME"), None);
        assert_eq!(unquote("\"$HOME\""), None);
        assert_eq!(unquote("a b"), None);
        assert_eq!(unquote("'open"), None);
    }
}
