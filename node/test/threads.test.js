'use strict';
// Worker threads, concurrent async calls, and an event loop that keeps running.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const { REPO } = require('./helpers');
const toolcap = require('..');

const LOG = fs.readFileSync(path.join(REPO, 'fixtures', 'shell', 'cargo_test_failure.log'));

test('the addon loads and works in worker threads, several at once', async () => {
  const want = JSON.stringify(new toolcap.ToolResultProcessor().process('shell', LOG, { command: 'cargo test' }));
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const toolcap = require(workerData.pkg);
    const p = new toolcap.ToolResultProcessor({ store: new toolcap.MemoryStore() });
    const outs = [];
    for (let i = 0; i < 5; i++) outs.push(JSON.stringify(p.process('shell', Buffer.from(workerData.log), { command: 'cargo test' })));
    p.processAsync('shell', Buffer.from(workerData.log), { command: 'cargo test' }, 'c1').then((o) => {
      const page = p.getContinuation('c1');
      parentPort.postMessage({ outs, async: JSON.stringify(o), page: page.isError });
    });
  `;
  const pkg = path.resolve(__dirname, '..');
  const runs = await Promise.all(
    Array.from({ length: 3 }, () =>
      new Promise((resolve, reject) => {
        const w = new Worker(code, { eval: true, workerData: { pkg, log: LOG } });
        w.once('message', resolve);
        w.once('error', reject);
      }),
    ),
  );
  const stored = new toolcap.ToolResultProcessor({ store: new toolcap.MemoryStore() });
  const wantStored = JSON.stringify(stored.process('shell', LOG, { command: 'cargo test' }, 'c1'));
  for (const r of runs) {
    for (const o of r.outs) assert.equal(o, want);
    assert.equal(r.async, wantStored);
    assert.equal(r.page, false);
  }
});

test('many processAsync calls at once give what process gives', async () => {
  const p = new toolcap.ToolResultProcessor({ store: new toolcap.MemoryStore() });
  const outs = await Promise.all(Array.from({ length: 16 }, (_, i) => p.processAsync('shell', LOG, { command: 'cargo test' }, `c${i}`)));
  const q = new toolcap.ToolResultProcessor({ store: new toolcap.MemoryStore() });
  for (const [i, o] of outs.entries()) {
    assert.equal(JSON.stringify(o), JSON.stringify(q.process('shell', LOG, { command: 'cargo test' }, `c${i}`)));
    assert.equal(o.stored.tool_call_id, `c${i}`);
  }
  assert.equal(p.store.size, 16);
});

test('the event loop keeps running while processAsync works on a large result', async () => {
  // 40 MB of a real log: the work takes long enough that a timer set now fires before it ends
  const big = Buffer.concat(Array.from({ length: Math.ceil((40 << 20) / LOG.length) }, () => LOG));
  const p = new toolcap.ToolResultProcessor();
  let ticks = 0;
  const timer = setInterval(() => ticks++, 1);
  const out = await p.processAsync('shell', big, { command: 'cargo test' });
  clearInterval(timer);
  assert.equal(out.original.bytes, big.length);
  assert.ok(ticks > 0, 'no timer callback ran while the addon worked');
});
