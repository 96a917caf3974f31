// toolcap for LangChain.js (`langchain` 1.x): an agent middleware whose
// `wrapToolCall` sends every tool's result through toolcap, with the recovery tools.
//
//   import { toolcapMiddleware } from 'toolcap/langchain';
//   const agent = createAgent({ model, tools, middleware: [toolcapMiddleware()] });

import shared from './shared.cjs';
import { importPeer } from './peer.mjs';

const { ToolMessage, createMiddleware } = await importPeer(() => import('langchain'), 'langchain', 'toolcap/langchain');
const { tool } = await importPeer(() => import('@langchain/core/tools'), '@langchain/core', 'toolcap/langchain');

const { processorOf, resultText, argsOf, UNCHANGED } = shared;

/** LangChain tools that read back what was cut, served from the processor's store. */
export function recoveryTools(processorOrOptions) {
  const processor = processorOf(processorOrOptions);
  if (!processor.store) {
    throw new TypeError('recoveryTools: the processor has no store; create it with store: new MemoryStore() (or SqliteStore)');
  }
  return processor.toolDefinitions('openai').map((d) => {
    const { name, description, parameters } = d.function;
    return tool(
      async (input) => {
        const r = await processor.dispatchAsync(name, argsOf(input) ?? {});
        return r === null ? '' : r.text;
      },
      { name, description, schema: parameters },
    );
  });
}

/** The text of a tool message's content (a string, or text blocks). */
function contentText(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content) && content.every((b) => b && b.type === 'text' && typeof b.text === 'string')) {
    return content.map((b) => b.text).join('');
  }
  return null;
}

/**
 * The middleware: each tool call's result (a ToolMessage) is processed by toolcap
 * and replaced by what the model should see; the recovery tools come with it.
 * Options: `{ processor }` or `{ config, store, dialog, save }` (a MemoryStore by
 * default); `recoveryTools: false` leaves them out.
 */
export function toolcapMiddleware(options) {
  const processor = processorOf(options);
  const withTools = (options?.recoveryTools ?? true) && processor.store !== null;
  const recovery = withTools ? recoveryTools(processor) : [];
  const recoveryNames = new Set(recovery.map((t) => t.name));
  return createMiddleware({
    name: 'toolcap',
    tools: recovery,
    wrapToolCall: async (request, handler) => {
      const result = await handler(request);
      const call = request.toolCall;
      if (!ToolMessage.isInstance(result) || recoveryNames.has(call.name)) return result;
      const text = contentText(result.content) ?? resultText(result.content);
      const processed = await processor.processAsync(call.name, text, argsOf(call.args), call.id ?? undefined);
      if (UNCHANGED.has(processed.reason)) return result;
      return new ToolMessage({
        content: processed.text,
        tool_call_id: result.tool_call_id,
        name: result.name,
        status: result.status,
        artifact: result.artifact,
        id: result.id,
      });
    },
  });
}
