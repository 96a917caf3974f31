'use strict';
// processStream (results that arrive in pieces: Readables, child process pipes,
// iterables) and queryToolOutput (a value of a stored JSON result).

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { Readable } = require('node:stream');
const { cli, fixtureCases, tmpDir } = require('./helpers');
const toolcap = require('..');

/** `buf` in pieces of `size` bytes (cutting through multi-byte characters). */
function pieces(buf, size) {
  const out = [];
  for (let i = 0; i < buf.length; i += size) out.push(buf.subarray(i, i + size));
  return out;
}

for (const c of fixtureCases()) {
  test(`processStream gives what process gives: ${c.id}`, async () => {
    const data = fs.readFileSync(c.path);
    const whole = new toolcap.ToolResultProcessor({ store: new toolcap.MemoryStore() }).process(c.tool, data, c.args, 'call_1');
    // 1,000-byte pieces from a Readable; 7-byte pieces from an array
    for (const source of [Readable.from(pieces(data, 1000)), pieces(data, 7)]) {
      const store = new toolcap.MemoryStore();
      const p = new toolcap.ToolResultProcessor({ store });
      const streamed = await p.processStream(c.tool, source, c.args, 'call_1');
      assert.ok(streamed instanceof toolcap.Processed);
      assert.deepEqual(streamed.toJSON(), whole.toJSON());
      if (whole.stored) assert.equal(store.get('call_1'), data.toString('utf8'));
    }
  });
}

test('a child process pipe: the output as the CLI reads it, stored as it is read', async (t) => {
  const db = path.join(tmpDir(t), 'r.db');
  const p = new toolcap.ToolResultProcessor({ store: new toolcap.SqliteStore(db) });
  const child = spawn('sh', ['-c', 'seq 1 300000; echo "error: the last line" >&1'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const out = await p.processStream('shell', child.stdout, { command: 'seq 1 300000' }, 'seq');
  let expected = '';
  for (let i = 1; i <= 300000; i++) expected += `${i}\n`;
  expected += 'error: the last line\n';
  assert.equal(out.truncated, true);
  assert.deepEqual(out.original, { chars: expected.length, bytes: expected.length, lines: 300001 });
  assert.match(out.text, /error: the last line/);
  // the CLI reads the same file: the exact lines
  const shown = cli(['continue', '--store', db, 'seq', '--start-line', '150000', '--end-line', '150002']).stdout;
  assert.ok(shown.startsWith('150000\n150001\n150002'), shown.slice(0, 100));
  assert.equal(JSON.parse(cli(['show', '--store', db, 'seq', '--meta']).stdout).size_chars, expected.length);
});

test('a 128 MiB stream is processed without holding it (memory stays bounded)', async () => {
  // a Readable that hands over 64 KiB of lines at a time, 2,048 times: 128 MiB in all
  const line = 'warning: unused variable `x` --> src/lib.rs:10:5 (a line of a long build log)\n';
  const block = Buffer.from(line.repeat(Math.floor(65536 / line.length)));
  const count = 2048;
  let made = 0;
  let peak = 0;
  const source = new Readable({
    read() {
      peak = Math.max(peak, process.memoryUsage().rss);
      this.push(made++ < count ? block : null);
    },
  });
  const before = process.memoryUsage().rss;
  const p = new toolcap.ToolResultProcessor();
  const out = await p.processStream('shell', source, { command: 'cargo build' });
  const total = block.length * count;
  assert.equal(out.original.bytes, total);
  assert.equal(out.original.lines, (block.length / line.length) * count);
  assert.notEqual(out.text.length, 0);
  const grew = (peak - before) / (1 << 20);
  // the queue holds 16 pieces (1 MiB); the processor its head, tail and counts
  assert.ok(grew < 96, `the process grew ${grew.toFixed(0)} MiB while streaming ${total >> 20} MiB`);
});

test('string pieces, surrogate pairs split between them, are joined back', async () => {
  const text = Array.from({ length: 3000 }, (_, i) => `${i}: 😀 ошибка\n`).join('');
  const parts = [];
  for (let i = 0; i < text.length; i += 5) parts.push(text.slice(i, i + 5)); // splits 😀 (two UTF-16 units)
  const store = new toolcap.MemoryStore();
  const p = new toolcap.ToolResultProcessor({ store });
  const out = await p.processStream('read_file', parts, { path: 'x.txt' }, 's');
  assert.equal(store.get('s'), text);
  assert.equal(out.original.chars, [...text].length);
  assert.deepEqual(out.toJSON(), new toolcap.ToolResultProcessor({ store: new toolcap.MemoryStore() }).process('read_file', text, { path: 'x.txt' }, 's').toJSON());
});

test('a stream that fails: its error is thrown and nothing is stored', async () => {
  const store = new toolcap.MemoryStore();
  const p = new toolcap.ToolResultProcessor({ store });
  async function* failing() {
    yield Buffer.from('x\n'.repeat(100000));
    throw new Error('the pipe broke');
  }
  await assert.rejects(p.processStream('shell', failing(), { command: 'x' }, 'broken'), { message: 'the pipe broke' });
  assert.equal(store.get('broken'), null);
  // the processor still works
  assert.equal((await p.processStream('shell', ['ok\n'], { command: 'x' }, 'fine')).text, 'ok\n');
});

test('processStream checks its arguments', async () => {
  const p = new toolcap.ToolResultProcessor();
  await assert.rejects(p.processStream('shell', 'a whole string'), (e) => e instanceof TypeError && /pass it to process\(\)/.test(e.message));
  await assert.rejects(p.processStream('shell', 42), (e) => e instanceof TypeError && /expected a Readable/.test(e.message));
  await assert.rejects(p.processStream('shell', [42]), (e) => e instanceof TypeError && /stream piece/.test(e.message));
  await assert.rejects(p.processStream('shell', [], null, 'bad id\n'), (e) => e instanceof toolcap.StoreError);
});

const DOC = JSON.stringify({ packages: Array.from({ length: 400 }, (_, i) => ({ name: `pkg-${i}`, version: `1.${i}.0`, deps: ['a', 'b'] })) }, null, 2);

test('queryToolOutput: the reply the model gets from query_tool_output', async () => {
  const store = new toolcap.MemoryStore();
  const p = new toolcap.ToolResultProcessor({ store });
  const out = p.process('read_file', DOC, { path: 'lock.json' }, 'doc');
  assert.equal(out.truncated, true);
  const r = p.queryToolOutput('doc', '.packages[123].version');
  assert.deepEqual(r, { text: '"1.123.0"\n', isError: false, nextOffset: null, error: null });
  assert.deepEqual(p.queryToolOutput('doc', '.packages[2]'), p.dispatch('query_tool_output', { tool_call_id: 'doc', path: '.packages[2]' }));
  assert.deepEqual(await p.queryToolOutputAsync('doc', '.packages[399].name'), { text: '"pkg-399"\n', isError: false, nextOffset: null, error: null });
  // from the store directly, with the same reply
  assert.deepEqual(store.queryToolOutput('doc', '.packages[123].version'), r);
  const missing = p.queryToolOutput('doc', '.nothing');
  assert.equal(missing.isError, true);
  assert.equal(missing.error, 'bad_argument');
  assert.match(missing.text, /nothing at \.nothing/);
  assert.equal(p.queryToolOutput('gone', '.a').error, 'not_stored');
  assert.throws(() => new toolcap.ToolResultProcessor().queryToolOutput('doc', '.a'), toolcap.ToolcapError);
  assert.throws(() => p.queryToolOutput('doc', 42), TypeError);
});

test('a long string through processAsync (handed over in pieces): stored exactly, unchanged text is the same string', async () => {
  // 4 pieces of 256 Ki UTF-16 units, and a part; pieces end inside multi-byte characters
  const text = Array.from({ length: 60000 }, (_, i) => `${i}: größe 😀 ошибка — 失败\n`).join('');
  const store = new toolcap.MemoryStore();
  const p = new toolcap.ToolResultProcessor({ store, config: { bypass: ['cat_tool'] } });
  const out = await p.processAsync('shell', text, { command: 'make' }, 'long');
  assert.equal(out.truncated, true);
  assert.equal(store.get('long'), text);
  assert.deepEqual(out.toJSON(), new toolcap.ToolResultProcessor({ store: new toolcap.MemoryStore() }).process('shell', text, { command: 'make' }, 'long').toJSON());
  // a bypassed result is the caller's own string, not a copy made from Rust
  const same = await p.processAsync('cat_tool', text);
  assert.equal(same.reason, 'bypass');
  assert.ok(Object.is(same.text, text));
  // a lone surrogate is not well-formed UTF-16: the text is the repaired one
  const broken = `${text}\ud800 end\n`;
  const fixed = await p.processAsync('cat_tool', broken);
  assert.equal(fixed.text, `${text}\ufffd end\n`);
});
