#!/usr/bin/env python3
"""Make the facts benchmark's inputs: run real commands on this machine and keep what they
print (stdout and stderr merged, as an agent's shell tool sees them) with their exit status.

    python3 benches/facts/gen.py [--out DIR]

Material: this repository's git history, the Python standard library, crates in
~/.cargo/registry/src (strsim and semver copied to a scratch dir, one with an injected bug,
one with a type error), configparser copied with an injected bug and its unittest module,
the email package copied with two syntax errors for a compileall build log, /var/log/dpkg.log,
pip and npm. Each case is written to DIR/NAME.out with DIR/NAME.json ({"command", "exit",
"kind"}); DIR defaults to ~/.cache/toolcap-facts (not committed: a few MB).
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STDLIB = Path(sysconfig.get_paths()["stdlib"])
REGISTRY = sorted(glob.glob(os.path.expanduser("~/.cargo/registry/src/*/")))


def crate(name):
    for r in REGISTRY:
        hits = sorted(glob.glob(os.path.join(r, name + "-*")))
        if hits:
            return Path(hits[-1])
    return None


def run(cmd, cwd):
    p = subprocess.run(["bash", "-c", cmd], cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, env={**os.environ, "CARGO_TERM_COLOR": "never",
                                                      "NO_COLOR": "1", "GIT_PAGER": "cat"})
    return p.stdout.decode("utf-8", "replace"), p.returncode


def inject(path, old, new, count=1):
    s = path.read_text()
    assert old in s, (path, old)
    path.write_text(s.replace(old, new, count))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.expanduser("~/.cache/toolcap-facts"))
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    scratch = out / "scratch"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir()
    cases = []  # (name, kind, command, cwd)
    repo = str(ROOT)
    # a fixed point of the history, so reruns print the same
    head = run("git rev-parse HEAD~2", repo)[0].strip()
    cases += [
        ("git_log_p", "log", f"git log -p -n 12 {head}", repo),
        ("git_log", "log", f"git log -n 150 {head}", repo),
        ("git_log_stat", "log", f"git log --stat -n 40 {head}", repo),
        ("git_diff", "diff", f"git diff {head}~25 {head}", repo),
    ]
    lib = str(STDLIB)
    ex = "--include=*.py --exclude-dir=site-packages --exclude-dir=__pycache__"
    cases += [
        ("grep_rn_todo", "grep", f"grep -rn {ex} TODO .", lib),
        ("grep_rn_raise", "grep", f"grep -rn {ex} 'raise ValueError' .", lib),
        ("grep_rc_def", "grep_count", f"grep -rc {ex} 'def ' .", lib),
        ("grep_rl_import", "grep_files", f"grep -rl {ex} 'import os' .", lib),
        ("find_stdlib", "listing", "find . -path ./site-packages -prune -o -path '*/__pycache__' -prune -o -print", lib),
    ]
    rs = crate("regex-automata") or crate("regex-syntax")
    if rs:
        cases.append(("ls_laR_crate", "listing_ls", f"ls -laR {rs}", str(rs.parent)))
    cases += [
        ("cat_code", "code", "cat configparser.py", lib),
        ("cat_log", "log_levels", "cat /var/log/dpkg.log", "/"),
        ("pip_list", "pip", "pip list", "/"),
    ]
    # a Rust crate: passing, with an injected bug, with a type error
    st = crate("strsim")
    if st:
        good = scratch / "strsim_ok"
        shutil.copytree(st, good)
        cases.append(("cargo_test_pass", "test_pass", "cargo test --offline", str(good)))
        bad = scratch / "strsim_bug"
        shutil.copytree(st, bad)
        # one injected bug: the Hamming distance counts equal characters
        inject(bad / "src/lib.rs", "                if x != y {", "                if x == y {")
        cases.append(("cargo_test_fail", "test_fail", "cargo test --offline", str(bad)))
        broken = scratch / "strsim_type"
        shutil.copytree(st, broken)
        inject(broken / "src/lib.rs", "pub fn hamming(a: &str, b: &str) -> HammingResult {",
               "pub fn hamming(a: &str, b: &str) -> HammingResult {\n    let _n: u32 = a.len();")
        cases.append(("cargo_build_error", "compile_error", "cargo build --offline", str(broken)))
    # a Python module with an injected bug, and its tests
    py = scratch / "configparser_bug"
    py.mkdir()
    shutil.copy(STDLIB / "configparser.py", py / "configparser.py")
    shutil.copy(STDLIB / "test/test_configparser.py", py / "test_configparser.py")
    inject(py / "configparser.py", "        return optionstr.lower()", "        return optionstr.upper()")
    cases.append(("unittest_fail", "test_fail_py", "python3 -m unittest test_configparser", str(py)))
    cases.append(("unittest_pass", "test_pass_py", "python3 -m unittest -v test.test_json", lib))
    # a build log with two syntax errors
    em = scratch / "email_build"
    for pkg in ["email", "json", "http", "xml", "logging", "urllib", "asyncio"]:
        shutil.copytree(STDLIB / pkg, em / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    inject(em / "email/utils.py", "def formataddr(pair, charset='utf-8'):", "def formataddr(pair, charset='utf-8')")
    inject(em / "email/header.py", "class Header:", "class Header")
    cases.append(("compileall_build", "build_log", "python3 -m compileall -f email json http xml logging urllib asyncio", str(em)))
    # a git status of a worktree with changes
    gs = scratch / "status_repo"
    shutil.copytree(STDLIB / "json", gs / "json", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(STDLIB / "email", gs / "email", ignore=shutil.ignore_patterns("__pycache__"))
    run("git init -q -b main . && git add -A && git -c user.name=t -c user.email=t@x commit -qm init", str(gs))
    for i, f in enumerate(sorted((gs / "email").rglob("*.py"))):
        if i % 2 == 0:
            f.write_text(f.read_text() + "\n# changed\n")
    for i in range(30):
        (gs / f"notes_{i}.txt").write_text("x\n")
    cases.append(("git_status", "status", "git status", str(gs)))
    # npm ls of a project with its modules installed (when npm is here)
    if shutil.which("npm"):
        nd = ROOT / "node"
        cases.append(("npm_ls", "npm", "npm ls --all", str(nd)))
    for name, kind, cmd, cwd in cases:
        text, code = run(cmd, cwd)
        (out / f"{name}.out").write_text(text)
        (out / f"{name}.json").write_text(json.dumps({"command": cmd, "exit": code, "kind": kind, "cwd": cwd}))
        print(f"{name:22} exit {code:3}  {len(text):>9,} chars  {text.count(chr(10)):>7,} lines  {cmd}", file=sys.stderr)


if __name__ == "__main__":
    main()
