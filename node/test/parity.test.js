'use strict';
// Processed (fields, toJSON, JSON.stringify) against `toolcap process --json` on every fixture.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { cli, fixtureCases, tmpDir } = require('./helpers');
const toolcap = require('..');

const CASES = fixtureCases();

test('the fixture set is there', () => {
  // tests/fixtures.rs holds the same floor: a missing fixtures/ must not pass as "no cases"
  assert.ok(CASES.length >= 30, CASES.map((c) => c.id).join(' '));
});

for (const c of CASES) {
  test(`same JSON as the CLI: ${c.id}`, () => {
    const out = cli(['process', '--tool', c.tool, '--args-json', JSON.stringify(c.args), '--json', c.path]).stdout;
    const expected = JSON.parse(out);
    const processor = new toolcap.ToolResultProcessor();
    const data = fs.readFileSync(c.path);

    // a string in
    const p = processor.process(c.tool, data.toString('utf8'), c.args);
    assert.ok(p instanceof toolcap.Processed);
    assert.equal(JSON.stringify(p), out.replace(/\n$/, ''), 'JSON.stringify(processed) is the CLI output');
    assert.deepEqual(p.toJSON(), expected);
    assert.deepEqual(Object.keys(p), Object.keys(expected), 'same keys, same order');
    assert.equal(String(p), expected.text);
    for (const key of ['text', 'truncated', 'bypassed', 'reason', 'tool', 'family', 'threshold', 'unit', 'kept_budget', 'language']) {
      assert.equal(p[key], expected[key], key);
    }
    for (const key of ['original', 'kept', 'omitted', 'suggestions', 'outline']) {
      assert.deepEqual(p[key], expected[key], key);
    }

    // a Buffer, a Uint8Array and an ArrayBuffer in: the same report
    assert.equal(JSON.stringify(processor.process(c.tool, data, c.args)), JSON.stringify(p), 'Buffer');
    const u8 = new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
    assert.equal(JSON.stringify(processor.process(c.tool, u8, c.args)), JSON.stringify(p), 'Uint8Array');
    assert.equal(JSON.stringify(processor.process(c.tool, u8.buffer, JSON.stringify(c.args))), JSON.stringify(p), 'ArrayBuffer, args as JSON text');
  });
}

test('processAsync gives the same report as process, for strings and bytes', async () => {
  const processor = new toolcap.ToolResultProcessor();
  for (const c of CASES) {
    const data = fs.readFileSync(c.path);
    const want = JSON.stringify(processor.process(c.tool, data, c.args));
    assert.equal(JSON.stringify(await processor.processAsync(c.tool, data, c.args)), want, c.id);
    assert.equal(JSON.stringify(await processor.processAsync(c.tool, data.toString('utf8'), c.args)), want, c.id);
  }
});

test('a long string goes to processAsync in pieces and gives the same report', async () => {
  // multi-byte text across the piece boundaries (512 Ki UTF-16 units), surrogate pairs included
  const line = 'größe 😀 ошибка: значение 42 — 失败\n';
  const text = line.repeat(Math.ceil((3 << 20) / line.length));
  const processor = new toolcap.ToolResultProcessor();
  const args = { command: 'make' };
  const sync = processor.process('shell', text, args);
  const viaPieces = await processor.processAsync('shell', text, args);
  assert.equal(JSON.stringify(viaPieces), JSON.stringify(sync));
  assert.equal(sync.original.chars, [...text].length);
  assert.equal(sync.original.bytes, Buffer.byteLength(text));
});

test('the tool call id is echoed like the CLI', () => {
  const c = CASES.find((x) => x.tool === 'read_file');
  const out = cli(['process', '--tool', 'read_file', '--args-json', JSON.stringify(c.args), '--id', 'call_7', '--json', c.path]).stdout;
  const p = new toolcap.ToolResultProcessor().process('read_file', fs.readFileSync(c.path, 'utf8'), c.args, 'call_7');
  assert.equal(JSON.stringify(p), out.replace(/\n$/, ''));
  assert.equal(p.tool_call_id, 'call_7');
});

test('invalid UTF-8 bytes decode like the CLI', (t) => {
  const log = fs.readFileSync(CASES.find((x) => x.tool === 'shell').path);
  const data = Buffer.concat([log.subarray(0, 3000), Buffer.from([0xff, 0xfe, 0x20, 0x62, 0xc3, 0x0a]), log.subarray(3000), log, log]);
  const f = path.join(tmpDir(t), 'mixed.log');
  fs.writeFileSync(f, data);
  const args = { command: 'cargo test' };
  const out = cli(['process', '--tool', 'shell', '--args-json', JSON.stringify(args), '--json', f]).stdout;
  const p = new toolcap.ToolResultProcessor().process('shell', data, args);
  assert.equal(JSON.stringify(p), out.replace(/\n$/, ''));
  assert.equal(p.original.bytes, data.length); // the input's own bytes, as the CLI counts them
});

test('an unchanged string result is the very string passed in', () => {
  const processor = new toolcap.ToolResultProcessor();
  const small = "print('hi')\n";
  const p = processor.process('read_file', small, { path: 'a.py' });
  assert.equal(p.reason, 'under_threshold');
  assert.equal(p.text, small);
  // a lone surrogate cannot go through UTF-8: the text is the replaced one, as the CLI would see it
  const odd = 'a\ud800b\n';
  const q = processor.process('read_file', odd, { path: 'a.txt' });
  assert.equal(q.text, 'a\ufffdb\n');
  assert.equal(q.original.chars, 4);
});

test('lang: a code language or a text format, as the CLI --lang', () => {
  const readme = path.join(__dirname, '..', '..', 'README.md');
  const processor = new toolcap.ToolResultProcessor();
  for (const lang of ['markdown', 'python']) {
    const out = cli(['process', '--tool', 'read_file', '--arg', 'path=notes', '--lang', lang, '--json', readme]).stdout;
    const p = processor.process('read_file', fs.readFileSync(readme), { path: 'notes' }, null, { lang });
    assert.equal(JSON.stringify(p), out.replace(/\n$/, ''), lang);
  }
});

test('outline: the lines read best-effort around a syntax error, as the CLI gives them', () => {
  // pyenv's python-build (tests/outline_samples/syntax_errors): one function the grammar misreads
  const file = path.join(__dirname, '..', '..', 'tests', 'outline_samples', 'syntax_errors', 'python-build');
  const expected = JSON.parse(cli(['outline', '--lang', 'bash', '--budget-ms', '0', '--json', file]).stdout);
  delete expected.path;
  const o = toolcap.outline(fs.readFileSync(file, 'utf8'), { language: 'bash', budgetMs: 0 });
  assert.deepEqual(o, expected);
  assert.equal(o.syntax_errors, true);
  assert.deepEqual(o.best_effort, [{ start: 32, end: 36 }]);
  // without errors there is none, as in the CLI's JSON
  const clean = toolcap.outline('def f():\n    pass\n', { language: 'python' });
  assert.equal(clean.syntax_errors, false);
  assert.equal(clean.best_effort, undefined);
});
