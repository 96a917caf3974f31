#!/usr/bin/env node
'use strict';
// Build the native addon from source: `cargo build` of this directory's crate, then
// the library copied to toolcap.<platform>.node next to index.js (where index.js
// loads it). Run by `npm install` (the package's install script) and `npm pack`.
//
//   node scripts/build.js [--if-missing] [--force] [--release | --debug]
//
// --if-missing: do nothing when the addon for this platform is already there (an
//   installed `npm pack` tarball carries it); the default for the install script.
// --debug: the unoptimised build (faster to compile; the tests use it).
// CARGO_TARGET_DIR is honoured (cargo's default: ./target); TOOLCAP_NODE_FEATURES
// adds cargo features (`postgres`).

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

function platformName() {
  const { platform, arch } = process;
  if (platform === 'linux') {
    const report = process.report.getReport();
    return `linux-${arch}-${report.header.glibcVersionRuntime ? 'gnu' : 'musl'}`;
  }
  if (platform === 'win32') return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

const dest = path.join(here, `toolcap.${platformName()}.node`);
if (args.has('--if-missing') && !args.has('--force') && fs.existsSync(dest)) {
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
// copy to a temporary name and rename: a process that has the old addon loaded
// keeps its mapping
const tmp = `${dest}.${process.pid}.tmp`;
fs.copyFileSync(from, tmp);
fs.renameSync(tmp, dest);
console.error(`toolcap: built ${path.relative(process.cwd(), dest) || dest} (${profile})`);
