#!/usr/bin/env python3
"""The recovery benchmark: what an agent pays, in characters and calls, to get from a cut
tool result to what it was after, for toolcap and the systems it is compared with.

    python3 benches/recovery/run.py [--toolcap PATH] [--only SYSTEM] [--task ID]

Writes benches/recovery/RESULTS.md (the tables) and benches/recovery/traces.md (each
task where toolcap with a store reads more than the cheapest other system). See
benches/README.md for what is modelled and from where.
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import tasks as taskmod  # noqa: E402

KEPT = 2000  # the kept budget: characters of the original in the first view
CAP_CALLS = 10
CAP_CHARS = 60_000
READ_LINES = 50  # lines per read when the reader does not know where its target ends


def lines_of(text):
    ls = text.split("\n")
    if text.endswith("\n"):
        ls.pop()
    return ls


class Material:
    """The original result, its lines and their character offsets."""

    def __init__(self, task):
        self.task = task
        self.text = task["text"]
        self.lines = lines_of(self.text)
        self.starts = []
        pos = 0
        for l in self.lines:
            self.starts.append(pos)
            pos += len(l) + 1
        self.n = len(self.lines)

    def whole_lines_in(self, a, b):
        """1-based numbers of the lines wholly inside the characters [a, b)."""
        out = set()
        for i, s in enumerate(self.starts):
            e = s + len(self.lines[i])
            if s >= a and e <= b:
                out.add(i + 1)
        return out

    def grep(self, pattern):
        rx = re.compile(pattern)
        return [i + 1 for i, l in enumerate(self.lines) if rx.search(l)]  # as grep sees the bytes


class Trace:
    def __init__(self, material):
        self.m = material
        self.seen = set()
        self.calls = 0
        self.chars = 0
        self.steps = []
        self.first_view_chars = 0

    def view(self, label, text, covered):
        self.chars += len(text)
        self.seen |= set(covered)
        self.steps.append((label, len(text)))

    def call(self, label, text, covered):
        self.calls += 1
        self.view(label, text, covered)

    def done(self):
        return set(self.m.task["needles"]) <= self.seen

    def capped(self):
        return self.calls >= CAP_CALLS or self.chars >= CAP_CHARS


# ---------------------------------------------------------------------------------------
# The peers. Each renders the first view from the original and answers its own tools.
# ---------------------------------------------------------------------------------------


def head_tail(m, kept, head_share):
    h = int(kept * head_share)
    t = kept - h
    n = len(m.text)
    if n <= kept:
        return m.text, m.text, "", set(range(1, m.n + 1))
    head, tail = m.text[:h], m.text[n - t:]
    cov = m.whole_lines_in(0, h) | m.whole_lines_in(n - t, n)
    return m.text, head, tail, cov


class Seeds:
    """The seeds' plain paging: the head, then get_continuation(offset) chunk by chunk."""

    open_ended = False

    name = "seeds offset paging"

    def __init__(self, kept=KEPT):
        self.kept = kept

    def marker(self, m, a, b):
        return (f"\n\n[truncated — showing {a}-{b}/{len(m.text)} chars. {len(m.text) - b} chars remaining. "
                f'Call get_continuation with tool_call_id="call_1" offset={b} to read more]')

    def first(self, m):
        b = min(self.kept, len(m.text))
        return m.text[:b] + (self.marker(m, 0, b) if b < len(m.text) else ""), m.whole_lines_in(0, b)

    def solve(self, m, tr):
        off = min(self.kept, len(m.text))
        while not tr.done() and not tr.capped() and off < len(m.text):
            b = min(off + self.kept, len(m.text))
            text = m.text[off:b] + (self.marker(m, off, b) if b < len(m.text) else "")
            # a line split across two chunks is seen once both are
            tr.call(f"get_continuation(offset={off})", text, m.whole_lines_in(self.read_from, b))
            off = b

    read_from = 0


class ReadGrepPeer:
    """A peer whose cut result is saved to a file it can read by lines and grep."""

    open_ended = False

    head_share = 1.0

    def __init__(self, kept=KEPT):
        self.kept = kept

    def wrap(self, m, head, tail):
        raise NotImplementedError

    def first(self, m):
        _, head, tail, cov = head_tail(m, self.kept, self.head_share)
        if len(m.text) <= self.kept:
            return m.text, cov
        return self.wrap(m, head, tail), cov

    def grep_text(self, m, hits):
        return "\n".join(f"{i}:{m.lines[i - 1]}" for i in hits)

    def read_text(self, m, a, b):
        return "\n".join(f"{i:>6}\t{m.lines[i - 1]}" for i in range(a, b + 1))

    def grep(self, m, tr, pattern):
        hits = m.grep(pattern)
        tr.call(f"grep {pattern!r}", self.grep_text(m, hits), hits)
        return hits

    def read(self, m, tr, a, b):
        b = min(b, m.n)
        tr.call(f"read {a}-{b}", self.read_text(m, a, b), range(a, b + 1))
        return b


class ClaudeCode(ReadGrepPeer):
    """Claude Code's Bash: `<persisted-output>` with the first 2 KB and the saved path
    (measured on claude 2.1.328, /work/shared/AGENTS-OFFLINE.md); Read(offset, limit) prints
    `cat -n` lines, Grep(-n, content) prints `N:line`."""

    name = "Claude Code (Bash + saved file)"

    def wrap(self, m, head, tail):
        size = len(m.text.encode()) / 1024
        return (f"<persisted-output>\nOutput too large ({size:.1f}KB). Full output saved to: "
                f"/root/.claude/projects/-proj/tool-results/toolu_01abcdefghijklmnopqrstuv.txt\n\n"
                f"Preview (first 2KB):\n{head}\n...\n</persisted-output>")


class Gemini(ReadGrepPeer):
    """Gemini CLI: formatTruncatedToolOutput, first 20% and last 80% with the saved file
    (google-gemini/gemini-cli 5411f113, packages/core/src/utils/fileUtils.ts); follow-ups
    read_file(start_line, end_line) and grep_search (`L{n}: text` lines per file)."""

    name = "Gemini CLI (20/80 + saved file)"
    head_share = 0.2

    def wrap(self, m, head, tail):
        h, t = len(head), len(tail)
        return (f"Output too large. Showing first {h:,} and last {t:,} characters. For full output see: "
                f"/root/.gemini/tmp/proj/tool-outputs/run_shell_command_1795637217971_0.txt\n{head}\n\n"
                f"... [{len(m.text) - h - t:,} characters omitted] ...\n\n{tail}")

    def grep_text(self, m, hits):
        return (f"Found {len(hits)} matches for pattern in the file:\n---\nFile: output.txt\n"
                + "\n".join(f"L{i}: {m.lines[i - 1]}" for i in hits) + "\n---")

    def read_text(self, m, a, b):
        return (f"\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines {a}-{b} of {m.n} total lines.\n"
                f"Action: To read more of the file, you can use the 'start_line' and 'end_line' parameters.\n\n--- FILE CONTENT (truncated) ---\n"
                + "\n".join(m.lines[i - 1] for i in range(a, b + 1)))


class OpenCode(ReadGrepPeer):
    """opencode: Truncate.output keeps the tail of bash output past its limits and saves the
    whole (MAX_LINES 2000 / MAX_BYTES 50 KB in packages/opencode/src/tool/truncation.ts as
    ports of it quote it; sst/opencode itself could not be fetched here), as measured on
    opencode 1.18.33: "...output truncated... Full output saved to: PATH" + the
    tail); Read(offset, limit) prints `NNNNN| line`; Grep prints `Line N: text`."""

    name = "opencode (tail + saved file)"
    head_share = 0.0

    def wrap(self, m, head, tail):
        return (f"...output truncated...\n\nFull output saved to: /root/.local/share/opencode/tool-output/tool_9f1c2b3a4d5e6f70\n\n{tail}")

    def grep_text(self, m, hits):
        return f"Found {len(hits)} matches\n/root/.local/share/opencode/tool-output/tool_9f1c2b3a4d5e6f70:\n" + "\n".join(
            f"  Line {i}: {m.lines[i - 1]}" for i in hits)

    def read_text(self, m, a, b):
        return "<file>\n" + "\n".join(f"{i:05d}| {m.lines[i - 1]}" for i in range(a, b + 1)) + "\n</file>"


class Codex(ReadGrepPeer):
    """Codex CLI: a header (exit code, wall time, total output lines) then a 50/50 head and
    tail cut with `…N tokens truncated…` (codex-rs truncation; measured on codex 0.169.0,
    /work/shared/AGENTS-OFFLINE.md). No saved file: follow-ups re-run the command through
    `grep -n` / `sed -n`, and their output is cut the same way."""

    name = "Codex CLI (50/50 + re-run)"
    head_share = 0.5

    def wrap(self, m, head, tail):
        omitted = len(m.text) - len(head) - len(tail)
        return (f"Exit code: 1\nWall time: 2.1 seconds\nTotal output lines: {m.n}\nOutput:\n{head}"
                f"…{(omitted + 3) // 4} tokens truncated…{tail}")

    def cut(self, lines_with_numbers):
        """Codex's cut of a re-run's output: (text, the original lines seen whole)."""
        text = "\n".join(t for _, t in lines_with_numbers)
        if len(text) <= self.kept:
            return text, {n for n, _ in lines_with_numbers}
        h = self.kept // 2
        t = self.kept - h
        seen = set()
        pos = 0
        for n, l in lines_with_numbers:
            if pos + len(l) <= h or pos >= len(text) - t:
                seen.add(n)
            pos += len(l) + 1
        return self.wrap_rerun(text, h, t), seen

    def wrap_rerun(self, text, h, t):
        omitted = len(text) - h - t
        return (f"Exit code: 0\nWall time: 2.1 seconds\nTotal output lines: {text.count(chr(10)) + 1}\nOutput:\n"
                f"{text[:h]}…{(omitted + 3) // 4} tokens truncated…{text[len(text) - t:]}")

    def grep(self, m, tr, pattern):
        hits = m.grep(pattern)
        text, seen = self.cut([(i, f"{i}:{m.lines[i - 1]}") for i in hits])
        tr.call(f"re-run | grep -n {pattern!r}", text, seen)
        # only the hits whose numbers were shown can be used
        return [i for i in hits if i in seen] or hits[:0]

    def read(self, m, tr, a, b):
        b = min(b, m.n)
        text, seen = self.cut([(i, m.lines[i - 1]) for i in range(a, b + 1)])
        tr.call(f"re-run | sed -n '{a},{b}p'", text, seen)
        return b


def greedy(m, tr, sys_, first_hits=None):
    """The reader: search each pattern in turn, take the first (or last) match after the
    previous one, then read on from there until the answer is seen or the cap is reached."""
    t = m.task
    anchor = 0
    hits = first_hits
    for k, pat in enumerate(t["patterns"]):
        if tr.done() or tr.capped():
            return
        if hits is None or k > 0:
            sys_.after = anchor
            hits = sys_.grep(m, tr, pat)
        after = [h for h in hits if h > anchor]
        if not after:
            return
        anchor = after[-1] if t["which"] == "last" else after[0]
        hits = None
    # read on from the anchor; a reply that did not show all the lines asked for (cut again,
    # or stopped early) is followed by a read of the first line not seen, half as many lines
    page = READ_LINES
    while not tr.done() and not tr.capped():
        pos = next((i for i in range(anchor, m.n + 1) if i not in tr.seen), None)
        if pos is None:
            return
        end = sys_.read(m, tr, pos, None if sys_.open_ended else pos + page - 1)
        if any(i not in tr.seen for i in range(pos, end + 1)):
            page = max(5, page // 2)


# ---------------------------------------------------------------------------------------
# toolcap, through its real binary.
# ---------------------------------------------------------------------------------------


class Toolcap:
    name = "toolcap + store"
    store = True
    # reads name their range like every other reader's (a start line alone would get as
    # many lines as fit in one reply, 3,500 chars: more than most answers need)
    open_ended = False

    after = 0

    def __init__(self, exe, workdir):
        self.exe = exe
        self.workdir = workdir
        self.count = 0

    def run(self, args, stdin=None):
        p = subprocess.run([self.exe, *args], input=stdin, capture_output=True, text=True)
        if p.returncode not in (0, 1):
            raise SystemExit(f"toolcap {' '.join(args)} failed ({p.returncode}): {p.stderr}")
        return p.stdout

    def process(self, m, tool, args, text, store_id=None):
        cmd = ["process", "--tool", tool, "--json"]
        for k, v in args.items():
            cmd += ["--arg", f"{k}={v}"]
        if store_id:
            cmd += ["--id", store_id, "--store", self.db]
        r = json.loads(self.run(cmd + ["-"], stdin=text))
        kept = set()
        for k in r.get("kept") or []:
            end = k["end_line"] - (1 if k.get("partial") else 0)
            kept |= set(range(k["start_line"], end + 1))
        if not r.get("truncated"):
            kept = set(range(1, len(lines_of(text)) + 1))
        return r["text"], kept

    def first(self, m):
        self.count += 1
        self.db = str(Path(self.workdir) / "store.db")
        self.id = f"call_{self.count}"
        text, kept = self.process(m, m.task["tool"], m.task["args"], m.text, self.id if self.store else None)
        self.view_text = text
        return text, kept

    # the recovery tools
    def grep(self, m, tr, pattern):
        if m.task["which"] == "last":
            # the last match after the previous anchor: search from the end, one match
            # (its documented `from_end`), then earlier ones while the last is not past it
            return self.grep_last(m, tr, pattern)
        out = self.run(["search", self.id, pattern, "--context", "0", "--store", self.db])
        hits = []
        seen = set()
        for l in out.split("\n"):
            mm = re.match(r"^(\d+): (.*)$", l)
            if mm:
                hits.append(int(mm.group(1)))
                if "… [+" not in l:
                    seen.add(int(mm.group(1)))
        tr.call(f"search_tool_output({pattern!r})", out, seen)
        skip = len(hits)
        while True:  # more matches than one reply shows: page on with skip, as the reply says
            mm = re.search(r"skip=(\d+)", out.strip().split("\n")[-1])
            if not mm or tr.capped() or (m.task["which"] == "first" and any(h > self.after for h in hits)):
                break
            out = self.run(["search", self.id, pattern, "--context", "0", "--skip", mm.group(1), "--store", self.db])
            new = [int(x) for x in re.findall(r"(?m)^(\d+): ", out)]
            tr.call(f"search_tool_output({pattern!r}, skip={mm.group(1)})", out, set(new))
            hits += new
            if skip == len(hits):
                break
            skip = len(hits)
        return hits

    def grep_last(self, m, tr, pattern):
        """The last match: `search_tool_output(from_end=true, max_matches=1)`, then the one
        before it while the last seen is not past the previous anchor."""
        hits = []
        skip = 0
        while not tr.capped():
            cmd = ["search", self.id, pattern, "--context", "0", "--from-end", "--max", "1"]
            if skip:
                cmd += ["--skip", str(skip)]
            out = self.run(cmd + ["--store", self.db])
            new = [int(x) for x in re.findall(r"(?m)^(\d+): ", out)]
            seen = {int(x) for x in re.findall(r"(?m)^(\d+): (?!.*… \[\+)", out)}
            tr.call(f"search_tool_output({pattern!r}, from_end=true, max_matches=1" + (f", skip={skip})" if skip else ")"), out, seen)
            hits = new + hits
            if not new or new[0] > self.after or "earlier matching lines" not in out:
                break
            skip += 1
        return hits

    def read(self, m, tr, a, b):
        args = ["continue", self.id, "--start-line", str(a), "--store", self.db]
        if b is not None:
            b = min(b, m.n)
            args[4:4] = ["--end-line", str(b)]
        out = self.run(args)
        mm = re.search(r"\[showing lines (\d+)-(\d+) of \d+", out)
        last = int(mm.group(2)) if mm else (m.n if b is None else b)
        label = f"get_continuation(start_line={a}" + ("" if b is None else f", end_line={b}") + ")"
        tr.call(label, out, range(a, last + 1))
        return last

    def query(self, m, tr, path):
        out = self.run(["query", self.id, path, "--store", self.db])
        try:
            ok = json.loads(out) == m.task["value"]
        except ValueError:
            ok = False
        tr.call(f"query_tool_output({path!r})", out, m.task["needles"] if ok else [])

    def symbol(self, m, tr, name):
        """get_continuation(symbol=name): a definition's lines, or its members' first lines."""
        out = self.run(["continue", self.id, "--symbol", name, "--store", self.db])
        seen = set()
        head = re.match(r"^.*\(lines (\d+)-(\d+) of [\d,]+, [\d,]+ chars?\):\n", out)
        part = re.search(r"\[showing lines (\d+)-(\d+) of its ", out)
        if head and part:
            seen = set(range(int(part.group(1)), int(part.group(2)) + 1))
        elif head:
            seen = set(range(int(head.group(1)), int(head.group(2)) + 1))
        else:  # a definition larger than a reply: each member's first line, whole
            seen = {int(a) for a in re.findall(r"(?m)^(\d+)-\d+: ", out)}
        tr.call(f"get_continuation(symbol={name!r})", out, seen)

    def span_from_view(self, m):
        """A definition's line span as the view's outline or suggestions name it."""
        sym = m.task.get("symbol")
        if not sym:
            return None
        for l in self.view_text.split("\n"):
            if re.search(rf"\b{re.escape(sym)}\b", l):
                mm = re.search(r"lines (\d+)-(\d+)", l) or re.search(rf"{re.escape(sym)} (\d+)-(\d+)", l)
                if mm:
                    return int(mm.group(1)), int(mm.group(2))
        return None

    def solve(self, m, tr):
        if self.store and m.task.get("json_path"):
            self.query(m, tr, m.task["json_path"])
            if tr.done():
                return
        qual = re.search(r"`([^`]+)`", m.task.get("question", ""))
        if self.store and m.task.get("symbol") and qual:
            # the question names the definition: ask for it by name
            self.symbol(m, tr, qual.group(1))
            if tr.done():
                return
        span = self.span_from_view(m)
        if span:
            a, b = span
            while not tr.done() and not tr.capped() and a <= b:
                a = self.read(m, tr, a, b) + 1
            if tr.done() or tr.capped():
                return
        greedy(m, tr, self)


class ToolcapRerun(Toolcap):
    """toolcap without a store: its suggestions re-run the command or re-read the file
    through the shell (`grep -n`, `sed -n`), and what they print is cut by toolcap again."""

    name = "toolcap + shell re-runs"
    store = False
    open_ended = False

    def shell(self, m, tr, label, command, numbered):
        text = "\n".join(t for _, t in numbered) + ("\n" if numbered else "")
        out, kept = self.process(m, "bash", {"command": command}, text)
        seen = {numbered[i - 1][0] for i in kept if i - 1 < len(numbered)}
        tr.call(label, out, seen)
        return seen

    def source(self, m):
        t = m.task
        if t["tool"] == "read_file":
            return lambda cmd: f"{cmd} {t['args']['path']}"
        return lambda cmd: f"{t['args']['command']} 2>&1 | {cmd}"

    def grep(self, m, tr, pattern):
        hits = m.grep(pattern)
        cmd = self.source(m)("grep -nE " + "'" + pattern.replace("'", "'\\''") + "'")
        seen = self.shell(m, tr, cmd, cmd, [(i, f"{i}:{m.lines[i - 1]}") for i in hits])
        return [i for i in hits if i in seen]

    def read(self, m, tr, a, b):
        b = min(b, m.n)
        cmd = self.source(m)(f"sed -n '{a},{b}p'")
        self.shell(m, tr, cmd, cmd, [(i, m.lines[i - 1]) for i in range(a, b + 1)])
        return b


def run_system(sys_, m):
    tr = Trace(m)
    text, cov = sys_.first(m)
    tr.view("first view", text, cov)
    tr.first_view_chars = len(text)
    first_done = tr.done()
    if not tr.done():
        if hasattr(sys_, "solve"):
            sys_.solve(m, tr)
        else:
            greedy(m, tr, sys_)
    ok = tr.done() and tr.calls <= CAP_CALLS and tr.chars <= CAP_CHARS
    return dict(first=first_done, ok=ok, chars=tr.chars, calls=tr.calls, steps=tr.steps,
                first_view=tr.first_view_chars)


def peers(kept):
    return [Seeds(kept), Codex(kept), Gemini(kept), OpenCode(kept), ClaudeCode(kept)]


def summarize(name, rows, kinds):
    res = [r[name] for r in rows]
    line = dict(
        first=sum(r["first"] for r in res), ok=sum(r["ok"] for r in res),
        median=int(statistics.median(r["chars"] for r in res)), total=sum(r["chars"] for r in res),
        calls=statistics.median(r["calls"] for r in res),
        fv=int(statistics.median(r["first_view"] for r in res)),
    )
    line["kinds"] = {k: sum(r[name]["chars"] for r in rows if r["kind"] == k) for k in kinds}
    return line


def table(title, rows, names, kinds):
    out = [f"### {title}", "", "| system | first view (median chars) | answered in first view | answered within cap | median chars | total chars | median calls |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    sums = {n: summarize(n, rows, kinds) for n in names}
    for n in names:
        s = sums[n]
        out.append(f"| {n} | {s['fv']:,} | {s['first']} / {len(rows)} | {s['ok']} / {len(rows)} | {s['median']:,} | {s['total']:,} | {s['calls']:g} |")
    out += ["", "Total characters read per task kind (tasks of that kind in brackets):", "",
            "| system | " + " | ".join(f"{k} ({sum(r['kind'] == k for r in rows)})" for k in kinds) + " |",
            "| --- |" + " ---: |" * len(kinds)]
    for n in names:
        best = sums[n]["kinds"]
        out.append(f"| {n} | " + " | ".join(f"{best[k]:,}" for k in kinds) + " |")
    out.append("")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--toolcap", default=os.environ.get("TOOLCAP_BIN"), help="the toolcap binary (default: target/release or target/debug)")
    ap.add_argument("--task", help="run only the tasks whose id contains this")
    ap.add_argument("--out", default=str(HERE), help="where RESULTS.md and traces.md go")
    a = ap.parse_args()
    exe = a.toolcap
    if not exe:
        target = Path(os.environ.get("CARGO_TARGET_DIR", taskmod.ROOT / "target"))
        for p in (target / "release" / "toolcap", target / "debug" / "toolcap"):
            if p.exists():
                exe = str(p)
                break
    if not exe or not Path(exe).exists():
        print("no toolcap binary: build it (cargo build --release) or pass --toolcap PATH", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="toolcap-recovery-") as work:
        return bench(exe, work, a)


def bench(exe, work, a):
    ts = [t for t in taskmod.all_tasks(work) if not a.task or a.task in t["id"]]
    kinds = list(dict.fromkeys(t["kind"] for t in ts))
    tc = Toolcap(exe, work)
    tr_ = ToolcapRerun(exe, work)
    rows_kept, rows_same = [], []
    for t in ts:
        m = Material(t)
        row = dict(id=t["id"], kind=t["kind"])
        row[tc.name] = run_system(tc, m)
        row[tr_.name] = run_system(tr_, m)
        for p in peers(KEPT):
            row[p.name] = run_system(p, m)
        rows_kept.append(row)
        # the same first-view size: each peer keeps what makes its first view as long as
        # toolcap's (with a store) on this task
        fv = row[tc.name]["first_view"]
        same = dict(id=t["id"], kind=t["kind"], **{tc.name: row[tc.name], tr_.name: row[tr_.name]})
        for p in peers(KEPT):
            overhead = len(p.first(m)[0]) - min(KEPT, len(m.text))
            q = type(p)(max(200, fv - max(0, overhead)))
            same[p.name] = run_system(q, m)
        rows_same.append(same)
        print(f"{t['id']}: " + ", ".join(f"{n.split(' ')[0]} {row[n]['chars']}{'' if row[n]['ok'] else '✗'}" for n in row if n not in ("id", "kind")), file=sys.stderr)
    names = [tc.name, tr_.name] + [p.name for p in peers(KEPT)]
    out = ["# Recovery benchmark results", "",
           f"{len(ts)} tasks; cap {CAP_CALLS} calls / {CAP_CHARS:,} chars; characters counted are every character the reader was shown "
           "(first view + every reply). Written by `python3 benches/recovery/run.py`.", ""]
    out += table(f"Same kept budget ({KEPT:,} chars of the original in every first view)", rows_kept, names, kinds)
    out += table("Same first-view size (each peer keeps as much as makes its first view as long as toolcap's)", rows_same, names, kinds)
    Path(a.out, "RESULTS.md").write_text("\n".join(out) + "\n")
    # traces where toolcap with a store reads more than the cheapest peer
    tl = ["# Tasks where toolcap (with a store) reads more than another system", ""]
    for title, rows in (("same kept budget", rows_kept), ("same first-view size", rows_same)):
        tl += [f"## {title}", ""]
        for r in rows:
            mine = r[tc.name]
            others = [(n, r[n]) for n in names if n != tc.name and r[n]["ok"]]
            if not others:
                continue
            bn, best = min(others, key=lambda x: x[1]["chars"])
            if mine["ok"] and mine["chars"] <= best["chars"]:
                continue
            tl.append(f"### {r['id']} ({r['kind']}): toolcap {mine['chars']:,}{'' if mine['ok'] else ' (not answered)'} vs {bn} {best['chars']:,}")
            tl.append("")
            for who, res in ((tc.name, mine), (bn, best)):
                tl.append(f"- {who}: " + "; ".join(f"{lab} ({c:,})" for lab, c in res["steps"]))
            tl.append("")
    Path(a.out, "traces.md").write_text("\n".join(tl) + "\n")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
