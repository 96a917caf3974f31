// toolcap for the Vercel AI SDK (`ai` 7): every tool's result goes through toolcap,
// and the recovery tools are AI SDK tools.
//
//   import { withToolcap } from 'toolcap/ai';
//   const result = await generateText({ model, tools: withToolcap(tools), stopWhen: isStepCount(10), prompt });

import shared from './shared.cjs';
import { importPeer } from './peer.mjs';

const { jsonSchema, tool } = await importPeer(() => import('ai'), 'ai', 'toolcap/ai');

const { processorOf, resultText, argsOf, UNCHANGED } = shared;

/**
 * The AI SDK tools that read back what was cut (get_continuation,
 * search_tool_output, fetch_tool_output, get_tool_result, query_tool_output), built from toolcap's own
 * definitions and served from the processor's store.
 */
export function recoveryTools(processorOrOptions) {
  const processor = processorOf(processorOrOptions);
  if (!processor.store) {
    throw new TypeError('recoveryTools: the processor has no store; create it with store: new MemoryStore() (or SqliteStore)');
  }
  const out = {};
  for (const d of processor.toolDefinitions('openai')) {
    const { name, description, parameters } = d.function;
    out[name] = tool({
      description,
      inputSchema: jsonSchema(parameters),
      execute: async (input) => {
        const r = await processor.dispatchAsync(name, argsOf(input) ?? {});
        return r === null ? '' : r.text;
      },
    });
  }
  return out;
}

/** `text` as the model should see it: itself when short, else toolcap's view. */
async function cappedText(processor, name, text, command, id) {
  if (typeof text !== 'string' || !text) return text;
  const processed = await processor.processAsync(name, text, typeof command === 'string' ? { command } : undefined, id);
  return UNCHANGED.has(processed.reason) ? text : processed.text;
}

// OpenAI's shell tools in @ai-sdk/openai (`openai.tools.localShell`, `openai.tools.shell`)
// return structured output that the provider checks against its schema before it sends
// it (`local_shell_call_output`, `shell_call_output`): each output text is capped inside
// that structure, with the command the model asked for.
const PROVIDER_SHELLS = {
  // { output: string }; input { action: { command: argv } }
  'openai.local_shell': async (processor, name, input, result, id) => {
    if (!result || typeof result.output !== 'string') return result;
    const argv = input?.action?.command;
    const command = Array.isArray(argv) ? argv.join(' ') : undefined;
    return { ...result, output: await cappedText(processor, name, result.output, command, id) };
  },
  // { output: [{ stdout, stderr, outcome }] }, one per command; input { action: { commands } }
  'openai.shell': async (processor, name, input, result, id) => {
    if (!result || !Array.isArray(result.output)) return result;
    const commands = Array.isArray(input?.action?.commands) ? input.action.commands : [];
    const many = result.output.length > 1;
    const output = [];
    for (const [i, entry] of result.output.entries()) {
      const command = many ? commands[i] : commands.join('\n');
      const key = many ? `${id}-${i + 1}` : id;
      output.push({
        ...entry,
        stdout: await cappedText(processor, name, entry?.stdout, command, key),
        stderr: await cappedText(processor, name, entry?.stderr, command, `${key}-stderr`),
      });
    }
    return { ...result, output };
  },
};

/**
 * The same tools, each executing as before and its result processed by toolcap
 * (off the event loop): unchanged when under its threshold, else the capped view
 * with the exact marker and the recovery options. The call's `toolCallId` keys the
 * full result in the store. OpenAI's provider-defined shell tools keep their
 * output's shape, with each command's output capped in it.
 */
export function wrapTools(tools, processorOrOptions) {
  const processor = processorOf(processorOrOptions);
  const out = {};
  for (const [name, t] of Object.entries(tools)) {
    if (!t || typeof t.execute !== 'function') {
      out[name] = t;
      continue;
    }
    const execute = t.execute;
    const shell = t.type === 'provider' ? PROVIDER_SHELLS[t.id] : undefined;
    if (shell) {
      out[name] = {
        ...t,
        execute: async (input, options) => shell(processor, name, input, await execute.call(t, input, options), options?.toolCallId),
      };
      continue;
    }
    out[name] = {
      ...t,
      execute: async (input, options) => {
        const result = await execute.call(t, input, options);
        if (result && typeof result[Symbol.asyncIterator] === 'function') return result; // streamed: left alone
        const processed = await processor.processAsync(name, resultText(result), argsOf(input), options?.toolCallId);
        return UNCHANGED.has(processed.reason) ? result : processed.text;
      },
    };
  }
  return out;
}

/**
 * One call: `tools` wrapped (`wrapTools`) plus the recovery tools, sharing one
 * processor — the one given (`{ processor }`), else one made from `{ config, store,
 * dialog, save }` with a MemoryStore.
 */
export function withToolcap(tools, options) {
  const processor = processorOf(options);
  return { ...wrapTools(tools, processor), ...(processor.store ? recoveryTools(processor) : {}) };
}
