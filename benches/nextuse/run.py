#!/usr/bin/env python3
"""The next-use benchmark: what each system's first view keeps of what the agent used next.

    python3 benches/nextuse/run.py [--toolcap PATH] [--cost C] [--misses FILE] [--quick]

Reads benches/nextuse/cases.jsonl.gz (made by extract.py from public agent
sessions), runs every system on every case and prints the tables of
benches/nextuse/README.md. toolcap is the built binary (default: target/release,
else target/debug of this checkout), run as `toolcap process --tool T --args-json
ARGS --id ID --store S --json` once with the built-in settings and once per
suggestion preset; its views are cached per binary under ~/.cache/toolcap-nextuse.
"""

import argparse
import gzip
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import rule  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
PRESETS = ["claude-code", "codex", "gemini-cli", "opencode", "toolcap-cli"]
KINDS = ["file read", "numbered file read (shell)", "grep", "listing", "test/build run", "log", "other"]
WINDOW = 2000  # what one follow-up read returns (chars), as a 2,000-char page / ~50 lines


# --- the agents' own rules and the blind cuts ------------------------------------------

def head(text, n=2000):
    return text if len(text) <= n else text[:n]


def head_tail(text, n=2000):
    if len(text) <= n:
        return text
    h = n // 2
    return text[:h] + f"\n…{len(text) - n} chars truncated…\n" + text[-(n - h):]


def claude_code(text):
    """Claude Code: an output over 30,000 chars is saved to a file and the model gets
    `<persisted-output>` with the first 2 KB (docs/agents.md, table of issue runs;
    /work/shared/AGENTS-OFFLINE.md: "Preview (first 2KB)"); shorter outputs pass whole."""
    if len(text) <= 30000:
        return text
    return ("<persisted-output>\nOutput too large. Full output saved to: /tmp/claude/tool-results/x.txt\n"
            "Preview (first 2KB):\n" + text[:2048] + "\n...\n</persisted-output>")


def codex(text):
    """Codex CLI: ~10,000 chars, a header, half head and half tail with
    `…N chars truncated…` (docs/agents.md: 10,210 chars shown of a 79,439-char run)."""
    if len(text) <= 10000:
        return text
    return (f"Total output lines: {text.count(chr(10)) + 1}\n" + text[:5000]
            + f"…{len(text) - 10000} chars truncated…" + text[-5000:])


BLIND = {
    "head 2,000": head,
    "head+tail 2,000": head_tail,
    "Claude Code's rule": claude_code,
    "Codex's rule": codex,
}


# --- toolcap ------------------------------------------------------------------------------

def find_toolcap(arg):
    if arg:
        return Path(arg)
    for p in (ROOT / "target/release/toolcap", ROOT / "target/debug/toolcap"):
        if p.exists():
            return p
    sys.exit("no toolcap binary: build it (cargo build --release --bin toolcap) or pass --toolcap PATH")


def binary_key(path):
    st = path.stat()
    return hashlib.sha256(f"{path.resolve()}:{st.st_size}:{st.st_mtime_ns}".encode()).hexdigest()[:16]


def call_id(case):
    return "nu" + hashlib.sha256(case["id"].encode()).hexdigest()[:16]


def run_toolcap(tc, case, preset, store, cfgdir):
    cmd = [str(tc), "process", "--tool", case["tool"] or "generic", "--args-json",
           json.dumps(case["args"] if isinstance(case["args"], dict) else {}),
           "--id", call_id(case), "--store", str(store), "--save", "all", "--json"]
    env = dict(os.environ)
    env.pop("TOOLCAP_CONFIG", None)
    if preset:
        cfg = Path(cfgdir) / f"{preset}.toml"
        cfg.write_text(f'[suggest]\npreset = "{preset}"\n')
        cmd += ["--config", str(cfg)]
    r = subprocess.run(cmd, input=case["result"].encode(), capture_output=True, env=env, check=False)
    try:
        rep = json.loads(r.stdout)
    except ValueError:
        return {"text": case["result"], "error": r.stderr.decode()[:300]}
    return {"text": rep.get("text", ""), "truncated": rep.get("truncated"), "family": rep.get("family")}


def first_suggestion(view):
    """The first `•` line of the view's Commands section."""
    m = re.search(r"^Commands:\n\s*•\s*(.+)$", view, re.M)
    return m.group(1).split("  #")[0].strip() if m else None


def numbered_lines(text, a, b):
    """Lines A..B of a result: by their own number prefix when the lines are numbered, else by position."""
    lines = text.splitlines()
    num = re.compile(r"^\s*(\d+)(?:\t|→|:|\s{1,2}\S)")
    if sum(1 for ln in lines[:50] if num.match(ln)) > 25:
        out = [ln for ln in lines if (m := num.match(ln)) and a <= int(m.group(1)) <= b]
        return "\n".join(out)
    return "\n".join(lines[a - 1:b])


def follow(tc, case, sugg, store):
    """Run the first suggestion against the stored full result: its output text, or None."""
    if not sugg:
        return None
    cid = call_id(case)
    base = [str(tc)]
    # a shell tool's call of a command (`shell(command="toolcap search ID 'P'")`): the command
    m = re.match(r"\w+\((?:command|cmd)=(\"(?:[^\"\\]|\\.)*\")", sugg)
    if m:
        try:
            sugg = json.loads(m.group(1))
        except ValueError:
            return None
    m = re.match(r"get_continuation\((.*)\)$", sugg)
    if m or re.search(r"\btoolcap\S* continue\b", sugg):
        argv = ["continue", cid, "--store", str(store)]
        for k, flag in (("start_line", "--start-line"), ("end_line", "--end-line"), ("offset", "--offset"), ("symbol", "--symbol")):
            mm = re.search(k + r'=("?)([^",)]+)\1', sugg) or re.search(flag + r"\s+'?([^'\s]+)'?", sugg)
            if mm:
                argv += [flag, mm.groups()[-1]]
        r = subprocess.run(base + argv, capture_output=True, check=False)
        return r.stdout.decode("utf-8", "replace")
    m = re.match(r"search_tool_output\(.*pattern=\"((?:[^\"\\]|\\.)*)\"", sugg)
    if m or re.search(r"\btoolcap\S* search\b", sugg):
        if m:
            pat = json.loads('"' + m.group(1) + '"')
        else:
            try:
                words = shlex.split(sugg)
                pat = words[words.index("search") + 2]
            except (ValueError, IndexError):
                return None
        r = subprocess.run(base + ["search", cid, pat, "--store", str(store)], capture_output=True, check=False)
        return r.stdout.decode("utf-8", "replace")
    m = re.search(r"sed -n '?(\d+),(\d+)p", sugg)
    if m:
        return numbered_lines(case["result"], int(m.group(1)), int(m.group(2)))
    m = re.search(r"(?:offset|start_line)[\"']?[=:]\s*(\d+).*?(?:limit|end_line)[\"']?[=:]\s*(\d+)", sugg)
    if m:
        a, n = int(m.group(1)), int(m.group(2))
        b = n if "end_line" in sugg else a + n - 1
        return numbered_lines(case["result"], a, b)
    return None


# --- scoring ------------------------------------------------------------------------------

def cost_to_answer(case, shown, extra_first=None, c=8000):
    """Chars shown + for each further call C + what it reads, until every used fact is in.
    A further call reads WINDOW chars of the result from the line of the first missing fact
    (a 50-line read or a page of the stored result); `extra_first` is a first call's output."""
    facts = case["facts"]
    have = shown
    total = len(shown)
    calls = 0
    if extra_first is not None and any(not rule.kept(f, have) for f in facts):
        total += c + len(extra_first)
        have += "\n" + extra_first
        calls += 1
    text = case["result"]
    for _ in range(50):
        missing = [f for f in facts if not rule.kept(f, have)]
        if not missing:
            break
        off = min(f["offset"] for f in missing)
        start = text.rfind("\n", 0, off) + 1
        win = text[start:start + max(WINDOW, off - start + len(missing[0]["token"]))]
        total += c + len(win)
        have += "\n" + win
        calls += 1
    return total, calls


def where(case, off):
    text = case["result"]
    line = text.count("\n", 0, off) + 1
    lines = text.count("\n") + 1
    part = "head" if off < 2000 else ("tail" if off >= len(text) - 1000 else "middle")
    return f"line {line} of {lines}, char {off:,} of {len(text):,} ({part})"


def pct(x):
    return f"{100 * x:.1f}%"


def table(headers, rows):
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" if i == 0 else "---:" for i in range(len(headers))) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description="next-use benchmark")
    ap.add_argument("--toolcap", help="the toolcap binary (default: target/release or target/debug)")
    ap.add_argument("--cases", default=str(HERE / "cases.jsonl.gz"))
    ap.add_argument("--cost", type=int, default=8000, help="chars one more call costs (default 8,000)")
    ap.add_argument("--misses", default=None, help="write toolcap's misses to this file (default: print them)")
    ap.add_argument("--no-presets", action="store_true", help="run toolcap with the built-in settings only")
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--no-cache", action="store_true")
    a = ap.parse_args()

    with gzip.open(a.cases, "rt", encoding="utf-8") as f:
        cases = [json.loads(ln) for ln in f]
    tc = find_toolcap(a.toolcap)
    variants = [None] + ([] if a.no_presets else PRESETS)
    cache_dir = Path.home() / ".cache/toolcap-nextuse" / binary_key(tc)
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="nextuse-"))

    views = {}
    for v in variants:
        name = "toolcap" + (f" ({v})" if v else "")
        cfile = cache_dir / f"{v or 'default'}.json"
        cached = {} if a.no_cache or not cfile.exists() else json.loads(cfile.read_text())
        store = tmp / f"{v or 'default'}.db"

        def one(case, v=v, store=store):
            res = run_toolcap(tc, case, v, store, tmp)
            sugg = first_suggestion(res["text"]) if res.get("truncated") else None
            res["suggestion"] = sugg
            res["followed"] = follow(tc, case, sugg, store)
            return case["id"], res

        todo = [c for c in cases if c["id"] not in cached]
        # the store must hold every case for `continue`/`search`, so a partial cache reruns all
        if todo:
            with ThreadPoolExecutor(a.jobs if v is None else a.jobs) as ex:
                cached = dict(ex.map(one, cases)) if len(todo) else cached
            if not a.no_cache:
                cfile.write_text(json.dumps(cached))
        views[name] = cached

    systems = list(views) + list(BLIND)
    scored = {s: [] for s in systems}
    for c in cases:
        for s in systems:
            if s in BLIND:
                view, followed = BLIND[s](c["result"]), None
            else:
                r = views[s][c["id"]]
                view, followed = r["text"], r.get("followed")
            kept = sum(rule.kept(f, view) for f in c["facts"])
            after = kept
            if followed is not None:
                after = sum(rule.kept(f, view + "\n" + followed) for f in c["facts"])
            cost, calls = cost_to_answer(c, view, None, a.cost)
            scost, _ = cost_to_answer(c, view, followed, a.cost) if followed is not None else (cost, calls)
            scored[s].append({"case": c, "view": view, "kept": kept, "after": after, "n": len(c["facts"]),
                              "chars": len(view), "cost": cost, "calls": calls, "scost": scost,
                              "followed": followed})

    used = [i for i, c in enumerate(cases) if c["facts"]]
    unused = [i for i, c in enumerate(cases) if not c["facts"]]
    harnesses = sorted({c["harness"] for c in cases})
    print(f"# next-use benchmark: {len(cases)} results over 3,500 chars from {len(harnesses)} harnesses "
          f"({', '.join(h + ' ' + str(sum(c['harness'] == h for c in cases)) for h in harnesses)}); "
          f"{len(used)} with used facts, {len(unused)} the agent used nothing from; toolcap {tc}; C = {a.cost:,}\n")

    def mean_kept(rows, idx, key="kept"):
        sel = [rows[i] for i in idx if rows[i]["n"]]
        return sum(r[key] / r["n"] for r in sel) / len(sel) if sel else float("nan")

    def mean(rows, idx, key):
        return sum(rows[i][key] for i in idx) / len(idx) if idx else float("nan")

    rows = []
    for s in systems:
        r = scored[s]
        after = pct(mean_kept(r, used, "after")) if s.startswith("toolcap") else ""
        every = list(range(len(cases)))
        rows.append([s, pct(mean_kept(r, used)), f"{mean(r, used, 'chars'):,.0f}", after,
                     f"{mean(r, used, 'cost'):,.0f}", f"{mean(r, used, 'calls'):.2f}",
                     f"{mean(r, unused, 'chars'):,.0f}", f"{mean(r, every, 'cost'):,.0f}"])
    print(f"## All cases with used facts ({len(used)}), and the {len(unused)} without\n")
    print(table(["system", "used facts kept (mean per case)", "chars shown", "after first suggestion",
                 f"cost to answer (C={a.cost:,})", "extra calls", "chars shown, no-use cases",
                 "cost to answer, all cases"], rows))
    tc_rows = scored["toolcap"]
    sugg_cost = mean(tc_rows, used, "scost")
    print(f"\ntoolcap following its first suggestion, then reading on: cost to answer {sugg_cost:,.0f}; "
          f"suggestions executable {sum(1 for i in used if tc_rows[i]['followed'] is not None)} of "
          f"{sum(1 for i in used if tc_rows[i]['view'] != cases[i]['result'])} cut results with used facts.")
    pos = {"first 2,000 chars": 0, "middle": 0, "last 1,000 chars": 0}
    for i in used:
        c = cases[i]
        for f in c["facts"]:
            o = f["offset"]
            pos["first 2,000 chars" if o < 2000 else ("last 1,000 chars" if o >= c["chars"] - 1000 else "middle")] += 1
    nf = sum(pos.values())
    print(f"Where the {nf} used facts lie in their results: "
          + ", ".join(f"{k} {v} ({pct(v / nf)})" for k, v in pos.items()) + ".")
    full = sum(c["chars"] for c in cases) / len(cases)
    print(f"Mean result size {full:,.0f} chars; the results used for nothing: {len(unused)} "
          f"({mean(tc_rows, unused, 'chars'):,.0f} chars shown by toolcap against "
          f"{sum(cases[i]['chars'] for i in unused) / max(1, len(unused)):,.0f} whole).\n")

    def group_table(title, key, groups):
        print(f"## {title}: used facts kept (mean per case) · chars shown · cost to answer\n")
        head_ = ["system"] + [f"{g} ({sum(1 for i in used if key(cases[i]) == g)}+{sum(1 for i in unused if key(cases[i]) == g)})" for g in groups]
        out = []
        for s in systems:
            r = scored[s]
            cells = []
            for g in groups:
                idx = [i for i in used if key(cases[i]) == g]
                cells.append(f"{pct(mean_kept(r, idx))} · {mean(r, idx, 'chars'):,.0f} · {mean(r, idx, 'cost'):,.0f}" if idx else "—")
            out.append([s] + cells)
        aft = ["toolcap, after first suggestion"]
        for g in groups:
            idx = [i for i in used if key(cases[i]) == g]
            aft.append(pct(mean_kept(tc_rows, idx, "after")) if idx else "—")
        out.append(aft)
        print(table(head_, out))
        print("\n(N+M: cases with used facts + cases the agent used nothing from)\n")

    group_table("Per tool kind", lambda c: c["kind"], [k for k in KINDS if any(c["kind"] == k for c in cases)])
    group_table("Per harness", lambda c: c["harness"], harnesses)

    lines = [f"# toolcap's misses ({tc}): every used fact its first view lacks\n"]
    nm = 0
    for i in used:
        r = dict(tc_rows[i])
        c = cases[i]
        r["suggestion"] = views["toolcap"][c["id"]].get("suggestion")
        miss = [f for f in c["facts"] if not rule.kept(f, r["view"])]
        if not miss:
            continue
        nm += 1
        src = c["source"]
        lines.append(f"## {c['id']} — {c['harness']}, {c['kind']}, {c['tool']} "
                     f"{json.dumps(c['args'], ensure_ascii=False)[:160]}")
        lines.append(f"source: {src['repository']}@{src['commit']}:{src['path']} step {src['step']}; "
                     f"result {c['chars']:,} chars, view {len(r['view']):,} chars; first suggestion: {r['suggestion']}")
        for f in miss[:12]:
            lines.append(f"- used `{f['token'][:100]}` ({f['kind']}), at {where(c, f['offset'])}")
        if len(miss) > 12:
            lines.append(f"- ... and {len(miss) - 12} more")
        nxt = "; ".join(f"{x['tool']} {json.dumps(x['args'], ensure_ascii=False)[:120]}" for x in c["next_actions"])
        lines.append(f"- next actions: {nxt}\n")
    text = "\n".join(lines)
    if a.misses:
        Path(a.misses).write_text(text + "\n")
        print(f"## toolcap's misses: {nm} of {len(used)} cases lack a used fact; listed in {a.misses}")
    else:
        print(text)


if __name__ == "__main__":
    main()
