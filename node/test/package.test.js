'use strict';
// What a user installs: the npm packages scripts/pack.js makes (the main package and
// this platform's package) installed into a fresh project with no Rust on PATH and no
// network (`npm install --offline FILES`), and the documented install from a
// checkout (`npm install --install-links ./node`). `npx toolcap` runs the platform
// package's binary with its exit code and signals passed through; `toolcap/ai` and
// `toolcap/langchain` import beside the project's own `ai` and `langchain`.
//
// The native files are stripped copies of the ones scripts/build.js built (the debug
// build's debug info would make 400 MB tarballs); what they do is the same.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { tmpDir } = require('./helpers');
const { platformName, exe } = require('../platform.js');

const PKG = path.resolve(__dirname, '..');
const NAME = platformName();
const VERSION = JSON.parse(fs.readFileSync(path.join(PKG, 'package.json'), 'utf8')).version;
const ADDON = path.join(PKG, `toolcap.${NAME}.node`);
const BINARY = path.join(PKG, 'bin', exe(`toolcap-${NAME}`));

/** PATH with node and npm but no cargo or rustc. */
function rustlessPath() {
  const dirs = [path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'];
  const npm = spawnSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).stdout.trim();
  if (npm) dirs.unshift(path.dirname(npm));
  const clean = [...new Set(dirs)].filter((d) => !fs.existsSync(path.join(d, 'cargo')) && !fs.existsSync(path.join(d, 'rustc')));
  return clean.join(path.delimiter);
}

function env(home) {
  return {
    HOME: home,
    PATH: rustlessPath(),
    // the user's npm cache, read only (`--offline`): nothing is fetched
    npm_config_cache: path.join(process.env.HOME || home, '.npm'),
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
  };
}

function run(cmd, args, opts) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...opts });
  if (r.error) throw r.error;
  return r;
}

function ok(r, what) {
  assert.equal(r.status, 0, `${what} exited ${r.status} (signal ${r.signal}):\n${r.stdout}\n${r.stderr}`);
  return r;
}

function stripped(from, dir) {
  const to = path.join(dir, path.basename(from));
  fs.copyFileSync(from, to);
  fs.chmodSync(to, 0o755);
  const s = run('strip', ['--strip-debug', to]);
  if (s.error || s.status !== 0) fs.copyFileSync(from, to); // no binutils: the unstripped copy
  return to;
}

function project(t, root) {
  const dir = path.join(root, 'project');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'fresh-project', version: '1.0.0', private: true }));
  return dir;
}

/** The launcher's children (Linux: /proc), to know when the binary runs. */
function children(pid) {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((tid) => fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean))
      .map(Number);
  } catch {
    return [];
  }
}

test('the packed packages install offline with no Rust on PATH, and npx toolcap runs the platform binary', async (t) => {
  assert.ok(fs.existsSync(ADDON) && fs.existsSync(BINARY), `build first: node scripts/build.js (${ADDON}, ${BINARY})`);
  const root = tmpDir(t);
  const natives = path.join(root, 'natives');
  fs.mkdirSync(natives);
  const packs = path.join(root, 'packs');
  const packed = ok(
    run(process.execPath, [path.join(PKG, 'scripts', 'pack.js'), '--out', packs, '--addon', stripped(ADDON, natives), '--binary', stripped(BINARY, natives)]),
    'scripts/pack.js',
  )
    .stdout.trim()
    .split('\n');
  assert.deepEqual(
    packed.map((p) => path.basename(p)),
    [`toolcap-${VERSION}.tgz`, `toolcap-${NAME}-${VERSION}.tgz`],
  );

  // the main package is JavaScript only and names every platform package
  const listing = ok(run('tar', ['-xzOf', packed[0], 'package/package.json']), 'tar').stdout;
  const main = JSON.parse(listing);
  assert.equal(main.bin.toolcap, 'bin/toolcap.js');
  assert.equal(main.scripts, undefined, 'the main package must not build anything on install');
  assert.equal(main.optionalDependencies[`toolcap-${NAME}`], VERSION);
  for (const p of ['linux-arm64-gnu', 'darwin-arm64', 'darwin-x64', 'win32-x64-msvc']) {
    assert.equal(main.optionalDependencies[`toolcap-${p}`], VERSION, p);
  }
  const files = ok(run('tar', ['-tzf', packed[0]]), 'tar').stdout.split('\n');
  assert.ok(!files.some((f) => f.endsWith('.node') || f.startsWith('package/src/')), files.join('\n'));

  const home = path.join(root, 'home');
  fs.mkdirSync(home);
  const dir = project(t, root);
  const e = env(home);
  ok(run('npm', ['install', '--offline', ...packed], { cwd: dir, env: e }), 'npm install --offline');
  assert.ok(fs.existsSync(path.join(dir, 'node_modules', `toolcap-${NAME}`, exe('toolcap'))));

  // the version names the commit, as the binary itself says
  const want = ok(run(BINARY, ['--version']), 'toolcap --version').stdout;
  assert.match(want, /^toolcap \d+\.\d+\.\d+/);
  assert.equal(ok(run('npx', ['--offline', 'toolcap', '--version'], { cwd: dir, env: e }), 'npx toolcap --version').stdout, want);

  // the hooks a user would install, written nowhere (--dry-run), calling the platform binary
  const dry = ok(run('npx', ['--offline', 'toolcap', 'install', 'claude-code', '--dry-run'], { cwd: dir, env: e }), 'npx toolcap install claude-code --dry-run');
  assert.match(dry.stdout, /would change; nothing written/);
  assert.ok(dry.stdout.includes(path.join(fs.realpathSync(dir), 'node_modules', `toolcap-${NAME}`, exe('toolcap'))), dry.stdout);
  assert.ok(!fs.existsSync(path.join(home, '.claude')), 'a dry run wrote files');

  // stdin and stdout pass through; an exit code passes through
  const launcher = path.join(dir, 'node_modules', '.bin', 'toolcap');
  const big = Array.from({ length: 3000 }, (_, i) => `line ${i + 1}\n`).join('');
  const processed = ok(run(launcher, ['process', '--tool', 'read_file', '--arg', 'path=big.txt', '-'], { cwd: dir, env: e, input: big }), 'toolcap process');
  assert.match(processed.stdout, /^line 1\n/);
  assert.match(processed.stdout, /lines omitted \(lines \d+-3000 of 3000\)/);
  const bad = run(launcher, ['no-such-command'], { cwd: dir, env: e });
  assert.equal(bad.status, 2, bad.stderr);
  assert.match(bad.stderr, /no-such-command/);

  // a signal sent to the launcher ends the binary, and the launcher ends by the same signal
  const child = spawn(launcher, ['process', '--tool', 'read_file', '-'], { cwd: dir, env: e, stdio: ['pipe', 'ignore', 'pipe'] });
  const ended = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  while (children(child.pid).length === 0 && child.exitCode === null) await new Promise((r) => setTimeout(r, 20));
  const [grandchild] = children(child.pid);
  assert.ok(grandchild, 'the launcher started no binary');
  child.kill('SIGTERM');
  assert.deepEqual(await ended, { code: null, signal: 'SIGTERM' });
  assert.ok(!fs.existsSync(`/proc/${grandchild}/status`) || /State:\s+Z/.test(fs.readFileSync(`/proc/${grandchild}/status`, 'utf8')), 'the binary outlived the launcher');

  // without the platform package (--omit=optional), both say which package to install
  const platDir = path.join(dir, 'node_modules', `toolcap-${NAME}`);
  fs.renameSync(platDir, `${platDir}.aside`);
  const noBin = run(launcher, ['--version'], { cwd: dir, env: e });
  const noLib = run(process.execPath, ['-e', "require('toolcap')"], { cwd: dir, env: e });
  fs.renameSync(`${platDir}.aside`, platDir);
  assert.equal(noBin.status, 1);
  assert.match(noBin.stderr, new RegExp(`no toolcap binary for ${NAME}: .*the platform package toolcap-${NAME}`));
  assert.notEqual(noLib.status, 0);
  assert.match(noLib.stderr, new RegExp(`no native addon for ${NAME}: .*the platform package toolcap-${NAME}`));

  // the library loads from the platform package
  const lib = ok(
    run(process.execPath, ['-e', "const t = require('toolcap'); const p = new t.ToolResultProcessor(); process.stdout.write(String(p.process('read_file', 'x\\n'.repeat(9000)).truncated))"], { cwd: dir, env: e }),
    'require toolcap',
  );
  assert.equal(lib.stdout, 'true');
});

test('the documented install from a checkout, npm install --install-links ./node, imports toolcap/ai and toolcap/langchain beside the project\'s own', async (t) => {
  assert.ok(fs.existsSync(ADDON) && fs.existsSync(BINARY), `build first: node scripts/build.js (${ADDON}, ${BINARY})`);
  const root = tmpDir(t);
  // node/ as a checkout has it once built (the package's files, with stripped native files)
  const checkout = path.join(root, 'checkout', 'node');
  const pkg = JSON.parse(fs.readFileSync(path.join(PKG, 'package.json'), 'utf8'));
  for (const f of ['package.json', ...pkg.files.filter((f) => !f.includes('*'))]) {
    if (fs.existsSync(path.join(PKG, f))) fs.cpSync(path.join(PKG, f), path.join(checkout, f), { recursive: true });
  }
  fs.mkdirSync(path.join(checkout, 'bin'), { recursive: true });
  stripped(ADDON, checkout);
  fs.renameSync(stripped(BINARY, root), path.join(checkout, 'bin', path.basename(BINARY)));

  const home = path.join(root, 'home');
  fs.mkdirSync(home);
  const dir = project(t, root);
  const e = env(home);
  ok(run('npm', ['install', '--offline', '--install-links', path.relative(dir, checkout)], { cwd: dir, env: e }), 'npm install --install-links ./node');
  assert.ok(!fs.lstatSync(path.join(dir, 'node_modules', 'toolcap')).isSymbolicLink(), 'installed as a link');
  // the project's own frameworks (from node/'s dev dependencies: no network)
  for (const dep of ['ai', 'langchain', '@langchain/core', 'zod']) {
    const to = path.join(dir, 'node_modules', dep);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.symlinkSync(path.join(PKG, 'node_modules', dep), to);
  }
  const script = `
    import { withToolcap } from 'toolcap/ai';
    import { toolcapMiddleware } from 'toolcap/langchain';
    import { ToolResultProcessor } from 'toolcap';
    process.stdout.write([typeof withToolcap, typeof toolcapMiddleware, typeof ToolResultProcessor].join(' '));
  `;
  const r = ok(run(process.execPath, ['--input-type=module', '-e', script], { cwd: dir, env: e }), 'import toolcap/ai, toolcap/langchain');
  assert.equal(r.stdout, 'function function function');
  assert.match(ok(run('npx', ['--offline', 'toolcap', '--version'], { cwd: dir, env: e }), 'npx toolcap --version').stdout, /^toolcap \d/);

  // without --install-links npm links the checkout: Node then looks for `ai` beside the
  // checkout, and the error says so and names the command that works
  const linkedDir = path.join(root, 'linked');
  fs.mkdirSync(linkedDir);
  fs.writeFileSync(path.join(linkedDir, 'package.json'), JSON.stringify({ name: 'linked-project', version: '1.0.0', private: true }));
  ok(run('npm', ['install', '--offline', path.relative(linkedDir, checkout)], { cwd: linkedDir, env: e }), 'npm install ./node');
  assert.ok(fs.lstatSync(path.join(linkedDir, 'node_modules', 'toolcap')).isSymbolicLink());
  fs.symlinkSync(path.join(PKG, 'node_modules', 'ai'), path.join(linkedDir, 'node_modules', 'ai'));
  const linked = run(process.execPath, ['--input-type=module', '-e', "import 'toolcap/ai';"], { cwd: linkedDir, env: e });
  assert.notEqual(linked.status, 0);
  assert.match(linked.stderr, /toolcap\/ai: cannot find 'ai' \(a peer dependency\): toolcap is loaded from .*installed as a link into a checkout/);
  assert.match(linked.stderr, /npm install --install-links \.\/node/);
  // the library itself works either way
  ok(run(process.execPath, ['-e', "require('toolcap')"], { cwd: linkedDir, env: e }), 'require toolcap (linked)');
});
