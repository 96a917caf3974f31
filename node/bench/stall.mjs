// The event-loop stall while a 50 MB log is processed: the longest gap between two
// turns of the loop (a setImmediate chain) while the call runs, for processAsync
// with a Buffer and with a string, and for the synchronous process as the reference.
// Two clocks: the CPU time the event-loop thread spent between two turns (the work
// that held the loop: what a busy machine does not change), and the wall time
// between them (which also counts the time the OS gave the CPU to others).
//
//   node node/bench/stall.mjs
import os from 'node:os';
import { median, repeated, toolcap } from './common.mjs';

const ROUNDS = 5;
const log = repeated('shell/cargo_test_color_progress.log', 50 << 20);
const text = log.toString('utf8');
const p = new toolcap.ToolResultProcessor();
const args = { command: 'cargo test' };

const cpuNow = toolcap._threadCpuSeconds;

/** Run `work` (which returns a promise) while a setImmediate chain records the longest gap, in ms (CPU and wall). */
async function longestGap(work) {
  let last = process.hrtime.bigint();
  let lastCpu = cpuNow();
  let worst = 0n;
  let worstCpu = 0;
  let running = true;
  const tick = () => {
    const now = process.hrtime.bigint();
    const cpu = cpuNow();
    if (now - last > worst) worst = now - last;
    if (cpu - lastCpu > worstCpu) worstCpu = cpu - lastCpu;
    last = now;
    lastCpu = cpu;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  await new Promise((resolve) => setImmediate(resolve));
  last = process.hrtime.bigint();
  lastCpu = cpuNow();
  worst = 0n;
  worstCpu = 0;
  const t0 = process.hrtime.bigint();
  await work();
  const total = Number(process.hrtime.bigint() - t0) / 1e6;
  // one more turn: the gap that ends with the promise's own callback counts too
  await new Promise((resolve) => setImmediate(resolve));
  running = false;
  return { worst: Number(worst) / 1e6, worstCpu: worstCpu * 1e3, total };
}

const cases = [
  ['processAsync, Buffer', () => p.processAsync('shell', log, args)],
  ['processAsync, string', () => p.processAsync('shell', text, args)],
  ['process (sync), Buffer', async () => p.process('shell', log, args)],
];
console.log(`node ${process.version}, ${os.cpus().length} CPUs, load average ${os.loadavg()[0].toFixed(1)}; ${(log.length / 1e6).toFixed(1)} MB; medians of ${ROUNDS} rounds (worst round in brackets)`);
console.log('| call | longest stall, CPU of the loop thread | longest stall, wall | whole call, wall |');
console.log('|---|---|---|---|');
for (const [label, work] of cases) {
  await work(); // warm up
  const rs = [];
  for (let i = 0; i < ROUNDS; i++) rs.push(await longestGap(work));
  const w = rs.map((r) => r.worst);
  const c = rs.map((r) => r.worstCpu);
  console.log(
    `| ${label} | ${median(c).toFixed(2)} ms (${Math.max(...c).toFixed(2)} ms) | ${median(w).toFixed(2)} ms (${Math.max(...w).toFixed(2)} ms) | ${median(rs.map((r) => r.total)).toFixed(0)} ms |`,
  );
}
