#!/usr/bin/env python3
"""Which shape of a cut source file's first view keeps most used facts (issue 43 item 3).

    python3 benches/nextuse/shapes.py

Simulates view shapes on the file-read cases of cases.jsonl.gz (the result text alone, no
toolcap binary; the used-facts rule of rule.py), per kind: the mean share of used facts kept
per case with used facts, and the chars shown (mean over those cases). A "signature line" is
a line that begins a definition (Python `def`/`class`, `fn`, `function`, `func`, `impl`,
`struct`... by a regex, where toolcap uses its outline), listed with the file's line number
(a numbered read's own number). The shapes:

  head                 the first 2,000 chars, whole lines
  head + signatures    the head, then the signature lines of the definitions after it
                       (1,000 chars at most): what toolcap's code view does
  head + sig + tail    the same, then the last 500 chars
  short head + windows a 1,000- or 1,500-char head, then each signature line after it with
                       the K lines below it (1,500 chars at most)
"""

import gzip
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import rule  # noqa: E402

NUM = re.compile(r"^\s*(\d+)(\t|→|: |:|\. |\| )")
DEF = re.compile(r"^\s*(async\s+def|def|class|fn|pub\s+fn|pub\(crate\)\s+fn|impl|struct|enum|trait|"
                 r"function|export\s+(default\s+)?(async\s+)?function|export\s+class|interface|func)\b")
KINDS = ("file read", "numbered file read (shell)")


def rows(text):
    out = []
    for ln in text.split("\n"):
        m = NUM.match(ln)
        out.append((int(m.group(1)), ln[m.end():]) if m else (None, ln))
    return out


def head(text, n):
    if len(text) <= n:
        return text
    cut = text.rfind("\n", 0, n)
    return text[:cut if cut > 0 else n]


def positions(text):
    """Char offset of each line's start."""
    offs, p = [], 0
    for ln in text.split("\n"):
        offs.append(p)
        p += len(ln) + 1
    return offs


def sigs(text, after, below=0, budget=1000):
    r = rows(text)
    offs = positions(text)
    numbered = sum(1 for n, _ in r[:60] if n is not None) > 20
    out, used = [], 0
    for i, (n, body) in enumerate(r):
        if offs[i] < after or not DEF.match(body):
            continue
        block = []
        for j in range(i, min(i + below + 1, len(r))):
            nj, bj = r[j]
            block.append(f"{nj if numbered and nj is not None else j + 1}: {bj.rstrip()}")
        s = "\n".join(block)
        if used + len(s) + 1 > budget:
            break
        out.append(s)
        used += len(s) + 1
    return "\n".join(out)


def shapes():
    def h(c):
        return head(c["result"], 2000)

    def hs(c):
        v = h(c)
        return v + "\n" + sigs(c["result"], len(v))

    def hst(c):
        return hs(c) + "\n" + c["result"][-500:]

    def win(n, k):
        def f(c):
            v = head(c["result"], n)
            return v + "\n" + sigs(c["result"], len(v), k, 1500)
        return f

    out = [("head", h), ("head + signatures", hs), ("head + signatures + tail 500", hst)]
    for n in (1000, 1500):
        for k in (2, 8):
            out.append((f"head {n:,} + windows (signature + {k} lines)", win(n, k)))
    return out


def main():
    cases = [json.loads(ln) for ln in gzip.open(HERE / "cases.jsonl.gz")]
    cases = [c for c in cases if c["kind"] in KINDS and c["facts"]]
    print("| shape | " + " | ".join(f"{k} ({sum(c['kind'] == k for c in cases)})" for k in KINDS) + " |")
    print("|---|" + "---:|" * len(KINDS))
    for name, f in shapes():
        cells = []
        for k in KINDS:
            cs = [c for c in cases if c["kind"] == k]
            views = [f(c) if len(c["result"]) > 3500 else c["result"] for c in cs]
            kept = sum(sum(rule.kept(x, v) for x in c["facts"]) / len(c["facts"]) for c, v in zip(cs, views))
            chars = sum(len(v) for v in views)
            cells.append(f"{100 * kept / len(cs):.1f}% · {chars / len(cs):,.0f}")
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
