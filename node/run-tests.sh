#!/usr/bin/env bash
# Build the toolcap Node package and run its `node --test` suite.
#
#   bash node/run-tests.sh [NODE --test ARGS...]
#
# On a fresh machine: installs Node.js and npm from Debian when missing, the pinned
# dev dependencies from the npm registry (`npm ci`: @napi-rs/cli, typescript, ai,
# langchain, @langchain/core, zod; package-lock.json pins them), builds the toolcap
# CLI the tests compare against (unless $TOOLCAP_BIN names one), builds the addon
# (node/scripts/build.js) and runs node/test/. Any failure fails the script; under
# CI=true a skipped or todo test fails it too.
#
# TOOLCAP_NODE_PROFILE=debug (default) builds the unoptimised addon into the root
# target/ directory (or $CARGO_TARGET_DIR), reusing what `cargo test --all-features`
# built there (fastest in CI); =release builds the optimised one (for node/bench/).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
profile="${TOOLCAP_NODE_PROFILE:-debug}"
case "$profile" in
  debug | release) ;;
  *)
    echo "TOOLCAP_NODE_PROFILE=$profile: use debug or release" >&2
    exit 2
    ;;
esac

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs npm
fi
major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$major" -lt 20 ]; then
  echo "node $(node --version): the Node package's tests need Node 20 or newer" >&2
  exit 1
fi

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"

# the CLI the parity tests run
if [ -z "${TOOLCAP_BIN:-}" ]; then
  (cd "$repo" && cargo build --all-features --bin toolcap)
  export TOOLCAP_BIN="$CARGO_TARGET_DIR/debug/toolcap"
fi

cd "$here"
# the dev dependencies, as package-lock.json pins them (the install script is the
# addon build, done below with the profile asked for)
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
# with PostgresStore (test/postgres.test.js starts a throwaway server: scripts/pg-cluster.sh)
TOOLCAP_NODE_FEATURES="${TOOLCAP_NODE_FEATURES-postgres}" node scripts/build.js --force "--$profile"

tests=(test/*.test.js test/*.test.mjs)
status=0
node --test --test-reporter=spec "$@" "${tests[@]}" | tee "$CARGO_TARGET_DIR/node-test.log" || status=$?
if [ "$status" -ne 0 ]; then
  exit "$status"
fi
if [ "${CI:-}" = "true" ] && grep -qE '^ℹ (skipped|todo) [1-9]' "$CARGO_TARGET_DIR/node-test.log"; then
  echo "CI=true: some tests were skipped; failing the run" >&2
  exit 1
fi
