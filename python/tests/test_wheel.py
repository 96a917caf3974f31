"""The wheel as a user installs it: into a fresh venv (`pip install`), and as a tool
(`uv tool install`, what `pipx install` does), with no Rust on PATH and no network;
then the `toolcap` command and the library from there.

python/run-tests.sh builds the wheel from the extension it just compiled and names
it in $TOOLCAP_TEST_WHEEL (python/build-wheel.sh checks the release manylinux wheel
the same way)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path
from typing import Dict

import pytest

from conftest import FIXTURES

WHEEL = os.environ.get("TOOLCAP_TEST_WHEEL")
pytestmark = pytest.mark.skipif(
    not WHEEL, reason="TOOLCAP_TEST_WHEEL is not set: python/run-tests.sh builds the wheel and sets it"
)


def _rustless_env(home: Path, *extra: Path) -> Dict[str, str]:
    path = [str(p) for p in extra] + ["/usr/local/bin", "/usr/bin", "/bin"]
    clean = [d for d in path if not (Path(d) / "cargo").exists() and not (Path(d) / "rustc").exists()]
    return {"HOME": str(home), "PATH": os.pathsep.join(clean), "LANG": "C.UTF-8"}


def _ok(r: "subprocess.CompletedProcess[bytes]") -> str:
    assert r.returncode == 0, f"{r.args} exited {r.returncode}:\n{r.stdout.decode(errors='replace')}\n{r.stderr.decode(errors='replace')}"
    return r.stdout.decode()


def _check_command(exe: str, env: Dict[str, str], tmp: Path) -> None:
    version = _ok(subprocess.run([exe, "--version"], capture_output=True, env=env))
    assert version.startswith("toolcap 0."), version
    log = FIXTURES / "shell" / "cargo_test_failure.log"
    db = tmp / "results.db"
    shown = _ok(
        subprocess.run(
            [exe, "process", "--tool", "bash", "--arg", "command=cargo test", "--id", "c1", "--store", str(db), str(log)],
            capture_output=True,
            env=env,
        )
    )
    assert "--- Recovery Options ---" in shown and "omitted" in shown
    # the full result is in the store, and the same command reads it back
    back = subprocess.run([exe, "show", "c1", "--store", str(db)], capture_output=True, env=env)
    assert back.returncode == 0 and back.stdout == log.read_bytes()


def test_pip_install_into_a_fresh_venv(tmp_path: Path) -> None:
    assert WHEEL is not None
    env_dir = tmp_path / "venv"
    # a venv of the base interpreter (not the test venv: nothing of it is inherited)
    base = Path(getattr(sys, "_base_executable", sys.executable))
    subprocess.run([str(base), "-m", "venv", str(env_dir)], check=True)
    bin_dir = env_dir / "bin"
    env = _rustless_env(tmp_path, bin_dir)
    _ok(subprocess.run([str(bin_dir / "pip"), "install", "-q", "--no-index", "--disable-pip-version-check", WHEEL], capture_output=True, env=env))
    _check_command(str(bin_dir / "toolcap"), env, tmp_path)
    lib = _ok(
        subprocess.run(
            [str(bin_dir / "python"), "-c", "import toolcap; p = toolcap.ToolResultProcessor(); print(p.process('read_file', 'x\\n' * 9000).truncated)"],
            capture_output=True,
            env=env,
        )
    )
    assert lib == "True\n"


def test_uv_tool_install_gives_a_toolcap_command(tmp_path: Path) -> None:
    """`uv tool install WHEEL`: the isolated tool environment pipx and uv make, its
    `toolcap` on the tool bin directory."""
    assert WHEEL is not None
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not installed (python/requirements-test.txt installs it)")
    tools, bins = tmp_path / "tools", tmp_path / "bin"
    env = _rustless_env(tmp_path, bins)
    env.update(
        {
            "UV_TOOL_DIR": str(tools),
            "UV_TOOL_BIN_DIR": str(bins),
            "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
            "UV_PYTHON": str(Path(getattr(sys, "_base_executable", sys.executable))),
            "UV_PYTHON_DOWNLOADS": "never",
            "UV_OFFLINE": "1",
        }
    )
    _ok(subprocess.run([uv, "tool", "install", WHEEL], capture_output=True, env=env))
    exe = bins / "toolcap"
    assert exe.exists(), sorted(p.name for p in bins.iterdir())
    _check_command(str(exe), env, tmp_path)
    # `toolcap install` from the tool writes hooks that call the tool's command
    dry = _ok(subprocess.run([str(exe), "install", "claude-code", "--dry-run"], capture_output=True, env=env))
    assert f"exec {exe} hook claude-code" in dry, dry
