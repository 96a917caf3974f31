//! `toolcap install copilot`: a `postToolUse` hook in GitHub Copilot CLI's
//! `settings.json` (`$COPILOT_HOME/settings.json`, `~/.copilot/settings.json`, for
//! the user; `DIR/.github/copilot/settings.json` for a project, which Copilot
//! reads only in a folder the user trusted). Its hooks are a flat list per
//! event, `{"type": "command", "bash": CMD}` (`copilot help config`: "`hooks`:
//! inline hook definitions, keyed by event name (same schema as
//! .github/hooks/*.json)"). No MCP server is added: suggestions read back
//! through `bash`.

use serde_json::{Value, json};

use super::writers::object;
use super::{Change, Edit, Scope, env_dir};

/// The files `toolcap install copilot` changes; `hook` is the hook command.
pub(super) fn edits(scope: &Scope, hook: String, install: bool) -> Vec<Edit> {
    let settings = match scope {
        Scope::User(h) => env_dir("COPILOT_HOME")
            .unwrap_or_else(|| h.join(".copilot"))
            .join("settings.json"),
        Scope::Project(d) => d.join(".github").join("copilot").join("settings.json"),
    };
    vec![Edit {
        path: settings,
        change: Change::Json(Box::new(move |v| {
            set_flat_hook(v, "postToolUse", &hook, install);
        })),
    }]
}

/// In `v.hooks[event]` (a list of `{"type": "command", "bash": ...}`), remove
/// toolcap's entry and (installing) add it again at the end.
fn set_flat_hook(v: &mut Value, event: &str, command: &str, install: bool) {
    let Some(root) = object(v) else { return };
    let hooks = root.entry("hooks").or_insert_with(|| json!({}));
    let Some(hooks) = object(hooks) else { return };
    let list = hooks.entry(event).or_insert_with(|| json!([]));
    if let Value::Array(items) = list {
        items.retain(|h| {
            !h["bash"]
                .as_str()
                .is_some_and(|c| c.contains("toolcap") && c.contains(" hook copilot"))
        });
        if install {
            items.push(json!({"type": "command", "bash": command}));
        }
        if items.is_empty() {
            hooks.remove(event);
        }
    }
    if hooks.is_empty() {
        root.remove("hooks");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_users_hooks_stay() {
        let users = json!({"hooks": {"postToolUse": [{"type": "command", "bash": "./lint.sh"}]},
                           "model": "m"});
        let mut v = users.clone();
        set_flat_hook(&mut v, "postToolUse", "/t/toolcap hook copilot", true);
        set_flat_hook(&mut v, "postToolUse", "/t/toolcap hook copilot", true);
        assert_eq!(v["hooks"]["postToolUse"].as_array().map(Vec::len), Some(2));
        set_flat_hook(&mut v, "postToolUse", "/t/toolcap hook copilot", false);
        assert_eq!(v, users);
    }
}
