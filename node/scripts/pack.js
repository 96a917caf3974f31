#!/usr/bin/env node
'use strict';
// The npm packages of a release, the way napi-rs packages ship: a main package
// `toolcap` (JavaScript only: index.js, the integrations, the `toolcap` launcher)
// whose optionalDependencies name one package per platform, and the platform
// package `toolcap-<platform>` carrying the addon and the `toolcap` binary (npm
// installs only the one whose os/cpu/libc match the machine).
//
//   node scripts/pack.js [--out DIR] [--only main|platform]
//                        [--platform NAME --addon FILE --binary FILE]
//
// Writes DIR/toolcap-<version>.tgz and DIR/toolcap-<platform>-<version>.tgz
// (default DIR: ./dist) and prints their paths. The platform package is this
// machine's unless --platform names another (the release workflow builds each on
// its own runner: .github/workflows/release.yml); --addon and --binary default to
// what scripts/build.js put beside index.js (toolcap.<platform>.node,
// bin/toolcap-<platform>). The platforms are package.json's napi.targets.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { PACKAGE_PREFIX, platformName } = require('../platform.js');

const here = path.resolve(__dirname, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8'));

/** A Rust target triple as napi-rs names the platform, and npm's os/cpu/libc for it. */
function platformOf(triple) {
  const table = {
    'x86_64-unknown-linux-gnu': ['linux-x64-gnu', 'linux', 'x64', 'glibc'],
    'aarch64-unknown-linux-gnu': ['linux-arm64-gnu', 'linux', 'arm64', 'glibc'],
    'x86_64-unknown-linux-musl': ['linux-x64-musl', 'linux', 'x64', 'musl'],
    'aarch64-unknown-linux-musl': ['linux-arm64-musl', 'linux', 'arm64', 'musl'],
    'x86_64-apple-darwin': ['darwin-x64', 'darwin', 'x64', null],
    'aarch64-apple-darwin': ['darwin-arm64', 'darwin', 'arm64', null],
    'x86_64-pc-windows-msvc': ['win32-x64-msvc', 'win32', 'x64', null],
    'aarch64-pc-windows-msvc': ['win32-arm64-msvc', 'win32', 'arm64', null],
  };
  const t = table[triple];
  if (!t) throw new Error(`package.json napi.targets: ${triple} is not a target scripts/pack.js knows; add it to platformOf()`);
  return { name: t[0], os: t[1], cpu: t[2], libc: t[3] };
}

function parseArgs(argv) {
  const o = { out: path.join(here, 'dist'), only: null, platform: null, addon: null, binary: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const key = { '--out': 'out', '--only': 'only', '--platform': 'platform', '--addon': 'addon', '--binary': 'binary' }[a];
    if (!key || i + 1 >= argv.length) {
      console.error(`scripts/pack.js: ${key ? `${a} needs a value` : `unknown argument ${a}`}; use --out DIR, --only main|platform, --platform NAME, --addon FILE, --binary FILE`);
      process.exit(2);
    }
    o[key] = argv[++i];
  }
  if (o.only && !['main', 'platform'].includes(o.only)) {
    console.error(`scripts/pack.js: --only ${o.only}: use main or platform`);
    process.exit(2);
  }
  return o;
}

function copy(from, to) {
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.cpSync(from, to, { recursive: true });
}

/** `npm pack` of a staged directory into `out`; returns the tarball's path. */
function npmPack(dir, out) {
  const r = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', out], { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) {
    console.error(`scripts/pack.js: npm pack in ${dir} failed (exit ${r.status}):\n${r.stderr}`);
    process.exit(1);
  }
  return path.join(out, JSON.parse(r.stdout)[0].filename);
}

const COMMON = ['description', 'license', 'repository', 'homepage', 'keywords', 'author'];

function mainPackage(stage, platforms) {
  for (const f of ['README.md', 'index.js', 'index.d.ts', 'platform.js', 'bin/toolcap.js', 'integrations']) {
    copy(path.join(here, f), path.join(stage, f));
  }
  const m = {};
  for (const k of ['name', 'version', ...COMMON, 'main', 'types', 'bin', 'exports', 'engines']) {
    if (pkg[k] !== undefined) m[k] = pkg[k];
  }
  m.files = ['README.md', 'index.js', 'index.d.ts', 'platform.js', 'bin/toolcap.js', 'integrations/'];
  // no install script: the platform package carries the native files
  m.optionalDependencies = Object.fromEntries(platforms.map((p) => [`${PACKAGE_PREFIX}${p.name}`, pkg.version]));
  for (const k of ['peerDependencies', 'peerDependenciesMeta']) if (pkg[k]) m[k] = pkg[k];
  fs.writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(m, null, 2)}\n`);
}

function platformPackage(stage, p, addon, binary) {
  const exe = p.os === 'win32' ? 'toolcap.exe' : 'toolcap';
  const node = `toolcap.${p.name}.node`;
  for (const [what, f] of [['--addon', addon], ['--binary', binary]]) {
    if (!fs.existsSync(f)) {
      console.error(`scripts/pack.js: ${what} ${f} does not exist; build it first (node scripts/build.js --release) or pass ${what} FILE`);
      process.exit(1);
    }
  }
  copy(addon, path.join(stage, node));
  copy(binary, path.join(stage, exe));
  fs.chmodSync(path.join(stage, exe), 0o755);
  const m = { name: `${PACKAGE_PREFIX}${p.name}`, version: pkg.version };
  for (const k of COMMON) if (pkg[k] !== undefined) m[k] = pkg[k];
  m.description = `The ${p.name} binaries of toolcap (the Node addon and the toolcap command); installed by the toolcap package`;
  Object.assign(m, { main: node, files: [node, exe], os: [p.os], cpu: [p.cpu] });
  if (p.libc) m.libc = [p.libc];
  m.engines = pkg.engines;
  fs.writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(m, null, 2)}\n`);
  fs.writeFileSync(
    path.join(stage, 'README.md'),
    `# ${m.name}\n\nThe ${p.name} build of [toolcap](https://www.npmjs.com/package/toolcap): the Node.js addon (\`${node}\`) and the \`${exe}\` command. ` +
      'Install `toolcap`, not this package: npm picks the platform package that fits the machine.\n',
  );
}

function main() {
  const o = parseArgs(process.argv.slice(2));
  const platforms = ((pkg.napi && pkg.napi.targets) || []).map(platformOf);
  const name = o.platform || platformName();
  const p = platforms.find((x) => x.name === name);
  if (!p && o.only !== 'main') {
    console.error(`scripts/pack.js: platform ${name} is not in package.json napi.targets (${platforms.map((x) => x.name).join(', ')})`);
    process.exit(1);
  }
  fs.mkdirSync(o.out, { recursive: true });
  const out = fs.realpathSync(o.out);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcap-pack-'));
  try {
    if (o.only !== 'platform') {
      const stage = path.join(tmp, 'main');
      mainPackage(stage, platforms);
      console.log(npmPack(stage, out));
    }
    if (o.only !== 'main') {
      const stage = path.join(tmp, 'platform');
      platformPackage(stage, p, o.addon || path.join(here, `toolcap.${p.name}.node`), o.binary || path.join(here, 'bin', `toolcap-${p.name}${p.os === 'win32' ? '.exe' : ''}`));
      console.log(npmPack(stage, out));
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main();
