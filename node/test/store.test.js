'use strict';
// The stores and the recovery tools: paging back byte for byte, lines, search,
// fetch, message histories, the async forms, and a SQLite file shared with the CLI.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { REPO, cli, tmpDir } = require('./helpers');
const toolcap = require('..');

const TYPING = fs.readFileSync(path.join(REPO, 'fixtures', 'read_file', 'typing.py'), 'utf8');
// multi-byte text: 2-, 3- and 4-byte characters on every line
const MULTI = Array.from({ length: 4000 }, (_, i) => `${i + 1}: größe ошибка 失败 😀 ${'é'.repeat(i % 7)}\n`).join('');

/** Read a stored result back through get_continuation, chunk by chunk, from `offset`. */
function pageAll(p, id, offset) {
  const parts = [];
  let next = offset;
  for (;;) {
    const r = p.getContinuation(id, { offset: next });
    assert.equal(r.isError, false, r.text);
    const marker = r.text.lastIndexOf('\n\n[truncated — showing ');
    if (r.nextOffset === null) {
      parts.push(r.text);
      return parts.join('');
    }
    assert.ok(marker > 0, r.text.slice(-200));
    parts.push(r.text.slice(0, marker));
    next = r.nextOffset;
  }
}

for (const [name, text] of [['ASCII', TYPING], ['multi-byte', MULTI]]) {
  for (const kind of ['memory', 'sqlite']) {
    test(`${name} text pages back exactly from a ${kind} store`, (t) => {
      const store = kind === 'memory' ? new toolcap.MemoryStore() : new toolcap.SqliteStore(path.join(tmpDir(t), 'r.db'));
      const p = new toolcap.ToolResultProcessor({ store });
      const out = p.process('read_file', text, { path: 'big.txt' }, 'call_1');
      assert.equal(out.truncated, true);
      assert.deepEqual(out.stored, { tool_call_id: 'call_1', dialog_id: 'default', storage_type: kind, offset: out.stored.offset });
      const chars = [...text];
      assert.equal(out.original.chars, chars.length);
      // the model's view ended at stored.offset characters; reading on from there gives the rest, exactly
      const rest = pageAll(p, 'call_1', out.stored.offset);
      assert.equal(rest, chars.slice(out.stored.offset).join(''));
      assert.equal(pageAll(p, 'call_1', 0), text);
      assert.equal(store.get('call_1'), text);
      const meta = store.meta('call_1');
      assert.equal(meta.size_chars, chars.length);
      assert.equal(meta.size_bytes, Buffer.byteLength(text));
      assert.equal(meta.size_lines, text.split('\n').length - 1);
      assert.equal(meta.truncated, true);
      assert.equal(meta.tool_name, 'read_file');
    });
  }
}

test('lines, search and fetch read the stored result exactly', () => {
  const store = new toolcap.MemoryStore();
  const p = new toolcap.ToolResultProcessor({ store });
  p.process('read_file', MULTI, { path: 'multi.txt' }, 'm');
  const lines = MULTI.split('\n');
  const r = p.getContinuation('m', { startLine: 101, endLine: 110 });
  assert.equal(r.isError, false);
  assert.ok(r.text.startsWith(lines.slice(100, 110).join('\n')), r.text.slice(0, 300));
  const s = p.searchToolOutput('m', '^3999: ', { context: 0 });
  assert.match(s.text, /3999: größe ошибка 失败 😀/);
  // from the end: the last match, and where the earlier ones are
  const last = p.searchToolOutput('m', '😀', { context: 0, maxMatches: 1, fromEnd: true });
  const want = lines.map((l, i) => [l, i + 1]).filter(([l]) => l.includes('😀')).map(([, n]) => n);
  assert.ok(want.length > 1);
  assert.match(last.text, new RegExp(`showing the last 1 \\(line ${want[want.length - 1]}\\):\n${want[want.length - 1]}: `));
  assert.ok(last.text.endsWith(`[${(want.length - 1).toLocaleString("en-US")} earlier matching lines. Call search_tool_output with tool_call_id="m" pattern="😀" from_end=true skip=1 to see them]\n`), last.text);
  const f = JSON.parse(p.fetchToolOutput('m', { offset: 10, limit: 50 }).text);
  assert.equal(f.tool_output, [...MULTI].slice(10, 60).join(''));
  assert.equal(f.total_chars, [...MULTI].length);
  assert.equal(p.getToolResult('m').text, MULTI);
});

test('recovery replies the model can read: unknown ids, past the end, bad arguments', () => {
  const store = new toolcap.MemoryStore();
  const p = new toolcap.ToolResultProcessor({ store });
  p.process('read_file', TYPING, { path: 'typing.py' }, 'call_1');
  const missing = p.getContinuation('nope');
  assert.equal(missing.isError, true);
  assert.equal(missing.error, 'not_stored');
  assert.ok(JSON.parse(missing.text).error.includes('nope'));
  const past = p.getContinuation('call_1', { offset: TYPING.length + 10 });
  assert.equal(past.error, 'past_end');
  const bad = p.dispatch('search_tool_output', { tool_call_id: 'call_1', pattern: '(' });
  assert.equal(bad.isError, true);
  assert.equal(bad.error, 'bad_argument');
  // checked before the store is asked: thrown
  assert.throws(() => p.getContinuation('call_1', { offset: 1, startLine: 2 }), TypeError);
  assert.throws(() => p.getContinuation('call_1', { startLine: 0 }), RangeError);
  assert.throws(() => p.searchToolOutput('call_1', 'x', { context: 6 }), /context = 6: pass 0 to 5 lines/);
  assert.throws(() => p.fetchToolOutput('call_1', { limit: 0 }), RangeError);
  assert.throws(() => p.getContinuation('call_1', { offset: -1 }), RangeError);
  assert.throws(() => p.getContinuation('call_1', { offset: 1.5 }), /offset = 1.5: pass a whole number/);
});

test('dispatch serves the recovery tools, with arguments as an object or JSON text', () => {
  const store = new toolcap.MemoryStore();
  const p = new toolcap.ToolResultProcessor({ store, dialog: 'thread-42' });
  const out = p.process('read_file', TYPING, { path: 'typing.py' }, 'call_9');
  assert.equal(out.stored.dialog_id, 'thread-42');
  assert.equal(p.dispatch('read_file', { path: 'x' }), null, 'not a recovery tool');
  const a = p.dispatch('get_continuation', { tool_call_id: 'call_9' });
  const b = p.dispatch('get_continuation', '{"tool_call_id": "call_9"}');
  assert.deepEqual(a, b);
  assert.equal(a.text.slice(0, 200), [...TYPING].slice(out.stored.offset, out.stored.offset + 200).join(''));
  assert.equal(a.nextOffset, out.stored.offset + p.maxKeptChars);
  // the default dialog does not see thread-42's results
  assert.equal(store.dispatch('get_continuation', { tool_call_id: 'call_9' }).error, 'not_stored');
  assert.equal(store.dispatch('get_continuation', { tool_call_id: 'call_9' }, { dialog: 'thread-42' }).isError, false);
  const defs = p.toolDefinitions('openai');
  const names = defs.map((d) => d.function.name);
  for (const n of ['get_continuation', 'fetch_tool_output', 'get_tool_result']) assert.ok(names.includes(n), names.join(','));
  assert.ok(toolcap.toolDefinitions('anthropic').every((d) => typeof d.name === 'string' && d.input_schema));
  assert.throws(() => toolcap.toolDefinitions('gemini'), /format "gemini": unknown tool format; use "openai" or "anthropic"/);
});

test('the async forms give what the sync ones give', async (t) => {
  const store = new toolcap.SqliteStore(path.join(tmpDir(t), 'a.db'));
  const p = new toolcap.ToolResultProcessor({ store });
  const out = await p.processAsync('read_file', Buffer.from(MULTI), { path: 'multi.txt' }, 'call_a');
  assert.equal(out.truncated, true);
  assert.deepEqual(await p.getContinuationAsync('call_a'), p.getContinuation('call_a'));
  assert.deepEqual(await p.getContinuationAsync('call_a', { startLine: 5, endLine: 9 }), p.getContinuation('call_a', { startLine: 5, endLine: 9 }));
  assert.deepEqual(await p.searchToolOutputAsync('call_a', '😀', { maxMatches: 3 }), p.searchToolOutput('call_a', '😀', { maxMatches: 3 }));
  assert.deepEqual(await p.searchToolOutputAsync('call_a', '😀', { maxMatches: 2, fromEnd: true }), p.searchToolOutput('call_a', '😀', { maxMatches: 2, fromEnd: true }));
  assert.notDeepEqual(p.searchToolOutput('call_a', '😀', { maxMatches: 2, fromEnd: true }), p.searchToolOutput('call_a', '😀', { maxMatches: 2 }));
  assert.deepEqual(await p.fetchToolOutputAsync('call_a', { offset: 5, limit: 9 }), p.fetchToolOutput('call_a', { offset: 5, limit: 9 }));
  assert.deepEqual(await p.getToolResultAsync('call_a'), p.getToolResult('call_a'));
  assert.deepEqual(await p.dispatchAsync('get_tool_result', { tool_call_id: 'call_a' }), p.dispatch('get_tool_result', { tool_call_id: 'call_a' }));
  assert.equal(await store.getAsync('call_a'), MULTI);
  assert.equal(await store.getAsync('missing'), null);
  await assert.rejects(p.getContinuationAsync('call_a', { startLine: 0 }), RangeError);
  await assert.rejects(p.processAsync('read_file', 'x', {}, 'bad\nid'), toolcap.StoreError);
});

test('a SQLite file shared with the CLI, both ways', (t) => {
  const db = path.join(tmpDir(t), 'shared.db');
  // Node writes, the CLI reads
  const store = new toolcap.SqliteStore(db);
  assert.equal(store.path, db);
  const p = new toolcap.ToolResultProcessor({ store });
  const out = p.process('read_file', MULTI, { path: 'multi.txt' }, 'from_node');
  assert.equal(cli(['show', 'from_node', '--store', db]).raw.toString('utf8'), MULTI);
  // `toolcap continue` prints the reply and a newline; its read-on line names the
  // command to run next instead of the get_continuation tool call
  const fromCli = cli(['continue', 'from_node', '--store', db]).stdout;
  const fromLib = p.getContinuation('from_node').text;
  const body = (t) => t.slice(0, t.lastIndexOf('\n[truncated'));
  assert.equal(body(fromCli), body(fromLib));
  assert.match(fromLib, /Call get_continuation with tool_call_id="from_node" offset=(\d+) to read more\]$/);
  const offset = /offset=(\d+) to read more\]$/.exec(fromLib)[1];
  assert.ok(fromCli.endsWith(`continue from_node --store ${db} --offset ${offset}\` to read more]\n`), fromCli.slice(-200));
  assert.ok(out.text.includes('from_node'));
  // the CLI writes, Node reads
  const log = path.join(REPO, 'fixtures', 'shell', 'cargo_test_failure.log');
  cli(['process', '--tool', 'shell', '--arg', 'command=cargo test', '--id', 'from_cli', '--store', db, log]);
  assert.equal(store.get('from_cli'), fs.readFileSync(log, 'utf8'));
  assert.equal(store.meta('from_cli').tool_name, 'shell');
  assert.deepEqual(store.meta('from_cli').tool_args, { command: 'cargo test' });
  const again = new toolcap.SqliteStore(db);
  assert.deepEqual(again.list().map((m) => m.tool_call_id).sort(), ['from_cli', 'from_node']);
});

test('put, get, list, delete and prune', async () => {
  const store = new toolcap.MemoryStore();
  store.put('c1', 'bash', Buffer.from('a\nb\n'), { command: 'ls' }, { dialog: 'd1', truncated: true, shownChars: 2 });
  store.put('c2', 'bash', 'x\n', null, { dialog: 'd2' });
  assert.equal(store.size, 2);
  assert.equal(store.get('c1', { dialog: 'd1' }), 'a\nb\n');
  assert.equal(store.get('c1'), null, 'another dialog');
  assert.deepEqual(
    store.list('d1').map((m) => [m.tool_call_id, m.shown_chars, m.truncated]),
    [['c1', 2, true]],
  );
  assert.equal(store.list().length, 2);
  assert.equal(store.deleteDialog('d1'), 1);
  assert.equal(store.pruneOlderThan(3600), 0, 'nothing is an hour old');
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(store.pruneOlderThan(0.001), 1);
  assert.equal(store.size, 0);
  assert.throws(() => store.pruneOlderThan(-1), RangeError);
  const limited = new toolcap.MemoryStore({ limitBytes: 10 });
  limited.put('a', 't', '123456');
  limited.put('b', 't', '123456');
  assert.equal(limited.get('a'), null, 'the oldest went first');
  assert.equal(limited.get('b'), '123456');
});

test('message histories: references kept or loaded', () => {
  const store = new toolcap.MemoryStore();
  store.put('call_1', 'bash', 'a\nb\n', { command: 'ls' }, { dialog: 'd1' });
  const ref = store.referenceMessage('call_1', { dialog: 'd1' });
  assert.equal(ref.role, 'tool');
  assert.equal(ref.tool_call_id, 'call_1');
  const history = [{ role: 'user', content: 'list the files' }, ref];
  assert.deepEqual(store.prepareMessages(history, undefined, { dialog: 'd1' }), history);
  assert.equal(store.prepareMessages(history, true, { dialog: 'd1' })[1].content, 'a\nb\n');
  assert.equal(store.prepareMessages(history, ['call_1'], { dialog: 'd1' })[1].content, 'a\nb\n');
  assert.deepEqual(store.prepareMessages(history, ['other'], { dialog: 'd1' }), history);
  const p = new toolcap.ToolResultProcessor({ store, dialog: 'd1' });
  assert.equal(p.prepareMessages(history, 'all')[1].content, 'a\nb\n');
  assert.equal(store.referenceMessage('missing'), null);
});

test('save: "all" keeps results that were not cut', () => {
  const store = new toolcap.MemoryStore();
  const p = new toolcap.ToolResultProcessor({ store, save: 'all' });
  const out = p.process('read_file', 'small\n', { path: 'a.txt' }, 'small');
  assert.equal(out.truncated, false);
  assert.equal(out.stored.tool_call_id, 'small');
  assert.equal(store.get('small'), 'small\n');
  const q = new toolcap.ToolResultProcessor({ store: new toolcap.MemoryStore() });
  assert.equal(q.process('read_file', 'small\n', { path: 'a.txt' }, 'small').stored, undefined);
});
