'use strict';
// The history policy from Node: old tool results of the scripted 200-turn
// conversation (tests/fixtures/history: real stdlib reads and commands) masked in
// batches, each kept in the store and read back through the call its line names.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { REPO } = require('./helpers');
const toolcap = require('..');

const LINE = /^\[result of .* \(tool_call_id "([^"]+)", ([\d,]+) chars?, [\d,]+ lines?\) masked — get_continuation\(tool_call_id="\1", offset=0\)  # read it again from the start\]$/;

function load(name) {
  const file = path.join(REPO, 'tests', 'fixtures', 'history', `${name}.json`);
  return JSON.parse(fs.readFileSync(file, 'utf8')).messages;
}

/** tool call id -> result text, in any of the three formats. */
function results(messages) {
  const out = new Map();
  for (const m of messages) {
    if (m.role === 'tool') out.set(m.tool_call_id, m.content);
    else if (m.type === 'function_call_output') out.set(m.call_id, m.output);
    else if (Array.isArray(m.content)) {
      for (const b of m.content) if (b.type === 'tool_result') out.set(b.tool_use_id, b.content);
    }
  }
  return out;
}

for (const name of ['openai_chat', 'openai_responses', 'anthropic']) {
  test(`${name}: old results masked in batches and read back`, () => {
    const messages = load(name);
    const store = new toolcap.MemoryStore();
    const processor = new toolcap.ToolResultProcessor({ store, dialog: 'd1' });
    const policy = { keep_tokens: 20000, min_prunable_tokens: 10000 };
    const out = processor.prepareMessages(messages, policy);
    assert.equal(out.length, messages.length);
    const before = results(messages);
    const after = results(out);
    assert.deepEqual([...after.keys()], [...before.keys()]);
    let masked = 0;
    for (const [id, text] of after) {
      if (text === before.get(id)) continue;
      masked += 1;
      const m = LINE.exec(text);
      assert.ok(m, text);
      // chars counts code points, as the line does
      assert.equal(Number(m[2].replaceAll(',', '')), [...before.get(id)].length);
      assert.equal(processor.getToolResult(id).text, before.get(id));
    }
    assert.ok(masked > 50, `${masked} masked`);
    assert.deepEqual(processor.prepareMessages(messages, policy), out);
    assert.deepEqual(store.prepareMessages(out, policy, { dialog: 'd1' }), out);
  });
}

test('a bad policy names the key', () => {
  const store = new toolcap.MemoryStore();
  assert.throws(() => store.prepareMessages([], { keep: 3 }), /unknown field `keep`/);
});
