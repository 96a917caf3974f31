#!/usr/bin/env bash
# Build the toolcap Python package into a venv and run its pytest suite.
#
#   bash python/run-tests.sh [PYTEST ARGS...]
#
# On a fresh machine: creates the venv ($TOOLCAP_PY_VENV, default
# ~/.cache/toolcap-ci/py-venv), installs the pinned test requirements from PyPI
# (requirements-test.txt: maturin, pytest, mypy for stubtest and --strict, and the
# frameworks the integrations are tested with), builds the extension into the venv
# (`maturin develop`) and a wheel from the same build ($TOOLCAP_TEST_WHEEL, for
# tests/test_wheel.py), builds the toolcap CLI the tests compare against (unless
# $TOOLCAP_BIN names one), and runs pytest. Any
# failure fails the script, "no tests collected" (pytest exit 5) included; under
# CI=true a skipped test fails the run too (see tests/conftest.py).
#
# The crate is a member of the root workspace: the root Cargo.lock pins its
# dependencies (pyo3 with the rest); not --locked, so that a dependency the root
# crate gains later is resolved, not an error.
#
# The extension is built with PostgresStore (the `postgres` feature); tests/test_postgres.py
# starts a throwaway server with scripts/pg-cluster.sh (PostgreSQL from Debian: scripts/test.sh
# installs it).
#
# TOOLCAP_PY_PROFILE=dev (default) builds the debug extension in $CARGO_TARGET_DIR
# (default: the root target/ directory), reusing what `cargo test --all-features`
# built there (fastest in CI);
# TOOLCAP_PY_PROFILE=release builds the optimised one (for python/bench.py).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$here")"
venv="${TOOLCAP_PY_VENV:-$HOME/.cache/toolcap-ci/py-venv}"
python="${PYTHON:-python3}"
profile="${TOOLCAP_PY_PROFILE:-dev}"

if ! "$python" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  # Debian's python3 keeps venv and ensurepip in a separate package
  apt-get update && apt-get install -y python3-venv
fi
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
# (a marker of the installed requirements: pip is not asked again when unchanged)
req="$here/requirements-test.txt"
stamp="$venv/.toolcap-requirements"
if ! cmp -s "$req" "$stamp" 2>/dev/null; then
  "$venv/bin/python" -m pip install --disable-pip-version-check -q -r "$req"
  cp "$req" "$stamp"
fi

target="${CARGO_TARGET_DIR:-$repo/target}"
# the CLI the parity tests run
if [ -z "${TOOLCAP_BIN:-}" ]; then
  (cd "$repo" && CARGO_TARGET_DIR="$target" cargo build --all-features --bin toolcap)
  export TOOLCAP_BIN="$target/debug/toolcap"
fi

# the extension, installed into the venv
case "$profile" in
  dev)
    export CARGO_TARGET_DIR="$target"
    release=()
    ;;
  release)
    release=(--release)
    ;;
  *)
    echo "TOOLCAP_PY_PROFILE=$profile: use dev or release" >&2
    exit 2
    ;;
esac
(
  cd "$here"
  VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" \
    "$venv/bin/maturin" develop "${release[@]}" --features postgres -q
)

# the wheel a user installs (tests/test_wheel.py installs it into fresh environments
# with no Rust on PATH): built from what `maturin develop` just compiled, stripped
wheels="$target/toolcap-test-wheel"
rm -rf "$wheels"
(
  cd "$here"
  VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" \
    "$venv/bin/maturin" build "${release[@]}" --features postgres --strip -q -o "$wheels"
)
TOOLCAP_TEST_WHEEL="$(ls "$wheels"/toolcap-*.whl)"
export TOOLCAP_TEST_WHEEL

cd "$here"
"$venv/bin/python" -m pytest -q -rfEs "$@"
