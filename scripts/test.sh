#!/usr/bin/env bash
# The project's one test command (README "The two commands"; called by .ci/run):
# installs what the tests need outside the repository, then runs every suite.
#   bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# the real MCP client and server that tests/mcp_filesystem.rs drives (idempotent)
bash .ci/install-mcp-peers

# Rust: unit, integration, snapshot, CLI, HTTP, MCP, docs and doc tests
cargo test --all-features
