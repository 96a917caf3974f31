// The integrations' types, checked by tsc --strict with the frameworks' own types.
import { jsonSchema, tool, type ToolSet } from 'ai';
import { withToolcap, wrapTools } from 'toolcap/ai';
import type { Options as ClaudeAgentOptions } from '@anthropic-ai/claude-agent-sdk';
import { withToolcap as withToolcapClaude } from 'toolcap/claude-agent-sdk';
import { toolcapMiddleware } from 'toolcap/langchain';
import { ToolcapPlugin, createToolcapPlugin } from 'toolcap/opencode';
import { MemoryStore, ToolResultProcessor } from 'toolcap';

const tools = {
  read_file: tool({
    description: 'Read a file',
    inputSchema: jsonSchema<{ path: string }>({ type: 'object', properties: { path: { type: 'string' } } }),
    execute: async ({ path }) => path,
  }),
} satisfies ToolSet;
const wrapped = withToolcap(tools);
const same: typeof tools = wrapTools(tools, new ToolResultProcessor({ store: new MemoryStore() }));
const mw = toolcapMiddleware({ store: new MemoryStore(), recoveryTools: true });
const plugin = createToolcapPlugin({ config: { suggest: { preset: 'opencode' } } });
// the Claude Agent SDK's own Options go in and come back as that type
const claudeOptions: ClaudeAgentOptions = withToolcapClaude({ allowedTools: ['Bash'], hooks: { PostToolUse: [{ matcher: 'Write', hooks: [async () => ({})] }] } } satisfies ClaudeAgentOptions);
void [wrapped.read_file, same, mw, plugin, ToolcapPlugin, claudeOptions];
