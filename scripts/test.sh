#!/usr/bin/env bash
# The project's one test command (README "The two commands"; called by .ci/run):
# installs what the tests need outside the repository, then runs every suite.
#   bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# the real MCP client and server that tests/mcp_filesystem.rs drives (idempotent)
bash .ci/install-mcp-peers
# the real agents that tests/agents_e2e.rs drives (Claude Code, Codex, Gemini CLI, opencode; idempotent)
bash .ci/install-agents

# PostgreSQL for the PostgresStore tests (tests/support/pg.rs starts a throwaway cluster with
# initdb/pg_ctl, as `nobody` via runuser when root; under CI=true those tests fail without it)
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql
fi
command -v runuser >/dev/null || { echo "missing runuser (util-linux)" >&2; exit 1; }

# jq: the JSON hints suggest jq paths, and the real-input check runs every suggestion
command -v jq >/dev/null || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends jq; }

# chromium: tests/report_html.rs renders `toolcap report --html`'s page headless (under CI=true
# that test fails without it)
command -v chromium >/dev/null || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; }

# the library's modules import one way: no circle between modules (scripts/module-cycles.py)
python3 scripts/module-cycles.py

# the next-use benchmark's used-facts rule on its two hand-checked cases (benches/nextuse;
# the benchmark itself is `python3 benches/nextuse/run.py`, minutes long, not run here)
python3 -m unittest benches/nextuse/test_rule.py

# Rust: unit, integration, snapshot, CLI, HTTP, MCP, docs and doc tests
cargo test --all-features

# Python: builds the package into ~/.cache/toolcap-ci/py-venv (maturin, pytest from PyPI),
# reusing target/, and runs its pytest suite (parity with the CLI, stores, threads, docs)
bash python/run-tests.sh

# Node: npm ci of node/'s pinned dev dependencies, the debug addon built in target/, node --test
bash node/run-tests.sh
