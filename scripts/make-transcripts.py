#!/usr/bin/env python3
"""Build the scripted 200-turn agent conversation of the history tests.

Every tool result is real: files of this machine's Python standard library read
whole or in part, grep over it, and shell commands run in it (cwd = the stdlib
directory, so paths are relative). The script is deterministic for a given
Python installation (a seeded choice over the sorted file list).

The same conversation is written in the three message formats toolcap's
`history::prepare_messages` reads:

  tests/fixtures/history/openai_chat.json       Chat Completions messages
  tests/fixtures/history/openai_responses.json  Responses input items
  tests/fixtures/history/anthropic.json         Anthropic Messages messages

Each file is `{"source": ..., "turns": 200, "messages": [...]}`. A failed
command's result is marked as an error the way each format allows: Anthropic's
`is_error`, and for the OpenAI formats an `Error: exit code N` first line (the
form harnesses such as Codex give it).

Usage: python3 scripts/make-transcripts.py [--turns 200] [--out tests/fixtures/history]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import sysconfig
from pathlib import Path

READ_LIMIT = 150  # lines a read returns (a harness's read limit)
GREP_LIMIT = 80  # lines of grep output kept (the harness's head_limit)
PATTERNS = [
    "def __init__",
    "raise ValueError",
    "import re",
    "class .*Error",
    "@property",
    "return None",
    "TODO",
    "async def",
    "yield from",
    "lambda",
]
MODULES = ["json", "re", "typing", "pathlib", "asyncio", "collections", "http.client", "email"]


def stdlib_files(root: Path) -> list[str]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root)
        parts = rel.parts
        if parts and parts[0] in ("site-packages", "test", "idlelib", "lib2to3", "__pycache__", "tkinter", "turtledemo"):
            dirnames[:] = []
            continue
        dirnames.sort()
        for f in sorted(filenames):
            if f.endswith(".py"):
                out.append(str(rel / f) if parts else f)
    return out


def run(cmd: str, cwd: Path) -> tuple[str, int]:
    p = subprocess.run(cmd, shell=True, cwd=cwd, capture_output=True, text=True, errors="replace")
    return p.stdout + p.stderr, p.returncode


def script(root: Path, turns: int) -> list[dict]:
    """The conversation as neutral turns: the model's words, a call, its result."""
    rng = random.Random(26)
    files = stdlib_files(root)
    dirs = sorted({str(Path(f).parent) for f in files if "/" in f})
    read_paths: list[str] = []
    out = []
    for t in range(turns):
        kind = rng.choices(["read", "grep", "shell", "glob", "python", "fail"], [40, 20, 15, 10, 10, 5])[0]
        said = ""
        if kind == "read":
            path = rng.choice(files)
            text = (root / path).read_text(errors="replace")
            lines = text.splitlines(keepends=True)
            offset = 0 if len(lines) <= READ_LIMIT or rng.random() < 0.6 else rng.randrange(len(lines) - READ_LIMIT)
            result = "".join(lines[offset : offset + READ_LIMIT])
            args = {"path": path} if offset == 0 else {"path": path, "offset": offset + 1, "limit": READ_LIMIT}
            name, error = "read_file", False
            said = f"Reading {path}."
            read_paths.append(path)
        elif kind == "grep":
            pattern, d = rng.choice(PATTERNS), rng.choice(dirs)
            result, _ = run(f"grep -rn -E -e '{pattern}' {d} | head -n {GREP_LIMIT}", root)
            name, args, error = "grep", {"pattern": pattern, "path": d}, False
            said = f"Searching {d} for `{pattern}`."
        elif kind == "shell":
            d = rng.choice(dirs)
            cmd = rng.choice([f"ls -la {d}", f"wc -l {d}/*.py", f"du -a {d} | sort -n | tail -n 40"])
            result, code = run(cmd, root)
            name, args, error = "shell", {"command": cmd}, code != 0
            said = f"Running `{cmd}`."
        elif kind == "glob":
            d = rng.choice(dirs)
            result, _ = run(f"find {d} -name '*.py' | sort | head -n 100", root)
            name, args, error = "glob", {"pattern": "**/*.py", "path": d}, False
            said = f"Listing the Python files under {d}."
        elif kind == "python":
            mod = rng.choice(MODULES)
            cmd = f"python3 -c 'import {mod}; help({mod})' | head -n 120"
            result, code = run(cmd, root)
            name, args, error = "shell", {"command": cmd}, code != 0
            said = f"Reading the documentation of {mod}."
        else:
            cmd = rng.choice(["python3 -c 'import not_a_module'", "cat no/such/file.py", "python3 -m json.tool no_such.json"])
            result, code = run(cmd, root)
            name, args, error = "shell", {"command": cmd}, code != 0
            said = f"Trying `{cmd}`."
        # now and then the model goes back to a file it read before (by its path)
        if t % 9 == 8 and len(read_paths) > 3:
            said += f" Compare with {rng.choice(read_paths[:-1])} read earlier."
        out.append({"said": said, "name": name, "args": args, "result": result, "error": error})
    return out


def openai_chat(turns: list[dict]) -> list[dict]:
    m = [
        {"role": "system", "content": "You are a coding agent exploring the Python standard library."},
        {"role": "user", "content": "Survey the standard library's parsing code and report what you find."},
    ]
    for i, t in enumerate(turns):
        cid = f"call_{i:03d}"
        m.append({"role": "assistant", "content": t["said"], "tool_calls": [
            {"id": cid, "type": "function", "function": {"name": t["name"], "arguments": json.dumps(t["args"])}}]})
        text = f"Error: exit code 1\n{t['result']}" if t["error"] else t["result"]
        m.append({"role": "tool", "tool_call_id": cid, "content": text})
    return m


def openai_responses(turns: list[dict]) -> list[dict]:
    m = [
        {"role": "system", "content": "You are a coding agent exploring the Python standard library."},
        {"role": "user", "content": "Survey the standard library's parsing code and report what you find."},
    ]
    for i, t in enumerate(turns):
        cid = f"call_{i:03d}"
        m.append({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": t["said"]}]})
        m.append({"type": "function_call", "call_id": cid, "name": t["name"], "arguments": json.dumps(t["args"])})
        text = f"Error: exit code 1\n{t['result']}" if t["error"] else t["result"]
        m.append({"type": "function_call_output", "call_id": cid, "output": text})
    return m


def anthropic(turns: list[dict]) -> list[dict]:
    m = [{"role": "user", "content": "Survey the standard library's parsing code and report what you find."}]
    for i, t in enumerate(turns):
        cid = f"toolu_{i:03d}"
        m.append({"role": "assistant", "content": [
            {"type": "text", "text": t["said"]},
            {"type": "tool_use", "id": cid, "name": t["name"], "input": t["args"]}]})
        block = {"type": "tool_result", "tool_use_id": cid, "content": t["result"]}
        if t["error"]:
            block["is_error"] = True
        m.append({"role": "user", "content": [block]})
    return m


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=200)
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent.parent / "tests/fixtures/history"))
    a = ap.parse_args()
    root = Path(sysconfig.get_paths()["stdlib"])
    turns = script(root, a.turns)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    source = f"Python {sys.version.split()[0]} standard library, {a.turns} turns, scripts/make-transcripts.py"
    for name, build in [("openai_chat", openai_chat), ("openai_responses", openai_responses), ("anthropic", anthropic)]:
        doc = {"source": source, "turns": a.turns, "messages": build(turns)}
        (out / f"{name}.json").write_text(json.dumps(doc, indent=0, ensure_ascii=False) + "\n")
    chars = sum(len(t["result"]) for t in turns)
    print(f"{a.turns} turns, {chars:,} chars of tool results, written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
