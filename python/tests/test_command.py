"""The `toolcap` command of the wheel: the command line's own code run through
the extension, same output and exit codes as the Rust binary."""

from __future__ import annotations

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
