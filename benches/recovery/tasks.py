"""Tasks for the recovery benchmark, made from real material on this machine.

Each task is a tool result too large for one view plus a question that names what an
agent is after (a symbol, a pattern, "the first failure") but not where it is, and the
lines of the original that answer it (`needles`, 1-based line numbers), found mechanically:
Python's `ast` for definitions, the failure-block rules of fixtures/shell/expected.py for
runner and compiler logs, the parsed document for JSON.

`patterns` are what a reader searches for, in order (each match after the previous one);
`which` picks the first or the last match of the last pattern.
"""

import ast
import json
import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "fixtures" / "shell"))
import expected  # noqa: E402  (the failure-block rules of the runner fixtures)

STDLIB = Path(sysconfig.get_paths()["stdlib"])
# large, real modules; each gives a function beyond the cut and a class's methods
MODULES = [
    "argparse.py", "typing.py", "subprocess.py", "inspect.py", "dataclasses.py",
    "pathlib.py", "logging/__init__.py", "tarfile.py", "difflib.py", "configparser.py",
    "shutil.py", "zipfile.py", "http/client.py", "email/message.py", "statistics.py",
]
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")


def _lines(text):
    lines = text.split("\n")
    if text.endswith("\n"):
        lines.pop()
    return lines


def _unique_defs(tree):
    counts = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            counts[node.name] = counts.get(node.name, 0) + 1
    return {n for n, c in counts.items() if c == 1}


def python_tasks():
    tasks = []
    for rel in MODULES:
        path = STDLIB / rel
        if not path.exists():
            continue
        text = path.read_text()
        lines = _lines(text)
        tree = ast.parse(text)
        unique = _unique_defs(tree)
        head_end = 0
        total = 0
        for i, l in enumerate(lines):  # the lines a 2,000-char head holds
            total += len(l) + 1
            if total > 2000:
                break
            head_end = i + 1
        nodes = []
        for top in tree.body:
            if isinstance(top, ast.ClassDef):
                nodes.append((top, None))
                nodes.extend((n, top) for n in top.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
            elif isinstance(top, (ast.FunctionDef, ast.AsyncFunctionDef)):
                nodes.append((top, None))

        def size(n):
            return sum(len(lines[i]) + 1 for i in range(n.lineno - 1, n.end_lineno))

        # a function (or method) of 1,200-3,400 chars, without decorators, past the head,
        # nearest the middle of the file
        funcs = [
            (n, parent) for n, parent in nodes
            if not isinstance(n, ast.ClassDef) and n.name in unique and not n.decorator_list
            and n.lineno > head_end + 20 and 1200 <= size(n) <= 3400
        ]
        if funcs:
            n, parent = min(funcs, key=lambda p: abs(p[0].lineno - len(lines) * 0.6))
            qual = f"{parent.name}.{n.name}" if parent else n.name
            tasks.append(dict(
                id=f"py-func-{rel.replace('/', '_')}", kind="function", tool="read_file",
                args={"path": str(path)}, file=str(path), text=text,
                question=f"Show the whole source of `{qual}` in {rel}.",
                symbol=n.name,
                patterns=[rf"^\s*(async )?def {n.name}\("], which="first",
                needles=list(range(n.lineno, n.end_lineno + 1)),
            ))
        # a class past the head with 5+ methods of its own
        classes = [
            n for n, parent in nodes
            if isinstance(n, ast.ClassDef) and n.name in unique and n.lineno > head_end + 20
            and not n.decorator_list
            and sum(isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) for m in n.body) >= 5
        ]
        if classes:
            c = min(classes, key=lambda c: abs(c.lineno - len(lines) * 0.5))
            defs = [m.lineno for m in c.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
            tasks.append(dict(
                id=f"py-methods-{rel.replace('/', '_')}", kind="methods", tool="read_file",
                args={"path": str(path)}, file=str(path), text=text,
                question=f"List the methods of class `{c.name}` in {rel}.",
                symbol=c.name,
                patterns=[rf"^class {c.name}\b"], which="first",
                needles=defs,
            ))
    return tasks


# reader patterns per log (Rust-regex compatible: no look-around), and what the log is
RUNNERS = {
    "cargo_test_bytes.log": r"^---- \S+ stdout ----$",
    "cargo_nextest_bytes.log": r"^\s+FAIL \[",
    "pytest_toolz.log": r"^_{3,} \S+ _{3,}$",
    "unittest_more_itertools.log": r"^(FAIL|ERROR): ",
    "jest_failure.log": r"^  ● ",
    "vitest_failure.log": r"^ FAIL ",
    "mocha_failure.log": r"^  \d+\) ",
    "go_test_failure.log": r"^\s+\w+_test\.go:\d+: |^panic: ",
    "rspec_failure.log": r"^  \d+\) ",
    "python_traceback_chained.log": r"^Traceback \(most recent call last\):$",
}
COMPILERS = {
    "javac_errors.log": r"^src/\S+\.java:\d+: error: ",
    "tsc_errors.log": r"^ts/src/\S+:\d+:\d+ - error TS\d+: ",
    "cargo_build_errors.log": r"^error(\[E\d+\])?: ",
    "gcc_make_errors.log": r"^\S+:\d+:\d+: error: ",
}


def _block_parts(lines, r, block):
    b, e, s = block
    msg_re = re.compile(r["message"])
    follow = re.compile(r["message_follow"]) if r.get("message_follow") else None
    msg = []
    for i in range(b, e + 1):
        if msg_re.search(lines[i]):
            msg.append(i)
            if follow and follow.search(lines[i]) and i + 1 <= e:
                msg.append(i + 1)
    frame_re = re.compile(r["frame"])
    fr = next((i for i in range(b, e + 1) if frame_re.search(lines[i])), None)
    frame = []
    if fr is not None:
        a = fr
        if r.get("frame_before") and (not r.get("frame_before_if") or re.search(r["frame_before_if"], lines[fr])):
            a = fr - r["frame_before"]
        frame = list(range(a, min(e, fr + r.get("frame_after", 0)) + 1))
    return s, msg, frame


def log_tasks():
    tasks = []
    here = ROOT / "fixtures" / "shell"
    for name, pattern in {**RUNNERS, **COMPILERS}.items():
        r = expected.RULES[name]
        raw = (here / name).read_text()
        call = json.loads((here / (name + ".call.json")).read_text())
        lines = [ANSI.sub("", l) for l in _lines(raw)]
        blocks = expected.find_blocks(lines, r)
        if not blocks:
            continue
        base = dict(tool="bash", args={"command": call["args"]["command"]}, file=str(here / name), text=raw)
        s, msg, frame = _block_parts(lines, r, blocks[0])
        compiler = name in COMPILERS
        first = sorted({s, *msg, *frame})
        tasks.append(dict(
            base, id=f"log-first-{name}", kind="first compile error" if compiler else "first failure",
            question=("Show the first compile error with its location." if compiler else
                      "Show the first failing test: its values and where it failed."),
            patterns=[pattern], which="first", needles=[i + 1 for i in first],
        ))
        if len(blocks) > 1 and name != "cargo_build_errors.log":  # its last match is the summary
            s, msg, frame = _block_parts(lines, r, blocks[-1])
            tasks.append(dict(
                base, id=f"log-last-{name}", kind="last error",
                question="Show the last error of the log with its values.",
                patterns=[pattern], which="last", needles=[i + 1 for i in sorted({s, *msg})],
            ))
        if compiler:
            # every error in the file with the most errors: their lines name the file
            files = {}
            for b, e, s in blocks:
                m = re.search(r"(?:^|--> )((?:src|ts/src)/\S+?\.\w+)[:(]", lines[s]) or re.search(
                    r"--> ((?:src)/\S+?\.\w+):", "\n".join(lines[s:e + 1]))
                if m:
                    files.setdefault(m.group(1), []).append(s)
            if files:
                f, starts = max(files.items(), key=lambda kv: (len(kv[1]), kv[0]))
                need = [i + 1 for i in starts if f in lines[i]]
                if need:
                    tasks.append(dict(
                        base, id=f"log-file-{name}", kind="every error in a file",
                        question=f"List every error reported in {f}.",
                        patterns=[re.escape(f)], which="all", needles=need,
                    ))
    return tasks


def json_tasks(workdir):
    """`cargo metadata` of this repository, pretty-printed: a package's fields."""
    out = Path(workdir) / "cargo_metadata.json"
    if not out.exists():
        raw = subprocess.run(
            ["cargo", "metadata", "--format-version", "1"], cwd=ROOT,
            capture_output=True, text=True, check=True).stdout
        out.write_text(json.dumps(json.loads(raw), indent=4) + "\n")
    text = out.read_text()
    lines = _lines(text)
    doc = json.loads(text)
    pkgs = sorted(doc["packages"], key=lambda p: p["name"])
    starts = {}
    for i, l in enumerate(lines):
        m = re.match(r'^ {12}"name": "([^"]+)",$', l)
        if m:
            starts.setdefault(m.group(1), []).append(i)
    picked = [p for p in pkgs if len(starts.get(p["name"], [])) == 1]
    tasks = []
    # every 9th package, alternating a near field and a far one
    for k, p in enumerate(picked[5::9][:8]):
        field = ["version", "edition", "license", "rust_version"][k % 4]
        i = starts[p["name"]][0]
        key = f'            "{field}": '
        j = next(j for j in range(i, len(lines)) if lines[j].startswith(key))
        tasks.append(dict(
            id=f"json-{p['name']}-{field}", kind="json value", tool="bash",
            args={"command": "cargo metadata --format-version 1 | python3 -m json.tool --indent 4"},
            file=str(out), text=text,
            question=f"What is the `{field}` of package `{p['name']}` in the cargo metadata?",
            patterns=[rf'^ {{12}}"name": "{re.escape(p["name"])}",$', rf'^ {{12}}"{field}": '],
            which="first", needles=[j + 1],
            json_path=f".packages[name={p['name']}].{field}", value=p[field],
        ))
    return tasks


def all_tasks(workdir):
    return python_tasks() + log_tasks() + json_tasks(workdir)


if __name__ == "__main__":
    ts = all_tasks(os.environ.get("TMPDIR", "/tmp"))
    for t in ts:
        print(t["id"], t["kind"], len(t["text"]), t["needles"][:3], len(t["needles"]))
    print(len(ts), "tasks")
