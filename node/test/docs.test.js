'use strict';
// Every ```js and ```ts block of docs/node.md, and the README's ```ts blocks, run:
// JavaScript as it is, TypeScript after `tsc --strict`. Blocks marked `sketch`
// (they need a model or opencode) are covered by the integration tests instead.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { REPO } = require('./helpers');

const PKG = path.resolve(__dirname, '..');
// inside the package, so that `require('toolcap')` / `import 'toolcap'` resolve to it
const TMP = path.join(__dirname, '.docs-tmp');

function blocks(file) {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/^```(\w+)([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1], info: m[2].trim(), code: m[3] }));
}

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env: { ...process.env, TOOLCAP_REPO: REPO }, cwd: TMP });
  assert.equal(r.status, 0, `${args.join(' ')}\n${r.stdout}\n${r.stderr}`);
  return r;
}

const DOC = blocks(path.join(REPO, 'docs', 'node.md'));
const README = blocks(path.join(REPO, 'README.md')).filter((b) => b.lang === 'ts');

test('the pages have the examples', () => {
  assert.ok(DOC.filter((b) => b.lang === 'js' && !b.info).length >= 6);
  assert.ok(README.length >= 1, 'no ```ts block in README.md');
  // only the integration sketches are not run
  assert.deepEqual(DOC.filter((b) => b.info).map((b) => b.info), ['sketch', 'sketch', 'sketch']);
});

const cases = [
  ...DOC.filter((b) => !b.info && (b.lang === 'js' || b.lang === 'ts')).map((b, i) => ({ ...b, name: `docs/node.md block ${i + 1} (${b.lang})` })),
  ...README.map((b, i) => ({ ...b, name: `README.md ts block ${i + 1}` })),
];

for (const [i, c] of cases.entries()) {
  test(c.name, () => {
    fs.mkdirSync(TMP, { recursive: true });
    if (c.lang === 'js') {
      const f = path.join(TMP, `block${i}.cjs`);
      fs.writeFileSync(f, c.code);
      run(process.execPath, [f]);
      return;
    }
    const src = path.join(TMP, `block${i}.mts`);
    fs.writeFileSync(src, c.code);
    const tsc = path.join(PKG, 'node_modules', 'typescript', 'bin', 'tsc');
    run(process.execPath, [tsc, '--strict', '--target', 'es2022', '--module', 'node16', '--moduleResolution', 'node16', '--types', 'node', '--rootDir', TMP, '--outDir', TMP, src]);
    run(process.execPath, [path.join(TMP, `block${i}.mjs`)]);
  });
}

test.after(() => fs.rmSync(TMP, { recursive: true, force: true }));
