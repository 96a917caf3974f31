// toolcap for the Claude Agent SDK (`@anthropic-ai/claude-agent-sdk`): see claude-agent-sdk.mjs.

/** The part of the SDK's `Options` that `withToolcap` reads and extends. */
export interface ClaudeAgentOptionsLike {
  env?: { [envVar: string]: string | undefined };
  hooks?: { [event: string]: unknown[] | undefined };
}

/**
 * `options` with toolcap's shell prefix (`env.CLAUDE_CODE_SHELL_PREFIX`) and its
 * PreToolUse (Bash) and PostToolUse (`mcp__.*|Read|Grep`) hook callbacks added after
 * the user's own; the options as given when no toolcap program runs.
 */
export declare function withToolcap<T extends ClaudeAgentOptionsLike>(
  options?: T,
  opts?: {
    /** The toolcap program (default: this package's binary, or $TOOLCAP_BINARY). */
    toolcap?: string;
  },
): T;
