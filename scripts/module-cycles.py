#!/usr/bin/env python3
"""Fail when the library's modules import each other in a circle.

    python3 scripts/module-cycles.py [--graph]

Reads every file of the façade under src/ (not the binary's src/main.rs) and
of each workspace member under crates/*/src/ (the CLI included; each crate a tree
of its own: cargo already keeps the crates one-way), finds the modules each one
names (`use crate::...`, `crate::a::b` paths in code, `super::` and `self::`
paths), and checks each level of the module tree: among the top-level modules
(`cut`, `hints`, `store`, ...), and among the children of every folder module
(`outline::detect`, `outline::html`, ...), a module with everything under it
counts as one. A module reaching into its own parent or children is not a
circle (Rust's `super::*` is normal).

A path through a re-export is followed to where the name comes from:
`super::Suggest` in `presets.rs`, when the parent says `pub use
suggest::Suggest`, is an import of `suggest`; so is `crate::Language` when the
crate root re-exports it. Names a module brings in with `use` (public or not)
count, since its children can name them through `super::`.

Prints each circle with the lines that close it and exits 1; exits 0 when there
is none. `--graph` prints the edges of every level too.
"""

import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# the library's own source and each workspace member's
SOURCES = [ROOT / "src"] + sorted(p / "src" for p in (ROOT / "crates").glob("*") if (p / "src").is_dir())
# the binary's main.rs sits outside the library
SKIP = {ROOT / "src" / "main.rs"}
SKIP_DIRS = set()


def module_of(path: Path, src: Path):
    rel = path.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts == ["lib"] or parts == ["main"]:
        return ()
    if parts[-1] == "mod":
        parts = parts[:-1]
    return tuple(parts)


def strip_comments(text: str) -> str:
    # line comments (doc comments included) and string literals are dropped, so
    # `crate::x` in prose or in a message is not an import
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == "r" and re.match(r'r#*"', text[i:]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'r(#*)"', text[i:])
            end = '"' + m.group(1)
            j = text.find(end, i + len(m.group(0)))
            i = n if j < 0 else j + len(end)
            out.append('""')
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            out.append('""')
        elif c == "'" and re.match(r"'(\\.|[^\\'])'", text[i:]):
            i += len(re.match(r"'(\\.|[^\\'])'", text[i:]).group(0))
        else:
            out.append(c)
            i += 1
    return "".join(out)


def use_trees(code: str):
    """Every path a `use` item names, as lists of segments."""
    for m in re.finditer(r"\buse\s+([^;]+);", code):
        yield from expand(m.group(1).replace("\n", " ").strip())


def expand(tree: str):
    tree = tree.strip()
    if "{" not in tree:
        path = tree.split(" as ")[0].strip()
        yield [s for s in path.split("::") if s]
        return
    head, _, rest = tree.partition("{")
    body = rest[: rest.rfind("}")]
    prefix = [s for s in head.strip().rstrip(":").split("::") if s]
    depth, cur = 0, ""
    items = []
    for ch in body:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    items.append(cur)
    for it in items:
        if it.strip():
            for p in expand(it):
                yield prefix + p


def resolve(segments, here, is_dir_module, modules, names=None, depth=0):
    """The module a path names, from module `here`; None for outside paths.

    `names` maps (module, name) to the path a `use` in that module brings the
    name in from; a path that walks into such a name is followed there."""
    if not segments:
        return None
    if segments[0] == "crate":
        base, rest = (), segments[1:]
    elif segments[0] in ("super", "self"):
        base = here
        rest = segments
        # in a.rs, `self` is module a; `super` is its parent
        while rest and rest[0] in ("super", "self"):
            if rest[0] == "super":
                base = base[:-1]
            rest = rest[1:]
    else:
        # a plain path: a child module declared here (`mod x;` then `x::y`)
        if (here + (segments[0],)) in modules:
            base, rest = here, segments
        else:
            return None
    best = base
    cur = base
    for i, s in enumerate(rest):
        nxt = cur + (s,)
        if nxt in modules:
            best = cur = nxt
            continue
        # a name the module brought in with `use`: follow it to where it comes from
        if names is not None and depth < 8 and (cur, s) in names:
            src_segs, src_here = names[(cur, s)]
            target = resolve(src_segs + rest[i + 1 :], src_here, False, modules, names, depth + 1)
            if target is not None:
                return target
        break
    return best


def crate_files(src: Path):
    return [
        p
        for p in src.rglob("*.rs")
        if p not in SKIP and not any(d in p.parents for d in SKIP_DIRS)
    ]


def use_names(code: str, here):
    """(name, path) for every name a file's module-level `use` items bring in."""
    for m in re.finditer(r"(?m)^(?:pub(?:\([^)]*\))?\s+)?use\s+([^;]+);", code):
        for segs in expand(m.group(1).replace("\n", " ").strip()):
            if not segs or segs[-1] == "*" or segs[-1] == "self":
                continue
            alias = re.search(r"\bas\s+(\w+)\s*$", m.group(1)) if "{" not in m.group(1) else None
            yield (alias.group(1) if alias else segs[-1]), segs


def edges_of(src: Path):
    files = crate_files(src)
    modules = {module_of(p, src) for p in files}
    # names brought in by `use` at a module's top level, for following re-exports
    names = {}
    codes = {}
    for p in sorted(files):
        here = module_of(p, src)
        code = strip_comments(p.read_text())
        # test modules inside a file are not the module's own imports
        code = re.split(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", code)[0]
        codes[p] = code
        for name, segs in use_names(code, here):
            if segs[0] in ("crate", "super", "self") or (here + (segs[0],)) in modules:
                names[(here, name)] = (segs, here)
    out = defaultdict(list)  # (from, to) -> [where]
    for p in sorted(files):
        here = module_of(p, src)
        is_dir = p.name in ("mod.rs", "lib.rs")
        code = codes[p]
        paths = list(use_trees(code))
        no_use = re.sub(r"\buse\s+[^;]+;", "", code)
        for m in re.finditer(r"\b((?:crate|super|self)(?:\s*::\s*\w+)+)", no_use):
            paths.append([s.strip() for s in m.group(1).split("::")])
        for segs in paths:
            to = resolve(segs, here, is_dir, modules, names)
            if to is None or to == here:
                continue
            line = "::".join(segs)
            out[(here, to)].append(f"{p.relative_to(ROOT)}: {line}")
    return modules, out


def edges():
    """Every crate's modules and edges, each module named with its crate."""
    modules, out = set(), defaultdict(list)
    for src in SOURCES:
        krate = "toolcap" if src == ROOT / "src" else src.parent.name
        ms, es = edges_of(src)
        modules |= {(krate,) + m for m in ms}
        for (a, b), where in es.items():
            out[((krate,) + a, (krate,) + b)].extend(where)
    return modules, out


def cycles(graph):
    """Strongly connected components with more than one node (Tarjan)."""
    index, low, on, stack, comps = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comps.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return comps


def name(m):
    # m[0] is the crate
    return m[0].replace("-", "_") + ("::" + "::".join(m[1:]) if m[1:] else "")


def main():
    show = "--graph" in sys.argv[1:]
    modules, es = edges()
    # one graph per folder module: among its children, each with its subtree
    levels = defaultdict(lambda: defaultdict(set))
    why = defaultdict(list)
    for (a, b), where in es.items():
        k = 0
        while k < min(len(a), len(b)) and a[k] == b[k]:
            k += 1
        if k == 0:
            continue  # two crates: cargo keeps those one-way
        if k == len(a) or k == len(b):
            continue  # a parent and its descendant
        parent, ca, cb = a[:k], a[: k + 1], b[: k + 1]
        levels[parent][ca].add(cb)
        why[(parent, ca, cb)].extend(where)
    found = 0
    for parent in sorted(levels):
        g = levels[parent]
        if show:
            print(f"{name(parent)}:")
            for a in sorted(g):
                for b in sorted(g[a]):
                    print(f"  {a[-1]} -> {b[-1]}")
        for comp in cycles(g):
            found += 1
            print(f"circle among the modules of {name(parent)}: {', '.join(c[-1] for c in comp)}")
            members = set(comp)
            for a in comp:
                for b in sorted(g[a]):
                    if b in members:
                        print(f"  {a[-1]} -> {b[-1]}:")
                        for w in sorted(set(why[(parent, a, b)]))[:4]:
                            print(f"    {w}")
    if found:
        print(f"{found} circle(s) between modules: a module imports one that imports it back")
        sys.exit(1)
    print(f"no circle between the library's {len(modules)} modules (in {len(SOURCES)} crates)")


if __name__ == "__main__":
    main()
