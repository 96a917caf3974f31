// toolcap/ai with OpenAI's shell tools of @ai-sdk/openai (`openai.tools.localShell`,
// `openai.tools.shell`), run by generateText against a scripted Responses API (the
// provider's own `fetch` option): the executors run real commands, and what the
// provider sends back as `local_shell_call_output` / `shell_call_output` is read from
// the next request. Before toolcap kept their shape, a capped result was a string that
// the provider could not send as those tools' output.

import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, isStepCount } from 'ai';
import { withToolcap } from 'toolcap/ai';

function sh(command) {
  const r = spawnSync('bash', ['-c', command], { encoding: 'utf8', maxBuffer: 1 << 26 });
  return { stdout: r.stdout, stderr: r.stderr, code: r.status };
}

const usage = { input_tokens: 10, output_tokens: 10, total_tokens: 20 };

function response(turn, output) {
  return new Response(JSON.stringify({ id: `resp_${turn}`, created_at: 0, model: 'gpt-5-codex', output, usage }), {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });
}

test('OpenAI local_shell and shell tools: long outputs capped in their own shape, the marker followed to the exact lines', async () => {
  const seq = execFileSync('seq', ['1', '20000'], { encoding: 'utf8' });
  const lines = seq.split('\n');
  const seen = [];
  const fetch = async (_url, init) => {
    const body = JSON.parse(init.body);
    const items = body.input.filter((i) => typeof i.type === 'string' && i.type.endsWith('_output'));
    seen.push(items);
    const turn = items.length;
    if (turn === 0) {
      return response(turn, [
        { type: 'local_shell_call', id: 'ls_1', call_id: 'call_local', status: 'completed', action: { type: 'exec', command: ['bash', '-c', 'seq 1 20000'] } },
      ]);
    }
    if (turn === 1) {
      return response(turn, [
        { type: 'shell_call', id: 'sh_1', call_id: 'call_sh', status: 'completed', action: { commands: ['seq 1 20000', 'echo short; echo warn >&2'] } },
      ]);
    }
    if (turn === 2) {
      const m = /get_continuation\(tool_call_id="([^"]+)", start_line=(\d+), end_line=(\d+)\)/.exec(items[1].output[0].stdout);
      assert.ok(m, items[1].output[0].stdout.slice(-1500));
      const args = { tool_call_id: m[1], start_line: Number(m[2]), end_line: Number(m[3]) };
      return response(turn, [
        { type: 'function_call', id: 'fc_1', call_id: 'call_more', name: 'get_continuation', arguments: JSON.stringify(args), status: 'completed' },
      ]);
    }
    return response(turn, [
      { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done', annotations: [] }] },
    ]);
  };
  const openai = createOpenAI({ apiKey: 'k', fetch });
  const tools = {
    local_shell: openai.tools.localShell({
      execute: async ({ action }) => ({ output: sh(action.command.slice(2).join(' ')).stdout }),
    }),
    shell: openai.tools.shell({
      execute: async ({ action }) => ({
        output: action.commands.map((c) => {
          const r = sh(c);
          return { stdout: r.stdout, stderr: r.stderr, outcome: { type: 'exit', exitCode: r.code } };
        }),
      }),
    }),
  };
  const result = await generateText({
    model: openai.responses('gpt-5-codex'),
    tools: withToolcap(tools),
    stopWhen: isStepCount(6),
    prompt: 'count',
  });
  assert.equal(result.text, 'done');
  const [, [local], [, shell], [, , more]] = seen;
  // local_shell: seq's 108,894 chars as toolcap's view, sent as the tool's own output
  assert.equal(seq.length, 108_894);
  assert.equal(local.type, 'local_shell_call_output');
  assert.ok(local.output.length <= 3500, `${local.output.length} chars`);
  assert.match(local.output, /--- Recovery Options ---/);
  assert.match(local.output, /call_local/);
  // shell: the long command's stdout capped under call_sh-1, the short one and its stderr as they were
  assert.equal(shell.type, 'shell_call_output');
  assert.ok(shell.output[0].stdout.length <= 3500);
  assert.match(shell.output[0].stdout, /call_sh-1/);
  assert.deepEqual(
    shell.output.map((o) => o.outcome),
    [{ type: 'exit', exit_code: 0 }, { type: 'exit', exit_code: 0 }],
  );
  assert.equal(shell.output[1].stdout, 'short\n');
  assert.equal(shell.output[1].stderr, 'warn\n');
  // the marker's range, followed, gives exactly those lines
  const m = /get_continuation\(tool_call_id="([^"]+)", start_line=(\d+), end_line=(\d+)\)/.exec(shell.output[0].stdout);
  const want = lines.slice(Number(m[2]) - 1, Number(m[3])).join('\n');
  assert.equal(more.type, 'function_call_output');
  assert.ok(String(more.output).startsWith(want), String(more.output).slice(0, 200));
});
