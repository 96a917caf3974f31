// toolcap for Pi (@mariozechner/pi-coding-agent): oversized tool results reach the
// model as toolcap's view, with the full output kept in toolcap's store and the
// exact way back.
//
// Every tool but edits (`bash`, `read`, `grep`, `find`, `ls`, and tools other
// extensions add): after it ran, exactly as the model asked and as every other
// extension's `tool_call` gate decided, its text is capped and stored under the
// tool call id. A `bash` output Pi already cut (its last 2000 lines or 50 KB) is
// read back whole from the file Pi saved it to; Pi's status line ("Command
// exited with code N") stays at the end. Nothing is changed before a tool runs,
// and a result that is an error stays an error.
//
// The result goes through `toolcap hook pi` (JSON on stdin, JSON on stdout), so
// the store is the one `toolcap run`, `toolcap continue` and `toolcap search` use
// (one per project, in the state directory). `toolcap install pi` writes this
// file into toolcap's state directory with the toolcap path filled in and names
// it in Pi's settings.json `extensions` list; TOOLCAP_BIN overrides the path.
// When toolcap fails or is gone, the result is left as it is.
//
// Protocol: Pi's extension API (docs/extensions.md of the package,
// "tool_result": `event.toolName`, `toolCallId`, `input`, `content`, `details`,
// `isError`; a handler may return `{content, details, isError}` patches;
// dist/core/extensions/runner.js `emitToolResult`); see docs/agents.md.

import { spawnSync } from "node:child_process"

const TOOLCAP: string = process.env.TOOLCAP_BIN ?? "toolcap"
// how long one `toolcap hook` may take (it processes a 100 MB output in about a second);
// TOOLCAP_HOOK_TIMEOUT_MS overrides it
const HOOK_TIMEOUT_MS: number = Number(process.env.TOOLCAP_HOOK_TIMEOUT_MS) || 30_000

function ask(message: Record<string, unknown>): any {
  const r = spawnSync(TOOLCAP, ["hook", "pi"], {
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

export default function toolcap(pi: any) {
  pi.on("tool_result", async (event: any) => {
    const content = event?.content
    // only a result made of text (a read of an image is left as it is)
    if (!Array.isArray(content) || content.length === 0) return undefined
    if (!content.every((c: any) => c?.type === "text" && typeof c.text === "string")) {
      return undefined
    }
    const reply = ask({
      tool: event.toolName,
      callID: event.toolCallId,
      args: event.input ?? {},
      output: content.map((c: any) => c.text).join("\n"),
      details: event.details ?? null,
      isError: event.isError === true,
    })
    if (typeof reply?.output !== "string") return undefined
    return { content: [{ type: "text", text: reply.output }] }
  })
}
