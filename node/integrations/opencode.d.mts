import type { ProcessorOptions, ToolResultProcessor } from 'toolcap';

/** The hooks the plugin returns (opencode's `Hooks`, the part it uses). */
export interface ToolcapHooks {
  'tool.execute.after': (
    input: { tool: string; sessionID: string; callID: string; args?: unknown },
    output: { title: string; output: string; metadata: unknown },
  ) => Promise<void>;
}
/** An opencode plugin (`Plugin` of @opencode-ai/plugin). */
export type ToolcapOpencodePlugin = (input: unknown, options?: Record<string, unknown>) => Promise<ToolcapHooks>;

/** A plugin with its own processor (default: opencode's tool names in the suggestions, no store). */
export declare function createToolcapPlugin(options?: ProcessorOptions & { processor?: ToolResultProcessor }): ToolcapOpencodePlugin;
/** The plugin with the defaults. */
export declare const ToolcapPlugin: ToolcapOpencodePlugin;
export * as toolcap from 'toolcap';
