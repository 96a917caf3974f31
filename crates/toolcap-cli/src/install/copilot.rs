//! `toolcap install copilot`: a `postToolUse` hook in GitHub Copilot CLI's
//! `settings.json` (`$COPILOT_HOME/settings.json`, `~/.copilot/settings.json`, for
//! the user; `DIR/.github/copilot/settings.json` for a project, which Copilot
//! reads only in a folder the user trusted). Its hooks are a flat list per
//! event, `{"type": "command", "bash": CMD}` (`copilot help config`: "`hooks`:
//! inline hook definitions, keyed by event name (same schema as
//! .github/hooks/*.json)"). No MCP server is added: suggestions read back
//! through `bash`.

use serde_json::{Value, json};

use super::writers::{is_our_hook_command, member_list, member_object, object};
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
    let Some(hooks) = member_object(
        root,
        "hooks",
        "hooks",
        "an object of event names to lists of hooks",
        install,
    ) else {
        return;
    };
    let Some(items) = member_list(
        hooks,
        event,
        &format!("hooks.{event}"),
        "a list of hooks ({\"type\": \"command\", \"bash\": ...})",
        install,
    ) else {
        return;
    };
    items.retain(|h| {
        !h["bash"]
            .as_str()
            .is_some_and(|c| is_our_hook_command(c, "copilot", command))
    });
    if install {
        items.push(json!({"type": "command", "bash": command}));
    }
    if items.is_empty() {
        hooks.remove(event);
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
