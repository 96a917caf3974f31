'use strict';
// index.d.ts: its string unions are the Rust types' (scripts/gen-types.js --check),
// every report the package returns for the fixtures type-checks against its
// interfaces with `tsc --strict` (an undeclared key, a missing one or a value
// outside a union fails), a consumer file type-checks (and the misuses in it do
// not), and the declared values are exactly the module's exports.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { fixtureCases } = require('./helpers');
const toolcap = require('..');

const PKG = path.resolve(__dirname, '..');
const TSC = path.join(PKG, 'node_modules', 'typescript', 'bin', 'tsc');

function tsc(project) {
  assert.ok(fs.existsSync(TSC), 'typescript is not installed: run npm ci in node/ (node/run-tests.sh does)');
  return spawnSync(process.execPath, [TSC, '-p', project], { encoding: 'utf8' });
}

test('the unions in index.d.ts are the Rust types (scripts/gen-types.js --check)', () => {
  const r = spawnSync(process.execPath, [path.join(PKG, 'scripts', 'gen-types.js'), '--check'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test('every report the fixtures make type-checks against the declared interfaces', (t) => {
  const store = new toolcap.MemoryStore();
  const p = new toolcap.ToolResultProcessor({ store, save: 'all' });
  const reports = [];
  const outlines = [];
  const replies = [];
  fixtureCases().forEach((c, i) => {
    const data = fs.readFileSync(c.path);
    const out = p.process(c.tool, data, c.args, `call_${i}`);
    reports.push(out.toJSON());
    if (out.outline) outlines.push(out.outline);
    replies.push(p.getContinuation(`call_${i}`), p.searchToolOutput(`call_${i}`, 'e', { maxMatches: 2 }), p.fetchToolOutput(`call_${i}`, { limit: 50 }));
    replies.push(p.queryToolOutput(`call_${i}`, '.a'));
  });
  replies.push(p.getContinuation('missing'), p.getContinuation('call_0', { offset: 1e9 }));
  assert.ok(reports.some((r) => r.reason === 'cut') && reports.some((r) => r.collapsed) && reports.some((r) => r.json) && reports.some((r) => r.cleaning));
  const j = (v) => JSON.stringify(v, null, 1);
  const source = [
    '// written by test/types.test.js: what the package returned for the fixtures',
    "import type { AnthropicToolDefinition, LanguageInfo, OpenAIToolDefinition, Outline, ProcessedJson, StoredMeta, ToolReply } from '../../index.js';",
    `export const reports: ProcessedJson[] = ${j(reports)};`,
    `export const outlines: Outline[] = ${j(outlines)};`,
    `export const replies: ToolReply[] = ${j(replies)};`,
    `export const metas: StoredMeta[] = ${j(store.list())};`,
    `export const openai: OpenAIToolDefinition[] = ${j(toolcap.toolDefinitions('openai'))};`,
    `export const anthropic: AnthropicToolDefinition[] = ${j(toolcap.toolDefinitions('anthropic'))};`,
    `export const languages: LanguageInfo[] = ${j(toolcap.languages())};`,
    '',
  ].join('\n');
  const dir = path.join(__dirname, 'types');
  const file = path.join(dir, '.reports.gen.ts');
  const project = path.join(dir, '.reports.tsconfig.json');
  fs.writeFileSync(file, source);
  const base = JSON.parse(fs.readFileSync(path.join(dir, 'tsconfig.json'), 'utf8'));
  fs.writeFileSync(project, JSON.stringify({ ...base, files: [path.basename(file)] }));
  t.after(() => {
    fs.rmSync(file, { force: true });
    fs.rmSync(project, { force: true });
  });
  const r = tsc(project);
  assert.equal(r.status, 0, r.stdout.slice(0, 4000) + r.stderr);
});

test('tsc --strict accepts the consumer file', () => {
  const r = tsc(path.join(__dirname, 'types', 'tsconfig.json'));
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

test('the declared values are the exports', () => {
  const dts = fs.readFileSync(path.join(PKG, 'index.d.ts'), 'utf8');
  const declared = [...dts.matchAll(/^export declare (?:abstract )?(?:class|function|const) (\w+)/gm)].map((m) => m[1]).sort();
  const exported = Object.keys(toolcap).filter((k) => !k.startsWith('_')).sort();
  assert.deepEqual(declared, exported);
});
