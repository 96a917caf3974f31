#!/usr/bin/env node
'use strict';
// The string unions of index.d.ts, written from the Rust types they describe: the
// addon lists them (src/types.rs: the library's own ALL lists, serde names and the
// binding's conversions), and this script writes them between the GENERATED
// markers of index.d.ts. test/types.test.js runs it with --check, so the file
// cannot drift from the code.
//
//   node scripts/gen-types.js           rewrite the block (npm run types)
//   node scripts/gen-types.js --check   exit 1, naming the difference, when it is stale

const fs = require('node:fs');
const path = require('node:path');

const here = path.resolve(__dirname, '..');
const DTS = path.join(here, 'index.d.ts');
const BEGIN = '// GENERATED BEGIN';
const END = '// GENERATED END';

// what each union means (a union the addon lists without a line here is an error:
// say what it is for first)
const DOCS = {
  Reason: 'Why a result was or was not cut.',
  FamilyName: "The built-in tool families (a custom family's name otherwise).",
  Unit: 'How thresholds are counted.',
  SaveWhen: 'When a store keeps a result: only when it was cut, or always.',
  ToolFormat: "The recovery tools' definition format.",
  SymbolKind: 'One vocabulary of definition kinds across languages.',
  StoppedBy: 'What stopped an outline short of the end of the source.',
  ReplyErrorKind: 'Why a recovery call failed.',
};

function block(unions) {
  const lines = [`${BEGIN}: from the Rust types by scripts/gen-types.js (npm run types); do not edit by hand`];
  for (const [name, values] of Object.entries(unions)) {
    if (!DOCS[name]) throw new Error(`gen-types.js: the addon lists a union ${name} that DOCS does not describe; add a line for it`);
    lines.push(`/** ${DOCS[name]} */`);
    lines.push(`export type ${name} = ${values.map((v) => `'${v}'`).join(' | ')};`);
  }
  for (const name of Object.keys(DOCS)) {
    if (!(name in unions)) throw new Error(`gen-types.js: DOCS describes ${name}, which the addon no longer lists; remove it`);
  }
  lines.push(END);
  return lines.join('\n');
}

function main() {
  const check = process.argv.includes('--check');
  const toolcap = require(path.join(here, 'index.js'));
  const unions = JSON.parse(toolcap._typeUnions());
  const want = block(unions);
  const dts = fs.readFileSync(DTS, 'utf8');
  const a = dts.indexOf(BEGIN);
  const b = dts.indexOf(END);
  if (a < 0 || b < a) {
    console.error(`gen-types.js: ${DTS} has no ${BEGIN} ... ${END} block`);
    process.exit(1);
  }
  const have = dts.slice(a, b + END.length);
  if (have === want) return;
  if (check) {
    const h = have.split('\n');
    const w = want.split('\n');
    const i = w.findIndex((line, k) => line !== h[k]);
    console.error(
      `index.d.ts is stale: its generated unions differ from the Rust types (first at line ${i + 1} of the block)\n` +
        `  have: ${h[i] ?? '(nothing)'}\n  want: ${w[i] ?? '(nothing)'}\n` +
        'fix: run `npm run types` in node/ (node scripts/gen-types.js) and commit index.d.ts',
    );
    process.exit(1);
  }
  fs.writeFileSync(DTS, dts.slice(0, a) + want + dts.slice(b + END.length));
  console.error(`gen-types.js: wrote the unions into ${path.relative(process.cwd(), DTS) || DTS}`);
}

main();
