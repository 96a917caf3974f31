#!/usr/bin/env bash
# The streamed shell path against a bare line count on the three 100 MB inputs
# (benches/stream.rs), on two commits: BEFORE and AFTER (any commit names;
# default b0c83f6 and HEAD). Each is checked out in a temporary worktree, given
# this checkout's benches/stream.rs (and its [[bench]] entry when it has none),
# and benchmarked with `cargo bench --bench stream` in one shared target
# directory (the dependencies build once). Prints each commit's divan table.
# Usage: bash benches/compare.sh [BEFORE [AFTER]]
set -euo pipefail
cd "$(dirname "$0")/.."
here=$PWD
target=${CARGO_TARGET_DIR:-$here/target}
for c in "${1:-b0c83f6}" "${2:-HEAD}"; do
  sha=$(git rev-parse --short "$c")
  wt=$(mktemp -d /tmp/toolcap-compare.XXXXXX)
  git worktree add -q --detach "$wt" "$sha"
  cp benches/stream.rs "$wt/benches/stream.rs"
  if ! grep -q '^name = "stream"' "$wt/Cargo.toml"; then
    printf '\n[[bench]]\nname = "stream"\nharness = false\n' >> "$wt/Cargo.toml"
  fi
  echo "== $c ($sha), load $(cut -d' ' -f1-3 /proc/loadavg)"
  (cd "$wt" && CARGO_TARGET_DIR=$target cargo bench -q --bench stream 2>/dev/null)
  git worktree remove --force "$wt"
done
