'use strict';
// Shared by the tests: the repository, the toolcap CLI the tests compare against,
// a clean environment, the fixtures.

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const REPO = path.resolve(__dirname, '..', '..');
const FIXTURES = path.join(REPO, 'fixtures');
// what the CLI and the library read from the environment
const ENV_KEYS = ['TOOLCAP_CONFIG', 'TOOL_RESULT_BYPASS_TOOLS', 'TOOLCAP_STORE', 'TOOLCAP_DIALOG'];
for (const k of ENV_KEYS) delete process.env[k];

function cliPath() {
  const env = process.env.TOOLCAP_BIN;
  if (env) {
    if (!fs.existsSync(env)) throw new Error(`TOOLCAP_BIN=${env}: no such file; build it with \`cargo build --all-features\``);
    return env;
  }
  const target = process.env.CARGO_TARGET_DIR || path.join(REPO, 'target');
  for (const profile of ['debug', 'release']) {
    const p = path.join(target, profile, 'toolcap');
    if (fs.existsSync(p)) return p;
  }
  throw new Error('no toolcap CLI to compare against: set TOOLCAP_BIN, or run `cargo build --all-features --bin toolcap` (node/run-tests.sh does both)');
}

/** Run the CLI with a clean environment; throws on a non-zero exit unless `check` is false. */
function cli(args, { input, check = true } = {}) {
  const env = { ...process.env };
  for (const k of ENV_KEYS) delete env[k];
  const p = spawnSync(cliPath(), args, { input, env, maxBuffer: 1 << 30 });
  if (p.error) throw p.error;
  if (check && p.status !== 0) {
    throw new Error(`toolcap ${args.join(' ')} exited ${p.status}: ${p.stderr.toString()}`);
  }
  return { status: p.status, stdout: p.stdout.toString('utf8'), stderr: p.stderr.toString('utf8'), raw: p.stdout };
}

/** Every fixtures/<family>/X with its X.call.json (as tests/fixtures.rs reads them). */
function fixtureCases() {
  const cases = [];
  for (const family of fs.readdirSync(FIXTURES).sort()) {
    const dir = path.join(FIXTURES, family);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const f of fs.readdirSync(dir).sort()) {
      if (!f.endsWith('.call.json')) continue;
      const data = path.join(dir, f.slice(0, -'.call.json'.length));
      const call = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
      cases.push({ id: `${family}/${path.basename(data)}`, path: data, tool: call.tool, args: call.args });
    }
  }
  return cases;
}

function tmpDir(t) {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'toolcap-node-'));
  if (t) t.after(() => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}

let pg;

/**
 * The URL of a throwaway PostgreSQL server for this test process
 * (scripts/pg-cluster.sh; stopped when the process exits), or a string saying why
 * there is none, for `t.skip` (PostgreSQL not installed, or an addon built without
 * it). Under CI=true there is always one: a missing one throws.
 */
function postgres() {
  if (pg === undefined) pg = startPostgres();
  if (!pg.url && process.env.CI === 'true') throw new Error(`the PostgreSQL tests cannot run under CI: ${pg.why}`);
  return pg;
}

function startPostgres() {
  const toolcap = require('..');
  if (!toolcap.hasPostgres) {
    return { why: 'the addon was built without PostgresStore (TOOLCAP_NODE_FEATURES=postgres node scripts/build.js; node/run-tests.sh does)' };
  }
  const r = spawnSync('bash', [path.join(REPO, 'scripts', 'pg-cluster.sh'), String(process.pid)], { encoding: 'utf8' });
  if (r.status === 0) return { url: r.stdout.trim() };
  if (r.status === 3) return { why: r.stderr.trim() };
  throw new Error(`scripts/pg-cluster.sh failed (exit ${r.status}): ${r.stderr}`);
}

module.exports = { REPO, FIXTURES, ENV_KEYS, cli, cliPath, fixtureCases, postgres, tmpDir };
