import type { AgentMiddleware } from 'langchain';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { ProcessorOptions, ToolResultProcessor } from 'toolcap';

/** A processor, or the options to make one (a MemoryStore unless `store` says otherwise). */
export type ProcessorOrOptions = ToolResultProcessor | (ProcessorOptions & { processor?: ToolResultProcessor });

/** The recovery tools as LangChain tools, served from the processor's store. */
export declare function recoveryTools(processor?: ProcessorOrOptions): StructuredToolInterface[];
/** The agent middleware: every tool result processed by toolcap, with the recovery tools (unless `recoveryTools: false`). */
export declare function toolcapMiddleware(options?: ProcessorOrOptions & { recoveryTools?: boolean }): AgentMiddleware;
