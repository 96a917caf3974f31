"""The `toolcap` command of the wheel: the command line's own code run through
the extension, same output and exit codes as the Rust binary."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import FIXTURES, Cli


def _py_cli(*args: str, stdin: bytes = b"") -> "subprocess.CompletedProcess[bytes]":
    return subprocess.run([sys.executable, "-m", "toolcap._cli", *args], input=stdin, capture_output=True)


def test_the_command_matches_the_binary(tmp_path: Path, cli: Cli) -> None:
    f = FIXTURES / "shell" / "cargo_test_failure.log"
    args = ["process", "--tool", "bash", "--arg", "command=cargo test", "--json", str(f)]
    ours = _py_cli(*args)
    theirs = cli.run(*args)
    assert ours.returncode == theirs.returncode == 0, ours.stderr
    assert ours.stdout == theirs.stdout
    # a store written by one is read by the other
    db = tmp_path / "r.db"
    w = _py_cli("process", "--tool", "bash", "--id", "c1", "--store", str(db), str(f))
    assert w.returncode == 0, w.stderr
    r = cli.run("show", "c1", "--store", str(db))
    assert r.stdout == f.read_bytes()


def test_usage_errors_exit_2_with_the_message() -> None:
    r = _py_cli("outline", "x.py", "--lang", "cobol")
    assert r.returncode == 2
    assert b"toolcap: --lang: unknown language \"cobol\"" in r.stderr
    assert _py_cli("--version").stdout.startswith(b"toolcap ")
    assert _py_cli("no-such-command").returncode == 2


def test_the_console_script_is_installed() -> None:
    exe = shutil.which("toolcap", path=str(Path(sys.executable).parent))
    assert exe is not None, "the wheel's `toolcap` command is not in the venv's bin/"
    r = subprocess.run([exe, "langs"], capture_output=True)
    assert r.returncode == 0 and b"python" in r.stdout


def test_install_writes_hooks_that_call_the_console_script(tmp_path: Path) -> None:
    """The command runs inside Python: the hooks `toolcap install` writes call the
    `toolcap` script itself (pipx's or uv's), not the Python interpreter."""
    exe = shutil.which("toolcap", path=str(Path(sys.executable).parent))
    assert exe is not None
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    r = subprocess.run([exe, "install", "claude-code", "--dry-run"], capture_output=True, env=env)
    assert r.returncode == 0, r.stderr
    out = r.stdout.decode()
    assert f"exec {exe} hook claude-code" in out, out
    assert os.path.realpath(sys.executable) not in out and sys.executable not in out
    assert not (tmp_path / ".claude").exists()


def test_version_names_the_commit() -> None:
    """`toolcap --version` of the wheel: the package version and the commit (as the
    Rust binary's, built by the same build script)."""
    import re

    out = _py_cli("--version").stdout.decode()
    assert re.fullmatch(r"toolcap \d+\.\d+\.\d+( \([0-9a-f]{7,}( \d{4}-\d{2}-\d{2})?\))?\n", out), out
    git = subprocess.run(["git", "-C", str(Path(__file__).parent), "log", "-1", "--format=%h %cs"], capture_output=True)
    if git.returncode == 0:
        assert out.endswith(f"({git.stdout.decode().strip()})\n"), out
