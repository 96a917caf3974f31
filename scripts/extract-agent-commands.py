#!/usr/bin/env python3
"""Extract the shell commands real coding agents issued from public session logs.

Builds fixtures/agent-commands/commands.jsonl (see fixtures/agent-commands/README.md).

The logs are read from git clones kept outside this repository:

    MIRRORS=/path/to/clones python3 scripts/extract-agent-commands.py > fixtures/agent-commands/commands.jsonl

where $MIRRORS/<owner>+<name> is a clone (a bare one will do) of each repository in
SOURCES below, holding the commit named there. Nothing is fetched over the network.

Each command is kept verbatim as the model wrote it (the `command` of Claude Code's
Bash tool; the `cmd` of Codex's exec_command, which its logs show as
`/bin/zsh -lc '<cmd>'`: the third word of that argv; the bash block of a
mini-swe-agent step). Commands are deduplicated across sources, first seen wins, in
the order below; per source at most LIMIT distinct commands are kept (the first ones
in file order, files in sorted order), so that no one log dominates.
"""

import glob
import json
import os
import re
import shlex
import subprocess
import sys

MIRRORS = os.environ.get("MIRRORS", "/work/.mirror")

# (repo, commit, path glob, format, agent, limit)
SOURCES = [
    # A Claude Code session exported by cctrace (Markdown, one JSON input per tool use).
    ("jimmc414/cctrace", "4b4d4add0bb3a65359ccf50501c6792e2fc13ba5",
     "conversation_full.md", "cctrace-md", "claude-code", None),
    # Another Claude Code session of the same project, as Claude Code's own JSONL.
    ("jimmc414/cctrace", "4b4d4add0bb3a65359ccf50501c6792e2fc13ba5",
     ".claude-sessions/phase0-investigation/raw_messages.jsonl", "claude-jsonl", "claude-code", None),
    # Automaker feature runs: Claude (the Claude Agent SDK, Claude Code's engine) and Codex CLI.
    ("yinkev/praDeep", "a67f04fca067f00c80dafdbc9e8d3b2b35dd1056",
     ".automaker/features/*/agent-output.md", "automaker-claude", "claude-code", None),
    ("yinkev/praDeep", "a67f04fca067f00c80dafdbc9e8d3b2b35dd1056",
     ".automaker/features/*/agent-output.md", "automaker-codex", "codex", 400),
    # another project's Automaker run with Claude (a Rust/Tauri app)
    ("vincentserpoul/youtun4", "b07c84669db01e66c48f4d19271aa8329b1fd90d",
     ".automaker/features/*/agent-output.md", "automaker-claude", "claude-code", None),
    # mini-swe-agent's recorded runs (its test data): one bash command per step.
    ("SWE-agent/mini-swe-agent", "a83fcae82d2a08f0ee0c688f9d137b3566c097f8",
     "tests/test_data/*.traj.json", "mini-swe-agent", "mini-swe-agent", None),
]


def git(repo, *args):
    gitdir = os.path.join(MIRRORS, repo.replace("/", "+"), "repo")
    if not os.path.isdir(gitdir):
        gitdir = os.path.join(MIRRORS, repo.replace("/", "+"))
    return subprocess.run(["git", "--git-dir", gitdir, *args], check=True,
                          capture_output=True).stdout


def files(repo, commit, pattern):
    names = git(repo, "ls-tree", "-r", "--name-only", commit).decode().splitlines()
    rx = re.compile("^" + re.escape(pattern).replace(r"\*", "[^/]*") + "$")
    return sorted(n for n in names if rx.match(n))


def cctrace_md(text):
    for m in re.finditer(r"\*\*Tool Use: Bash\*\* \(ID: \S+\)\n```json\n(.*?)\n```\n", text, re.S):
        inp = json.loads(m.group(1))
        yield inp["command"], bool(inp.get("run_in_background"))


def claude_jsonl(text):
    for line in text.splitlines():
        try:
            o = json.loads(line)
        except ValueError:
            continue
        content = (o.get("message") or {}).get("content")
        if not isinstance(content, list):
            continue
        for b in content:
            if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == "Bash":
                yield b["input"]["command"], bool(b["input"].get("run_in_background"))


def automaker_inputs(text):
    for m in re.finditer(r"🔧 Tool: Bash\nInput: (\{.*?\n\})\n", text, re.S):
        yield json.loads(m.group(1))


CODEX_SHELL = re.compile(r"^/bin/(zsh|bash) -lc ")


def automaker_claude(text):
    for inp in automaker_inputs(text):
        if not CODEX_SHELL.match(inp["command"]):
            yield inp["command"], bool(inp.get("run_in_background"))


def automaker_codex(text):
    for inp in automaker_inputs(text):
        if CODEX_SHELL.match(inp["command"]):
            try:
                argv = shlex.split(inp["command"])
            except ValueError:
                continue
            if len(argv) == 3:
                yield argv[2], False


def mini_swe_agent(text):
    for msg in json.loads(text):
        if msg.get("role") != "assistant" or not isinstance(msg.get("content"), str):
            continue
        for block in re.findall(r"```(?:mswea_bash_command|bash)\n(.*?)\n```", msg["content"], re.S):
            yield block, False


FORMATS = {
    "cctrace-md": cctrace_md,
    "claude-jsonl": claude_jsonl,
    "automaker-claude": automaker_claude,
    "automaker-codex": automaker_codex,
    "mini-swe-agent": mini_swe_agent,
}


def main():
    seen = set()
    for repo, commit, pattern, fmt, agent, limit in SOURCES:
        kept = 0
        for path in files(repo, commit, pattern):
            text = git(repo, "show", f"{commit}:{path}").decode("utf-8")
            for command, background in FORMATS[fmt](text):
                if limit is not None and kept >= limit:
                    break
                if not command.strip() or command in seen:
                    continue
                seen.add(command)
                kept += 1
                # a trailing `&` runs it in the background as much as run_in_background does
                background = background or (command.rstrip().endswith("&")
                                            and not command.rstrip().endswith("&&"))
                print(json.dumps({"command": command, "agent": agent, "background": background,
                                  "source": f"{repo} {path}@{commit}"}, ensure_ascii=False))
        print(f"{repo} {pattern} ({fmt}): {kept}", file=sys.stderr)


if __name__ == "__main__":
    main()
