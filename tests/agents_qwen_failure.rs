//! Qwen Code 0.24.4's failing commands (issue 45, item 4), with the real binary:
//! a command that exits non-zero goes to `PostToolUseFailure`, and nothing a
//! hook replies there replaces the result. A hook that replies with every field
//! a hook could use to replace a result (`continue: false` with `stopReason`,
//! `decision: "block"` with `reason`, `updatedToolOutput`, and
//! `additionalContext`) gets only its `additionalContext` appended after Qwen
//! Code's own cut (`firePostToolUseFailureHook` in
//! `packages/core/src/core/toolHookTriggers.ts` reads nothing else;
//! `coreToolScheduler.ts` appends it): so toolcap's view cannot be put there in
//! place of Qwen Code's cut (docs/agents.md, Qwen Code).

use std::sync::Arc;

use serde_json::json;

use crate::agents_e2e::agent::{self, Kind, Sandbox};
use crate::agents_e2e::server::{Script, Server};
use crate::agents_e2e::shell_call;

#[test]
fn qwen_code_failure_hook_can_only_add_context() {
    let Some(bin) = agent::find(Kind::QwenCode) else {
        return;
    };
    // (the wait: Qwen Code's shell at times loses a quick command's output)
    let command = "seq 1 20000; sleep 0.3; exit 4";
    let script: Script = Arc::new(move |results: &[String]| {
        results
            .is_empty()
            .then(|| shell_call(Kind::QwenCode, command))
    });
    let sb = Sandbox::new();
    let server = Server::start(Kind::QwenCode.api(), script);
    sb.configure(Kind::QwenCode, &server);
    let reply = json!({
        "continue": false, "stopReason": "REPLACED-BY-STOP",
        "decision": "block", "reason": "REPLACED-BY-BLOCK",
        "hookSpecificOutput": {"hookEventName": "PostToolUseFailure",
            "additionalContext": "ADDED-BY-THE-HOOK",
            "updatedToolOutput": "REPLACED-BY-UPDATE"}
    });
    let hook = sb.home.join("failure-hook.json");
    std::fs::write(&hook, reply.to_string()).expect("write the reply");
    sb.write(
        "~/.qwen/settings.json",
        &json!({
            "tools": {"shell": {"enableInteractiveShell": false}},
            "hooks": {"PostToolUseFailure": [{"matcher": "^run_shell_command$",
                "hooks": [{"type": "command", "command": format!("cat '{}'", hook.display())}]}]}
        })
        .to_string(),
    );
    let run = sb.run_agent(Kind::QwenCode, &bin, &server, &[]);
    assert!(run.success, "{}", run.describe());
    let result = server
        .turns()
        .into_iter()
        .max_by_key(Vec::len)
        .and_then(|t| t.into_iter().next())
        .expect("a tool result");
    assert!(
        result.contains("Tool output was too large and has been truncated")
            && result.contains("ADDED-BY-THE-HOOK")
            && !result.contains("REPLACED-BY"),
        "only the hook's context is added to Qwen Code's cut: {result}"
    );
    eprintln!(
        "a failing `seq 1 20000`: {} chars, Qwen Code's cut and the hook's context",
        result.chars().count()
    );
}
