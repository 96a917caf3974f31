#!/usr/bin/env bash
# Build the wheel and sdist a user installs without Rust, and check the wheel in a
# fresh venv with no Rust toolchain on PATH.
#
#   bash python/build-wheel.sh [OUT_DIR]      (default: python/dist)
#
# The wheel is abi3 (CPython 3.9 and newer) and manylinux2014 (glibc 2.17): maturin
# links it with zig (`maturin build --zig`), so the symbols it needs from glibc are
# those of 2.17 whatever the build machine's glibc is. It carries the `toolcap`
# command too. maturin and ziglang come from PyPI (requirements-wheel.txt) into the
# venv python/run-tests.sh uses ($TOOLCAP_PY_VENV).
#
# The check: `pip install` of the wheel (no index, no network) into a new venv whose
# PATH holds no cargo or rustc, then a processed result, the recovery tools and
# `toolcap --version` from it. A release build: about 10 minutes on 2 busy cores.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/dist}"
venv="${TOOLCAP_PY_VENV:-$HOME/.cache/toolcap-ci/py-venv}"
python="${PYTHON:-python3}"

if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install --disable-pip-version-check -q -r "$here/requirements-wheel.txt"

mkdir -p "$out"
out="$(cd "$out" && pwd)"
rm -f "$out"/toolcap-*.whl "$out"/toolcap-*.tar.gz
(
  cd "$here"
  PATH="$venv/bin:$PATH" "$venv/bin/maturin" build --release --zig --compatibility manylinux2014 -o "$out"
  PATH="$venv/bin:$PATH" "$venv/bin/maturin" sdist -o "$out"
)
wheel="$(ls "$out"/toolcap-*-cp39-abi3-manylinux*_x86_64*.whl 2>/dev/null | head -1 || true)"
if [ -z "$wheel" ]; then
  echo "build-wheel.sh: no abi3 manylinux wheel in $out:" >&2
  ls "$out" >&2
  exit 1
fi
echo "built $wheel"

# glibc symbol versions the extension needs (objdump is optional: binutils)
if command -v objdump >/dev/null; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  "$venv/bin/python" -m zipfile -e "$wheel" "$tmp/w"
  newest="$(objdump -T "$tmp"/w/toolcap/_toolcap*.so | grep -o 'GLIBC_[0-9.]*' | sort -V | tail -1)"
  echo "newest glibc symbol version the extension needs: $newest"
  case "$newest" in
    GLIBC_2.1[0-7] | GLIBC_2.[0-9] | GLIBC_2.[0-9].*) ;;
    *)
      echo "build-wheel.sh: $newest is newer than manylinux2014 allows (2.17)" >&2
      exit 1
      ;;
  esac
fi

# a fresh venv, no Rust on PATH, no network: the wheel alone
check="$(mktemp -d)"
trap 'rm -rf "$check" ${tmp:+"$tmp"}' EXIT
base="$("$python" -c 'import sys; print(sys.executable)')"
"$base" -m venv "$check/venv"
env -i HOME="$check" PATH="$check/venv/bin:/usr/bin:/bin" bash -c '
  set -euo pipefail
  if command -v cargo || command -v rustc; then echo "Rust is on PATH: not a check without Rust" >&2; exit 1; fi
  pip install --disable-pip-version-check -q --no-index "$1"
  python - <<PY
import toolcap
store = toolcap.MemoryStore()
p = toolcap.ToolResultProcessor(store=store)
text = "".join(f"line {i}\n" for i in range(1, 5001))
out = p.process("read_file", text, {"path": "big.txt"}, "call_1")
assert out.truncated and out.original["lines"] == 5000, out.original
r = p.get_continuation("call_1", start_line=4990, end_line=5000)
assert r.text.startswith("line 4990\nline 4991\n"), r.text[:80]
print("wheel works: toolcap", toolcap.__version__, "cut", out.original["chars"], "chars to", len(out.text))
PY
  toolcap --version
' _ "$wheel"
