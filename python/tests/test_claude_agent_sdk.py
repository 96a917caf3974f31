"""toolcap.integrations.claude_agent_sdk with the real Claude Agent SDK (``claude-agent-sdk``,
whose wheel ships Claude Code) against the scripted model server of
tests/agents/anthropic_server.py, offline. The example of docs/agents.md ("The Claude Agent
SDK") runs as written three ways: with toolcap, without (``with_toolcap`` taken out), and
with the toolcap program removed once the options were made. The model's calls:
``seq 1 20000``, an ``rm`` the project's settings deny, a whole-file Read, a failing
command, and the recovery command the view's marker implies."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pytest

from conftest import REPO

_spec = importlib.util.spec_from_file_location("anthropic_server", REPO / "tests" / "agents" / "anthropic_server.py")
assert _spec is not None and _spec.loader is not None
anthropic_server: Any = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(anthropic_server)

STDLIB = Path(sysconfig.get_paths()["stdlib"])
PERSISTED = "<persisted-output>"


def example() -> str:
    doc = (REPO / "docs" / "agents.md").read_text(encoding="utf-8")
    section = next((s for s in re.split(r"^## ", doc, flags=re.M) if s.startswith("The Claude Agent SDK")), None)
    assert section, 'docs/agents.md has no "## The Claude Agent SDK" section'
    m = re.search(r"^```python\n(.*?)^```", section, re.S | re.M)
    assert m, "no ```python block in the Claude Agent SDK section"
    return m.group(1)


def drive(tmp: Path, name: str, code: str, cli: Path, gone: Optional[Path] = None) -> Tuple[List[str], bool, str]:
    """One run of ``code`` in a fresh project and home: the tool results the model got,
    whether the file the rule protects is still there, and the example's output."""
    home, project = tmp / name / "home", tmp / name / "project"
    (project / ".claude").mkdir(parents=True)
    home.mkdir()
    (project / "victim.txt").write_text("keep me\n")
    shutil.copy(STDLIB / "inspect.py", project / "inspect.py")
    # the user's own rule: the SDK loads the project's settings (setting_sources' default)
    (project / ".claude" / "settings.json").write_text(json.dumps({"permissions": {"deny": ["Bash(rm:*)"]}}))
    calls: List[Dict[str, Any]] = [
        {"name": "Bash", "input": {"command": "seq 1 20000", "description": "count"}},
        {"name": "Bash", "input": {"command": "rm -f victim.txt; echo removed", "description": "remove"}},
        {"name": "Read", "input": {"file_path": str(project / "inspect.py")}},
        {"name": "Bash", "input": {"command": "echo hi; echo err >&2; exit 3", "description": "fail"}},
        {"name": "Bash", "input": {"command": f"{cli} continue toolu_sdk_0 --start-line 5 --end-line 7", "description": "more"}},
    ]
    server = anthropic_server.Server(calls)
    try:
        env = {k: v for k, v in os.environ.items() if not re.match(r"(XDG_|TOOLCAP_|CLAUDE|ANTHROPIC_)", k)}
        env.update(
            HOME=str(home),
            PWD=str(project),
            ANTHROPIC_BASE_URL=server.url,
            ANTHROPIC_API_KEY="sk-sdk",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
        )
        if gone is not None:
            env["TOOLCAP_GONE"] = str(gone)
        run = subprocess.run(
            [sys.executable, "-c", code], cwd=project, env=env, capture_output=True, text=True, timeout=240
        )
        assert run.returncode == 0, f"{name}: the example exited {run.returncode}\n{run.stdout}\n{run.stderr}"
        results = server.turns[-1] if server.turns else []
    finally:
        server.close()
    assert len(results) == len(calls), f"{name}: the model got {len(results)} results\n{run.stderr}"
    return results, (project / "victim.txt").exists(), run.stdout


def test_the_claude_agent_sdk_example_caps_and_keeps_rules_and_fails_open(tmp_path: Path, cli_path: Path) -> None:
    code = example()
    assert "with_toolcap(" in code
    without, kept_w, _ = drive(tmp_path, "without", code.replace("with_toolcap(", "(lambda o: o)("), cli_path)
    with_tc, kept, out = drive(tmp_path, "with", code, cli_path)
    # the program gone after the options were made: the prefix script and the hooks step aside
    gone = tmp_path / "gone" / "toolcap"
    gone.parent.mkdir()
    shutil.copy(cli_path, gone)
    removed = re.sub(
        r"^( *)options = with_toolcap\((.*)\)\n",
        lambda m: (
            f'{m.group(1)}options = with_toolcap({m.group(2)}, toolcap=__import__("os").environ["TOOLCAP_GONE"])\n'
            f'{m.group(1)}__import__("os").remove(__import__("os").environ["TOOLCAP_GONE"])\n'
        ),
        code,
        flags=re.M,
    )
    assert removed != code, "the example makes `options = with_toolcap(...)` on one line"
    fail_open, kept_f, _ = drive(tmp_path, "fail-open", removed, cli_path, gone)
    assert not gone.exists()

    seq_w, rm_w, read_w, fail_w = without[:4]
    seq, rm, read, fail, more = with_tc
    # Bash: Claude Code alone keeps a 2 KB preview; toolcap's view has the way back
    assert PERSISTED in seq_w and PERSISTED not in seq
    assert len(seq) <= 3500, len(seq)
    assert "--- Recovery Options ---" in seq and "toolcap continue toolu_sdk_0" in seq
    assert "108,894 chars" in seq and "\n20000" in seq
    assert more.strip() == "5\n6\n7"
    # the deny rule decided as without toolcap: the same text, the file kept
    assert rm == rm_w and "denied" in rm
    assert kept_w and kept and kept_f
    # Read of a whole file: capped after it ran (Claude Code alone sends it all)
    first = (STDLIB / "inspect.py").read_text(encoding="utf-8").split("\n")[0]
    assert read.startswith(f"1\t{first}\n") and len(read) < 5000 and len(read_w) > 100_000, (len(read), len(read_w))
    # a failing command: the same result
    assert fail == fail_w and "Exit code 3" in fail
    # fail-open: every result as without toolcap (the persisted file's path aside)
    def no_path(s: str) -> str:
        return re.sub(r"/\S+/tool-results/\S+", "PATH", s)

    assert [no_path(r) for r in fail_open[:4]] == [no_path(r) for r in without[:4]]
    assert "success" in out


def test_with_toolcap_without_a_program_gives_the_options_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from claude_agent_sdk import ClaudeAgentOptions, HookMatcher

    from toolcap.integrations.claude_agent_sdk import with_toolcap

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    options = ClaudeAgentOptions(allowed_tools=["Bash"], env={"A": "1"})
    assert with_toolcap(options, toolcap=tmp_path / "no-toolcap") is options
    own = HookMatcher(matcher="Write", hooks=[])
    made = with_toolcap(ClaudeAgentOptions(allowed_tools=["Bash"], env={"A": "1"}, hooks={"PostToolUse": [own]}))
    assert made.env["A"] == "1"
    assert made.env["CLAUDE_CODE_SHELL_PREFIX"].startswith(str(tmp_path / ".local" / "state" / "toolcap" / "agents"))
    assert made.hooks is not None
    assert [m.matcher for m in made.hooks["PostToolUse"]] == ["Write", "mcp__.*|Read|Grep"]
    assert [m.matcher for m in made.hooks["PreToolUse"]] == ["Bash"]
    assert made.allowed_tools == ["Bash"]
