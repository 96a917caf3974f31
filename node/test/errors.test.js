'use strict';
// Errors: typed classes with the CLI's messages; wrong types and values; panics.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { cli, tmpDir } = require('./helpers');
const toolcap = require('..');

test('the error classes', () => {
  for (const C of [toolcap.ConfigError, toolcap.StoreError, toolcap.OutlineError]) {
    const e = new C('m');
    assert.ok(e instanceof toolcap.ToolcapError && e instanceof Error);
    assert.equal(e.name, C.name);
  }
});

test('a bad config file: ConfigError with the message the CLI prints', (t) => {
  const f = path.join(tmpDir(t), 'bad.toml');
  fs.writeFileSync(f, 'max_kept_chars = 100\n[tools.read_file]\nthreshold = 50\n');
  const fromCli = cli(['config', '--config', f], { check: false });
  assert.equal(fromCli.status, 2);
  const err = assert.throws(() => new toolcap.ToolResultProcessor({ config: f }), toolcap.ConfigError);
  void err;
  try {
    new toolcap.ToolResultProcessor({ config: f });
  } catch (e) {
    assert.ok(fromCli.stderr.includes(e.message), `CLI: ${fromCli.stderr}\nNode: ${e.message}`);
    assert.match(e.message, /bad\.toml/);
  }
  // a missing file
  assert.throws(() => new toolcap.ToolResultProcessor({ config: path.join(tmpDir(t), 'missing.toml') }), toolcap.ConfigError);
  // $TOOLCAP_CONFIG is read when no config is given, as the CLI reads it
  process.env.TOOLCAP_CONFIG = f;
  try {
    assert.throws(() => new toolcap.ToolResultProcessor(), toolcap.ConfigError);
  } finally {
    delete process.env.TOOLCAP_CONFIG;
  }
});

test('a config object: its keys are the TOML file keys', () => {
  const p = new toolcap.ToolResultProcessor({ config: { max_kept_chars: 1000, bypass: ['my_tool'] } });
  assert.equal(p.maxKeptChars, 1000);
  assert.equal(p.isBypassed('my_tool'), true);
  assert.equal(p.process('my_tool', 'x'.repeat(100000)).reason, 'bypass');
  assert.throws(() => new toolcap.ToolResultProcessor({ config: { max_kept_chars: 'lots' } }), (e) => {
    assert.ok(e instanceof toolcap.ConfigError);
    assert.match(e.message, /^<config object>: max_kept_chars: /);
    assert.match(e.message, /fix: /);
    return true;
  });
  assert.throws(() => new toolcap.ToolResultProcessor({ config: { no_such_key: 1 } }), toolcap.ConfigError);
  assert.throws(() => new toolcap.ToolResultProcessor({ config: 42 }), TypeError);
  assert.match(new toolcap.ToolResultProcessor().describeConfig(), /max_kept_chars/);
});

test('store errors: invalid ids, a store that cannot be opened', (t) => {
  const p = new toolcap.ToolResultProcessor({ store: new toolcap.MemoryStore() });
  assert.throws(() => p.process('read_file', 'x', {}, ''), (e) => e instanceof toolcap.StoreError && /tool_call_id "": is empty/.test(e.message));
  assert.throws(() => p.process('read_file', 'x', {}, 'a\nb'), /holds a control character/);
  assert.throws(() => new toolcap.ToolResultProcessor({ dialog: 'x'.repeat(300) }), toolcap.StoreError);
  const dir = tmpDir(t);
  // a directory that is not there is not made (a typo is an error, not a new tree), unless asked
  const deep = path.join(dir, 'no', 'such', 'r.db');
  assert.throws(() => new toolcap.SqliteStore(deep), (e) => {
    assert.ok(e instanceof toolcap.StoreError, String(e));
    assert.match(e.message, /does not exist/);
    assert.ok(e.message.includes('r.db'), e.message);
    return true;
  });
  assert.equal(fs.existsSync(path.join(dir, 'no')), false);
  assert.equal(new toolcap.SqliteStore(deep, { createDirs: true }).path, deep);
  assert.ok(fs.existsSync(deep));
  // a file that is not a database
  const junk = path.join(dir, 'junk.db');
  fs.writeFileSync(junk, 'this is not sqlite'.repeat(100));
  assert.throws(() => new toolcap.SqliteStore(junk), toolcap.StoreError);
});

test('no store attached: a ToolcapError that says how to attach one; dispatch replies', () => {
  const p = new toolcap.ToolResultProcessor();
  assert.throws(() => p.getContinuation('x'), (e) => e instanceof toolcap.ToolcapError && /no result store attached/.test(e.message));
  // dispatch, the harness's one entry point, answers as a store that holds nothing would
  const r = p.dispatch('get_continuation', { tool_call_id: 'x' });
  assert.equal(r.isError, true);
  assert.equal(r.error, 'not_stored');
  assert.equal(p.dispatch('read_file', { path: 'a' }), null);
});

test('wrong types are TypeErrors, bad values RangeErrors, with the argument named', () => {
  const p = new toolcap.ToolResultProcessor();
  assert.throws(() => p.process(42, 'x'), /tool: expected a string, got number/);
  assert.throws(() => p.process('read_file', 42), /result: expected a string or bytes/);
  assert.throws(() => p.process('read_file', { a: 1 }), TypeError);
  assert.throws(() => p.process('read_file', 'x', [1, 2]), /args: expected an object/);
  assert.throws(() => p.process('read_file', 'x', '[1]'), /args: must be a JSON object/);
  assert.throws(() => p.process('read_file', 'x', '{nope'), (e) => e instanceof RangeError && /args: not valid JSON/.test(e.message));
  assert.throws(() => p.process('read_file', 'x', { n: 1n }), /args: cannot be sent as JSON/);
  assert.throws(() => p.process('read_file', 'x', {}, null, { lang: 'klingon' }), (e) => e instanceof RangeError && /language: unknown language "klingon"; use one of: rust, python, .*; or a text format: markdown/.test(e.message));
  assert.throws(() => new toolcap.ToolResultProcessor({ save: 'sometimes' }), /save "sometimes": use "cut"/);
  assert.throws(() => new toolcap.ToolResultProcessor({ store: {} }), /store: expected a MemoryStore, SqliteStore or PostgresStore, got Object/);
  assert.throws(() => new toolcap.MemoryStore({ limitBytes: -5 }), RangeError);
  assert.throws(() => toolcap.outline('x = 1\n', { language: 'nope' }), RangeError);
  assert.throws(() => toolcap.outline('just some words\n'), /source: cannot tell the language/);
});

test('a panic inside the library becomes a ToolcapError', () => {
  assert.throws(() => toolcap._panicForTests(), (e) => e instanceof toolcap.ToolcapError && /internal error in toolcap \(please report it\): deliberate panic/.test(e.message));
});

test('PostgresStore: without the feature, the message says how to get it', () => {
  if (toolcap.hasPostgres) {
    // built with it: a server that is not there is a StoreError naming the URL
    assert.throws(() => new toolcap.PostgresStore('postgres://toolcap@127.0.0.1:1/none'), toolcap.StoreError);
  } else {
    assert.throws(() => new toolcap.PostgresStore('postgres://x@localhost/db'), /rebuild it with TOOLCAP_NODE_FEATURES=postgres/);
  }
});
