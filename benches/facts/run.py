#!/usr/bin/env python3
"""The facts benchmark: how much of what an agent needs from a command's output each system
shows in its first view, at what size, how much of it verbatim, and whether the rest can be
read back without running the command again.

    python3 benches/facts/gen.py            # the inputs (real commands, run here)
    python3 benches/facts/run.py [--toolcap PATH] [--cases DIR] [--show NAME]

For each case the facts are derived by this script from the raw output alone (commit hashes
with subjects, file names with their counts, failing test ids with their messages and
locations, error messages with file:line, package names, ...); a fact is kept when the
view holds it (a regular expression over the view's text). Systems: toolcap (the built
binary, `toolcap process --tool shell --arg command=... --arg exit_code=N --id ... --store
...`, with the exit status as `toolcap run` passes it), and the agents' own cuts as their code and
documentation describe them (see benches/README.md). Prints the tables in Markdown.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def n_re(n):
    """A count as printed, with or without thousands separators."""
    return rf"(?<![\d,]){n:,}(?![\d,])|(?<!\d){n}(?!\d)"


def lit(s):
    return re.escape(s)


# ---------------------------------------------------------------- facts, by kind

def facts_log(t):
    out = []
    lines = t.split("\n")
    for i, l in enumerate(lines):
        m = re.match(r"commit ([0-9a-f]{40})", l)
        if not m:
            continue
        subj = ""
        for k in range(i + 1, min(i + 12, len(lines))):
            if lines[k].startswith("    "):
                subj = lines[k].strip()
                break
        out.append((f"commit {m[1][:7]}", [lit(m[1][:7]), lit(subj[:40])]))
    return out


def facts_diff(t):
    files = re.findall(r"^diff --git a/\S+ b/(\S+)$", t, re.M)
    return [(f"file {f}", [lit(f)]) for f in files]


def facts_grep(t):
    per = {}
    for l in t.split("\n"):
        m = re.match(r"(.+?):(\d+):", l)
        if m:
            per[m[1]] = per.get(m[1], 0) + 1
    total = sum(per.values())
    out = [("total matches", [n_re(total) + r"[^\n]*match|match[^\n]*" + n_re(total)]),
           ("files with matches", [n_re(len(per)) + r" files"])]
    top = sorted(per.items(), key=lambda kv: -kv[1])[:15]
    for f, n in top:
        out.append((f"{f}: {n}", [lit(f) + r"[^\n]*\b" + n_re(n) + r"\s*match"]))
    return out


def facts_grep_count(t):
    rows = []
    for l in t.split("\n"):
        if ":" in l:
            p, _, k = l.rpartition(":")
            if k.isdigit():
                rows.append((p, int(k)))
    total = sum(k for _, k in rows)
    with_ = sum(1 for _, k in rows if k)
    out = [("sum of counts", [n_re(total)]), ("files with a match", [n_re(with_) + r"\s+files"])]
    for p, k in sorted(rows, key=lambda r: -r[1])[:15]:
        out.append((f"{p}:{k}", [lit(p) + r"(:| )" + n_re(k)]))
    return out


def dir_counts(paths, root_prefix):
    """Entries under each first-level directory (paths under it, itself excluded)."""
    counts = {}
    for p in paths:
        rel = p[len(root_prefix):] if p.startswith(root_prefix) else p
        parts = rel.split("/")
        if len(parts) > 1:
            d = root_prefix + parts[0]
            counts[d] = counts.get(d, 0) + 1
    return counts


def facts_listing(t):
    paths = [l for l in t.split("\n") if l and l != "."]
    counts = dir_counts(paths, "./")
    out = [("entries", [n_re(len(paths)) + r"\s+entries"])]
    for d, n in sorted(counts.items(), key=lambda kv: -kv[1])[:15]:
        out.append((f"{d}: {n}", [lit(d) + r"[^\n]*" + n_re(n)]))
    return out


def facts_grep_files(t):
    paths = [l for l in t.split("\n") if l]
    counts = dir_counts(paths, "./")
    out = [("files", [n_re(len(paths))])]
    for d, n in sorted(counts.items(), key=lambda kv: -kv[1])[:10]:
        out.append((f"{d}: {n}", [lit(d) + r"[^\n]*" + n_re(n)]))
    return out


def facts_listing_ls(t):
    out = []
    for sec in t.split("\n\n"):
        ls = sec.split("\n")
        if ls and ls[0].endswith(":"):
            n = sum(1 for l in ls[1:] if l and not l.startswith("total ") and l.split()[-1] not in (".", ".."))
            d = ls[0][:-1]
            out.append((f"{d}: {n}", [lit(d) + r"[^\n]*" + n_re(n)]))
    return out


def facts_code(t):
    names = re.findall(r"^(?:class|def) (\w+)", t, re.M)
    return [(n, [r"\b" + lit(n) + r"\b"]) for n in names]


def facts_log_levels(t):
    ls = [l for l in t.split("\n") if l]
    return [("first entry", [lit(ls[0][:19])]), ("last entry", [lit(ls[-1][:19])]),
            ("lines", [n_re(len(ls))])]


def facts_pip(t):
    names = [l.split()[0] for l in t.split("\n")[2:] if l.strip()]
    return [(n, [r"(?m)^" + lit(n) + r"\s"]) for n in names]


def facts_test_pass(t):
    return [(l.strip(), [lit(l.strip())]) for l in t.split("\n") if l.startswith("test result:")]


def facts_test_fail(t):
    out = []
    for m in re.finditer(r"^---- (\S+) stdout ----$", t, re.M):
        out.append((f"failing {m[1]}", [lit(m[1])]))
    for m in re.finditer(r"panicked at (\S+:\d+:\d+):\n(.+)", t):
        out.append((f"at {m[1]}: {m[2][:40]}", [lit(m[1]), lit(m[2][:40])]))
    for l in t.split("\n"):
        if l.startswith("test result: FAILED"):
            out.append(("summary", [lit(l.strip()[:50])]))
    return out


def facts_test_fail_py(t):
    out = []
    for m in re.finditer(r"^(FAIL|ERROR): (\S+) \(([^)]+)\)", t, re.M):
        out.append((f"{m[1]} {m[2]}", [lit(m[2]), lit(m[3])]))
    msgs = []
    for m in re.finditer(r"^(\w+Error: .+)$", t, re.M):
        if m[1] not in msgs:
            msgs.append(m[1])
    for s in msgs[:10]:
        out.append((s[:50], [lit(s[:60])]))
    m = re.search(r"^FAILED \(.+\)$", t, re.M)
    if m:
        out.append(("summary", [lit(m[0])]))
    return out


def facts_test_pass_py(t):
    m = re.search(r"^Ran \d+ tests? in", t, re.M)
    return [("ran", [lit(m[0])])] + [("OK", [r"(?m)^OK"])] if m else []


def facts_compile_error(t):
    out = []
    for m in re.finditer(r"^(error(\[E\d+\])?: .+)\n\s*--> (\S+)", t, re.M):
        out.append((m[1][:50], [lit(m[1]), lit(m[3])]))
    return out


def facts_build_log(t):
    out = []
    for m in re.finditer(r'File "([^"]+)", line (\d+)', t):
        out.append((f"{m[1]}:{m[2]}", [lit(m[0])]))
    for m in re.finditer(r"^(SyntaxError: .+)$", t, re.M):
        out.append((m[1], [lit(m[1])]))
    return out


def facts_status(t):
    out = []
    for m in re.finditer(r"^\s+modified:\s+(\S+)$", t, re.M):
        out.append((f"modified {m[1]}", [lit(m[1])]))
    in_untracked = False
    for l in t.split("\n"):
        if l.startswith("Untracked files:"):
            in_untracked = True
        elif in_untracked and l.startswith("\t"):
            out.append((f"untracked {l.strip()}", [lit(l.strip())]))
    return out


def facts_npm(t):
    return [(l.strip()[:60], [lit(l.strip()[:60])]) for l in t.split("\n") if "missing" in l or "ERR" in l]


FACTS = {
    "log": facts_log, "diff": facts_diff, "grep": facts_grep, "grep_count": facts_grep_count,
    "grep_files": facts_grep_files, "listing": facts_listing, "listing_ls": facts_listing_ls,
    "code": facts_code, "log_levels": facts_log_levels, "pip": facts_pip,
    "test_pass": facts_test_pass, "test_fail": facts_test_fail, "test_fail_py": facts_test_fail_py,
    "test_pass_py": facts_test_pass_py, "compile_error": facts_compile_error,
    "build_log": facts_build_log, "status": facts_status, "npm": facts_npm,
}

GROUP = {
    "log": "diffs and logs", "diff": "diffs and logs", "grep": "grep", "grep_count": "grep",
    "grep_files": "grep", "listing": "listings", "listing_ls": "listings",
    "test_pass": "test runs", "test_fail": "test runs", "test_fail_py": "test runs",
    "test_pass_py": "test runs", "compile_error": "builds", "build_log": "builds",
    "code": "cat, status, packages", "log_levels": "cat, status, packages",
    "pip": "cat, status, packages", "status": "cat, status, packages", "npm": "cat, status, packages",
}

# ---------------------------------------------------------------- systems


def head_chars(t, n):
    return t[:n]


class View:
    def __init__(self, text, body, recoverable):
        self.text = text  # what the model sees
        self.body = body  # the lines presented as the output's own
        self.recoverable = recoverable


def toolcap(binary, case, text_path, store):
    args = [binary, "process", "--tool", "shell", "--arg", f"command={case['command']}",
            "--arg", f"exit_code={case['exit']}",
            "--id", f"facts_{case['name']}", "--store", store, str(text_path)]
    v = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout.decode()
    body = v.split("\n--- Recovery Options ---")[0]
    lines = [l for l in body.split("\n") if l and not l.startswith("[... ") and not l.startswith("[toolcap")]
    return View(v, lines, True)


def whole_or(t, limit, cut):
    if len(t) <= limit:
        return View(t, [l for l in t.split("\n") if l], True)
    return cut(t)


def claude(t):
    # Claude Code's Bash: over 30,000 chars, the output is saved and the first 2 KB shown
    def cut(t):
        h = t[:2000]
        v = (f"<persisted-output>\nOutput too large ({len(t.encode()) / 1024:.1f}KB). Full output saved to: "
             f"/root/.claude/projects/-proj/tool-results/toolu_01abc.txt\n\nPreview (first 2KB):\n{h}\n...\n</persisted-output>")
        return View(v, [l for l in h.split("\n") if l], True)
    return whole_or(t, 30_000, cut)


def codex(t):
    # Codex CLI: 10 KiB, half head, half tail; nothing saved
    def cut(t):
        h, tl = t[:5120], t[-5120:]
        v = f"Total output lines: {t.count(chr(10))}\nOutput:\n{h}…{(len(t) - 10240) // 4} tokens truncated…{tl}"
        return View(v, [l for l in (h + "\n" + tl).split("\n") if l], False)
    return whole_or(t, 10_240, cut)


def gemini(t):
    # Gemini CLI: past 40,000 chars, the first 20% and the last 80% of 40,000, saved file
    def cut(t):
        h, tl = t[:8000], t[-32000:]
        v = (f"Output too large. Showing first 8,000 and last 32,000 characters. For full output see: "
             f"/root/.gemini/tmp/proj/tool-outputs/run_shell_command_1.txt\n{h}\n\n... [{len(t) - 40000:,} characters omitted] ...\n\n{tl}")
        return View(v, [l for l in (h + "\n" + tl).split("\n") if l], True)
    return whole_or(t, 40_000, cut)


def opencode(t):
    # opencode: 2,000 lines / 50 KB, the tail kept, the whole saved
    lines = t.split("\n")
    if len(lines) <= 2000 and len(t.encode()) <= 50 * 1024:
        return View(t, [l for l in lines if l], True)
    keep = []
    size = 0
    for l in reversed(lines[-2000:]):
        if size + len(l.encode()) + 1 > 50 * 1024:
            break
        keep.append(l)
        size += len(l.encode()) + 1
    keep.reverse()
    tail = "\n".join(keep)
    v = f"...output truncated...\n\nFull output saved to: /root/.local/share/opencode/tool-output/tool_1\n\n{tail}"
    return View(v, [l for l in keep if l], True)


# ---------------------------------------------------------------- scoring


def score(view, facts, raw_lines):
    kept = sum(1 for _, res in facts if all(re.search(r, view.text, re.M) for r in res))
    verb = sum(1 for l in view.body if l in raw_lines)
    return kept, len(view.text), verb, len(view.body)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--toolcap", default=str(ROOT / "target/debug/toolcap"))
    ap.add_argument("--cases", default=os.path.expanduser("~/.cache/toolcap-facts"))
    ap.add_argument("--show", help="print each system's view of this case and the facts it misses")
    a = ap.parse_args()
    cases = []
    for j in sorted(Path(a.cases).glob("*.json")):
        c = json.loads(j.read_text())
        c["name"] = j.stem
        c["path"] = j.with_suffix(".out")
        cases.append(c)
    if len(cases) < 20:
        sys.exit(f"{len(cases)} cases in {a.cases}: run benches/facts/gen.py first")
    store = tempfile.mktemp(suffix=".db")
    systems = [("toolcap", None), ("Claude Code", claude), ("Codex CLI", codex),
               ("Gemini CLI", gemini), ("opencode", opencode)]
    total = {s: [0, 0, 0, 0, 0, 0] for s, _ in systems}  # kept, facts, chars, verbatim, body, recoverable
    rows = []
    groups = {}
    for c in cases:
        t = c["path"].read_text()
        facts = FACTS[c["kind"]](t)
        raw = set(t.split("\n"))
        row = [c["name"], f"{len(t):,}", str(len(facts))]
        for s, f in systems:
            v = toolcap(a.toolcap, c, c["path"], store) if f is None else f(t)
            kept, chars, verb, body = score(v, facts, raw)
            tt = total[s]
            tt[0] += kept
            tt[1] += len(facts)
            tt[2] += chars
            tt[3] += verb
            tt[4] += body
            tt[5] += int(v.recoverable)
            row.append(f"{kept}/{len(facts)} · {chars:,}")
            g = groups.setdefault(GROUP[c["kind"]], {}).setdefault(s, [0, 0, 0])
            g[0] += kept
            g[1] += len(facts)
            g[2] += chars
            if a.show == c["name"]:
                print(f"==== {s}\n{v.text}\n---- missing:")
                for label, res in facts:
                    if not all(re.search(r, v.text, re.M) for r in res):
                        print("   ", label)
        rows.append(row)
    print("| case | chars | facts | " + " | ".join(s for s, _ in systems) + " |")
    print("|---|---:|---:|" + "---:|" * len(systems))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print()
    print("| system | facts kept | chars shown | verbatim lines | recoverable without re-running |")
    print("|---|---:|---:|---:|---:|")
    for s, _ in systems:
        k, n, ch, v, b, rec = total[s]
        print(f"| {s} | {k}/{n} ({100 * k / max(n, 1):.0f}%) | {ch:,} | {100 * v / max(b, 1):.1f}% | {rec}/{len(cases)} |")
    print()
    print("| kind | facts | " + " | ".join(s for s, _ in systems) + " |")
    print("|---|---:|" + "---:|" * len(systems))
    for g, per in groups.items():
        n = per["toolcap"][1]
        cells = [f"{100 * per[s][0] / max(n, 1):.0f}% · {per[s][2]:,}" for s, _ in systems]
        print(f"| {g} | {n} | " + " | ".join(cells) + " |")
    if os.path.exists(store):
        os.unlink(store)


if __name__ == "__main__":
    main()
