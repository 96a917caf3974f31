// Per-call overhead on a 1 KB result, and a 10 MB log through Node vs the Rust
// library alone (the same addon's Rust loop, no JavaScript in it). CPU time of the
// calling thread on both sides (the calls are synchronous: all the work is on it),
// Node and Rust alternating in each round; medians of 11 rounds.
//
//   node node/bench/overhead.mjs
import os from 'node:os';
import { cpuSeconds, median, repeated, toolcap } from './common.mjs';

const ROUNDS = 11;
const p = new toolcap.ToolResultProcessor();

function compare(label, tool, input, args, n) {
  // warm up both sides
  p.process(tool, input, args);
  p._timeRust(tool, input, args, 1);
  const node = [];
  const rust = [];
  for (let r = 0; r < ROUNDS; r++) {
    node.push(cpuSeconds(() => {
      for (let i = 0; i < n; i++) p.process(tool, input, args);
    }) / n);
    // the Rust loop, timed inside the addon with the same clock
    rust.push(p._timeRust(tool, input, args, n) / n);
  }
  const mn = median(node);
  const mr = median(rust);
  return { label, n, node: mn, rust: mr, ratio: mn / mr, overhead: mn - mr, minRatio: Math.min(...node) / Math.min(...rust) };
}

const kb = 'def handler(event):\n    return event.get("value") * 2\n\n'.repeat(20).slice(0, 1024);
const args = { path: 'handlers.py' };
const rows = [];
rows.push(compare('1 KB read_file result (under the threshold), string', 'read_file', kb, args, 20000));
rows.push(compare('1 KB read_file result, Buffer', 'read_file', Buffer.from(kb), args, 20000));
const color = repeated('shell/cargo_test_color_progress.log', 10 << 20);
const plain = repeated('shell/cargo_test_failure.log', 10 << 20);
const sh = { command: 'cargo test' };
rows.push(compare('10 MB cargo test log with colours and progress lines (shell), string', 'shell', color.toString('utf8'), sh, 1));
rows.push(compare('the same, Buffer', 'shell', color, sh, 1));
rows.push(compare('10 MB plain cargo test failure log, string', 'shell', plain.toString('utf8'), sh, 1));
rows.push(compare('the same, Buffer', 'shell', plain, sh, 1));

const fmt = (s) => (s < 1e-3 ? `${(s * 1e6).toFixed(2)} µs` : `${(s * 1e3).toFixed(1)} ms`);
console.log(`node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(1)}; medians of ${ROUNDS} rounds`);
console.log('| run | Node | Rust library | Node − Rust | ratio (min ratio) |');
console.log('|---|---|---|---|---|');
for (const r of rows) {
  console.log(`| ${r.label}, ${r.n.toLocaleString('en')} call${r.n > 1 ? 's' : ''} | ${fmt(r.node)} | ${fmt(r.rust)} | ${fmt(r.overhead)} | ${r.ratio.toFixed(2)}× (${r.minRatio.toFixed(2)}×) |`);
}
