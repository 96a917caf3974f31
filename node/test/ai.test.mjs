// The AI SDK integration, driven by the SDK's own mock model (`ai/test`) in a
// generateText loop: the model reads a big file, gets the capped view, calls
// get_continuation with the id and the range from the marker, and gets the exact lines.

import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateText, isStepCount, jsonSchema, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { withToolcap, wrapTools, recoveryTools } from 'toolcap/ai';
import { MemoryStore, ToolResultProcessor } from 'toolcap';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const FILE = path.join(REPO, 'fixtures', 'read_file', 'typing.py');
const TEXT = fs.readFileSync(FILE, 'utf8');
const LINES = TEXT.split('\n');

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 10, reasoning: undefined },
};

/** The text of the last tool result in the prompt the model is given. */
function lastToolResult(prompt) {
  const msg = [...prompt].reverse().find((m) => m.role === 'tool');
  const part = msg.content.find((p) => p.type === 'tool-result');
  return { id: part.toolCallId, name: part.toolName, value: part.output.value };
}

const readFile = tool({
  description: 'Read a file',
  inputSchema: jsonSchema({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
  execute: async ({ path: p }) => fs.readFileSync(p, 'utf8'),
});

test('generateText: read a big file, get the capped view, page back the exact lines', async () => {
  const seen = {};
  let step = 0;
  const model = new MockLanguageModelV4({
    doGenerate: async ({ prompt, tools }) => {
      step += 1;
      if (step === 1) {
        seen.tools = tools.map((t) => t.name).sort();
        return {
          content: [{ type: 'tool-call', toolCallId: 'call_read_1', toolName: 'read_file', input: JSON.stringify({ path: FILE }) }],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage,
          warnings: [],
        };
      }
      if (step === 2) {
        const r = lastToolResult(prompt);
        seen.view = r.value;
        // what the model reads: the marker's range and the id in the recovery section
        const m = /\[\.\.\. [\d,]+ chars, [\d,]+ lines omitted \(lines (\d+)-(\d+) of (\d+)\) \.\.\.\]/.exec(r.value);
        const id = /get_continuation\(tool_call_id="([^"]+)"/.exec(r.value);
        assert.ok(m && id, r.value.slice(-800));
        const start = Number(m[1]);
        seen.range = [start, start + 9];
        return {
          content: [
            {
              type: 'tool-call',
              toolCallId: 'call_more_1',
              toolName: 'get_continuation',
              input: JSON.stringify({ tool_call_id: id[1], start_line: start, end_line: start + 9 }),
            },
          ],
          finishReason: { unified: 'tool-calls', raw: undefined },
          usage,
          warnings: [],
        };
      }
      seen.more = lastToolResult(prompt).value;
      return { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: undefined }, usage, warnings: [] };
    },
  });

  const result = await generateText({
    model,
    tools: withToolcap({ read_file: readFile }),
    stopWhen: isStepCount(5),
    prompt: 'Read typing.py',
  });

  assert.equal(result.text, 'done');
  assert.ok(seen.tools.includes('get_continuation') && seen.tools.includes('search_tool_output') && seen.tools.includes('read_file'), seen.tools.join(','));
  assert.ok(seen.view.length < TEXT.length / 10, 'the model got the capped view');
  assert.ok(seen.view.includes('--- Recovery Options ---'));
  assert.ok(seen.view.startsWith(LINES[0]));
  const [a, b] = seen.range;
  assert.ok(seen.more.startsWith(`${LINES.slice(a - 1, b).join('\n')}\n`), seen.more.slice(0, 400));
});

test('a small result passes through unchanged, objects included', async () => {
  const tools = wrapTools({
    small: tool({ description: 's', inputSchema: jsonSchema({ type: 'object' }), execute: async () => ({ ok: true, n: 3 }) }),
  });
  assert.deepEqual(await tools.small.execute({}, { toolCallId: 'x', messages: [] }), { ok: true, n: 3 });
});

test('a shared processor: the wrapped tools store, the recovery tools read', async () => {
  const processor = new ToolResultProcessor({ store: new MemoryStore(), dialog: 'chat-1' });
  const tools = { ...wrapTools({ read_file: readFile }, processor), ...recoveryTools(processor) };
  const view = await tools.read_file.execute({ path: FILE }, { toolCallId: 'c1', messages: [] });
  assert.ok(view.includes('get_continuation(tool_call_id="c1"'));
  const all = JSON.parse(await tools.fetch_tool_output.execute({ tool_call_id: 'c1', limit: 100 }, { toolCallId: 'c2', messages: [] }));
  assert.equal(all.tool_output, TEXT.slice(0, 100));
  assert.throws(() => recoveryTools(new ToolResultProcessor()), /no store/);
});
