// The opencode plugin: its tool.execute.after hook, called as opencode calls it.

import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolcapPlugin, createToolcapPlugin } from 'toolcap/opencode';
import { MemoryStore, ToolResultProcessor } from 'toolcap';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const TEXT = fs.readFileSync(path.join(REPO, 'fixtures', 'read_file', 'typing.py'), 'utf8');

test('the default plugin caps a big read and suggests opencode tools', async () => {
  const hooks = await ToolcapPlugin({});
  const output = { title: 'typing.py', output: TEXT, metadata: {} };
  await hooks['tool.execute.after']({ tool: 'read', sessionID: 'ses_1', callID: 'call_1', args: { filePath: 'typing.py' } }, output);
  assert.ok(output.output.length < 4000);
  assert.ok(output.output.includes('--- Recovery Options ---'));
  // opencode's read tool: read(filePath, offset, limit)
  assert.match(output.output, /read\(filePath="typing\.py", offset=\d+, limit=\d+\)/);
  const small = { title: 'x', output: 'ok\n', metadata: {} };
  await hooks['tool.execute.after']({ tool: 'bash', sessionID: 's', callID: 'c', args: { command: 'ls' } }, small);
  assert.equal(small.output, 'ok\n');
});

test('with a store, the session is the dialog and the call id keys the result', async () => {
  const processor = new ToolResultProcessor({ store: new MemoryStore() });
  const hooks = await createToolcapPlugin({ processor })({});
  const output = { title: 't', output: TEXT, metadata: {} };
  await hooks['tool.execute.after']({ tool: 'read', sessionID: 'ses_9', callID: 'call_9', args: { filePath: 'typing.py' } }, output);
  assert.equal(processor.store.get('call_9', { dialog: 'ses_9' }), TEXT);
});
