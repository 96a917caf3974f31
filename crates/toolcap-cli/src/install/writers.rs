//! The per-agent writers: toolcap's entries put into (or taken out of) a JSON
//! settings file's hooks, MCP servers and lists, Codex's `config.toml`, a marked
//! block of `AGENTS.md`, and the opencode plugin; each leaves the user's own
//! entries as they were.

use std::cell::RefCell;
use std::path::Path;

use serde_json::{Map, Value, json};

use super::MARK;

thread_local! {
    /// What the writers of one file found wrong (a member of another type
    /// than the agent reads) and what they left alone; taken by `apply`.
    static SAID: RefCell<Said> = RefCell::default();
}

#[derive(Default)]
pub(super) struct Said {
    /// Why toolcap cannot put its entries in: install stops (exit 2).
    pub refused: Vec<String>,
    /// What of the user's own was kept where toolcap would have written.
    pub notes: Vec<String>,
}

/// What the writers said since the last call.
pub(super) fn take_said() -> Said {
    SAID.with(|s| std::mem::take(&mut *s.borrow_mut()))
}

fn refuse(member: &str, found: &Value, should: &str) {
    let msg = format!("`{member}` is {}; it should be {should}", type_name(found));
    SAID.with(|s| s.borrow_mut().refused.push(msg));
}

fn note(msg: String) {
    SAID.with(|s| s.borrow_mut().notes.push(msg));
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// `root[key]` as an object to write into: made when missing (installing);
/// None (said, when installing) when it is of another type.
pub(super) fn member_object<'a>(
    root: &'a mut Map<String, Value>,
    key: &str,
    name: &str,
    should: &str,
    install: bool,
) -> Option<&'a mut Map<String, Value>> {
    if !root.contains_key(key) {
        if !install {
            return None;
        }
        root.insert(key.to_string(), json!({}));
    }
    match root.get_mut(key) {
        Some(Value::Object(m)) => Some(m),
        Some(other) => {
            if install {
                refuse(name, other, should);
            }
            None
        }
        None => None,
    }
}

/// `root[key]` as a list to write into (see [`member_object`]).
pub(super) fn member_list<'a>(
    root: &'a mut Map<String, Value>,
    key: &str,
    name: &str,
    should: &str,
    install: bool,
) -> Option<&'a mut Vec<Value>> {
    if !root.contains_key(key) {
        if !install {
            return None;
        }
        root.insert(key.to_string(), json!([]));
    }
    match root.get_mut(key) {
        Some(Value::Array(a)) => Some(a),
        Some(other) => {
            if install {
                refuse(name, other, should);
            }
            None
        }
        None => None,
    }
}

/// The program word of a hook command toolcap writes, unquoted, and the rest.
fn shell_word(s: &str) -> Option<(String, &str)> {
    let mut out = String::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && b[i] != b' ' {
        if b[i] == b'\'' {
            let end = s[i + 1..].find('\'')? + i + 1;
            out.push_str(&s[i + 1..end]);
            i = end + 1;
        } else if b[i] == b'\\' {
            let c = s[i + 1..].chars().next()?;
            out.push(c);
            i += 1 + c.len_utf8();
        } else {
            let c = s[i..].chars().next()?;
            out.push(c);
            i += c.len_utf8();
        }
    }
    (!out.is_empty()).then(|| (out, &s[i..]))
}

/// A toolcap program: the one being installed, or any file named `toolcap`
/// (an earlier install's, from another path).
fn is_toolcap_program(p: &str, current: Option<&str>) -> bool {
    current == Some(p) || Path::new(p).file_name().is_some_and(|n| n == "toolcap")
}

/// Whether `c` is a hook command toolcap writes for `agent` (`PROGRAM hook
/// AGENT [--mcp-prefix P]`, or its fail-open form `[ -x PROGRAM ] || exit 0;
/// exec PROGRAM hook AGENT ...`), matched exactly: `ours` (the command this
/// install writes), or the same form naming another toolcap program; a user's
/// own command that merely mentions toolcap is not.
pub(super) fn is_our_hook_command(c: &str, agent: &str, ours: &str) -> bool {
    if c == ours {
        return true;
    }
    let current = shell_word(ours.strip_prefix("[ -x ").unwrap_or(ours)).map(|(p, _)| p);
    let (program, rest) = match c.strip_prefix("[ -x ") {
        Some(r) => {
            let Some((p, rest)) = shell_word(r) else {
                return false;
            };
            let Some(rest) = rest.strip_prefix(" ] || exit 0; exec ") else {
                return false;
            };
            match shell_word(rest) {
                Some((p2, rest)) if p2 == p => (p, rest),
                _ => return false,
            }
        }
        None => match shell_word(c) {
            Some(x) => x,
            None => return false,
        },
    };
    let Some(extra) = rest.strip_prefix(&format!(" hook {agent}")) else {
        return false;
    };
    let extra_ok = extra.is_empty()
        || extra
            .strip_prefix(" --mcp-prefix ")
            .is_some_and(|p| !p.is_empty() && !p.contains(char::is_whitespace));
    extra_ok && is_toolcap_program(&program, current.as_deref())
}

/// In `v.hooks[event]` (a list of `{matcher, hooks: [...]}` groups), remove
/// toolcap's entries, drop groups left empty, and (installing) add toolcap's group.
pub(super) fn set_hook(
    v: &mut Value,
    event: &str,
    matcher: &str,
    command: &str,
    agent: &str,
    name: Option<&str>,
    install: bool,
) {
    let Some(root) = object(v) else { return };
    let Some(hooks) = member_object(
        root,
        "hooks",
        "hooks",
        "an object of event names to lists of hook groups",
        install,
    ) else {
        return;
    };
    let Some(groups) = member_list(
        hooks,
        event,
        &format!("hooks.{event}"),
        "a list of hook groups ({\"matcher\": ..., \"hooks\": [...]})",
        install,
    ) else {
        return;
    };
    for g in groups.iter_mut() {
        if let Some(Value::Array(hs)) = g.get_mut("hooks") {
            hs.retain(|h| {
                !h["command"]
                    .as_str()
                    .is_some_and(|c| is_our_hook_command(c, agent, command))
            });
        }
    }
    groups.retain(|g| !matches!(g.get("hooks"), Some(Value::Array(hs)) if hs.is_empty()));
    if install {
        let mut h = json!({"type": "command", "command": command});
        if let Some(n) = name {
            h["name"] = json!(n);
        }
        groups.push(json!({"matcher": matcher, "hooks": [h]}));
    }
    if groups.is_empty() {
        hooks.remove(event);
    }
    if hooks.is_empty() {
        root.remove("hooks");
    }
}

/// Whether `x` is a file toolcap writes whole (`<state>/toolcap/agents/NAME`).
fn is_agent_file(x: &str) -> bool {
    let p = Path::new(x);
    let parent = p.parent();
    p.is_absolute()
        && parent
            .and_then(Path::file_name)
            .is_some_and(|n| n == "agents")
        && parent
            .and_then(Path::parent)
            .and_then(Path::file_name)
            .is_some_and(|n| n == "toolcap")
}

/// `v.env[key]`: set to `value`, or (uninstalling) removed when it is toolcap's
/// (`value`, or a file toolcap wrote in its state dir); a value of the user's
/// own is left as it is.
pub(super) fn set_env(v: &mut Value, key: &str, value: &str, on: bool) {
    let Some(root) = object(v) else { return };
    let Some(env) = member_object(
        root,
        "env",
        "env",
        "an object of variable names to strings",
        on,
    ) else {
        return;
    };
    let ours = |x: &Value| x.as_str().is_some_and(|s| s == value || is_agent_file(s));
    match env.get(key) {
        Some(x) if !ours(x) => {
            if on {
                note(format!(
                    "kept your own env.{key} ({x}): toolcap's is not set"
                ));
            }
        }
        _ if on => {
            env.insert(key.into(), json!(value));
        }
        _ => {
            env.remove(key);
        }
    }
    if env.is_empty() {
        root.remove("env");
    }
}

/// `v` with every toolcap program path in it (a string naming a file
/// `toolcap`) as one placeholder: two entries toolcap wrote for two programs
/// look the same.
fn any_program(v: &Value, current: &str) -> Value {
    match v {
        Value::String(s) if is_toolcap_program(s, Some(current)) => json!("<toolcap>"),
        Value::Array(a) => Value::Array(a.iter().map(|x| any_program(x, current)).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| (k.clone(), any_program(x, current)))
                .collect(),
        ),
        x => x.clone(),
    }
}

/// `v[key].toolcap`: set to `entry`, or removed; an entry toolcap did not write
/// (another shape or program) is the user's own and stays.
pub(super) fn set_mcp(v: &mut Value, key: &str, entry: Value, on: bool) {
    let Some(root) = object(v) else { return };
    let Some(servers) = member_object(root, key, key, "an object of server names to servers", on)
    else {
        return;
    };
    let current = entry["command"]
        .as_str()
        .or_else(|| entry["command"][0].as_str())
        .unwrap_or_default()
        .to_string();
    match servers.get("toolcap") {
        Some(x) if any_program(x, &current) != any_program(&entry, &current) => {
            if on {
                note(format!("kept your own {key}.toolcap"));
            }
        }
        _ if on => {
            servers.insert("toolcap".into(), entry);
        }
        _ => {
            servers.remove("toolcap");
        }
    }
    if servers.is_empty() {
        root.remove(key);
    }
}

/// `item` in the string list `v[key]`, or not.
pub(super) fn set_list_item(v: &mut Value, key: &str, item: &str, on: bool) {
    let Some(root) = object(v) else { return };
    let Some(items) = member_list(root, key, key, "a list of strings", on) else {
        return;
    };
    items.retain(|i| i != item);
    if on {
        items.push(json!(item));
    }
    if items.is_empty() {
        root.remove(key);
    }
}

pub(super) fn object(v: &mut Value) -> Option<&mut Map<String, Value>> {
    if v.is_null() {
        *v = json!({});
    }
    v.as_object_mut()
}

/// The table a TOML line opens (`[features]  # note` → `features`), if it is a
/// table header.
fn table_of(line: &str) -> Option<String> {
    let t = line.trim();
    let t = t.strip_prefix('[')?;
    if t.starts_with('[') {
        return None;
    }
    let end = t.find(']')?;
    let rest = t[end + 1..].trim();
    (rest.is_empty() || rest.starts_with('#')).then(|| {
        t[..end]
            .split('.')
            .map(|p| p.trim().trim_matches('"'))
            .collect::<Vec<_>>()
            .join(".")
    })
}

/// Codex's config.toml with `[features] hooks = true` and `[mcp_servers.toolcap]`
/// (or without toolcap's lines), edited as text so the user's comments and
/// layout stay; checked by parsing the result. `text` ends with a newline or is
/// empty (the caller keeps a missing one missing, and CRLF line ends). Only
/// lines exactly as toolcap writes them are toolcap's: a user's line that
/// mentions the marker stays.
pub(super) fn codex_config(
    text: &str,
    program: &str,
    install: bool,
    mcp: bool,
) -> Result<String, String> {
    let _: toml::Table = toml::from_str(text).map_err(|e| format!("not valid TOML: {e}"))?;
    let hooks_line = format!("hooks = true  # {MARK}");
    let features_head = format!("[features]  # {MARK}");
    let server_head = format!("[mcp_servers.toolcap]  # {MARK}");
    let inline_mark = format!("  # {MARK}: hooks = true");
    let body = text.strip_suffix('\n').unwrap_or(text);
    let mut lines: Vec<String> = if text.is_empty() {
        Vec::new()
    } else {
        body.split('\n').map(str::to_string).collect()
    };
    // out with toolcap's own lines and blocks
    let mut i = 0;
    let mut table = String::new();
    while i < lines.len() {
        let t = lines[i].trim().to_string();
        if let Some(name) = table_of(&t) {
            table = name;
        }
        // a block toolcap added whole: its header and exactly its lines
        let block_len = if t == features_head {
            let next = lines.get(i + 1).map(|l| l.trim());
            let end = lines.get(i + 2).map(|l| l.trim());
            (next == Some(hooks_line.as_str())
                && end.is_none_or(|e| e.is_empty() || table_of(e).is_some()))
            .then_some(2)
        } else if t == server_head {
            let cmd = lines.get(i + 1).map(|l| l.trim()).unwrap_or_default();
            let args = lines.get(i + 2).map(|l| l.trim());
            let end = lines.get(i + 3).map(|l| l.trim());
            let cmd_ok = cmd
                .strip_prefix("command = ")
                .is_some_and(|v| toml::from_str::<toml::Table>(&format!("v = {v}")).is_ok());
            (cmd_ok
                && args == Some("args = [\"mcp\"]")
                && end.is_none_or(|e| e.is_empty() || table_of(e).is_some()))
            .then_some(3)
        } else {
            None
        };
        if let Some(n) = block_len {
            lines.drain(i..i + n);
            // with the blank line toolcap put before it
            if i > 0 && lines[i - 1].trim().is_empty() {
                lines.remove(i - 1);
                i -= 1;
            }
            continue;
        }
        if table == "features" && t == hooks_line {
            lines.remove(i);
            continue;
        }
        if table.is_empty()
            && let Some(l) = lines[i].strip_suffix(&inline_mark)
            && let Some(eq) = l.find('=')
            && l[..eq].trim() == "features"
        {
            let (head, rest) = l.split_at(eq + 1);
            let rest = rest
                .replacen("{ hooks = true,", "{", 1)
                .replacen("{ hooks = true", "{", 1);
            lines[i] = format!("{head}{rest}");
        }
        i += 1;
    }
    let now: toml::Table = toml::from_str(&lines.join("\n")).map_err(|e| {
        format!("not valid TOML once toolcap's lines are out ({e}); edit it by hand")
    })?;
    let hooks_on = now
        .get("features")
        .and_then(|f| f.get("hooks"))
        .and_then(toml::Value::as_bool)
        == Some(true);
    if install && !hooks_on {
        // under the [features] header, in the inline table, or a block of its own
        let mut table = String::new();
        let mut done = false;
        for (i, l) in lines.iter().enumerate() {
            if let Some(name) = table_of(l) {
                table = name;
                if table == "features" {
                    lines.insert(i + 1, hooks_line.clone());
                    done = true;
                    break;
                }
            } else if table.is_empty()
                && let Some(eq) = l.find('=')
                && l[..eq].trim() == "features"
                && l[eq + 1..].trim_start().starts_with('{')
            {
                if l.contains('#') {
                    return Err("`features` is an inline table with a comment on its line; add `hooks = true` to it by hand".into());
                }
                let brace = eq + 1 + l[eq + 1..].find('{').unwrap_or(0);
                let empty = l[brace + 1..].trim_start().starts_with('}');
                let add = if empty {
                    " hooks = true"
                } else {
                    " hooks = true,"
                };
                lines[i] = format!("{}{add}{}{inline_mark}", &l[..=brace], &l[brace + 1..]);
                done = true;
                break;
            }
        }
        if !done {
            if now.get("features").is_some() {
                return Err("`features` is set in a form toolcap cannot add `hooks = true` to (dotted keys); add it by hand".into());
            }
            if !lines.is_empty() {
                lines.push(String::new());
            }
            lines.push(features_head);
            lines.push(hooks_line);
        }
    }
    let has_server = now
        .get("mcp_servers")
        .and_then(|m| m.get("toolcap"))
        .is_some();
    if mcp && !has_server {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.push(server_head);
        lines.push(format!(
            "command = {}",
            toml::Value::String(program.to_string())
        ));
        lines.push("args = [\"mcp\"]".to_string());
    }
    if lines.iter().all(|l| l.trim().is_empty()) {
        return Ok(String::new());
    }
    let mut out = lines.join("\n");
    out.push('\n');
    toml::from_str::<toml::Table>(&out)
        .map_err(|e| format!("the edited file would not be valid TOML ({e}); edit it by hand"))?;
    Ok(out)
}

/// The AGENTS.md section for Codex (its model runs long commands itself).
pub(super) fn agents_snippet(program: &str) -> String {
    let p = toolcap_text::quote::shell_word(program).unwrap_or_else(|| program.to_string());
    format!(
        "## Long command output (toolcap)\n\n\
         Run commands whose output may be long (test suites, builds, logs, big files) under\n\
         toolcap: `{p} run -- bash -c '<command>'`. It prints the output when it is short, else\n\
         the part that matters (failures, errors, the summary) and the exact commands that\n\
         read the rest (`{p} continue ID --start-line A --end-line B`,\n\
         `{p} search ID 'pattern'`); it exits with the command's status. Read the rest\n\
         with those commands instead of running the command again.\n"
    )
}

/// `text` (ending with a newline, or empty) with toolcap's marked section
/// replaced by `block`, or removed: the section is the lines from `<!-- added
/// by toolcap install -->` to `<!-- end added by toolcap install -->`, each a
/// line of its own, holding toolcap's heading; a user's text that mentions the
/// marker is not it. Added at the end after a blank line, and taken out with it.
pub(super) fn marked_block(text: &str, block: &str, install: bool) -> String {
    let start = format!("<!-- {MARK} -->");
    let end = format!("<!-- end {MARK} -->");
    let heading = block.lines().next().unwrap_or_default();
    let body = text.strip_suffix('\n').unwrap_or(text);
    let mut lines: Vec<&str> = if text.is_empty() {
        Vec::new()
    } else {
        body.split('\n').collect()
    };
    let found = (0..lines.len())
        .filter(|a| lines[*a] == start && lines.get(a + 1) == Some(&heading))
        .find_map(|a| Some((a, a + lines[a..].iter().position(|l| *l == end)?)));
    let ours: Vec<&str> = std::iter::once(start.as_str())
        .chain(block.lines())
        .chain(std::iter::once(end.as_str()))
        .collect();
    match (found, install) {
        (Some((a, b)), true) => {
            lines.splice(a..=b, ours);
        }
        (Some((a, b)), false) => {
            lines.drain(a..=b);
            if a > 0 && lines[a - 1].is_empty() {
                lines.remove(a - 1);
            }
        }
        (None, true) => {
            if !lines.is_empty() {
                lines.push("");
            }
            lines.extend(ours);
        }
        (None, false) => {}
    }
    if lines.is_empty() {
        return String::new();
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out
}

/// The opencode plugin, with the toolcap program filled in.
pub(super) fn opencode_plugin(program: &str) -> String {
    const PLUGIN: &str = include_str!("../../integrations/opencode/toolcap.ts");
    PLUGIN.replace(
        "process.env.TOOLCAP_BIN ?? \"toolcap\"",
        &format!(
            "process.env.TOOLCAP_BIN ?? {}",
            Value::String(program.to_string())
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_config_keeps_the_users_lines_and_takes_out_only_its_own() {
        let user = "# my settings\nmodel = \"m\"\n\n[features]\nweb = true\n";
        let on = codex_config(user, "/bin/toolcap", true, true).unwrap();
        assert!(on.starts_with("# my settings\nmodel = \"m\"\n"), "{on}");
        let t: toml::Table = toml::from_str(&on).unwrap();
        assert_eq!(t["features"]["hooks"].as_bool(), Some(true));
        assert_eq!(t["features"]["web"].as_bool(), Some(true));
        assert_eq!(t["mcp_servers"]["toolcap"]["args"][0].as_str(), Some("mcp"));
        assert_eq!(codex_config(&on, "/bin/toolcap", true, true).unwrap(), on);
        assert_eq!(
            codex_config(&on, "/bin/toolcap", false, false).unwrap(),
            user
        );
    }

    #[test]
    fn codex_config_takes_features_with_a_comment_or_inline_and_only_its_own_lines() {
        for user in [
            "[features] # mine\nweb = true\n",
            "features = { web = true }\n",
            "features = {}\n",
            "# what was added by toolcap install stays\nmodel = \"m\"\n",
        ] {
            let on = codex_config(user, "/bin/toolcap", true, true).expect(user);
            let t: toml::Table = toml::from_str(&on).unwrap();
            assert_eq!(t["features"]["hooks"].as_bool(), Some(true), "{on}");
            assert_eq!(codex_config(&on, "/bin/toolcap", true, true).unwrap(), on);
            assert_eq!(
                codex_config(&on, "/bin/toolcap", false, false).unwrap(),
                user
            );
        }
    }

    #[test]
    fn hook_commands_are_toolcaps_only_in_the_forms_it_writes() {
        let ours = "[ -x /opt/t/toolcap ] || exit 0; exec /opt/t/toolcap hook claude-code --mcp-prefix mcp__toolcap__";
        for c in [
            ours,
            "/usr/bin/toolcap hook claude-code",
            "[ -x '/my tools/toolcap' ] || exit 0; exec '/my tools/toolcap' hook claude-code",
            "/old/toolcap hook claude-code --mcp-prefix mcp__t__",
        ] {
            assert!(is_our_hook_command(c, "claude-code", ours), "{c}");
        }
        for c in [
            "/home/me/toolcap-wrap.sh hook claude-code",
            "/usr/bin/toolcap hook claude-code; curl evil",
            "/usr/bin/toolcap hook codex",
            "[ -x /a/toolcap ] || exit 0; exec /b/toolcap hook claude-code",
            "echo toolcap hook claude-code",
        ] {
            assert!(!is_our_hook_command(c, "claude-code", ours), "{c}");
        }
        // with --toolcap naming a program of another name, that one too
        let mine = "/opt/tc hook codex";
        assert!(is_our_hook_command(
            "/opt/tc hook codex --mcp-prefix m__",
            "codex",
            mine
        ));
    }

    #[test]
    fn marked_blocks_come_and_go() {
        let t = "# Project\n\nRules.\n";
        let on = marked_block(t, "B\n", true);
        assert_eq!(marked_block(&on, "B\n", true), on);
        assert_eq!(marked_block(&on, "B\n", false), t);
    }
}
