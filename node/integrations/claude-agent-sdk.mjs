// toolcap for the Claude Agent SDK (`@anthropic-ai/claude-agent-sdk`): one call adds
// to a query's options what `toolcap install claude-code` adds to Claude Code's
// settings, for the Claude Code process the SDK spawns:
//
//   import { query } from '@anthropic-ai/claude-agent-sdk';
//   import { withToolcap } from 'toolcap/claude-agent-sdk';
//   for await (const m of query({ prompt, options: withToolcap({ allowedTools: ['Bash', 'Read', 'Grep'] }) })) ...
//
// - `env.CLAUDE_CODE_SHELL_PREFIX`: toolcap's prefix script (`toolcap shell-prefix
//   claude-code --script` writes it in toolcap's state dir): Bash commands run through
//   toolcap after Claude Code's permission rules decided on the model's own command,
//   and a long output reaches the model as toolcap's view. A prefix already in `env`
//   is left as it is.
// - `hooks.PreToolUse` on Bash (notes the call's id for the prefix; changes nothing)
//   and `hooks.PostToolUse` on `mcp__.*|Read|Grep` (caps those results after they
//   ran): callbacks in this process that hand the hook input to `toolcap hook
//   claude-code` and return its reply.
//
// Nothing decides for the user: permission rules, `canUseTool` and the user's own
// hooks run as before. It fails open: without a runnable toolcap the options come
// back as they were; a hook whose toolcap fails (or takes over 30 s) returns `{}`; the prefix
// script runs each command with the shell itself when toolcap is gone.

import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { binaryPath } = require('../platform.js');

/** The toolcap program: `toolcap` given, else this package's binary (or $TOOLCAP_BINARY). */
function programOf(toolcap) {
  if (toolcap) return toolcap;
  try {
    return binaryPath();
  } catch {
    return null;
  }
}

/** The prefix script's path, or null when toolcap cannot give one. */
function prefixScript(program, env) {
  const r = spawnSync(program, ['shell-prefix', 'claude-code', '--script'], {
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 30_000,
  });
  const path = r.status === 0 && typeof r.stdout === 'string' ? r.stdout.trim() : '';
  return path.startsWith('/') ? path : null;
}

// a hook that has not answered in this time is ended and changes nothing (as the opencode
// and Pi integrations do); TOOLCAP_HOOK_TIMEOUT_MS overrides it
const HOOK_TIMEOUT_MS = Number(process.env.TOOLCAP_HOOK_TIMEOUT_MS) || 30_000;

/** A hook callback running `toolcap hook claude-code` on the input: its reply, or `{}`. */
function hookCallback(program, env) {
  return (input, _toolUseID, { signal } = {}) =>
    new Promise((resolve) => {
      let child;
      try {
        child = spawn(program, ['hook', 'claude-code'], {
          env,
          cwd: input && typeof input.cwd === 'string' ? input.cwd : undefined,
          stdio: ['pipe', 'pipe', 'ignore'],
          signal,
          timeout: HOOK_TIMEOUT_MS,
          killSignal: 'SIGKILL',
        });
      } catch {
        resolve({});
        return;
      }
      const out = [];
      child.stdout.on('data', (d) => out.push(d));
      child.on('error', () => resolve({}));
      child.stdin.on('error', () => {});
      child.on('close', (code) => {
        const text = Buffer.concat(out).toString('utf8').trim();
        if (code !== 0 || !text) return resolve({});
        try {
          const reply = JSON.parse(text);
          resolve(reply && typeof reply === 'object' && !Array.isArray(reply) ? reply : {});
        } catch {
          resolve({});
        }
      });
      child.stdin.end(JSON.stringify(input));
    });
}

/**
 * `options` with toolcap's shell prefix (in `env`) and its PreToolUse / PostToolUse
 * hooks added after the user's own; the options as given when no toolcap runs.
 * `toolcap`: the program to use (default: this package's binary).
 */
export function withToolcap(options = {}, { toolcap } = {}) {
  const program = programOf(toolcap);
  if (!program) return options;
  // the environment the SDK gives Claude Code (its default: this process's), so the
  // hooks here and the prefix there find the same state dir and store
  const env = { ...(options.env ?? process.env) };
  const script = prefixScript(program, env);
  if (!script) return options;
  if (!env.CLAUDE_CODE_SHELL_PREFIX) env.CLAUDE_CODE_SHELL_PREFIX = script;
  const hook = hookCallback(program, env);
  const hooks = { ...(options.hooks ?? {}) };
  hooks.PreToolUse = [...(hooks.PreToolUse ?? []), { matcher: 'Bash', hooks: [hook] }];
  hooks.PostToolUse = [...(hooks.PostToolUse ?? []), { matcher: 'mcp__.*|Read|Grep', hooks: [hook] }];
  return { ...options, env, hooks };
}
