#!/usr/bin/env python3
"""Build benches/nextuse/cases.jsonl.gz from public agent sessions.

Each source below is a file in a public GitHub repository holding one real agent
session. The repositories are read from local snapshots (git directories, no work
tree) under $NEXTUSE_MIRRORS (default /work/.mirror/OWNER+NAME/repo); the
snapshots are not kept in this repository, only the cases this script extracts.
Every case records where it came from (repository, commit, path, index of the
tool call in the session), the harness, the tool and its arguments, the full
result text, the agent's next three actions and the used facts (rule.py).

    python3 benches/nextuse/extract.py            # rewrite cases.jsonl.gz
    python3 benches/nextuse/extract.py --list     # sources and their counts

Left out on purpose (kept for an independent check of the same question):
RussellRyanH/CSCI-635-LiveSWE-Agent, Etelis/skillsbench-replay,
lgetter/swe-agent-trajectory-analysis, apurv-sawant15/SWE-Agent-Trajectory-Analysis,
RLin8103/cs598-swe-agent-trajectory-analysis-group8, kiliman/claude-transcript,
DRMacIver/claude-reliability, SWE-agent/SWE-agent's demonstrations and test data.
"""

import argparse
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import rule  # noqa: E402

THRESHOLD = 3500
HERE = Path(__file__).resolve().parent
OUT = HERE / "cases.jsonl.gz"
EXCLUDED = {
    "RussellRyanH/CSCI-635-LiveSWE-Agent", "Etelis/skillsbench-replay",
    "lgetter/swe-agent-trajectory-analysis", "apurv-sawant15/SWE-Agent-Trajectory-Analysis",
    "RLin8103/cs598-swe-agent-trajectory-analysis-group8", "kiliman/claude-transcript",
    "DRMacIver/claude-reliability", "SWE-agent/SWE-agent",
}

# (repository, format, [paths]); the commit is the newest one of the snapshot
# that holds the path (recorded in each case).
SOURCES = [
    # Gemini CLI, `--output-format stream-json` (tool_use / tool_result events)
    ("metaphi-agent/figma-eval-010ac575-1280-41fe-be26-130311bef5ed-gemini_cli", "gemini_stream", ["transcript.jsonl"]),
    ("metaphi-agent/figma-eval-49bdd49a-5831-4dca-ad1b-a66b7b9901fa-gemini_cli", "gemini_stream", ["transcript.jsonl"]),
    ("metaphi-agent/figma-eval-65829f23-19f2-4c9a-9dc9-9be934780ffc-gemini_cli", "gemini_stream", ["transcript.jsonl"]),
    ("metaphi-agent/figma-eval-6d91b0b6-ef54-439d-9d50-06e79090dce5-gemini_cli", "gemini_stream", ["transcript.jsonl"]),
    ("metaphi-agent/figma-eval-d00f7a9b-ecaf-4a62-b8e7-388b8cc18957-gemini_cli", "gemini_stream", ["transcript.jsonl"]),
    # Claude Managed Agents sessions (agent.tool_use / agent.tool_result events)
    ("open-hai/there-is-more-to-context-than-location-s6c6", "managed_agents", ["transcript.jsonl"]),
    ("open-hai/effect-of-offset-correction-and-cursor-on-mid-b3nz", "managed_agents", ["transcript.jsonl"]),
    ("open-hai/pinchcatcher-enabling-multi-selection-for-gaze-4rga", "managed_agents", ["transcript.jsonl"]),
    ("open-hai/point-of-no-undo-irreversible-interactions-as-a-hraq", "managed_agents", ["transcript.jsonl"]),
    ("open-hai/short-form-videos-degrade-our-capacity-to-retain-fhv7", "managed_agents", ["transcript.jsonl"]),
    # Codex CLI rollout (native) and Codex / Claude Code sessions exported as chat messages
    ("abmoh4219/pharma-platform-fullstack", "codex_rollout", ["rollout-2026-03-24T19-25-50-019d20aa-af36-7500-879c-e2319e96a4ee.jsonl"]),
    ("abmoh4219/pharma-platform-fullstack", "chat_messages", ["trajectory.json", "trajectory-1.json"]),
    ("Eyob-smax/Anju-Medical-Appointment-System", "chat_messages", ["trajectory.json", "session_trajectory.json"]),
    ("Eyob-smax/MeridianOps-Retail-Performance-Platform", "chat_messages", ["trajectory.json", "trajectory-2.json", "sessions/trajectory.json", "sessions/trajectory-2.json"]),
    ("Tadi-san/TrainingOps-Scheduling-Content-Intelligence-system", "chat_messages", ["trajectory.json"]),
    ("richh-s/TASK-20260318-393C91", "chat_messages", ["sessions/develop-1.json", "trajectory.json"]),
    ("Strawhat404/Meridian-Academy", "chat_messages", ["sessions/bugfix-1.json"]),
    # SWE-agent's interface (open / goto / search_dir / edit) driven by CodeR's roles:
    # the first 40 SWE-bench Lite trajectories of the repository, by name
    ("NL2Code/CodeR", "swe_history", "trajs/*.traj:40"),
]


def mirror(repo):
    base = os.environ.get("NEXTUSE_MIRRORS", "/work/.mirror")
    return Path(base) / repo.replace("/", "+") / "repo"


def git(repo, *args):
    return subprocess.run(["git", "-C", str(mirror(repo)), *args], capture_output=True, check=False).stdout


def newest_commit(repo, path):
    for h in git(repo, "log", "--all", "--format=%H", "--", path).decode().split():
        if subprocess.run(["git", "-C", str(mirror(repo)), "cat-file", "-e", f"{h}:{path}"], capture_output=True).returncode == 0:
            return h
    return None


def text_of(content):
    """Plain text of a message/tool content in any of the formats."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(text_of(c) for c in content)
    if isinstance(content, dict):
        for k in ("text", "output", "content"):
            if k in content:
                return text_of(content[k])
        return ""
    return str(content)


def parse_args_json(s):
    if isinstance(s, dict):
        return s
    try:
        v = json.loads(s)
        return v if isinstance(v, dict) else {"input": s}
    except (ValueError, TypeError):
        return {"input": s if isinstance(s, str) else json.dumps(s)}


# Each parser yields a session as a list of steps: ("text", str) for what the
# agent saw or said, ("call", id, tool, args) and ("result", id, text).

def parse_gemini_stream(raw):
    for line in raw.splitlines():
        try:
            d = json.loads(line)
        except ValueError:
            continue
        t = d.get("type")
        if t == "message":
            yield ("text", text_of(d.get("content")))
        elif t == "tool_use":
            yield ("call", d.get("tool_id"), d.get("tool_name"), d.get("parameters") or {})
        elif t == "tool_result":
            out = d.get("output")
            if out is None and isinstance(d.get("error"), dict):
                out = d["error"].get("message", "")
            yield ("result", d.get("tool_id"), text_of(out))


def parse_managed_agents(raw):
    for line in raw.splitlines():
        try:
            d = json.loads(line)
        except ValueError:
            continue
        k, r = d.get("kind"), d.get("raw") or {}
        if k in ("message", "define_outcome", "thinking"):
            yield ("text", text_of(d.get("content")) or text_of(r.get("content")))
        elif k == "tool_use":
            yield ("call", r.get("id"), d.get("tool") or r.get("name"), r.get("input") or {})
        elif k == "tool_result":
            yield ("result", r.get("tool_use_id"), text_of(r.get("content")) or text_of(d.get("content")))


def parse_codex_rollout(raw):
    for line in raw.splitlines():
        try:
            d = json.loads(line)
        except ValueError:
            continue
        p = d.get("payload") or {}
        if d.get("type") != "response_item":
            continue
        t = p.get("type")
        if t == "message":
            yield ("text", text_of(p.get("content")))
        elif t in ("function_call", "custom_tool_call", "local_shell_call"):
            args = p.get("arguments") if t == "function_call" else (p.get("input") or p.get("action"))
            yield ("call", p.get("call_id"), p.get("name") or "local_shell", parse_args_json(args))
        elif t in ("function_call_output", "custom_tool_call_output"):
            out = p.get("output")
            if isinstance(out, str):
                try:
                    o = json.loads(out)
                    if isinstance(o, dict) and "output" in o:
                        out = o["output"]
                except ValueError:
                    pass
            yield ("result", p.get("call_id"), text_of(out))


def parse_chat_messages(raw):
    d = json.loads(raw)
    msgs = d["messages"] if isinstance(d, dict) else d
    for m in msgs:
        role = m.get("role")
        if role == "tool":
            yield ("result", m.get("tool_call_id"), text_of(m.get("content")))
            continue
        c = m.get("content")
        if isinstance(c, list):
            c = [x for x in c if not (isinstance(x, dict) and x.get("type") == "tool_call")]
        yield ("text", text_of(c))
        for tc in m.get("tool_calls") or []:
            f = tc.get("function") or {}
            yield ("call", tc.get("id"), f.get("name"), parse_args_json(f.get("arguments")))


def parse_swe_history(raw):
    """SWE-agent style history (CodeR is built on SWE-agent's interface): an assistant
    message ends with its command in a fenced block; the next user message of the same
    agent is that command's output."""
    import re as _re
    d = json.loads(raw)
    pending = {}
    n = 0
    for m in d.get("history") or []:
        role, agent, content = m.get("role"), m.get("agent"), text_of(m.get("content"))
        if role == "assistant":
            yield ("text", content)
            blocks = _re.findall(r"```[a-z]*\n(.*?)```", content, _re.S)
            if blocks:
                cmd = blocks[-1].strip()
                n += 1
                cid = f"{agent}-{n}"
                pending[agent] = cid
                yield ("call", cid, cmd.split()[0] if cmd.split() else "", {"command": cmd})
        elif role == "user" and agent in pending:
            yield ("result", pending.pop(agent), content)
        else:
            yield ("text", content)


PARSERS = {
    "swe_history": parse_swe_history,
    "gemini_stream": parse_gemini_stream,
    "managed_agents": parse_managed_agents,
    "codex_rollout": parse_codex_rollout,
    "chat_messages": parse_chat_messages,
}

CLAUDE_TOOLS = {"Bash", "Read", "Grep", "Glob", "Edit", "Write", "MultiEdit", "TodoWrite", "Task", "LS", "WebFetch", "WebSearch", "NotebookEdit"}


def harness_of(fmt, calls):
    if fmt == "gemini_stream":
        return "gemini-cli"
    if fmt == "managed_agents":
        return "claude-managed-agents"
    if fmt == "codex_rollout":
        return "codex"
    if fmt == "swe_history":
        return "swe-agent (CodeR)"
    names = {c[2] for c in calls}
    ids = {str(c[1])[:5] for c in calls}
    if names & CLAUDE_TOOLS or "toolu" in ids:
        return "claude-code"
    return "codex"


def kind_of(tool, args, result):
    """The tool kind reported in the tables."""
    t = (tool or "").lower()
    cmd = ""
    if isinstance(args, dict):
        for k in ("command", "cmd", "input"):
            v = args.get(k)
            if isinstance(v, list):
                v = " ".join(str(x) for x in v)
            if isinstance(v, str):
                cmd = v
                break
    c = cmd.lower()
    import re as _re
    if t in ("open", "goto", "scroll_down", "scroll_up"):
        return "numbered file read (shell)"  # SWE-agent's file viewer window
    if t in ("read", "read_file", "view", "read_many_files") or (t == "str_replace_editor" and args.get("command") == "view"):
        return "file read"
    if t in ("grep", "search_file_content", "grep_search", "rg"):
        return "grep"
    if t in ("glob", "ls", "list_directory", "ls_tool"):
        return "listing"
    if cmd:
        if _re.search(r"\bnl\s+-ba\b|\bcat\s+-n\b|\bsed\s+-n\b|\bawk\s+'NR|Get-Content[^|]*\|\s*Select-Object|\bhead\s+-n?\s*\d+\s+\S+\.\w+|\btail\s+-n?\s*\d+\s+\S+\.\w+", cmd) and not _re.search(r"\b(pytest|npm|cargo|mvn|gradle|go test|tsc)\b", c):
            return "numbered file read (shell)"
        if _re.search(r"(^|[;&|]\s*)(rg|grep|git grep|ag|select-string)\b", c) or "select-string" in c:
            return "grep"
        if _re.search(r"(^|[;&|]\s*)(ls|find|tree|get-childitem|dir|git ls-files)\b", c):
            return "listing"
        if _re.search(r"\b(pytest|unittest|npm (run )?(test|build)|vitest|jest|cargo (test|build|check)|mvn|gradle|go (test|build)|tsc|make|pnpm|yarn|docker compose|playwright|ng (build|test))\b", c):
            return "test/build run"
        if _re.search(r"\b(git log|logs?\b|journalctl|docker logs|tail -f)", c):
            return "log"
        if _re.search(r"(^|[;&|]\s*)(cat|type|get-content|head|tail|more|less)\b", c):
            return "file read"
    return "other"


def cases_of(repo, fmt, path, commit, raw):
    steps = list(PARSERS[fmt](raw))
    calls = [s for s in steps if s[0] == "call"]
    harness = harness_of(fmt, calls)
    by_id = {}
    seen_text = []  # what the agent had seen before, in order
    order = []
    for s in steps:
        if s[0] == "call":
            by_id[s[1]] = (s[2], s[3])
            order.append(("call", s[1], s[2], s[3]))
        elif s[0] == "result":
            order.append(("result", s[1], s[2]))
        else:
            order.append(("text", s[1]))
    out = []
    prior_parts = []
    prior_words = set()
    tool_words = set()
    for i, s in enumerate(order):
        if s[0] == "text":
            prior_parts.append(s[1])
            prior_words |= rule.words(s[1])
            continue
        if s[0] == "call":
            t = f"{s[2]} {json.dumps(s[3], ensure_ascii=False)}"
            prior_parts.append(t)
            prior_words |= rule.words(t)
            tool_words |= rule.words(t)
            continue
        _, cid, text = s
        if len(text) > THRESHOLD and cid in by_id:
            tool, args = by_id[cid]
            nxt = [{"tool": o[2], "args": o[3]} for o in order[i + 1:] if o[0] == "call"][:3]
            if nxt:
                prior = "\n".join(prior_parts)
                facts = rule.used_facts(text, prior, nxt, prior_words, tool_words)
                out.append({
                    "id": f"{repo.split('/')[0]}/{repo.split('/')[1][:24]}:{path}:{i}",
                    "harness": harness,
                    "source": {"repository": repo, "commit": commit, "path": path, "step": i, "format": fmt},
                    "tool": tool,
                    "args": args,
                    "kind": kind_of(tool, args, text),
                    "chars": len(text),
                    "result": text,
                    "next_actions": nxt,
                    "facts": facts,
                })
        prior_parts.append(text)
        prior_words |= rule.words(text)
        tool_words |= rule.words(text)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    all_cases, seen = [], set()
    for repo, fmt, paths in SOURCES:
        assert repo not in EXCLUDED, repo
        if isinstance(paths, str):  # "GLOB:N": the first N files matching GLOB, by name
            import fnmatch
            pat, n = paths.rsplit(":", 1)
            names = sorted(x for x in git(repo, "ls-tree", "-r", "--name-only", "HEAD").decode().split("\n")
                           if fnmatch.fnmatch(x, pat))
            paths = names[: int(n)]
        for path in paths:
            commit = newest_commit(repo, path)
            if not commit:
                print(f"skip {repo}:{path} (not in the snapshot)", file=sys.stderr)
                continue
            raw = git(repo, "show", f"{commit}:{path}").decode("utf-8", "replace")
            try:
                cs = cases_of(repo, fmt, path, commit, raw)
            except (ValueError, KeyError, TypeError) as e:
                print(f"skip {repo}:{path}: {e}", file=sys.stderr)
                continue
            new = []
            for c in cs:
                key = (c["result"][:4000], json.dumps(c["next_actions"])[:2000])
                if key in seen:
                    continue  # the same session exported twice
                seen.add(key)
                new.append(c)
            print(f"{repo}@{commit[:10]}:{path}: {len(new)} cases", file=sys.stderr)
            all_cases.extend(new)
    if a.list:
        return
    with gzip.open(OUT, "wt", encoding="utf-8") as f:
        for c in all_cases:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    print(f"{len(all_cases)} cases -> {OUT} ({OUT.stat().st_size:,} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
