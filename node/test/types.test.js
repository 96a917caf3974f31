'use strict';
// index.d.ts: a consumer file type-checks with `tsc --strict` (and the misuses in
// it do not), and the declared values are exactly the module's exports.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const toolcap = require('..');

const PKG = path.resolve(__dirname, '..');

test('tsc --strict accepts the consumer file', () => {
  const tsc = path.join(PKG, 'node_modules', 'typescript', 'bin', 'tsc');
  assert.ok(fs.existsSync(tsc), 'typescript is not installed: run npm ci in node/ (node/run-tests.sh does)');
  const r = spawnSync(process.execPath, [tsc, '-p', path.join(__dirname, 'types', 'tsconfig.json')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test('the declared values are the exports', () => {
  const dts = fs.readFileSync(path.join(PKG, 'index.d.ts'), 'utf8');
  const declared = [...dts.matchAll(/^export declare (?:abstract )?(?:class|function|const) (\w+)/gm)].map((m) => m[1]).sort();
  const exported = Object.keys(toolcap).filter((k) => !k.startsWith('_')).sort();
  assert.deepEqual(declared, exported);
});
