#!/usr/bin/env python3
"""Compare toolcap's outline with Universal Ctags on real source files.

Usage: tests/ctags_compare.py TOOLCAP LANG FILE... [--show N]

For every file, runs `TOOLCAP outline --json --budget-ms 0 --lang LANG FILE` and
`ctags --output-format=json --fields=+neKzZ FILE`, maps both to the outline's
kind vocabulary and its rule (definitions at module level and inside
containers; nothing inside function bodies), and compares the sets of
(kind, name, line). Prints recall and precision (toolcap against ctags), and,
for the matched symbols, how often end_line agrees too.

Names are compared by their last segment (`M.f`, `Foo::bar` -> `f`, `bar`),
since ctags and toolcap qualify methods defined outside their type
differently. ctags kinds that the outline does not list (fields, variables,
enumerators, properties, imports, ...) are dropped, as are tags whose scope is a
function or a dropped tag.
"""

import json
import re
import subprocess
import sys
from collections import Counter

CTAGS_LANG = {
    "c": "C", "cpp": "C++", "csharp": "C#", "go": "Go", "java": "Java",
    "javascript": "JavaScript", "typescript": "TypeScript", "tsx": "TypeScript",
    "ruby": "Ruby", "php": "PHP", "bash": "Sh", "kotlin": "Kotlin", "lua": "Lua",
}

# ctags kind -> outline kind; kinds not listed are dropped.
KINDS = {
    "C": {"function": "function", "prototype": "function", "struct": "struct",
          "union": "union", "enum": "enum", "typedef": "type", "macro": "macro"},
    "C++": {"function": "function", "prototype": "function", "struct": "struct",
            "union": "union", "enum": "enum", "typedef": "type", "macro": "macro",
            "class": "class", "namespace": "module", "alias": "type"},
    "C#": {"class": "class", "struct": "struct", "interface": "interface",
           "enum": "enum", "method": "function", "namespace": "module"},
    "Go": {"func": "function", "struct": "struct", "interface": "interface",
           "type": "type", "talias": "type", "const": "constant",
           "methodSpec": "method"},
    "Java": {"class": "class", "interface": "interface", "enum": "enum",
             "method": "function", "annotation": "interface", "record": "class"},
    "JavaScript": {"function": "function", "class": "class", "method": "function",
                   "generator": "function", "getter": "function", "setter": "function"},
    "TypeScript": {"function": "function", "class": "class", "method": "function",
                   "interface": "interface", "enum": "enum", "namespace": "module",
                   "alias": "type", "generator": "function"},
    "Ruby": {"class": "class", "module": "module", "method": "function",
             "singletonMethod": "method", "constant": "constant"},
    "PHP": {"class": "class", "interface": "interface", "trait": "trait",
            "function": "function", "namespace": "module", "enum": "enum",
            "define": "constant"},
    "Sh": {"function": "function"},
    "Kotlin": {"class": "class", "object": "class", "interface": "interface",
               "method": "function", "typealias": "type", "enum": "enum"},
    "Lua": {"function": "function"},
}
# Scope kinds whose functions are methods.
METHOD_SCOPES = {"class", "struct", "union", "interface", "trait", "enum", "record",
                 "object", "annotation", "module:Ruby"}
FUNCTION_KINDS = {"function", "method", "func", "singletonMethod", "generator",
                  "getter", "setter", "prototype"}


# ctags' Kotlin parser records no scope for members and calls enum classes
# classes: compare Kotlin kinds coarsely.
COARSE = {"kotlin": {"method": "function", "enum": "class"}}


def coarse(lang, key):
    kind = COARSE.get(lang, {}).get(key[0], key[0])
    return (kind,) + tuple(key[1:])


def last_segment(name):
    return re.split(r"::|[.:]", name)[-1] if name else name


def ctags_tags(lang, path):
    cl = CTAGS_LANG[lang]
    cmd = ["ctags", "--output-format=json", "--fields=+neKzZ", f"--languages={cl}",
           f"--language-force={cl}", "-o", "-"]
    if cl in ("C", "C++"):
        cmd.append(f"--kinds-{cl}=+p")
    cmd.append(path)
    out = subprocess.run(cmd, capture_output=True, text=True, check=False).stdout
    tags = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
    tags = [t for t in tags if t.get("_type") == "tag"]
    tags.sort(key=lambda t: t.get("line", 0))
    kinds = KINDS[cl]
    dropped_scopes = set()
    kept_scope_kind = {}
    result = set()
    ends = {}
    for t in tags:
        name, kind, line = t.get("name", ""), t.get("kind", ""), t.get("line", 0)
        scope, scope_kind = t.get("scope"), t.get("scopeKind")
        full = f"{scope}.{name}" if scope else name
        local = scope is not None and (
            scope_kind in FUNCTION_KINDS or scope in dropped_scopes
            # ctags JS/TS name anonymous functions AnonymousFunction...
            or "Anonymous" in scope)
        if local or kind not in kinds or name.startswith("<"):
            # A package's members are not local; a variable's are.
            if local or kind not in ("package", "packageName"):
                dropped_scopes.add(full)
            continue
        if kind in FUNCTION_KINDS:
            dropped_scopes.add(full)
        out_kind = kinds[kind]
        scope_is_type = scope_kind in METHOD_SCOPES or (
            cl == "Ruby" and scope_kind == "module")
        if out_kind == "function" and scope is not None and scope_is_type:
            out_kind = "method"
        if cl == "Go" and kind == "func" and scope_kind not in (None, "package"):
            out_kind = "method"
        if cl in ("C++",) and out_kind == "function" and "::" in name:
            out_kind = "method"
        if cl == "Lua" and ":" in name:
            out_kind = "method"
        key = (out_kind, last_segment(name), line)
        result.add(key)
        if "end" in t:
            ends[key] = t["end"]
        kept_scope_kind[full] = kind
    return result, ends


def toolcap_symbols(toolcap, lang, path):
    out = subprocess.run([toolcap, "outline", "--json", "--budget-ms", "0", "--lang", lang, path],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        print(f"toolcap failed on {path}: {out.stderr.strip()}", file=sys.stderr)
        return set(), {}, False
    o = json.loads(out.stdout)
    keys, ends = set(), {}
    for s in o["symbols"]:
        key = (s["kind"], last_segment(s["name"]), s["line"])
        keys.add(key)
        ends[key] = s["end_line"]
    return keys, ends, o.get("syntax_errors", False)


def main():
    args = sys.argv[1:]
    show = 0
    if "--show" in args:
        i = args.index("--show")
        show = int(args[i + 1])
        del args[i:i + 2]
    toolcap, lang, files = args[0], args[1], args[2:]
    tp = fp = fn = end_same = end_known = 0
    errors = 0
    lines = 0
    missing, extra = Counter(), Counter()
    examples = []
    for f in files:
        with open(f, "rb") as fh:
            lines += fh.read().count(b"\n")
        ref, ref_ends = ctags_tags(lang, f)
        got, got_ends, syn = toolcap_symbols(toolcap, lang, f)
        ref_ends = {coarse(lang, k): v for k, v in ref_ends.items()}
        got_ends = {coarse(lang, k): v for k, v in got_ends.items()}
        ref = {coarse(lang, k) for k in ref}
        got = {coarse(lang, k) for k in got}
        errors += syn
        both = ref & got
        tp += len(both)
        fn += len(ref - got)
        fp += len(got - ref)
        for k in both:
            if k in ref_ends:
                end_known += 1
                end_same += ref_ends[k] == got_ends.get(k)
        for k in sorted(ref - got, key=lambda k: k[2]):
            missing[k[0]] += 1
            if len(examples) < show:
                examples.append(f"  missing {k} in {f}")
        for k in sorted(got - ref, key=lambda k: k[2]):
            extra[k[0]] += 1
            if len(examples) < show * 2:
                examples.append(f"  extra   {k} in {f}")
    recall = tp / (tp + fn) if tp + fn else 1.0
    precision = tp / (tp + fp) if tp + fp else 1.0
    ends = f"{end_same / end_known:.1%} of {end_known}" if end_known else "n/a"
    print(f"{lang}: {len(files)} files, {lines} lines, ctags {tp + fn}, toolcap {tp + fp}, "
          f"matched {tp}; recall {recall:.1%}, precision {precision:.1%}; "
          f"end_line equal {ends}; files with syntax errors {errors}")
    if show:
        print("  missing by kind:", dict(missing), " extra by kind:", dict(extra))
        print("\n".join(examples))


if __name__ == "__main__":
    main()
