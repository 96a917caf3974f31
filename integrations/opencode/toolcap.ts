// toolcap for opencode: oversized tool results reach the model as toolcap's view,
// with the full output kept in toolcap's store and the exact way back.
//
// - `bash`: before it runs, its command is wrapped in `toolcap run` (the whole
//   output goes through toolcap's streaming path; the exit status is the
//   command's).
// - every other tool but edits and plans (`read`, `grep`, `glob`, `webfetch`,
//   MCP tools...): after it runs, its output is capped and stored under the
//   call id.
//
// Both go through `toolcap hook opencode` (JSON on stdin, JSON on stdout), so the
// store is the same one `toolcap run`, `toolcap continue` and `toolcap search`
// use (one per project, in the state directory). `toolcap install opencode`
// copies this file into opencode's plugin directory with the toolcap path filled
// in; TOOLCAP_BIN overrides it. When toolcap fails, the tool's own input and
// output are left as they are.
//
// Protocol: opencode's plugin hooks (`Hooks` in packages/plugin/src/index.ts of
// sst/opencode, now anomalyco/opencode): `tool.execute.before` (input {tool,
// sessionID, callID}, output {args}: args may be changed) and
// `tool.execute.after` (input {tool, sessionID, callID[, args]}, output {title,
// output, metadata}: output.output may be changed); see docs/agents.md.

import { spawnSync } from "node:child_process"

const TOOLCAP: string = process.env.TOOLCAP_BIN ?? "toolcap"

function ask(message: Record<string, unknown>): any {
  const r = spawnSync(TOOLCAP, ["hook", "opencode"], {
    input: JSON.stringify(message),
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
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

// each call's arguments, for releases whose tool.execute.after input has none
const argsByCall = new Map<string, Record<string, unknown>>()

export const ToolcapPlugin = async () => ({
  "tool.execute.before": async (
    input: { tool: string; sessionID: string; callID: string },
    output: { args: Record<string, unknown> },
  ) => {
    if (output?.args) argsByCall.set(input.callID, { ...output.args })
    if (input.tool !== "bash" || !output?.args) return
    const reply = ask({ event: "before", tool: input.tool, callID: input.callID, args: output.args })
    if (reply?.args && typeof reply.args.command === "string") {
      output.args.command = reply.args.command
    }
  },
  "tool.execute.after": async (
    input: { tool: string; sessionID: string; callID: string; args?: Record<string, unknown> },
    output: { title: string; output: string; metadata: unknown },
  ) => {
    const args = input.args ?? argsByCall.get(input.callID) ?? {}
    argsByCall.delete(input.callID)
    if (typeof output?.output !== "string") return
    const reply = ask({
      event: "after",
      tool: input.tool,
      callID: input.callID,
      args,
      output: output.output,
    })
    if (typeof reply?.output === "string") output.output = reply.output
  },
})
