'use strict';
// PostgresStore: results kept in PostgreSQL (an addon built with the `postgres`
// feature), paged back exactly, and shared with the CLI both ways. Needs a
// PostgreSQL installation (scripts/pg-cluster.sh starts a throwaway server); without
// one the tests say why and skip, except under CI=true, where they fail.

const test = require('node:test');
const assert = require('node:assert/strict');
const { cli, postgres } = require('./helpers');
const toolcap = require('..');

const TEXT = Array.from({ length: 5000 }, (_, i) => `${i + 1}: größe ошибка 失败 😀\n`).join('');

function server(t) {
  const pg = postgres();
  if (!pg.url) t.skip(pg.why);
  return pg.url;
}

test('a PostgresStore keeps what the processor cut; it pages back exactly', async (t) => {
  const url = server(t);
  if (!url) return;
  const store = new toolcap.PostgresStore(url);
  assert.equal(store.storageType, 'postgres');
  const p = new toolcap.ToolResultProcessor({ store, dialog: 'node-pg-1' });
  const out = p.process('read_file', TEXT, { path: 'multi.txt' }, 'call_1');
  assert.equal(out.truncated, true);
  assert.deepEqual(out.stored, { tool_call_id: 'call_1', dialog_id: 'node-pg-1', storage_type: 'postgres', offset: out.stored.offset });
  assert.equal(store.get('call_1', { dialog: 'node-pg-1' }), TEXT);
  assert.equal(await store.getAsync('call_1', { dialog: 'node-pg-1' }), TEXT);
  const lines = TEXT.split('\n');
  const r = p.getContinuation('call_1', { startLine: 4001, endLine: 4003 });
  assert.ok(r.text.startsWith(lines.slice(4000, 4003).join('\n')), r.text.slice(0, 200));
  const f = JSON.parse((await p.fetchToolOutputAsync('call_1', { offset: 5, limit: 40 })).text);
  assert.equal(f.tool_output, [...TEXT].slice(5, 45).join(''));
  assert.equal(store.meta('call_1', { dialog: 'node-pg-1' }).size_chars, [...TEXT].length);
  assert.equal(p.getContinuation('nope').error, 'not_stored');
  assert.equal(store.deleteDialog('node-pg-1'), 1);
  assert.equal(store.get('call_1', { dialog: 'node-pg-1' }), null);
});

test('the CLI reads what Node stored in PostgreSQL, and Node what the CLI stored', (t) => {
  const url = server(t);
  if (!url) return;
  const p = new toolcap.ToolResultProcessor({ store: new toolcap.PostgresStore(url), dialog: 'node-pg-2' });
  p.process('shell', TEXT, { command: 'make' }, 'from_node');
  const shown = cli(['show', '--store', url, '--dialog', 'node-pg-2', 'from_node']).raw;
  assert.equal(shown.toString('utf8'), TEXT);
  cli(['process', '--store', url, '--dialog', 'node-pg-2', '--id', 'from_cli', '--tool', 'shell', '--arg', 'command=make', '-'], { input: TEXT });
  const store = new toolcap.PostgresStore(url);
  assert.equal(store.get('from_cli', { dialog: 'node-pg-2' }), TEXT);
  assert.equal(store.list('node-pg-2').length, 2);
});

test('a PostgresStore that cannot connect is a StoreError naming the server', () => {
  if (!toolcap.hasPostgres) {
    assert.throws(() => new toolcap.PostgresStore('postgres://u@127.0.0.1:1/db'), /TOOLCAP_NODE_FEATURES=postgres/);
    return;
  }
  assert.throws(
    () => new toolcap.PostgresStore('postgres://toolcap:x@127.0.0.1:1/db'),
    (e) => e instanceof toolcap.StoreError && /127\.0\.0\.1/.test(e.message) && !/x@/.test(e.message),
  );
});
