#!/usr/bin/env python3
"""Prove a change leaves toolcap's output byte-identical.

    python3 scripts/json-diff.py BASE_REV [HEAD_REV]

Builds the `toolcap` binary at BASE_REV and at HEAD_REV (default: the working
tree as it is, uncommitted changes included), runs both on the same inputs and
compares what they print (stdout, exit code, stderr) byte for byte.

The inputs: every fixture under fixtures/<family>/ that has a NAME.call.json
sidecar (the tool and arguments tests/fixtures.rs gives it), each

  - with its own tool and arguments: `process --json FILE` (the CLI's streamed
    path for the shell family), the same from stdin, and `preview --json`
    (always held in memory);
  - with a SQLite store and a tool call id (`--store --id`, cut results and
    `--save all`), so the suggestions read the stored result;
  - with the `claude-code` and `mcp-filesystem` presets, and with a smaller
    kept budget (`max_kept_chars = 700`: other cuts, the budget loop);
  - with its tool counting tokens (`unit = "tokens"`);
  - as the result of every other family's tool (read_file, grep, shell,
    web_search, web_fetch, glob, and an unknown tool for generic).

Prints how many inputs were compared and every difference; exits 1 when any
input differs, 2 on a usage or build error, 0 when all are identical.

A built base binary is cached under $CARGO_TARGET_DIR/json-diff/<commit>/ (the
build itself runs in a temporary git worktree with the same CARGO_TARGET_DIR,
so only toolcap recompiles).
"""

import concurrent.futures
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FAMILY_TOOLS = [
    "read_file",
    "grep",
    "shell",
    "web_search",
    "web_fetch",
    "glob",
    "mcp__example__lookup",
]
CONFIGS = {
    "claude-code": '[suggest]\npreset = "claude-code"\n',
    "mcp-filesystem": '[suggest]\npreset = "mcp-filesystem"\n',
    "kept-700": "max_kept_chars = 700\n",
}
TOKEN_ENTRY = {
    "read_file": "read_file",
    "grep": "grep",
    "shell": "shell",
    "web_search": "web_search",
    "web_fetch": "web_fetch",
    "glob": "glob",
}


def die(msg, code=2):
    print(f"json-diff: {msg}", file=sys.stderr)
    sys.exit(code)


def git(*args, cwd=ROOT):
    r = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=False
    )
    if r.returncode != 0:
        die(f"git {' '.join(args)}: {r.stderr.strip()}")
    return r.stdout.strip()


def target_dir():
    t = os.environ.get("CARGO_TARGET_DIR")
    if not t:
        die("set CARGO_TARGET_DIR (the shared build directory) first")
    return Path(t)


def cargo_build(src: Path):
    """Build the toolcap binary from the tree at `src`; returns its path."""
    r = subprocess.run(
        ["cargo", "build", "--quiet", "--all-features", "--bin", "toolcap"],
        cwd=src,
        check=False,
    )
    if r.returncode != 0:
        die(f"cargo build failed in {src}")
    return target_dir() / "debug" / "toolcap"


def binary_at(rev):
    """The toolcap binary of commit `rev` (None: the working tree)."""
    if rev is None:
        built = cargo_build(ROOT)
        out = Path(tempfile.mkdtemp(prefix="json-diff-head-")) / "toolcap"
        shutil.copy2(built, out)
        return out, "working tree"
    sha = git("rev-parse", "--verify", f"{rev}^{{commit}}")
    cached = target_dir() / "json-diff" / sha / "toolcap"
    if cached.exists():
        return cached, f"{rev} ({sha[:10]}, cached)"
    tmp = Path(tempfile.mkdtemp(prefix="json-diff-src-"))
    tree = tmp / "src"
    git("worktree", "add", "--detach", str(tree), sha)
    try:
        built = cargo_build(tree)
        cached.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built, cached)
    finally:
        git("worktree", "remove", "--force", str(tree))
        shutil.rmtree(tmp, ignore_errors=True)
        touch_sources()
    return cached, f"{rev} ({sha[:10]})"


def touch_sources():
    """Mark the working tree's own sources changed. Cargo names a workspace
    member's build by its path inside the workspace, so the base built in the
    temporary worktree wrote over the same artefacts, whose fingerprints then
    look fresh to the working tree (older files): the head would be the base."""
    for top in ("src", "crates", "build.rs", "Cargo.toml"):
        p = ROOT / top
        files = [p] if p.is_file() else [f for f in p.rglob("*") if f.is_file()]
        for f in files:
            os.utime(f)


def fixtures():
    """(name, data file, tool, args) for every fixture with a sidecar."""
    out = []
    for sidecar in sorted((ROOT / "fixtures").glob("*/*.call.json")):
        data = sidecar.with_name(sidecar.name[: -len(".call.json")])
        call = json.loads(sidecar.read_text())
        out.append(
            (
                f"{sidecar.parent.name}/{data.name}",
                data,
                call["tool"],
                call.get("args", {}),
            )
        )
    return out


def cases(work: Path):
    """Every input: (label, argv after the binary, stdin file, needs a fresh store)."""
    conf = {}
    for name, body in CONFIGS.items():
        p = work / f"{name}.toml"
        p.write_text(body)
        conf[name] = p
    for tool, key in TOKEN_ENTRY.items():
        p = work / f"tokens-{tool}.toml"
        p.write_text(f'[tools.{key}]\nunit = "tokens"\n')
        conf[f"tokens-{tool}"] = p
    out = []
    for name, data, tool, args in fixtures():
        a = json.dumps(args)
        proc = ["process", "--tool", tool, "--args-json", a, "--json"]
        out.append((f"{name}: process FILE", proc + [str(data)], None, False))
        out.append((f"{name}: process <stdin", proc, data, False))
        out.append(
            (
                f"{name}: preview",
                ["preview", str(data), "--tool", tool, "--json"],
                None,
                False,
            )
        )
        for save in ("cut", "all"):
            out.append(
                (
                    f"{name}: process --store --id (save {save})",
                    proc + ["--id", "call_1", "--save", save, str(data)],
                    None,
                    True,
                )
            )
        for c in CONFIGS:
            out.append(
                (
                    f"{name}: process --config {c}",
                    proc + ["--config", str(conf[c]), str(data)],
                    None,
                    False,
                )
            )
        if tool in TOKEN_ENTRY:
            out.append(
                (
                    f"{name}: process, tokens",
                    proc + ["--config", str(conf[f"tokens-{tool}"]), str(data)],
                    None,
                    False,
                )
            )
        for other in FAMILY_TOOLS:
            if other == tool:
                continue
            out.append(
                (
                    f"{name}: as {other}",
                    ["process", "--tool", other, "--args-json", a, "--json", str(data)],
                    None,
                    False,
                )
            )
    return out


def run(binary: Path, argv, stdin_file, store_dir):
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("TOOLCAP_") and k != "TOOL_RESULT_BYPASS_TOOLS"
    }
    if store_dir is not None:
        argv = [*argv[:1], "--store", str(store_dir / "store.sqlite"), *argv[1:]]
    stdin = open(stdin_file, "rb") if stdin_file else subprocess.DEVNULL
    try:
        r = subprocess.run(
            [str(binary), *argv], stdin=stdin, capture_output=True, env=env, check=False
        )
    finally:
        if stdin_file:
            stdin.close()
    return r.returncode, r.stdout, r.stderr


def one(case, base, head, work: Path, i):
    label, argv, stdin_file, store = case
    results = []
    for binary in (base, head):
        d = None
        if store:
            # the same path for both sides (an error message may name it)
            d = work / f"store-{i}"
            shutil.rmtree(d, ignore_errors=True)
            d.mkdir()
        results.append(run(binary, argv, stdin_file, d))
    return label, argv, results


def explain(label, argv, a, b):
    lines = [f"DIFFERS: {label}", "  argv: toolcap " + " ".join(argv)]
    if a[0] != b[0]:
        lines.append(f"  exit code: base {a[0]}, head {b[0]}")
    for what, x, y in (("stdout", a[1], b[1]), ("stderr", a[2], b[2])):
        if x == y:
            continue
        try:
            xs = json.dumps(json.loads(x), indent=1, ensure_ascii=False).splitlines()
            ys = json.dumps(json.loads(y), indent=1, ensure_ascii=False).splitlines()
        except ValueError:
            xs = x.decode("utf-8", "replace").splitlines()
            ys = y.decode("utf-8", "replace").splitlines()
        if xs == ys:
            lines.append(f"  {what}: same JSON value, different bytes")
            continue
        d = list(difflib.unified_diff(xs, ys, "base", "head", lineterm="", n=1))
        lines.append(f"  {what}:")
        lines.extend("    " + l for l in d[:40])
        if len(d) > 40:
            lines.append(f"    ... {len(d) - 40} more diff lines")
    return "\n".join(lines)


def main():
    if len(sys.argv) not in (2, 3) or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    base_rev = sys.argv[1]
    head_rev = sys.argv[2] if len(sys.argv) == 3 else None
    base, base_name = binary_at(base_rev)
    head, head_name = binary_at(head_rev)
    print(f"base: {base_name}\nhead: {head_name}")
    work = Path(tempfile.mkdtemp(prefix="json-diff-run-"))
    try:
        all_cases = cases(work)
        if len(all_cases) < 100:
            die(f"only {len(all_cases)} inputs found under fixtures/: expected the fixture set")
        diffs = []
        jobs = max(1, min(4, os.cpu_count() or 1))
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            futs = [
                pool.submit(one, c, base, head, work, i) for i, c in enumerate(all_cases)
            ]
            for f in futs:
                label, argv, (a, b) = f.result()
                if a != b:
                    diffs.append(explain(label, argv, a, b))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if head_rev is None:
            shutil.rmtree(head.parent, ignore_errors=True)
    for d in diffs:
        print(d)
    print(f"{len(all_cases)} inputs compared, {len(diffs)} with differences")
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
