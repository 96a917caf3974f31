//! The per-agent writers: toolcap's entries put into (or taken out of) a JSON
//! settings file's hooks, MCP servers and lists, Codex's `config.toml`, a marked
//! block of `AGENTS.md`, and the opencode plugin; each leaves the user's own
//! entries as they were.

use serde_json::{Map, Value, json};

use super::MARK;

/// Whether a hook entry is toolcap's for `agent`.
fn is_ours(h: &Value, agent: &str) -> bool {
    h["command"]
        .as_str()
        .is_some_and(|c| c.contains("toolcap") && c.contains(&format!(" hook {agent}")))
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
    let hooks = root.entry("hooks").or_insert_with(|| json!({}));
    let Some(hooks) = object(hooks) else { return };
    let list = hooks.entry(event).or_insert_with(|| json!([]));
    if let Value::Array(groups) = list {
        for g in groups.iter_mut() {
            if let Some(Value::Array(hs)) = g.get_mut("hooks") {
                hs.retain(|h| !is_ours(h, agent));
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
    }
    if hooks.is_empty() {
        root.remove("hooks");
    }
}

/// `v.env[key]`: set to `value`, or (uninstalling) removed when it is toolcap's;
/// a value of the user's own is left as it is.
pub(super) fn set_env(v: &mut Value, key: &str, value: &str, on: bool) {
    let Some(root) = object(v) else { return };
    let env = root.entry("env").or_insert_with(|| json!({}));
    let Some(env) = object(env) else { return };
    let ours = |x: &Value| x.as_str().is_some_and(|s| s.contains("toolcap"));
    match env.get(key) {
        Some(x) if !ours(x) => {}
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

/// `v[key].toolcap`: set to `entry`, or removed.
pub(super) fn set_mcp(v: &mut Value, key: &str, entry: Value, on: bool) {
    let Some(root) = object(v) else { return };
    let servers = root.entry(key).or_insert_with(|| json!({}));
    let Some(servers) = object(servers) else {
        return;
    };
    if on {
        servers.insert("toolcap".into(), entry);
    } else {
        servers.remove("toolcap");
    }
    if servers.is_empty() {
        root.remove(key);
    }
}

/// `item` in the string list `v[key]`, or not.
pub(super) fn set_list_item(v: &mut Value, key: &str, item: &str, on: bool) {
    let Some(root) = object(v) else { return };
    let list = root.entry(key).or_insert_with(|| json!([]));
    if let Value::Array(items) = list {
        items.retain(|i| i != item);
        if on {
            items.push(json!(item));
        }
        if items.is_empty() {
            root.remove(key);
        }
    }
}

pub(super) fn object(v: &mut Value) -> Option<&mut Map<String, Value>> {
    if v.is_null() {
        *v = json!({});
    }
    v.as_object_mut()
}

/// Codex's config.toml with `[features] hooks = true` and `[mcp_servers.toolcap]`
/// (or without toolcap's lines), edited as text so the user's comments and
/// layout stay; checked by parsing the result.
pub(super) fn codex_config(
    text: &str,
    program: &str,
    install: bool,
    mcp: bool,
) -> Result<String, String> {
    let parsed: toml::Table = toml::from_str(text).map_err(|e| format!("not valid TOML: {e}"))?;
    // out with toolcap's own lines and block
    let mut lines: Vec<String> = Vec::new();
    let mut in_ours = false;
    for l in text.lines() {
        let t = l.trim();
        if t.starts_with('[') {
            in_ours = t.contains(MARK);
        }
        if in_ours || (!t.starts_with('[') && t.contains(MARK)) {
            continue;
        }
        lines.push(l.to_string());
    }
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    let hooks_on = parsed
        .get("features")
        .and_then(|f| f.get("hooks"))
        .and_then(toml::Value::as_bool)
        == Some(true);
    let ours_hooks = text
        .lines()
        .any(|l| l.contains(MARK) && l.trim_start().starts_with("hooks"));
    if install && (!hooks_on || ours_hooks) {
        let line = format!("hooks = true  # {MARK}");
        match lines.iter().position(|l| l.trim() == "[features]") {
            Some(i) => lines.insert(i + 1, line),
            None => {
                if !lines.is_empty() {
                    lines.push(String::new());
                }
                lines.push(format!("[features]  # {MARK}"));
                lines.push(line);
            }
        }
    }
    let has_server = parsed
        .get("mcp_servers")
        .and_then(|m| m.get("toolcap"))
        .is_some()
        && !text
            .lines()
            .any(|l| l.contains("[mcp_servers.toolcap]") && l.contains(MARK));
    if mcp && !has_server {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.push(format!("[mcp_servers.toolcap]  # {MARK}"));
        lines.push(format!(
            "command = {}",
            toml::Value::String(program.to_string())
        ));
        lines.push("args = [\"mcp\"]".to_string());
    }
    let mut out = lines.join("\n");
    if !out.is_empty() {
        out.push('\n');
    }
    if out.trim().is_empty() && !text.trim().is_empty() {
        return Ok(String::new());
    }
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

/// `text` with toolcap's marked section (`<!-- added by toolcap install -->`)
/// replaced by `block`, or removed.
pub(super) fn marked_block(text: &str, block: &str, install: bool) -> String {
    let start = format!("<!-- {MARK} -->");
    let end = format!("<!-- end {MARK} -->");
    let mut out = match (text.find(&start), text.find(&end)) {
        (Some(a), Some(b)) if b > a => {
            let mut s = text[..a].to_string();
            s.push_str(text[b + end.len()..].trim_start_matches('\n'));
            s
        }
        _ => text.to_string(),
    };
    if install {
        if !out.is_empty() && !out.ends_with("\n\n") {
            out.push_str(if out.ends_with('\n') { "\n" } else { "\n\n" });
        }
        out.push_str(&format!("{start}\n{block}{end}\n"));
    } else {
        while out.ends_with("\n\n") {
            out.pop();
        }
    }
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
    fn marked_blocks_come_and_go() {
        let t = "# Project\n\nRules.\n";
        let on = marked_block(t, "B\n", true);
        assert_eq!(marked_block(&on, "B\n", true), on);
        assert_eq!(marked_block(&on, "B\n", false), t);
    }
}
