// The LangChain.js middleware, driven by LangChain's own fake chat model in a
// createAgent loop: read a big file, get the capped view, page back the exact lines.

import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AIMessage, ToolMessage, createAgent, fakeModel, tool } from 'langchain';
import { toolcapMiddleware } from 'toolcap/langchain';
import { MemoryStore, ToolResultProcessor } from 'toolcap';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FILE = path.join(REPO, 'fixtures', 'read_file', 'typing.py');
const TEXT = fs.readFileSync(FILE, 'utf8');
const LINES = TEXT.split('\n');

const readFile = tool(async ({ path: p }) => fs.readFileSync(p, 'utf8'), {
  name: 'read_file',
  description: 'Read a file',
  schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
});

function lastTool(messages) {
  return [...messages].reverse().find((m) => ToolMessage.isInstance(m));
}

test('createAgent with the middleware: capped view, then the exact lines', async () => {
  const seen = {};
  const model = fakeModel()
    .respondWithTools([{ name: 'read_file', args: { path: FILE }, id: 'call_read_1' }])
    .respond((messages) => {
      const view = String(lastTool(messages).content);
      seen.view = view;
      const m = /\[\.\.\. [\d,]+ chars, [\d,]+ lines omitted \(lines (\d+)-(\d+) of (\d+)\) \.\.\.\]/.exec(view);
      const id = /get_continuation\(tool_call_id="([^"]+)"/.exec(view);
      if (!m || !id) return new Error(`no marker or id in: ${view.slice(-600)}`);
      const start = Number(m[1]);
      seen.range = [start, start + 9];
      return new AIMessage({
        content: '',
        tool_calls: [{ name: 'get_continuation', args: { tool_call_id: id[1], start_line: start, end_line: start + 9 }, id: 'call_more_1' }],
      });
    })
    .respond((messages) => {
      seen.more = String(lastTool(messages).content);
      return new AIMessage('done');
    });

  const processor = new ToolResultProcessor({ store: new MemoryStore() });
  const agent = createAgent({ model, tools: [readFile], middleware: [toolcapMiddleware({ processor })] });
  const state = await agent.invoke({ messages: [{ role: 'user', content: 'Read typing.py' }] });

  assert.equal(state.messages.at(-1).content, 'done');
  assert.ok(seen.view.length < TEXT.length / 10);
  assert.ok(seen.view.includes('--- Recovery Options ---'));
  const [a, b] = seen.range;
  assert.ok(seen.more.startsWith(`${LINES.slice(a - 1, b).join('\n')}\n`), seen.more.slice(0, 400));
  assert.equal(processor.store.get('call_read_1'), TEXT);
});
