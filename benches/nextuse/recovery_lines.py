#!/usr/bin/env python3
"""What each kind of line of toolcap's recovery section carries on the next-use benchmark (issue 43 item 7).

    python3 benches/nextuse/recovery_lines.py [--toolcap PATH] [--preset NAME]

Splits each view's `--- Recovery Options ---` section into its lines, by kind
(the totals line, the error-lines count, the structure title and lines, each kind
of suggestion, each kind of note), and counts, over the benchmark's cases:

- chars: what the lines of that kind cost, over every case (the results the agent
  used nothing from pay for them too);
- facts held: used facts that occur in a line of that kind and nowhere in the rest
  of the view (the kept part, the marker, the other kinds), by run.py's rule;
- facts fetched (suggestions only): used facts that the suggestion's output holds
  and the view lacks, with the suggestion followed as run.py follows the first
  one (a `get_continuation`/`toolcap continue` range read from the result's lines,
  a `search_tool_output`/`toolcap search` pattern matched on them, a `sed -n`
  range, a read with offset and limit);
- facts per 1,000 chars, of both.

toolcap's views come from run.py's cache for the binary (this script runs
`run.py --no-presets` when it is missing).
"""

import argparse
import gzip
import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import rule  # noqa: E402
import run  # noqa: E402

HERE = Path(__file__).resolve().parent
HEADING = "--- Recovery Options ---"
TOTALS = re.compile(r"^(Tool|Command|File|Result|Listing|Query|URL|Search|Pattern|Output|Page|Log|Diff|JSON)\b.*(\d lines?|\d chars|\d entr|\d results?)|^Result: ")


def line_kind(line, in_commands, in_structure):
    """The kind of one line of the section (its text as rendered)."""
    s = line.strip()
    if in_commands and line.startswith("  • "):
        return suggestion_kind(s[2:])
    if in_structure and line.startswith("  "):
        return "structure line"
    if re.search(r"\berror-looking lines?\b", s):
        return "error-lines count"
    if s.startswith("[... ") and "recovery options are capped" in s:
        return "note: section capped"
    if re.match(r"To see other parts, call .* again with narrower arguments", s):
        return "note: call again with narrower arguments"
    if s.startswith("The full result is stored."):
        return "note: the full result is stored"
    if TOTALS.search(s):
        return "totals"
    if s.endswith(":") or re.match(r"^(Structure|JSON structure|Headings|Directories|Results not shown|Domains)\b", s):
        return "structure title"
    return "other fact or note"


def suggestion_kind(s):
    call, _, purpose = s.partition("  # ")
    tool = call.split("(", 1)[0]
    if re.search(r"\btoolcap\S* continue\b", call) or tool == "get_continuation":
        if re.search(r"\b(the )?next \d", purpose):
            return "command: continue, the next lines"
        if "omitted lines" in purpose:
            return "command: continue, omitted lines"
        if "the last" in purpose:
            return "command: continue, the last lines"
        if "symbol" in call:
            return "command: continue, a definition"
        return "command: continue, other"
    if re.search(r"\btoolcap\S* search\b", call) or tool == "search_tool_output":
        if "error lines" in purpose:
            return "command: search, error lines"
        return "command: search, other pattern"
    if re.search(r"\bsed -n\b", call):
        return "command: sed range"
    return f"command: {tool}"


def split(view):
    """(body, [(kind, line)]) of a view; body is what precedes the last section."""
    i = view.rfind("\n" + HEADING + "\n")
    if i < 0:
        return view, []
    body, section = view[:i], view[i + 1:]
    out = []
    in_commands = in_structure = in_command_fact = False
    for ln in section.split("\n")[1:]:
        if in_command_fact:
            # a command fact's further lines (a here-document, a `python -c` script)
            out.append(("totals: a command's further lines", ln))
            in_command_fact = " | Output: " not in ln
            continue
        if not ln.strip():
            in_structure = False
            continue
        if ln == "Commands:":
            in_commands, in_structure = True, False
            out.append(("Commands: heading", ln))
            continue
        if ln.startswith("Command: ") and " | Output: " not in ln and not in_commands:
            in_command_fact = True
            out.append(("totals", ln))
            continue
        k = line_kind(ln, in_commands, in_structure)
        if k == "structure title":
            in_structure = True
        if not ln.startswith("  "):
            in_commands = in_commands and ln.startswith("  ")
        out.append((k, ln))
    out.append(("heading", HEADING))
    return body, out


def search_lines(text, pattern):
    """The lines of a stored result that a recovery search's pattern (POSIX ERE) matches."""
    py = (pattern.replace("[:alnum:]", "A-Za-z0-9").replace("[:alpha:]", "A-Za-z")
          .replace("[:digit:]", "0-9").replace("[:space:]", r"\s"))
    try:
        rx = re.compile(py)
    except re.error:
        return None
    return "\n".join(f"{i}: {ln}" for i, ln in enumerate(text.split("\n"), 1) if rx.search(ln))


def follow(case, s):
    """A suggestion's output, computed from the case's result, or None."""
    call = s[2:].partition("  # ")[0] if s.startswith("• ") else s.partition("  # ")[0]
    m = re.search(r"start_line=(\d+), end_line=(\d+)", call) or re.search(r"--start-line (\d+) --end-line (\d+)", call)
    if m:
        a, b = int(m.group(1)), int(m.group(2))
        return "\n".join(case["result"].split("\n")[a - 1:b])
    m = re.search(r"search_tool_output\(.*pattern=(\"(?:[^\"\\]|\\.)*\")", call)
    if m:
        try:
            return search_lines(case["result"], json.loads(m.group(1)))
        except ValueError:
            return None
    m = re.search(r"sed -n '?(\d+),(\d+)p", call)
    if m:
        return run.numbered_lines(case["result"], int(m.group(1)), int(m.group(2)))
    return None


def main():
    ap = argparse.ArgumentParser(description="facts per char of each recovery-section line kind")
    ap.add_argument("--toolcap", help="the toolcap binary (default: target/release or target/debug)")
    ap.add_argument("--cases", default=str(HERE / "cases.jsonl.gz"))
    ap.add_argument("--preset", default="default", help="which cached view set (default, claude-code, ...)")
    ap.add_argument("--views", help="a cached view set (run.py's ~/.cache/toolcap-nextuse/KEY/NAME.json) instead")
    a = ap.parse_args()

    with gzip.open(a.cases, "rt", encoding="utf-8") as f:
        cases = [json.loads(ln) for ln in f]
    tc = a.views or run.find_toolcap(a.toolcap)
    cfile = Path(a.views) if a.views else Path.home() / ".cache/toolcap-nextuse" / run.binary_key(tc) / f"{a.preset}.json"
    if not cfile.exists():
        subprocess.run([sys.executable, str(HERE / "run.py"), "--toolcap", str(tc), "--no-presets",
                        "--misses", "/dev/null"], check=True, stdout=subprocess.DEVNULL)
    views = json.loads(cfile.read_text())

    chars = defaultdict(int)
    lines = defaultdict(int)
    cases_with = defaultdict(set)
    held = defaultdict(int)
    fetched = defaultdict(int)
    held_cases = defaultdict(set)
    section_chars = 0
    body_chars = 0
    nsec = 0
    for c in cases:
        view = views[c["id"]]["text"]
        body, sec = split(view)
        if not sec:
            continue
        nsec += 1
        section_chars += len(view) - len(body)
        body_chars += len(body)
        for k, ln in sec:
            chars[k] += len(ln) + 1
            lines[k] += 1
            cases_with[k].add(c["id"])
        if not c["facts"]:
            continue
        for f in c["facts"]:
            for k, ln in sec:
                if not rule.kept(f, ln):
                    continue
                rest = body + "\n" + "\n".join(x for kk, x in sec if kk != k)
                if not rule.kept(f, rest):
                    held[k] += 1
                    held_cases[k].add(c["id"])
        for k, ln in sec:
            if k.startswith("command"):
                out = follow(c, ln.strip())
                if out is None:
                    continue
                fetched[k] += sum(1 for f in c["facts"] if not rule.kept(f, view) and rule.kept(f, out))

    nf = sum(len(c["facts"]) for c in cases)
    print(f"# The recovery section's lines on the next-use benchmark (toolcap {tc}, {a.preset} views)\n")
    print(f"{nsec} of {len(cases)} views have a section: {section_chars / max(1, nsec):,.0f} chars per view "
          f"({section_chars:,} in all; the kept part and marker {body_chars / max(1, nsec):,.0f}); "
          f"{nf} used facts in {sum(1 for c in cases if c['facts'])} cases.\n")
    rows = []
    order = sorted(chars, key=lambda k: (not k.startswith("heading"), k.startswith("command"), -chars[k]))
    for k in order:
        per = 1000 * (held[k] + fetched[k]) / chars[k]
        rows.append([k, f"{len(cases_with[k]):,}", f"{lines[k]:,}", f"{chars[k]:,}", f"{chars[k] / len(cases):,.0f}",
                     f"{held[k]}", f"{fetched[k]}" if k.startswith("command") else "", f"{per:.3f}"])
    print(run.table(["line kind", "views with it", "lines", "chars (all views)", "chars per case",
                     "used facts held only there", "used facts its output adds", "facts per 1,000 chars"], rows))


if __name__ == "__main__":
    main()
