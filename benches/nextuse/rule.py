"""The used-facts rule of the next-use benchmark (benches/nextuse/README.md).

A *used fact* of a tool result is a token of the agent's next three actions
(their tool arguments: commands, paths, patterns, edited text) that occurs in
the result and nowhere in what the agent had seen before the result (the
prompts, every earlier tool call and result, the call that produced it).
Tokens, in this order:

- ``path:line`` (``src/a.py:120``), paths (``src/a.py``, ``/testbed/x/y``; dotted
  names such as ``kwargs.get`` are taken as paths too);
- quoted strings of 4 chars or more (``'def foo'``, ``"Missing key"``);
- edited lines: each line of an edit's old/new text (an Edit's strings, a Write's
  content, an ``apply_patch`` body, a file written by a shell here-document, the new
  text of SWE-agent's ``edit A:B``), stripped, 8 chars or more;
- identifiers of 4 chars or more (``parse_duration``, ``E0308``, ``TS2345``),
  common shell and language words excluded (``STOP``);
- numbers of 2 digits or more (the line numbers of ``sed -n '120,140p'``,
  ``edit 250:252``); a number counts as seen before only when an earlier tool call
  or result held it (not the task's prompt or a demonstration).

Paths, quoted strings, identifiers and numbers are taken from the arguments
other than an edit's text (commands, paths, patterns, queries); an edit's text
(``old_string``/``new_string``, ``content``, an ``apply_patch`` body) counts
by its lines only.

A token occurs in a text when it is a substring of it; identifiers and numbers
must also stand alone (no identifier character on either side).
"""

import re

STOP = set(
    """grep sed echo python python3 head tail cat find true false none null self
return def class import from this that with then else elif while for the and
print test tests bash exit code file files path line lines true false node
npm npx pnpm yarn cargo pytest make git diff show status add commit
wc sort uniq xargs awk tee mkdir touch chmod cd ls rm cp mv
command description content old_string new_string file_path offset limit
replace_all pattern include output_mode str_replace view create insert
workdir cmd timeout_ms yield_time_ms max_output_tokens justification
type text function name args arguments value none dev null
""".split()
)

ID = r"[A-Za-z_][A-Za-z0-9_]*"
RE_PATHLINE = re.compile(r"[\w./-]*[A-Za-z_][\w.-]*\.[A-Za-z0-9]{1,6}:\d+")
RE_PATH = re.compile(r"(?:[\w.-]+/)+[\w.-]+|[\w-]+\.[A-Za-z][A-Za-z0-9]{0,5}\b")
RE_QUOTED = re.compile(r"'([^'\n]{4,200})'|\"([^\"\n]{4,200})\"")
RE_IDENT = re.compile(r"(?<![A-Za-z0-9_])" + ID + r"(?![A-Za-z0-9_])")
RE_HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?[^\n]*\n(.*?)\n\s*\1\b", re.S)
RE_NUM = re.compile(r"(?<![A-Za-z0-9_.])\d{2,}(?!\d)")

EDIT_KEYS = ("old_string", "new_string", "old_str", "new_str", "content", "file_text", "patch", "input")


def _strings(args):
    """Every string in an argument value, keys first-level order."""
    if isinstance(args, str):
        yield args
    elif isinstance(args, dict):
        for v in args.values():
            yield from _strings(v)
    elif isinstance(args, list):
        for v in args:
            yield from _strings(v)


def action_tokens(action):
    """The candidate tokens of one action: list of (kind, token), in order, without repeats."""
    out, seen = [], set()

    def add(kind, tok):
        tok = tok.strip()
        if tok and tok not in seen:
            seen.add(tok)
            out.append((kind, tok))

    args = action.get("args") or {}
    # the edited text of an edit counts by its lines only (not word by word)
    plain = {k: v for k, v in args.items() if k not in EDIT_KEYS or k == "input"} if isinstance(args, dict) else args
    if isinstance(plain, dict) and isinstance(plain.get("input"), str) and "*** " in plain["input"]:
        plain = {k: v for k, v in plain.items() if k != "input"}
    texts = list(_strings(plain))
    # a file written through the shell (`cat > F <<'EOF' ... EOF`, `apply_patch <<'EOF'`)
    # is an edit: its body counts by its lines only
    bodies = []
    for i, t in enumerate(texts):
        for m in RE_HEREDOC.finditer(t):
            bodies.append(m.group(2))
        texts[i] = RE_HEREDOC.sub(" ", t)
    for t in texts:
        for m in RE_PATHLINE.finditer(t):
            add("path:line", m.group(0))
        for m in RE_PATH.finditer(t):
            p = m.group(0).strip("./") if m.group(0).startswith("./") else m.group(0)
            if len(p) >= 4:
                add("path", p)
        for m in RE_QUOTED.finditer(t):
            q = m.group(1) or m.group(2)
            # a span between two quoted words ("' && echo '") is no quoted string
            if len(q.strip()) >= 4 and q == q.strip():
                add("quoted", q)
    # SWE-agent's `edit A:B` followed by the new text up to `end_of_edit`
    cmd = args.get("command") if isinstance(args, dict) else None
    if isinstance(cmd, str):
        m = re.match(r"edit\s+(\d+):(\d+)\s*\n(.*?)(?:\nend_of_edit|$)", cmd, re.S)
        if m:
            add("number", m.group(1))
            add("number", m.group(2))
            for ln in m.group(3).splitlines():
                if len(ln.strip()) >= 8:
                    add("edited line", ln.strip())
            texts = []
    for b in bodies:
        for ln in b.splitlines():
            x = ln.strip()
            if x.startswith(("+", "-")) and not x.startswith(("++", "--")):
                x = x[1:].strip()
            if len(x) >= 8 and not x.startswith("*** "):
                add("edited line", x)
    if isinstance(args, dict):
        for k in EDIT_KEYS:
            v = args.get(k)
            if isinstance(v, str) and k != "input" or (k == "input" and isinstance(v, str) and "*** " in v):
                for ln in v.splitlines():
                    s = ln.strip()
                    if s.startswith(("+", "-")) and k in ("patch", "input"):
                        s = s[1:].strip()
                    if len(s) >= 8:
                        add("edited line", s)
    for t in texts:
        for m in RE_IDENT.finditer(t):
            w = m.group(0)
            if len(w) >= 4 and w.lower() not in STOP:
                add("identifier", w)
        for m in RE_NUM.finditer(t):
            add("number", m.group(0))
    return out


def occurs(kind, tok, text):
    """Whether a token occurs in text under the rule above; the offset or -1."""
    if tok not in text:
        return -1
    if kind in ("identifier", "number"):
        pat = r"(?<![A-Za-z0-9_])" + re.escape(tok) + r"(?![A-Za-z0-9_])"
        m = re.search(pat, text)
        return m.start() if m else -1
    return text.find(tok)


RE_WORD = re.compile(r"[A-Za-z0-9_]+")


def words(text):
    """The maximal identifier-character runs of a text: an identifier or number occurs
    standing alone in a text exactly when it is one of them."""
    return set(RE_WORD.findall(text))


def used_facts(result, prior, next_actions, prior_words=None, tool_words=None):
    """The used facts of one result: list of dicts kind/token/offset (offset in result).
    `prior_words` (optional, words(prior)) makes the test on a long prior fast;
    `tool_words`: the words of the earlier tool calls and results only, against which
    numbers are tested (a line number is not "seen" because the task's prompt or a
    demonstration happened to contain the same number); default: prior_words."""
    facts, seen = [], set()
    if prior_words is None:
        prior_words = words(prior)
    if tool_words is None:
        tool_words = prior_words
    for a in next_actions:
        for kind, tok in action_tokens(a):
            if tok in seen:
                continue
            seen.add(tok)
            off = occurs(kind, tok, result)
            if off < 0:
                continue
            if kind == "number":
                if tok in tool_words:
                    continue
            elif kind == "identifier":
                if tok in prior_words:
                    continue
            elif tok in prior:
                continue
            facts.append({"kind": kind, "token": tok, "offset": off})
    return facts


def kept(fact, view):
    """Whether a view shows a fact (the same test as for the result)."""
    return occurs(fact["kind"], fact["token"], view) >= 0
