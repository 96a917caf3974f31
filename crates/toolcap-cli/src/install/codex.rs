//! `toolcap install codex`: Codex's `hooks.json`, its `config.toml` (the MCP
//! server and the hooks feature) and the `AGENTS.md` block.

use super::writers::{agents_snippet, codex_config, marked_block, set_hook};
use super::{Change, Edit, Scope, Target, env_dir, hook_cmd};

/// The files `toolcap install codex` changes.
pub(super) fn edits(scope: &Scope, program: &str, mcp: bool, install: bool) -> Vec<Edit> {
    let mut out = Vec::new();
    let (dir, agents_md) = match scope {
        Scope::User(h) => {
            let d = env_dir("CODEX_HOME").unwrap_or_else(|| h.join(".codex"));
            (d.clone(), d.join("AGENTS.md"))
        }
        Scope::Project(d) => (d.join(".codex"), d.join("AGENTS.md")),
    };
    let cmd = hook_cmd(
        program,
        Target::Codex,
        if mcp {
            " --mcp-prefix mcp__toolcap__"
        } else {
            ""
        },
    );
    out.push(Edit {
        path: dir.join("hooks.json"),
        change: Change::Json(Box::new(move |v| {
            set_hook(v, "PreToolUse", "Bash", &cmd, "codex", None, install);
            // (a regular expression, unanchored in Codex: anchored here)
            set_hook(
                v,
                "PostToolUse",
                "^(Bash|mcp__.*)$",
                &cmd,
                "codex",
                None,
                install,
            );
        })),
    });
    let prog = program.to_string();
    out.push(Edit {
        path: dir.join("config.toml"),
        change: Change::Text(Box::new(move |t| {
            // `--trust`'s tables stay at the end while installed (toolcap's
            // other lines are edited without them), and go with the rest
            let (rest, trust) = super::codex_trust::split_trust(t);
            let out = codex_config(&rest, &prog, install, mcp && install)?;
            Ok(if install {
                super::codex_trust::with_blocks(&out, &trust)
            } else {
                out
            })
        })),
    });
    let snippet = agents_snippet(program);
    out.push(Edit {
        path: agents_md,
        change: Change::Text(Box::new(move |t| Ok(marked_block(t, &snippet, install)))),
    });
    out
}
