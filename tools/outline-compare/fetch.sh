#!/usr/bin/env bash
# Fetch the real-code corpora the outline comparison runs on, into a cache
# directory outside the repository (default ~/.cache/toolcap-outline-corpus,
# or $TOOLCAP_CORPUS). Only the package registries' ordinary clients are used
# (npm, apt-get download / apt-get source, cargo fetch); nothing is
# committed. Idempotent: a package already unpacked is skipped. Licenses:
# see docs/outlines.md (the accuracy table).
set -euo pipefail
CORPUS=${TOOLCAP_CORPUS:-$HOME/.cache/toolcap-outline-corpus}
mkdir -p "$CORPUS/npm" "$CORPUS/deb"

# npm packages (name@version): JS with module wrappers / UMD, TS, TSX,
# Kotlin/Swift/C# sources shipped inside npm packages.
NPM=(
  underscore@1.13.7 jquery@3.7.1 backbone@1.6.0 moment@2.30.1 async@2.6.4
  lodash@4.17.21 rxjs@7.8.1 @tanstack/react-query@5.59.0 react-select@5.8.0
  @radix-ui/react-slot@1.1.0 expo-modules-core@1.12.26 edge-js@22.1.0
  zod@3.23.8 com.neuecc.unirx@7.1.0 com.github.asus4.onnxruntime@0.4.9
  react-native-screens@4.28.0 expo-image@58.0.4 @tanstack/react-router@1.170.46
)
for spec in "${NPM[@]}"; do
  dir="$CORPUS/npm/$(echo "$spec" | tr '/@' '__')"
  [ -d "$dir" ] && continue
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "$spec" >/dev/null 2>&1) || { echo "npm: $spec failed" >&2; rm -rf "$tmp"; continue; }
  mkdir -p "$dir" && tar -xzf "$tmp"/*.tgz -C "$dir" && rm -rf "$tmp"
  echo "npm: $spec -> $dir"
done

# Debian packages shipping headers or sources (apt-get download + dpkg -x:
# no installation needed).
DEB=(
  libuv1-dev libleveldb-dev libfmt-dev pybind11-dev libstdc++-12-dev
  lua-penlight php-twig golang-github-spf13-cobra-dev bash-completion
  libglib2.0-dev ruby-rack lua-argparse lua-busted neofetch pass
  zlib1g-dev libsqlite3-dev libgtest-dev golang-github-sirupsen-logrus-dev
  golang-github-pkg-errors-dev php-symfony-console php-monolog ruby-thor rake
)
for pkg in "${DEB[@]}"; do
  dir="$CORPUS/deb/$pkg"
  [ -d "$dir" ] && continue
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download "$pkg" >/dev/null 2>&1) || { echo "deb: $pkg failed (apt-get update first?)" >&2; rm -rf "$tmp"; continue; }
  mkdir -p "$dir" && dpkg -x "$tmp"/*.deb "$dir" && rm -rf "$tmp"
  echo "deb: $pkg -> $dir"
done
echo "corpus in $CORPUS"

# Rust and C sources of crates this repository builds with (cargo's own
# client: `cargo fetch` from the repository's Cargo.lock), linked by name.
if command -v cargo >/dev/null; then
  (cd "$(dirname "$0")/../.." && cargo fetch --quiet) || echo "cargo fetch failed" >&2
  mkdir -p "$CORPUS/cargo"
  for crate in serde-1.0.228 regex-syntax-0.8.11 clap_builder-4.6.7 anyhow-1.0.104 tree-sitter-0.27.1; do
    src=$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/"$crate" 2>/dev/null | head -1)
    [ -n "$src" ] && ln -sfn "$src" "$CORPUS/cargo/$crate"
  done
fi

# The reference parser for Rust (rust_ref: syn, built offline from the
# crates cargo fetched; its Cargo.lock pins them).
if command -v cargo >/dev/null && [ ! -x "$CORPUS/rust_ref_target/release/rust_ref" ]; then
  (cd "$(dirname "$0")/rust_ref" && cargo build --quiet --release --target-dir "$CORPUS/rust_ref_target") \
    && echo "rust_ref -> $CORPUS/rust_ref_target/release/rust_ref" || echo "rust_ref build failed" >&2
fi

# Debian source packages (apt-get source --download-only: needs a deb-src
# line for bookworm, e.g. /etc/apt/sources.list.d/src.sources with
# "Types: deb-src", the URIs/Suites/Components/Signed-By of the deb entry,
# then apt-get update). Only the upstream tarball is unpacked.
DEBSRC=(scala)
for pkg in "${DEBSRC[@]}"; do
  dir="$CORPUS/debsrc/$pkg"
  [ -d "$dir" ] && continue
  tmp=$(mktemp -d)
  if (cd "$tmp" && apt-get source --download-only "$pkg" >/dev/null 2>&1) && ls "$tmp"/*.orig.tar.* >/dev/null 2>&1; then
    mkdir -p "$dir" && tar -xf "$tmp"/*.orig.tar.* -C "$dir" && echo "debsrc: $pkg -> $dir"
  else
    echo "debsrc: $pkg failed (deb-src line and apt-get update first?)" >&2
  fi
  rm -rf "$tmp"
done

# The reference parser for Scala (scala_ref/ScalaRef.scala: scalac 2.11's
# own parser), compiled with Debian's scalac (apt-get install scala).
if command -v scalac >/dev/null && [ ! -f "$CORPUS/scala_ref/ScalaRef.class" ]; then
  mkdir -p "$CORPUS/scala_ref" && scalac -d "$CORPUS/scala_ref" \
    -cp /usr/share/scala-2.11/lib/scala-compiler.jar:/usr/share/scala-2.11/lib/scala-reflect.jar \
    "$(dirname "$0")/scala_ref/ScalaRef.scala" && echo "scala_ref -> $CORPUS/scala_ref" || echo "scala_ref build failed" >&2
fi

# The JDK's own sources, when a JDK with src.zip is installed (not fetched).
for zip in /usr/lib/jvm/*/lib/src.zip; do
  [ -f "$zip" ] || continue
  [ -d "$CORPUS/jdk" ] && break
  mkdir -p "$CORPUS/jdk" && unzip -q -o "$zip" 'java.base/java/util/*' -d "$CORPUS/jdk" && echo "jdk: $zip"
  break
done

# The reference parser for JavaScript, TypeScript and TSX (ts_outline.js):
# the TypeScript compiler (Apache-2.0).
if [ ! -d "$CORPUS/tsref/node_modules/typescript" ]; then
  mkdir -p "$CORPUS/tsref" && (cd "$CORPUS/tsref" && npm install --silent --no-save typescript@5.6.3 >/dev/null) && echo "npm: typescript@5.6.3 -> $CORPUS/tsref"
fi
