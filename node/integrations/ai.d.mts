import type { Tool, ToolSet } from 'ai';
import type { ProcessorOptions, ToolResultProcessor } from 'toolcap';

/** A processor, or the options to make one (a MemoryStore unless `store` says otherwise). */
export type ProcessorOrOptions = ToolResultProcessor | (ProcessorOptions & { processor?: ToolResultProcessor });

/** The recovery tools (get_continuation, search_tool_output, fetch_tool_output, get_tool_result, query_tool_output) as AI SDK tools. */
export declare function recoveryTools(processor?: ProcessorOrOptions): Record<string, Tool<Record<string, unknown>, string>>;
/** `tools`, each result processed by toolcap (unchanged when under its threshold, else the capped text). */
export declare function wrapTools<T extends ToolSet>(tools: T, processor?: ProcessorOrOptions): T;
/** `tools` wrapped, plus the recovery tools, sharing one processor. */
export declare function withToolcap<T extends ToolSet>(tools: T, options?: ProcessorOrOptions): T & Record<string, Tool<Record<string, unknown>, string>>;
