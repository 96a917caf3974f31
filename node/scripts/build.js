#!/usr/bin/env node
'use strict';
// Build the native files from source: `cargo build` of this directory's crate, the
// library copied to toolcap.<platform>.node next to index.js, and the `toolcap`
// binary (the root crate's) copied to bin/toolcap-<platform> (platform.js finds
// both there; bin/toolcap.js runs the binary). Run by `npm install` in a checkout
// (the package's install and prepare scripts) and `npm pack`.
//
//   node scripts/build.js [--if-missing] [--force] [--release | --debug]
//
// --if-missing: do nothing when both are already there (an installed `npm pack`
//   tarball carries them); the default for the install script.
// --debug: the unoptimised build (faster to compile; the tests use it).
// CARGO_TARGET_DIR is honoured (cargo's defaults: ./target, ../target);
// TOOLCAP_NODE_FEATURES adds cargo features (`postgres`) to the addon;
// TOOLCAP_BIN names a `toolcap` binary to copy instead of building one.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const here = path.resolve(__dirname, '..');
const args = new Set(process.argv.slice(2));
for (const a of args) {
  if (!['--if-missing', '--force', '--release', '--debug'].includes(a)) {
    console.error(`scripts/build.js: unknown argument ${a}; use --if-missing, --force, --release or --debug`);
    process.exit(2);
  }
}
const profile = args.has('--debug') ? 'debug' : 'release';

const { platformName, exe } = require('../platform.js');

const dest = path.join(here, `toolcap.${platformName()}.node`);
const destBin = path.join(here, 'bin', exe(`toolcap-${platformName()}`));
if (args.has('--if-missing') && !args.has('--force') && fs.existsSync(dest) && fs.existsSync(destBin)) {
  process.exit(0);
}
if (!fs.existsSync(path.join(here, '..', 'Cargo.toml')) || !fs.existsSync(path.join(here, '..', 'src', 'lib.rs'))) {
  console.error(
    `toolcap: no prebuilt addon for ${platformName()} in this package, and the toolcap Rust sources it builds from ` +
      `are not beside it (${path.join(here, '..')}). Install from a checkout of the repository (npm install ./node) ` +
      'or from a tarball that `npm pack` made on this platform.',
  );
  process.exit(1);
}

const cargo = process.env.CARGO || 'cargo';
const cargoArgs = ['build', '--manifest-path', path.join(here, 'Cargo.toml'), '--lib'];
if (profile === 'release') cargoArgs.push('--release');
if (process.env.TOOLCAP_NODE_FEATURES) cargoArgs.push('--features', process.env.TOOLCAP_NODE_FEATURES);
console.error(`toolcap: building the native addon (${cargo} ${cargoArgs.join(' ')}); the first build takes several minutes`);
const built = spawnSync(cargo, cargoArgs, { stdio: 'inherit', cwd: here });
if (built.error && built.error.code === 'ENOENT') {
  console.error('toolcap: building the native addon needs Rust 1.88 or newer (cargo was not found on PATH); install it from https://rustup.rs');
  process.exit(1);
}
if (built.status !== 0) {
  console.error(`toolcap: cargo build failed (exit ${built.status}); see its messages above`);
  process.exit(1);
}

// where cargo put it
const meta = spawnSync(cargo, ['metadata', '--format-version', '1', '--no-deps', '--manifest-path', path.join(here, 'Cargo.toml')], {
  cwd: here,
  encoding: 'utf8',
  maxBuffer: 64 << 20,
});
if (meta.status !== 0) {
  console.error(`toolcap: cargo metadata failed: ${meta.stderr}`);
  process.exit(1);
}
const targetDir = JSON.parse(meta.stdout).target_directory;
const lib = {
  linux: 'libtoolcap_node.so',
  darwin: 'libtoolcap_node.dylib',
  win32: 'toolcap_node.dll',
}[process.platform] || 'libtoolcap_node.so';
const from = path.join(targetDir, profile, lib);
if (!fs.existsSync(from)) {
  console.error(`toolcap: cargo reported success but ${from} is missing`);
  process.exit(1);
}
// copy to a temporary name and rename: a process that has the old file loaded (or
// running) keeps its mapping
function install(src, to, mode) {
  const tmp = `${to}.${process.pid}.tmp`;
  fs.copyFileSync(src, tmp);
  if (mode) fs.chmodSync(tmp, mode);
  fs.renameSync(tmp, to);
}
install(from, dest);
console.error(`toolcap: built ${path.relative(process.cwd(), dest) || dest} (${profile})`);

// the `toolcap` binary: the root crate's (default features), or $TOOLCAP_BIN
let binary = process.env.TOOLCAP_BIN;
if (!binary) {
  const binArgs = ['build', '--manifest-path', path.join(here, '..', 'Cargo.toml'), '--bin', 'toolcap', '--message-format=json-render-diagnostics'];
  if (profile === 'release') binArgs.push('--release');
  console.error(`toolcap: building the toolcap command (${cargo} ${binArgs.join(' ')})`);
  const b = spawnSync(cargo, binArgs, { stdio: ['inherit', 'pipe', 'inherit'], cwd: here, encoding: 'utf8', maxBuffer: 256 << 20 });
  if (b.status !== 0) {
    console.error(`toolcap: cargo build of the toolcap command failed (exit ${b.status}); see its messages above`);
    process.exit(1);
  }
  for (const line of b.stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const m = JSON.parse(line);
    if (m.reason === 'compiler-artifact' && m.executable && m.target && m.target.name === 'toolcap') binary = m.executable;
  }
  if (!binary) {
    console.error('toolcap: cargo built the toolcap command but did not say where it put it');
    process.exit(1);
  }
}
fs.mkdirSync(path.dirname(destBin), { recursive: true });
install(binary, destBin, 0o755);
console.error(`toolcap: copied ${binary} to ${path.relative(process.cwd(), destBin) || destBin}`);
