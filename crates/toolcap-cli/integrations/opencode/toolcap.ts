// toolcap for opencode: oversized tool results reach the model as toolcap's view,
// with the full output kept in toolcap's store and the exact way back.
//
// Every tool but edits and plans (`bash`, `read`, `grep`, `glob`, `webfetch`, MCP
// tools...): after it ran, exactly as the model asked and as opencode's permission
// rules decided (`permission.bash` patterns, `external_directory`), its output is
// capped and stored under the call id. A long `bash` output that opencode already
// cut is read back whole from the file opencode saved it to (`metadata.outputPath`);
// its exit status (`metadata.exit`) goes into the view's `Command:` line.
// An MCP tool's result that comes as the server's `content` blocks (Kilo Code
// 7.7.7) is capped the same way: its text blocks become one block of the view.
// Nothing is changed before a tool runs.
//
// Both go through `toolcap hook opencode` (JSON on stdin, JSON on stdout), so the
// store is the same one `toolcap run`, `toolcap continue` and `toolcap search`
// use (one per project, in the state directory). `toolcap install opencode`
// writes this file into toolcap's state directory with the toolcap path filled
// in and names it in opencode.json's `plugin` list (nothing is added to the
// project's `.opencode/`); TOOLCAP_BIN overrides the path. When toolcap fails or
// is gone, the tool's output is left as it is.
//
// Protocol: opencode's plugin hooks (`Hooks` in packages/plugin/src/index.ts of
// sst/opencode, now anomalyco/opencode): `tool.execute.before` (input {tool,
// sessionID, callID}, output {args}) and `tool.execute.after` (input {tool,
// sessionID, callID[, args]}, output {title, output, metadata}: output.output
// may be changed); see docs/agents.md.

import { spawnSync } from "node:child_process"

const TOOLCAP: string = process.env.TOOLCAP_BIN ?? "toolcap"
// how long one `toolcap hook` may take (it processes a 100 MB output in about a second);
// TOOLCAP_HOOK_TIMEOUT_MS overrides it
const HOOK_TIMEOUT_MS: number = Number(process.env.TOOLCAP_HOOK_TIMEOUT_MS) || 30_000

function ask(message: Record<string, unknown>): any {
  const r = spawnSync(TOOLCAP, ["hook", "opencode"], {
    input: JSON.stringify(message),
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    // a hook that hangs must not freeze the agent: after this the output is left as it is
    timeout: HOOK_TIMEOUT_MS,
    killSignal: "SIGKILL",
  })
  if (r.error || r.status !== 0 || typeof r.stdout !== "string" || !r.stdout.trim()) {
    return undefined
  }
  try {
    return JSON.parse(r.stdout)
  } catch {
    return undefined
  }
}

// an MCP result's text blocks joined, when it holds text blocks only
function mcpText(content: unknown): string | undefined {
  if (!Array.isArray(content) || content.length === 0) return undefined
  const texts: string[] = []
  for (const block of content) {
    if (block?.type !== "text" || typeof block.text !== "string") return undefined
    texts.push(block.text)
  }
  return texts.join("\n")
}

// each call's arguments, for releases whose tool.execute.after input has none
const argsByCall = new Map<string, Record<string, unknown>>()

export const ToolcapPlugin = async () => ({
  "tool.execute.before": async (
    input: { tool: string; sessionID: string; callID: string },
    output: { args: Record<string, unknown> },
  ) => {
    if (output?.args) argsByCall.set(input.callID, { ...output.args })
  },
  "tool.execute.after": async (
    input: { tool: string; sessionID: string; callID: string; args?: Record<string, unknown> },
    output: {
      title?: string
      output?: unknown
      metadata?: unknown
      // an MCP tool's result as the server sent it (Kilo Code 7.7.7 passes it so)
      content?: unknown
      structuredContent?: unknown
    },
  ) => {
    const args = input.args ?? argsByCall.get(input.callID) ?? {}
    argsByCall.delete(input.callID)
    const mcp = mcpText(output?.content)
    const text = typeof output?.output === "string" ? output.output : mcp
    if (text === undefined) return
    const reply = ask({
      event: "after",
      tool: input.tool,
      callID: input.callID,
      args,
      output: text,
      metadata: output.metadata ?? null,
    })
    if (typeof reply?.output !== "string") return
    if (typeof output.output === "string") {
      output.output = reply.output
    } else {
      output.content = [{ type: "text", text: reply.output }]
      delete output.structuredContent
    }
  },
})
