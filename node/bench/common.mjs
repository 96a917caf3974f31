// What the benchmarks share: the package (release addon expected), inputs, timing.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import toolcap from '../index.js';

export { toolcap };
export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

if (toolcap.buildProfile !== 'release') {
  console.error(`the addon is a ${toolcap.buildProfile} build; build the release one first: TOOLCAP_NODE_PROFILE=release bash node/run-tests.sh (or node node/scripts/build.js --release)`);
  process.exit(2);
}

/** A fixture repeated to at least `bytes` bytes. */
export function repeated(fixture, bytes) {
  const one = fs.readFileSync(path.join(REPO, 'fixtures', fixture));
  return Buffer.concat(Array.from({ length: Math.ceil(bytes / one.length) }, () => one));
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/** CPU seconds of this thread spent in `f` (the addon's clock, CLOCK_THREAD_CPUTIME_ID): other work on a busy machine does not count. */
export function cpuSeconds(f) {
  const a = toolcap._threadCpuSeconds();
  f();
  return toolcap._threadCpuSeconds() - a;
}
