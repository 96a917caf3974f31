'use strict';
// Budgets that follow the model: `process(..., { contextLeft })` and friends
// shrink the view as the window fills, and the report says why.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { cli, FIXTURES } = require('./helpers');
const toolcap = require('..');

const typingPath = path.join(FIXTURES, 'read_file', 'typing.py');
const typing = fs.readFileSync(typingPath, 'utf8');
const keptChars = (p) => p.kept.reduce((n, k) => n + k.chars, 0);

test('the kept size shrinks as the window fills', () => {
  const p = new toolcap.ToolResultProcessor();
  const rows = [];
  for (const used of [0, 150000, 190000, 194000, 197000, 199000, 200000]) {
    const out = p.process('read_file', typing, { path: 'typing.py' }, null, { contextLimit: 200000, contextUsed: used });
    assert.ok(out.truncated);
    assert.equal(out.budget.context_left, 200000 - used);
    rows.push([used, out.threshold, keptChars(out), out.budget_source]);
  }
  const kept = rows.map((r) => r[2]);
  assert.deepEqual(kept, [...kept].sort((a, b) => b - a), JSON.stringify(rows));
  assert.deepEqual(rows[0].slice(1, 2).concat(rows[0][3]), [3500, 'config']);
  assert.deepEqual([rows.at(-1)[1], rows.at(-1)[3]], [1500, 'context']);
  assert.ok(kept.at(-1) < kept[0]);
});

test('the same report as the CLI, sync and async', async () => {
  const fromCli = JSON.parse(
    cli(['process', '--tool', 'read_file', '--arg', 'path=typing.py', '--json', '--model', 'gpt-4o', '--context-used', '120000', typingPath]).stdout,
  );
  const p = new toolcap.ToolResultProcessor();
  const opts = { model: 'gpt-4o', contextUsed: 120000 };
  const out = p.process('read_file', typing, { path: 'typing.py' }, null, opts);
  assert.deepEqual(JSON.parse(JSON.stringify(out)), fromCli);
  assert.equal(out.budget_source, 'model');
  assert.equal(out.budget.model_window, 128000);
  const later = await p.processAsync('read_file', typing, { path: 'typing.py' }, null, opts);
  assert.deepEqual(JSON.parse(JSON.stringify(later)), fromCli);
});

test('no context: config, and no figures', () => {
  const out = new toolcap.ToolResultProcessor().process('read_file', typing, { path: 'typing.py' });
  assert.equal(out.budget_source, 'config');
  assert.equal(out.budget, undefined);
});

test('figures that say nothing are RangeErrors naming the option', () => {
  const p = new toolcap.ToolResultProcessor();
  assert.throws(() => p.process('read_file', typing, null, null, { contextUsed: 1000 }), (e) => e instanceof RangeError && /contextLimit/.test(e.message));
  assert.throws(() => p.process('read_file', typing, null, null, { model: 'my-own-llm' }), (e) => e instanceof RangeError && /\[budget\.models\]/.test(e.message));
  assert.throws(() => p.process('read_file', typing, null, null, { contextLeft: -1 }), RangeError);
  assert.throws(() => p.process('read_file', typing, null, null, { contextLeft: '5000' }), TypeError);
});
