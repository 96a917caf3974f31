#!/usr/bin/env bash
# Build every release artefact for linux-x64 and check each one as a user would
# install it, then print their sizes and sha256 sums (RELEASING.md).
#
#   bash scripts/release-check.sh [OUT_DIR]          (default: dist/)
#
# Into OUT_DIR:
#   toolcap-VERSION-x86_64-unknown-linux-gnu.tar.gz   the stripped `toolcap` binary, README,
#                                                     CHANGELOG (+ .sha256)
#   toolcap-VERSION.tgz, toolcap-linux-x64-gnu-VERSION.tgz
#                                                     the npm main and platform packages
#   toolcap-VERSION-cp39-abi3-manylinux2014_x86_64.manylinux_2_17_x86_64.whl, toolcap-VERSION.tar.gz
#                                                     the wheel and sdist (python/build-wheel.sh)
#   toolcap-VERSION.crate                             the crate (`cargo publish --dry-run`)
#   SHA256SUMS
#
# The checks, each in a fresh place with no Rust on PATH and no network: the binary
# tarball unpacked and run; `npm install --offline` of both npm packages into a new
# project, then `npx toolcap --version` and `npx toolcap install claude-code --dry-run`;
# the wheel in a new venv (python/build-wheel.sh); the crate built from its tarball
# (`cargo publish --dry-run` verifies it; it needs the crates.io index).
#
# The tree must be committed (the version names the commit; cargo refuses a dirty tree
# unless RELEASE_ALLOW_DIRTY=1). Release builds: 30-40 minutes on 2 busy cores.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
out="${1:-$repo/dist}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
triple="x86_64-unknown-linux-gnu"
dirty=()
if [ "${RELEASE_ALLOW_DIRTY:-}" = "1" ]; then
  dirty=(--allow-dirty)
elif [ -n "$(git status --porcelain 2>/dev/null)" ]; then
  echo "release-check.sh: the tree has uncommitted changes (git status); commit them, or RELEASE_ALLOW_DIRTY=1 for a trial run" >&2
  exit 1
fi
step() { printf '\n== %s\n' "$*" >&2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# PATH for the checks: node, npm and the system, no cargo or rustc
nobin="$tmp/nobin"
mkdir -p "$nobin"
for t in node npm npx; do
  if command -v "$t" >/dev/null; then ln -s "$(command -v "$t")" "$nobin/$t"; fi
done
rustless="$nobin:/usr/local/bin:/usr/bin:/bin"
for d in /usr/local/bin /usr/bin /bin; do
  if [ -x "$d/cargo" ] || [ -x "$d/rustc" ]; then
    echo "release-check.sh: $d has cargo or rustc: the checks would not be without Rust" >&2
    exit 1
  fi
done

step "the toolcap binary (cargo build --release --locked)"
cargo build --release --locked --bin toolcap
target="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
name="toolcap-$version-$triple"
rm -rf "${tmp:?}/$name"
mkdir -p "$tmp/$name"
cp "$target/release/toolcap" "$tmp/$name/toolcap"
strip "$tmp/$name/toolcap"
cp README.md CHANGELOG.md "$tmp/$name/"
tar -C "$tmp" -czf "$out/$name.tar.gz" "$name"
(cd "$out" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
bin="$tmp/$name/toolcap"
# check: unpacked elsewhere, run
mkdir -p "$tmp/unpack"
tar -C "$tmp/unpack" -xzf "$out/$name.tar.gz"
(cd "$out" && sha256sum -c "$name.tar.gz.sha256" >/dev/null)
env -i HOME="$tmp" PATH="$rustless" "$tmp/unpack/$name/toolcap" --version
seq 1 20000 | env -i HOME="$tmp" PATH="$rustless" "$tmp/unpack/$name/toolcap" process --tool bash --arg command="seq 1 20000" - | tail -n 3

step "the npm packages (node/scripts/build.js --release, node/scripts/pack.js)"
(cd node && TOOLCAP_BIN="$bin" node scripts/build.js --release --force)
addon="$tmp/toolcap.linux-x64-gnu.node"
cp node/toolcap.linux-x64-gnu.node "$addon"
strip "$addon"
rm -f "$out"/toolcap-"$version".tgz "$out"/toolcap-linux-x64-gnu-"$version".tgz
mapfile -t npm_packs < <(node node/scripts/pack.js --out "$out" --addon "$addon" --binary "$bin")
# check: a fresh project, offline, no Rust
proj="$tmp/npm-project"
mkdir -p "$proj" "$tmp/npm-home"
echo '{"name": "fresh-project", "version": "1.0.0", "private": true}' >"$proj/package.json"
(
  cd "$proj"
  export HOME="$tmp/npm-home" PATH="$rustless" npm_config_cache="${npm_config_cache:-$HOME/.npm}" npm_config_update_notifier=false
  npm install --offline --no-audit --no-fund "${npm_packs[@]}"
  npx --offline toolcap --version
  npx --offline toolcap install claude-code --dry-run | tail -n 1
  node -e "const t = require('toolcap'); const o = new t.ToolResultProcessor().process('read_file', 'x\n'.repeat(9000)); if (!o.truncated) process.exit(1); console.log('require(\"toolcap\") works: cut', o.original.chars, 'chars')"
)

step "the wheel and sdist (python/build-wheel.sh: a new venv, no Rust)"
bash python/build-wheel.sh "$tmp/wheel"
rm -f "$out"/toolcap-"$version"-*.whl "$out/toolcap-$version.tar.gz"
mv "$tmp"/wheel/toolcap-"$version"* "$out/"

step "the crates (cargo publish --dry-run --workspace: packs every publishable member in dependency order and builds each from its tarball)"
cargo publish --dry-run --locked --workspace "${dirty[@]}"
cp "$target"/package/toolcap-*"$version".crate "$out/"
cargo package --list "${dirty[@]}" --offline >"$tmp/crate-files"
echo "the crate holds $(wc -l <"$tmp/crate-files") files"

step "artefacts"
cd "$out"
rm -f SHA256SUMS
files=()
for f in "$name.tar.gz" "${npm_packs[@]##*/}" toolcap-"$version"-*.whl "toolcap-$version.tar.gz" toolcap-*"$version".crate; do
  [ -f "$f" ] && files+=("$f")
done
sha256sum "${files[@]}" >SHA256SUMS
for f in "${files[@]}"; do
  printf '%10s  %s  %s\n' "$(stat -c %s "$f" | numfmt --grouping)" "$(sha256sum "$f" | cut -c1-64)" "$f"
done
echo "sums in $out/SHA256SUMS"
