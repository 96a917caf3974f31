#!/usr/bin/env python3
"""Compare toolcap's outline with Universal Ctags on real source files (or
with the language's own parser: the TypeScript compiler, syn, scalac; see
REFERENCE).

Usage: tools/outline-compare/compare.py TOOLCAP LANG FILE... [--show N]
   or: import it (run.py does, over the corpora fetch.sh downloads).

For every file, runs `TOOLCAP outline --json --budget-ms 0 --lang LANG FILE` and
`ctags --output-format=json --fields=+neKzZ FILE`, maps both to the outline's
kind vocabulary and its rule (definitions at module level and inside
containers; nothing inside function bodies), and compares the sets of
(name, line): recall and precision (toolcap against ctags), then among the
matched symbols how often the kind agrees ("kind") and, where ctags gives an
end, how often end_line agrees too.

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
    "rust": "Rust",
}

# ctags kind -> outline kind; kinds not listed are dropped.
KINDS = {
    "C": {"function": "function", "prototype": "function", "struct": "struct",
          "union": "union", "enum": "enum", "typedef": "type", "macro": "macro"},
    "C++": {"function": "function", "prototype": "function", "struct": "struct",
            "union": "union", "enum": "enum", "typedef": "type", "macro": "macro",
            "class": "class", "namespace": "module", "alias": "type"},
    "C#": {"class": "class", "struct": "struct", "interface": "interface",
           "enum": "enum", "method": "function", "namespace": "module",
           "delegate": "type"},
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
    "Rust": {"function": "function", "method": "method", "implementation": "impl",
             "enum": "enum", "interface": "trait", "module": "module", "struct": "struct",
             "typedef": "type", "macro": "macro", "variable": "constant"},
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


def strip_templates(name):
    """`formatter<std::tm, Char>` -> `formatter` (ctags names a template
    specialization by its template's name; the outline keeps the arguments)."""
    out, depth = [], 0
    for c in name:
        if c == "<" and not (out and out[-1] == "operator"[-1] and "".join(out).endswith("operator")):
            depth += 1
        elif c == ">" and depth:
            depth -= 1
        elif depth == 0:
            out.append(c)
    return "".join(out).strip() or name


def last_segment(name):
    """`M.f`, `Foo::bar` -> `f`, `bar`; whitespace dropped (ctags writes
    `operator =`, toolcap `operator=` as the source does)."""
    if not name:
        return name
    name = re.sub(r"\s+", "", re.split(r"::|[.:]", strip_templates(name))[-1])
    # Kotlin/Scala/Swift names written in backticks: `is` is `is`.
    name = name.strip("`")
    # ctags cuts `operator<`, `operator<=`, `operator<<` to `operator`.
    return "operator" if name.startswith("operator<") else name


def normalize_js(tags, path):
    """ctags' JavaScript/TypeScript tags mapped to the outline's rule.

    - A module wrapper (an anonymous function, at top level or in a wrapper,
      spanning 40% of the file or more: `(function () { ... })()`, a UMD
      factory) is not a scope: what it holds is top-level.
    - Anonymous functions themselves are not symbols.
    - A `function` that ctags calls a class (it assigns `this.x` or its
      prototype: a constructor function) is a function in the outline.
    - An object literal assigned to a name, which ctags calls a class, is not
      a definition in the outline.
    """
    with open(path, "rb") as fh:
        text = fh.read().decode("utf-8", "replace").split("\n")
    total = max(len(text), 1)
    wrappers = set()
    for t in tags:
        name, scope = t.get("name", ""), t.get("scope")
        span = t.get("end", t.get("line", 0)) - t.get("line", 0) + 1
        if name.startswith("AnonymousFunction") and (scope is None or scope in wrappers) \
                and span >= 0.4 * total:
            wrappers.add(f"{scope}.{name}" if scope else name)
    out = []
    for t in tags:
        t = dict(t)
        scope = t.get("scope")
        if scope is not None:
            # Strip wrapper prefixes: `W.f` -> `f`, `W` -> None.
            parts = scope.split(".")
            while parts and ".".join(parts[:1]) in wrappers | {p.split(".")[-1] for p in wrappers}:
                parts = parts[1:]
            if len(parts) != len(scope.split(".")):
                if parts:
                    t["scope"] = ".".join(parts)
                else:
                    t.pop("scope", None)
                    t.pop("scopeKind", None)
        if t.get("name", "").startswith("AnonymousFunction"):
            if f"{scope}.{t['name']}" in wrappers or t["name"] in wrappers:
                continue
            out.append(t)  # kept as a scope, dropped as a tag by its name below
            continue
        line = text[t.get("line", 1) - 1] if 0 < t.get("line", 0) <= len(text) else ""
        if t.get("kind") == "class" and not re.search(r"\bclass\b", line):
            if re.search(r"\bfunction\b", line):
                t["kind"] = "function"
            else:
                continue
        out.append(t)
    return out


HERE = __import__("os").path.dirname(__import__("os").path.abspath(__file__))


_TSC = {}


def tsc_prefetch(files):
    """Run ts_outline.js once over many files (node and the compiler load
    once), keeping the results for tsc_tags."""
    files = [f for f in files if f not in _TSC]
    for i in range(0, len(files), 200):
        out = subprocess.run(["node", f"{HERE}/ts_outline.js", *files[i:i + 200]],
                             capture_output=True, text=True, check=False).stdout
        for line in out.splitlines():
            o = json.loads(line)
            _TSC[o["file"]] = {(s["kind"], last_segment(s["name"]), s["line"])
                               for s in o["symbols"]}


def tsc_tags(lang, path):
    """The reference outline from the TypeScript compiler's parser
    (ts_outline.js): (kind, name, line) keys, no ends."""
    if path not in _TSC:
        tsc_prefetch([path])
    return _TSC.get(path, set()), {}


_SYN = {}
CORPUS = __import__("os").environ.get(
    "TOOLCAP_CORPUS", __import__("os").path.expanduser("~/.cache/toolcap-outline-corpus"))
RUST_REF = f"{CORPUS}/rust_ref_target/release/rust_ref"


def syn_prefetch(files):
    """Run rust_ref (syn's parse; built by fetch.sh) once over many files."""
    files = [f for f in files if f not in _SYN]
    for i in range(0, len(files), 200):
        out = subprocess.run([RUST_REF, *files[i:i + 200]], capture_output=True, text=True,
                             check=False).stdout
        for line in out.splitlines():
            o = json.loads(line)
            if o.get("error"):
                print(f"rust_ref: {o['file']}: {o['error']}", file=sys.stderr)
            keys = {(s["kind"], last_segment(s["name"]), s["line"]) for s in o["symbols"]}
            ends = {(s["kind"], last_segment(s["name"]), s["line"]): s["end_line"]
                    for s in o["symbols"]}
            _SYN[o["file"]] = (keys, ends)


def syn_tags(lang, path):
    """The reference outline of a Rust file from syn's parser (rust_ref):
    (kind, name, line) keys and end lines."""
    if path not in _SYN:
        syn_prefetch([path])
    return _SYN.get(path, (set(), {}))


_SCALAC = {}
SCALA_LIB = "/usr/share/scala-2.11/lib"
SCALA_REF = f"{CORPUS}/scala_ref"


def scalac_prefetch(files):
    """Run ScalaRef (scalac 2.11's own parser, scala.tools.nsc; compiled by
    fetch.sh into SCALA_REF) once over many files (the JVM and the compiler
    load once)."""
    files = [f for f in files if f not in _SCALAC]
    cp = ":".join([f"{SCALA_LIB}/scala-library.jar", f"{SCALA_LIB}/scala-compiler.jar",
                   f"{SCALA_LIB}/scala-reflect.jar", SCALA_REF])
    for i in range(0, len(files), 400):
        out = subprocess.run(["java", "-cp", cp, "ScalaRef", *files[i:i + 400]],
                             capture_output=True, text=True, check=False).stdout
        for line in out.splitlines():
            o = json.loads(line)
            if o.get("error"):
                print(f"scalac: {o['file']}: {o['error']}", file=sys.stderr)
            keys = {(s["kind"], last_segment(s["name"]), s["line"]) for s in o["symbols"]}
            ends = {(s["kind"], last_segment(s["name"]), s["line"]): s["end_line"]
                    for s in o["symbols"]}
            _SCALAC[o["file"]] = (keys, ends)


def scalac_tags(lang, path):
    """The reference outline of a Scala 2 file from scalac's parser
    (scala_ref/ScalaRef.scala): (kind, name, line) keys and end lines."""
    if path not in _SCALAC:
        scalac_prefetch([path])
    return _SCALAC.get(path, (set(), {}))


# Languages whose reference is their own compiler's parser, not ctags.
REFERENCE = {"javascript": tsc_tags, "typescript": tsc_tags, "tsx": tsc_tags,
             "rust": syn_tags, "scala": scalac_tags}


def reference_tags(lang, path):
    return REFERENCE.get(lang, ctags_tags)(lang, path)


# The project's macros, told to ctags with its own -I option (see
# project_macros); a file path, set by compare() for C and C++.
_CTAGS_IGNORE = {"file": None}

# What an attribute-like macro expands to: nothing, or only specifiers and
# attributes (`inline`, `__attribute__((...))`, `[[nodiscard]]`, another
# macro's name).
SPECIFIERS = {"inline", "static", "extern", "constexpr", "consteval", "constinit",
              "explicit", "virtual", "noexcept", "const", "volatile", "__inline",
              "__forceinline", "__inline__"}


def attribute_body(body):
    """Whether a macro body is empty or only specifiers and attributes."""
    body = re.sub(r"__attribute__\s*\(\(.*?\)\)|__declspec\s*\([^)]*\)|\[\[.*?\]\]", " ",
                  body.split("//")[0].split("/*")[0])
    return all(w in SPECIFIERS or re.fullmatch(r"[A-Z][A-Z0-9_]*", w)
               for w in body.split())


def project_macros(files):
    """The macros a project's own files #define that ctags would otherwise
    read as code (names starting with a capital or `_` only: a lower-case
    macro often stands over a function of the same name): every function-like macro (`NAME+`: the name and its
    argument list are ignored) and every object-like macro that expands to
    nothing or to specifiers and attributes only (`NAME`). This is what
    ctags' manual prescribes (-I) for sources whose macros confuse it
    (`PYBIND11_NAMESPACE_BEGIN(detail)` taken for a function that swallows
    the next definition; `FMT_TYPE_CONSTANT(int, int_type);` listed as a
    function). Facts about the project, read from its #defines, not from
    toolcap."""
    names = {}
    define = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)(\()?(.*)$")
    for f in files:
        with open(f, "rb") as fh:
            for line in fh.read().decode("utf-8", "replace").split("\n"):
                m = define.match(line)
                if not m:
                    continue
                name, fn, body = m.group(1), m.group(2), m.group(3)
                if not re.match(r"[A-Z_]", name):
                    # `#define g_atomic_int_get(a) ...` over a function of
                    # the same name: ignoring the name would hide the
                    # function.
                    continue
                if fn:
                    names[name] = name + "+"
                elif attribute_body(body.rstrip("\\")) and name not in names:
                    names[name] = name
    return sorted(names.values())


LUA_TOKEN = re.compile(r"""--\[(=*)\[.*?\]\1\]|--[^\n]*|\[(=*)\[.*?\]\2\]|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|\b(?:function|do|if|repeat|end|until|return)\b|[{}()]|\n""", re.S)


def lua_locals(path):
    """The lines of a Lua file inside a function body or a table
    constructor, by Lua's own block structure (`function`/`do`/`if`/
    `repeat` to `end`/`until`; strings and comments skipped), less the
    top-level `return function(...) ... end` module wrapper. ctags' Lua
    parser matches `function` line by line and lists the local functions
    of function bodies and table fields; the outline's rule (nothing inside
    function bodies; a table's fields are part of its value, as in
    JavaScript) leaves those out."""
    with open(path, "rb") as fh:
        text = fh.read().decode("utf-8", "replace")
    line, stack, inside, last, seen = 1, [], set(), None, set()
    for m in LUA_TOKEN.finditer(text):
        tok = m.group(0)
        if tok.startswith("--") or tok[0] in "\"'[":
            line += tok.count("\n")
            continue
        if tok == "\n":
            line += 1
            continue
        # A line is inside what is open at its first token.
        if line not in seen:
            seen.add(line)
            if any(kind in ("function", "{") for kind, _ in stack):
                inside.add(line)
        if tok in ("function", "do", "if", "repeat", "{"):
            wrapper = tok == "function" and last == "return" and not stack
            stack.append(("wrapper" if wrapper else tok, line))
        elif tok in ("end", "until", "}") and stack:
            stack.pop()
        last = tok
    return inside


SH_FUNC = re.compile(r"^\s*(?:function\s+[^\s(){}]+(?:\s*\(\s*\))?|[^\s(){}=$]+\s*\(\s*\))\s*\{?")


def sh_function_bodies(path):
    """The lines of a shell script inside a function body, by its braces:
    `{` and `}` as words (not `${`), outside quotes, comments and here
    documents. ctags' Sh parser lists the functions defined inside other
    functions (neofetch's `has() {...}` helpers inside `get_packages`);
    the outline's rule leaves those out."""
    with open(path, "rb") as fh:
        lines = fh.read().decode("utf-8", "replace").split("\n")
    inside, stack, heredoc, pending = set(), [], None, False
    for n, line in enumerate(lines, 1):
        if heredoc is not None:
            if line.strip() == heredoc:
                heredoc = None
            inside.update({n} if "f" in stack else set())
            continue
        if "f" in stack:
            inside.add(n)
        starts_function = bool(SH_FUNC.match(line)) or pending
        pending = False
        i, quote = 0, None
        while i < len(line):
            c = line[i]
            if quote:
                if c == "\\" and quote == '"':
                    i += 1
                elif c == quote:
                    quote = None
            elif c == "\\":
                i += 1
            elif c in "'\"":
                quote = c
            elif c == "#" and (i == 0 or line[i - 1] in " \t;"):
                break
            elif line.startswith("<<<", i):
                i += 2  # a here string, not a here document
            elif line.startswith("<<", i):
                m = re.match(r"<<-?\s*['\"]?(\w+)", line[i:])
                if m:
                    heredoc = m.group(1)
            elif c == "{" and (i == 0 or line[i - 1] in " \t;") and (
                    i + 1 == len(line) or line[i + 1] in " \t"):
                stack.append("f" if starts_function else "b")
                starts_function = False
            elif c == "}" and (i == 0 or line[i - 1] in " \t;") and stack:
                stack.pop()
            i += 1
        # `f()` on one line, `{` on the next.
        pending = starts_function and line.rstrip().endswith(")")
    return inside


def ctags_tags(lang, path):
    cl = CTAGS_LANG[lang]
    cmd = ["ctags", "--output-format=json", "--fields=+neKzZ", f"--languages={cl}",
           f"--language-force={cl}", "-o", "-"]

    def run(cmd):
        out = subprocess.run(cmd + [path], capture_output=True, text=True, check=False).stdout
        tags = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
        return [t for t in tags if t.get("_type") == "tag"]

    if cl in ("C", "C++"):
        cmd.append(f"--kinds-{cl}=+p")
    if cl in ("C", "C++") and _CTAGS_IGNORE["file"]:
        # -I also hides the macros' own #defines: those come from a run
        # without it.
        tags = [t for t in run(cmd + [f"-I@{_CTAGS_IGNORE['file']}"]) if t.get("kind") != "macro"]
        tags += [t for t in run(cmd) if t.get("kind") == "macro"]
    else:
        tags = run(cmd)
    if cl in ("C", "C++"):
        # A #define inside a function body is not listed by the outline's
        # rule (nothing inside function bodies); ctags gives macros no
        # scope, so tell by its own function tags' spans.
        bodies = [(t["line"], t["end"]) for t in tags
                  if t.get("kind") == "function" and "end" in t]
        tags = [t for t in tags if not (t.get("kind") == "macro" and any(
            a < t.get("line", 0) <= b for a, b in bodies))]
    tags.sort(key=lambda t: t.get("line", 0))
    if cl == "Sh":
        # Function bodies hide their functions; a name with `=` or a
        # leading `-` is ctags reading `ARGS=(...)` or `--x)` as a function.
        inside = sh_function_bodies(path)
        tags = [t for t in tags if t.get("line", 0) not in inside
                and "=" not in t.get("name", "") and not t.get("name", "").startswith("-")]
    if cl == "Lua":
        inside = lua_locals(path)
        tags = [t for t in tags if t.get("line", 0) not in inside]
    if cl == "Kotlin":
        # An unnamed companion object is transparent in the outline (its
        # members are the class's); ctags names it `Companion`.
        tags = [t for t in tags if not (t.get("name") == "Companion" and t.get("kind") == "object")]
    if cl in ("JavaScript", "TypeScript"):
        tags = normalize_js(tags, path)
    if cl == "C#":
        # ctags' C# parser has no delegate kind: it tags `delegate void
        # D(...)` as a method. A delegate declares a type (the outline's
        # `type`): read the tag's own line to tell.
        with open(path, "rb") as fh:
            text = fh.read().decode("utf-8", "replace").split("\n")
        for t in tags:
            line = text[t["line"] - 1] if 0 < t.get("line", 0) <= len(text) else ""
            if t.get("kind") == "method" and re.search(r"\bdelegate\b[^(]*\b" + re.escape(t.get("name", "")) + r"\b", line):
                t["kind"] = "delegate"
    kinds = KINDS[cl]
    dropped_scopes = set()
    kept_scope_kind = {}
    result = set()
    ends = {}
    for t in tags:
        name, kind, line = t.get("name", ""), t.get("kind", ""), t.get("line", 0)
        scope, scope_kind = t.get("scope"), t.get("scopeKind")
        # ctags joins scopes with `::` in C++ and `.` elsewhere.
        sep = "::" if cl == "C++" else "."
        full = f"{scope}{sep}{name}" if scope else name
        # ctags' JavaScript/TypeScript parser names anonymous functions
        # `AnonymousFunction1`... (only there: C#'s `AnonymousDisposable`
        # is a class).
        anonymous = cl in ("JavaScript", "TypeScript") and (
            "AnonymousFunction" in (scope or "") or name.startswith("AnonymousFunction"))
        local = scope is not None and (
            scope_kind in FUNCTION_KINDS or scope in dropped_scopes or anonymous)
        # ctags names unnamed structs, unions and enums `__anon<hash>`; the
        # outline lists only what has a name (their members stay in scope).
        unnamed = name.startswith("__anon")
        if unnamed and not local:
            kept_scope_kind[full] = kind
            continue
        if local or kind not in kinds or name.startswith("<") or anonymous:
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
        if lang == "kotlin" and s["name"] == "constructor":
            # ctags' Kotlin parser has no tag for secondary constructors:
            # the outline's are not counted.
            continue
        keys.add(key)
        ends[key] = s["end_line"]
    return keys, ends, o.get("syntax_errors", False)


def compare(toolcap, lang, files, show=0, macro_files=None):
    """Totals for `files`: a dict of counts and the example lines.
    `macro_files`: where the project's macros are #defined (C, C++;
    default: `files`)."""
    t = dict(files=len(files), lines=0, ref=0, got=0, matched=0, kind_same=0,
             end_same=0, end_known=0, syntax_errors=0, redefined=0)
    missing, extra, wrong_kind = Counter(), Counter(), Counter()
    examples = []
    if REFERENCE.get(lang) is tsc_tags:
        tsc_prefetch(files)
    if REFERENCE.get(lang) is syn_tags:
        syn_prefetch(files)
    if REFERENCE.get(lang) is scalac_tags:
        scalac_prefetch(files)
    ignore = None
    if lang in ("c", "cpp"):
        import tempfile
        ignore = tempfile.NamedTemporaryFile("w", suffix=".ctags-I", delete=False)
        ignore.write("\n".join(project_macros(macro_files or files)) + "\n")
        ignore.close()
        _CTAGS_IGNORE["file"] = ignore.name
    for f in files:
        with open(f, "rb") as fh:
            t["lines"] += fh.read().count(b"\n")
        ref, ref_ends = reference_tags(lang, f)
        got, got_ends, syn = toolcap_symbols(toolcap, lang, f)
        t["syntax_errors"] += syn
        # (name, line) -> kind, coarsened; a clash keeps one of them.
        ref_k = {(k[1], k[2]): coarse(lang, k)[0] for k in ref}
        got_k = {(k[1], k[2]): coarse(lang, k)[0] for k in got}
        # ctags lists a macro #defined in several branches of an #if chain
        # once (in the first branch it reads); the outline lists every
        # #define. Another definition of a macro ctags lists is not counted
        # (neither matched nor extra).
        ref_macros = {k[1] for k in ref if k[0] == "macro"}
        redefined = {(k[1], k[2]) for k in got if k[0] == "macro" and k[1] in ref_macros
                     and (k[1], k[2]) not in ref_k}
        t["redefined"] = t.get("redefined", 0) + len(redefined)
        got_k = {k: v for k, v in got_k.items() if k not in redefined}
        ref_e = {(k[1], k[2]): v for k, v in ref_ends.items()}
        got_e = {(k[1], k[2]): v for k, v in got_ends.items()}
        both = ref_k.keys() & got_k.keys()
        t["ref"] += len(ref_k)
        t["got"] += len(got_k)
        t["matched"] += len(both)
        for k in both:
            if ref_k[k] == got_k[k]:
                t["kind_same"] += 1
            else:
                wrong_kind[(ref_k[k], got_k[k])] += 1
                if len(examples) < show * 3:
                    examples.append(f"  kind    {k} ctags {ref_k[k]} toolcap {got_k[k]} in {f}")
            if k in ref_e:
                t["end_known"] += 1
                t["end_same"] += ref_e[k] == got_e.get(k)
        for k in sorted(ref_k.keys() - both, key=lambda k: k[1]):
            missing[ref_k[k]] += 1
            if len(examples) < show:
                examples.append(f"  missing {ref_k[k]} {k} in {f}")
        for k in sorted(got_k.keys() - both, key=lambda k: k[1]):
            extra[got_k[k]] += 1
            if len(examples) < show * 2:
                examples.append(f"  extra   {got_k[k]} {k} in {f}")
    if ignore:
        __import__("os").unlink(ignore.name)
        _CTAGS_IGNORE["file"] = None
    t["missing"], t["extra"], t["wrong_kind"] = dict(missing), dict(extra), dict(wrong_kind)
    return t, examples


def pct(a, b):
    return f"{a / b:.1%}" if b else "n/a"


def summary(lang, t):
    return (f"{lang}: {t['files']} files, {t['lines']} lines, reference {t['ref']}, "
            f"toolcap {t['got']}, matched {t['matched']}; recall {pct(t['matched'], t['ref'])}, "
            f"precision {pct(t['matched'], t['got'])}, kind {pct(t['kind_same'], t['matched'])}; "
            f"end_line equal {pct(t['end_same'], t['end_known'])} of {t['end_known']}; "
            + (f"macro redefinitions not counted {t['redefined']}; " if t.get("redefined") else "") +
            f"files with syntax errors {t['syntax_errors']}")


def main():
    args = sys.argv[1:]
    show = 0
    if "--show" in args:
        i = args.index("--show")
        show = int(args[i + 1])
        del args[i:i + 2]
    toolcap, lang, files = args[0], args[1], args[2:]
    t, examples = compare(toolcap, lang, files, show)
    print(summary(lang, t))
    if show:
        print("  missing by kind:", t["missing"], " extra by kind:", t["extra"],
              " kind differences (ctags, toolcap):", t["wrong_kind"])
        print("\n".join(examples))


if __name__ == "__main__":
    main()
