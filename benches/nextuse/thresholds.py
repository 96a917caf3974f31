#!/usr/bin/env python3
"""Each family's threshold, chosen from the next-use benchmark's cost to answer (issue 43 item 6).

    python3 benches/nextuse/thresholds.py [--toolcap PATH] [--cost C] [--config FILE]

For each family of thresholds.toml (the tool names of its [tools.NAME] entry, as
toolcap maps them: exact names, then globs, else `generic`), sweeps the threshold
over the benchmark's cases: a result of at most T chars passes whole (it costs its
chars and keeps every used fact), a longer one gets toolcap's view and costs what
run.py's cost to answer says (chars shown, plus C and a 2,000-char read per further
call until the used facts are in). Prints, per family and T, the mean cost over the
family's cases, the one that costs least, and how sure the cases make that choice
(how often a resample of the family's cases, with replacement, picks the same T).

toolcap's views come from run.py's cache for the binary (run
`python3 benches/nextuse/run.py --no-presets` first; this script runs it when the
cache is missing). A view of a cut result does not depend on the threshold here:
every case is over 3,500 chars and the recovery section is far under the room a
larger threshold leaves, so the views at the built-in thresholds stand for every T
(`--check N` re-runs N cut cases at the largest T that still cuts them and counts
the views that differ). The cases hold no result of 3,500 chars or less, so
nothing here can say whether a threshold under 3,500 would pay.
"""

import argparse
from collections import Counter
import fnmatch
import gzip
import json
import random
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
NEVER = 10**9  # "never cut"
SWEEP = [3500, 4000, 5000, 6000, 8000, 10000, 12000, 15000, 20000, 30000, 50000, NEVER]
FAMILIES = ["read_file", "grep", "shell", "web_search", "web_fetch", "glob", "generic"]


def entries(path):
    """(key, family, names, threshold) of each [tools.NAME] entry, in file order."""
    doc = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    out = []
    for key, t in doc.get("tools", {}).items():
        out.append((key, t.get("family", key), t.get("names", []), t.get("threshold")))
    return out


def family_of(tool, ents):
    """toolcap's rule (Config::entry_for): exact names, then globs in order, else generic."""
    glob = lambda n: any(ch in n for ch in "*?[")  # noqa: E731
    for key, fam, names, _ in ents:
        if any(not glob(n) and n == tool for n in names):
            return fam
    for key, fam, names, _ in ents:
        if any(glob(n) and fnmatch.fnmatchcase(tool, n) for n in names):
            return fam
    return "generic"


def write_notes(path, blocks):
    """Replace the `# chosen:` note (and its `#   ` lines) under each family's
    `threshold = N` line of a thresholds.toml, or add it there."""
    s = path.read_text(encoding="utf-8")
    for fam, lines in blocks.items():
        head = f"[tools.{fam}]\n"
        if head not in s:
            continue
        i = s.index(head)
        j = s.index("\n", s.index("\nthreshold = ", i) + 1)
        k = j
        while s.startswith("\n# chosen: ", k) or (k > j and s.startswith("\n#   ", k)):
            k = s.index("\n", k + 1)
        s = s[:j] + "\n" + "\n".join(lines) + s[k:]
    path.write_text(s, encoding="utf-8")


def label(t):
    return "never" if t >= NEVER else f"{t:,}"


def main():
    ap = argparse.ArgumentParser(description="per-family threshold sweep on the next-use benchmark")
    ap.add_argument("--toolcap", help="the toolcap binary (default: target/release or target/debug)")
    ap.add_argument("--cases", default=str(HERE / "cases.jsonl.gz"))
    ap.add_argument("--config", default=str(ROOT / "crates/toolcap-config/thresholds.toml"),
                    help="the thresholds.toml whose [tools] names map tools to families")
    ap.add_argument("--cost", type=int, default=8000, help="chars one more call costs (default 8,000)")
    ap.add_argument("--resamples", type=int, default=1000)
    ap.add_argument("--check", type=int, default=0, help="re-run N cut cases at a larger threshold")
    ap.add_argument("--write", action="store_true",
                    help="write each family's `# chosen:` note under its threshold in --config")
    a = ap.parse_args()

    with gzip.open(a.cases, "rt", encoding="utf-8") as f:
        cases = [json.loads(ln) for ln in f]
    tc = run.find_toolcap(a.toolcap)
    cfile = Path.home() / ".cache/toolcap-nextuse" / run.binary_key(tc) / "default.json"
    if not cfile.exists():
        subprocess.run([sys.executable, str(HERE / "run.py"), "--toolcap", str(tc), "--no-presets",
                        "--misses", "/dev/null"], check=True, stdout=subprocess.DEVNULL)
    views = json.loads(cfile.read_text())
    ents = entries(a.config)
    current = {fam: th for _, fam, _, th in ents}

    # per case: its size, and the cost to answer when it is cut (toolcap's view)
    rows = []
    for c in cases:
        view = views[c["id"]]["text"]
        cut, _ = run.cost_to_answer(c, view, None, a.cost)
        whole, _ = run.cost_to_answer(c, c["result"], None, a.cost)
        fam = family_of(c["tool"] or "generic", ents)
        rows.append({"case": c, "family": fam, "chars": len(c["result"]), "cut": cut, "whole": whole,
                     "used": bool(c["facts"])})

    def cost_at(sel, t):
        return sum(r["whole"] if r["chars"] <= t else r["cut"] for r in sel)

    def least(sel):
        """The swept values that cost least (several when no case lies between them)."""
        costs = [cost_at(sel, t) for t in SWEEP]
        return [t for t, x in zip(SWEEP, costs) if x == min(costs)]

    def span(ts):
        return label(ts[0]) if len(ts) == 1 else f"{label(ts[0])}-{label(ts[-1])}"

    print(f"# Thresholds from the next-use benchmark's cost to answer (C = {a.cost:,}; toolcap {tc})\n")
    print(f"{len(cases)} results over 3,500 chars; a result of at most T chars passes whole, a longer one "
          f"gets toolcap's view. Mean cost to answer per case of the family, at each T:\n")
    hdr = (["family (cases: with used facts + without)"] + [label(t) for t in SWEEP]
           + ["least at", "chosen", "resamples agreeing", "config"])
    out = []
    chosen = {}
    notes = {}
    rnd = random.Random(43)
    for fam in FAMILIES:
        sel = [r for r in rows if r["family"] == fam]
        nu = sum(r["used"] for r in sel)
        now_t = current.get(fam, 3500)
        if not sel:
            out.append([f"{fam} (0)"] + ["—"] * len(SWEEP) + ["no case", label(now_t), "", label(now_t)])
            notes[fam] = (f"no result of this family in the next-use benchmark (benches/nextuse/thresholds.py): "
                          f"the figures cannot choose; kept at {now_t:,}")
            continue
        costs = [cost_at(sel, t) / len(sel) for t in SWEEP]
        ls = least(sel)
        # the config's value when it is among the least-cost ones, else the smallest of them
        pick = now_t if now_t in ls or (ls[0] <= now_t <= ls[-1] and ls == SWEEP[SWEEP.index(ls[0]):SWEEP.index(ls[-1]) + 1]) else ls[0]
        agree = sum(1 for _ in range(a.resamples)
                    if (lambda s: pick in s or (s[0] <= pick <= s[-1]))(least([rnd.choice(sel) for _ in sel])))
        chosen[fam] = pick
        out.append([f"{fam} ({nu}+{len(sel) - nu})"] + [f"{x:,.0f}" for x in costs]
                   + [span(ls), label(pick), f"{100 * agree / a.resamples:.0f}%", label(now_t)])
        shown = [t for t in SWEEP if t in (3500, 5000, 8000, 15000, 30000, NEVER)]
        fig = ", ".join(f"{costs[SWEEP.index(t)]:,.0f} {'never cut' if t >= NEVER else 'at ' + label(t)}" for t in shown)
        few = (f" (too few to tell the cost of a miss: kept at {now_t:,})" if nu < 5 else "")
        tools = Counter(r["case"]["tool"] for r in sel).most_common(4)
        by = ", ".join(f"{t} {n}" for t, n in tools) + (", ..." if len(set(r["case"]["tool"] for r in sel)) > 4 else "")
        notes[fam] = (f"next-use benchmark (benches/nextuse/thresholds.py, C = {a.cost:,}): {len(sel)} "
                      f"result{'s' if len(sel) != 1 else ''} over 3,500 chars ({by}), {nu} with used facts{few}; "
                      f"mean cost to answer {fig}; least at {span(ls)}, in {100 * agree / a.resamples:.0f}% of "
                      f"{a.resamples:,} resamples")
    print(run.table(hdr, out))

    # what the all-cases figure becomes with the least-cost value of each family,
    # and with the thresholds of the config
    def total(th):
        return sum(r["whole"] if r["chars"] <= th.get(r["family"], 3500) else r["cut"] for r in rows) / len(rows)

    cc = sum(run.cost_to_answer(c, run.claude_code(c["result"]), None, a.cost)[0] for c in cases) / len(cases)
    cx = sum(run.cost_to_answer(c, run.codex(c["result"]), None, a.cost)[0] for c in cases) / len(cases)
    now = total(current)
    least_all = total(chosen)
    print(f"\nAll {len(cases)} cases: toolcap at the config's thresholds {now:,.0f} "
          f"({100 * now / cc:.1f}% of Claude Code's rule {cc:,.0f}, {100 * now / cx:.1f}% of Codex's {cx:,.0f}); "
          f"at the chosen values {least_all:,.0f} ({100 * least_all / cc:.1f}%, {100 * least_all / cx:.1f}%).")

    # the same choice at other costs of a call
    print("\nThe least-cost T at other costs of a further call:\n")
    alt = []
    for cost in (2000, 4000, 8000, 16000, 32000):
        rs = []
        for r in rows:
            c = r["case"]
            rs.append(dict(r, cut=run.cost_to_answer(c, views[c["id"]]["text"], None, cost)[0]))
        alt.append([f"C = {cost:,}"] + [span(least([r for r in rs if r["family"] == f])) if any(r["family"] == f for r in rs) else "—" for f in FAMILIES])
    print(run.table(["cost of a call"] + FAMILIES, alt))

    print("\nFor thresholds.toml (each under its family's `threshold`; --write puts them there):\n")
    blocks = {}
    for fam in FAMILIES:
        words, line, lines = notes[fam].split(" "), "# chosen:", []
        for w in words:
            if len(line) + 1 + len(w) > 100:
                lines.append(line)
                line = "#  "
            line += " " + w
        lines.append(line)
        blocks[fam] = lines
        print(f"[tools.{fam}]\n" + "\n".join(lines))
    if a.write:
        write_notes(Path(a.config), blocks)
        print(f"\nwritten to {a.config}")

    if a.check:
        tmp = Path(tempfile.mkdtemp(prefix="nextuse-th-"))
        differ = []
        sample = [r for r in rows if r["chars"] > 4000][: a.check]
        for r in sample:
            c = r["case"]
            cfg = tmp / "c.toml"
            cfg.write_text("".join(f"[tools.{k}]\nthreshold = {r['chars'] - 1}\n" for k, _, _, _ in ents))
            p = subprocess.run([str(tc), "process", "--tool", c["tool"] or "generic", "--args-json",
                                json.dumps(c["args"] if isinstance(c["args"], dict) else {}), "--id",
                                run.call_id(c), "--store", str(tmp / "s.db"), "--save", "all", "--json",
                                "--config", str(cfg)],
                               input=c["result"].encode(), capture_output=True, check=False)
            try:
                text = json.loads(p.stdout).get("text", "")
            except ValueError:
                text = None
            if text != views[c["id"]]["text"]:
                differ.append((c["id"], len(views[c["id"]]["text"]), len(text or "")))
        print(f"\n--check: {len(differ)} of {len(sample)} cut cases get another view at a threshold of their "
              f"size - 1 than at the config's" + (": " if differ else ".") + ", ".join(f"{i} ({x:,} -> {y:,} chars)" for i, x, y in differ[:10]))


if __name__ == "__main__":
    main()
