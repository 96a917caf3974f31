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

/**
 * The same tools, each executing as before and its result processed by toolcap
 * (off the event loop): unchanged when under its threshold, else the capped view
 * with the exact marker and the recovery options. The call's `toolCallId` keys the
 * full result in the store.
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
