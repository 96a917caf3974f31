//! The tests that drive the real agent binaries (Claude Code, Codex, Gemini CLI,
//! opencode, Pi, Copilot CLI, Qwen Code, Kilo, Cline; installed by `.ci/install-agents`)
//! against the scripted model server, in a test target of their own: `cargo test
//! --all-features --test real_agents`. The rest of the integration tests are
//! `--test tests`; a new `tests/NAME.rs` is declared in one of the two.
//!
//! Without the agents (or python3) these tests are skipped with the reason; under
//! CI=true they fail.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agents_claude_prefix;
mod agents_cline;
mod agents_codex_trust;
mod agents_codex_tui;
mod agents_e2e;
mod agents_gemini_shell;
mod agents_more_copilot;
mod agents_more_pi;
mod agents_more_qk;
mod agents_parity;
mod agents_qwen_failure;
mod agents_reads;
mod discover_agents;
mod discover_cli;
