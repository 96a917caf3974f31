#!/usr/bin/env python3
"""Record the script Claude Code hands its shell prefix for each corpus command.

Makes fixtures/agent-commands/claude-scripts.jsonl, read by the unit test
`every_recorded_claude_script_gives_back_its_command` (crates/toolcap-cli/src/claude_script.rs):

    CLAUDE=~/.cache/toolcap-ci/agents/node_modules/.bin/claude \
        python3 scripts/record-claude-scripts.py > fixtures/agent-commands/claude-scripts.jsonl

The real Claude Code (installed by .ci/install-agents) runs once, non-interactively
(`-p`, `--allowedTools Bash`), in a throwaway HOME and project, against a scripted
model server on 127.0.0.1 whose every turn asks for the next foreground corpus
command through the Bash tool. `CLAUDE_CODE_SHELL_PREFIX` is a logger that writes
down what Claude Code hands it (its arguments and `__CLAUDE_CC_COMMAND_TEXT`) and
runs nothing: no corpus command is ever executed. Each output line:

    {"command": CMD, "head": H, "tail": T, "command_text": $__CLAUDE_CC_COMMAND_TEXT or null}

where the one argument Claude Code handed over is heads[H] + T (the first line is
{"heads": [...]}: the parts of the scripts before the command, a few distinct ones).
An argument N records only the first N commands; PROBE_RAW=FILE keeps everything the
prefix saw and Claude Code's JSON result there.

Commands Claude Code refused by its own checks (its `permission_denials`) never
reach the prefix and are listed on stderr; the others are paired with the Bash
scripts in call order (their numbers must match).
"""

import http.server
import json
import os
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "fixtures", "agent-commands", "commands.jsonl")
CLAUDE = os.environ.get(
    "CLAUDE", os.path.expanduser("~/.cache/toolcap-ci/agents/node_modules/.bin/claude"))

LOGGER = """#!/usr/bin/env python3
import json, os, sys
with open(os.environ["PROBE_LOG"], "a") as f:
    f.write(json.dumps({"argv": sys.argv[1:],
                        "command_text": os.environ.get("__CLAUDE_CC_COMMAND_TEXT")}) + "\\n")
"""


def commands():
    with open(CORPUS, encoding="utf-8") as f:
        entries = [json.loads(line) for line in f]
    return [e["command"] for e in entries if not e["background"]]


def handler(cmds):
    class H(http.server.BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"{}")
            if "count_tokens" in self.path:
                return self.reply({"input_tokens": 100})
            turn = sum(1 for m in body.get("messages", []) if isinstance(m.get("content"), list)
                       for c in m["content"] if c.get("type") == "tool_result")
            main = bool(body.get("tools"))
            if main and turn < len(cmds):
                block = {"type": "tool_use", "id": f"toolu_probe_{turn}", "name": "Bash",
                         "input": {"command": cmds[turn], "description": "probe"}}
                stop = "tool_use"
            else:
                block = {"type": "text", "text": "done"}
                stop = "end_turn"
            msg = {"id": f"msg_{turn}", "type": "message", "role": "assistant",
                   "model": body.get("model", "m"), "content": [block], "stop_reason": stop,
                   "stop_sequence": None, "usage": {"input_tokens": 100, "output_tokens": 10}}
            if not body.get("stream"):
                return self.reply(msg)
            start = dict(msg, content=[], stop_reason=None)
            if block["type"] == "tool_use":
                opened = dict(block, input={})
                delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            else:
                opened = {"type": "text", "text": ""}
                delta = {"type": "text_delta", "text": "done"}
            events = [
                ("message_start", {"type": "message_start", "message": start}),
                ("content_block_start", {"type": "content_block_start", "index": 0,
                                         "content_block": opened}),
                ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                         "delta": delta}),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                ("message_delta", {"type": "message_delta",
                                   "delta": {"stop_reason": stop, "stop_sequence": None},
                                   "usage": {"output_tokens": 10}}),
                ("message_stop", {"type": "message_stop"}),
            ]
            data = "".join(f"event: {e}\ndata: {json.dumps(d)}\n\n" for e, d in events).encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def reply(self, obj):
            data = json.dumps(obj).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return H


def main():
    cmds = commands()
    if len(sys.argv) > 1:
        cmds = cmds[: int(sys.argv[1])]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler(cmds))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as tmp:
        home, project = os.path.join(tmp, "home"), os.path.join(tmp, "project")
        os.makedirs(home)
        os.makedirs(os.path.join(project, ".git"))
        logger, log = os.path.join(tmp, "prefix.py"), os.path.join(tmp, "prefix.log")
        with open(logger, "w") as f:
            f.write(LOGGER)
        os.chmod(logger, 0o755)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAUDE", "ANTHROPIC"))}
        env.update(HOME=home, PWD=project, PROBE_LOG=log, CLAUDE_CODE_SHELL_PREFIX=logger,
                   ANTHROPIC_BASE_URL=f"http://127.0.0.1:{server.server_port}",
                   ANTHROPIC_API_KEY="sk-probe", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1")
        run = subprocess.run([CLAUDE, "-p", "Run the commands.", "--output-format", "json",
                              "--allowedTools", "Bash", "--max-turns", str(len(cmds) + 5)],
                             cwd=project, env=env, stdin=subprocess.DEVNULL,
                             capture_output=True, text=True, timeout=3600)
        if run.returncode != 0:
            print(f"claude exited {run.returncode}: {run.stderr[-2000:]}", file=sys.stderr)
        records = []
        if os.path.exists(log):
            with open(log, encoding="utf-8") as f:
                records = [json.loads(line) for line in f]
    server.shutdown()
    if os.environ.get("PROBE_RAW"):
        with open(os.environ["PROBE_RAW"], "w") as f:
            f.write(json.dumps({"stdout": run.stdout, "records": records}))
    # the Bash tool's scripts, in call order: each one tells Claude Code its cwd
    scripts = [r for r in records if len(r["argv"]) == 1 and " && pwd -P >| " in r["argv"][0]]
    try:
        denials = json.loads(run.stdout).get("permission_denials") or []
    except ValueError:
        denials = []
    denied = {d.get("tool_input", {}).get("command") for d in denials}
    handed = [c for c in cmds if c not in denied]
    if len(scripts) != len(handed):
        sys.exit(f"{len(handed)} commands allowed but {len(scripts)} Bash scripts seen: "
                 "cannot pair them by order")
    # the scripts differ only after their last `&& eval `: each common head is
    # written once (a script is its head followed by its tail)
    heads, rows = [], []
    for cmd, s in zip(handed, scripts):
        script = s["argv"][0]
        at = script.rfind("&& eval ")
        head, tail = (script[: at + 8], script[at + 8:]) if at >= 0 else ("", script)
        if head not in heads:
            heads.append(head)
        rows.append({"command": cmd, "head": heads.index(head), "tail": tail,
                     "command_text": s["command_text"]})
    print(json.dumps({"heads": heads}, ensure_ascii=False))
    for row in rows:
        print(json.dumps(row, ensure_ascii=False))
    print(f"{len(cmds)} commands, {len(scripts)} Bash scripts, {len(denied)} refused by Claude Code",
          file=sys.stderr)
    for d in sorted(c for c in denied if c):
        print(f"  refused: {d!r}", file=sys.stderr)


if __name__ == "__main__":
    main()
