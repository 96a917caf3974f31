"""The seed-shaped harness's processor, with only the import changed.

The harness this project starts from calls its processor as
``process_result(tool_name, result, tool_context=None) -> (text, was_modified)``
and ``estimate_tokens(text) -> int``; its tools are ``read_file(file_path)``,
``execute_shell(command)``, ``grep_content(pattern, path)``, ``glob_files``,
``web_search(query)``, ``web_fetch(url)``, and ``manage_todo_list`` is never cut.
These tests are written against that documented shape (not copied from it).
"""

from __future__ import annotations

import json
import sys
from types import ModuleType, SimpleNamespace
from typing import Any, Dict, List, Optional

import pytest

from toolcap.adapter import ToolResultProcessor

PY_SOURCE = (
    "import os\nimport sys\n\n\nclass Loader:\n    def __init__(self):\n        self.items = []\n\n"
    "    def load(self, path):\n        return open(path).read()\n\n\ndef main():\n    Loader().load(sys.argv[1])\n\n\n"
)


class TestCallShape:
    def test_small_result_comes_back_unchanged_and_unmodified(self) -> None:
        text, modified = ToolResultProcessor().process_result("read_file", "small content\n")
        assert (text, modified) == ("small content\n", False)

    def test_large_result_is_cut_with_a_recovery_section(self) -> None:
        result = "line of text\n" * 2000
        text, modified = ToolResultProcessor().process_result("read_file", result)
        assert modified is True
        assert len(text) < len(result)
        assert "--- Recovery Options ---" in text
        # the marker counts the rest exactly
        assert "lines omitted" in text and "of 2000)" in text

    def test_the_beginning_is_kept(self) -> None:
        result = "START_MARKER\n" + "filler output line\n" * 1000
        text, _ = ToolResultProcessor().process_result("execute_shell", result)
        assert text.startswith("START_MARKER\n")

    def test_tool_context_keyword_and_positional(self) -> None:
        p = ToolResultProcessor()
        big = PY_SOURCE * 60
        a = p.process_result("read_file", big, tool_context={"file_path": "loader.py"})
        b = p.process_result("read_file", big, {"file_path": "loader.py"})
        assert a == b
        assert "File: loader.py |" in a[0]

    def test_estimate_tokens(self) -> None:
        p = ToolResultProcessor()
        assert p.estimate_tokens("x" * 3500) == 1000
        assert p.estimate_tokens("") == 0
        assert isinstance(p.estimate_tokens("abc"), int)


class TestBypass:
    def test_env_bypass_list(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("TOOL_RESULT_BYPASS_TOOLS", "custom_bypass_tool")
        p = ToolResultProcessor()
        big = "x" * 100_000
        assert p.process_result("custom_bypass_tool", big) == (big, False)
        assert "custom_bypass_tool" in p.get_bypass_tools()

    def test_the_todo_tool_is_never_cut(self) -> None:
        big = "- [ ] task\n" * 10_000
        assert ToolResultProcessor().process_result("manage_todo_list", big) == (big, False)

    def test_other_tools_are_cut(self) -> None:
        big = "y" * 100_000
        text, modified = ToolResultProcessor().process_result("read_file", big)
        assert modified and len(text) < 5000


class TestRecoverySuggestions:
    def test_read_file_with_a_filename(self) -> None:
        text, _ = ToolResultProcessor().process_result(
            "read_file", "z\n" * 10_000, tool_context={"filename": "large_file.txt"}
        )
        assert "--- Recovery Options ---" in text
        assert "Commands" in text
        # before the harness has passed a shell tool's result: ouro's shell tool, `shell`
        # (its processor's own suggestions call `shell(command=...)`)
        assert "shell(command=\"sed -n '" in text and "large_file.txt" in text
        assert "execute_shell(" not in text

    def test_shell_output_gets_head_or_tail_commands(self) -> None:
        out = "".join(f"drwxr-xr-x 2 user user 4096 Nov 25 file_{i}\n" for i in range(1000))
        text, modified = ToolResultProcessor().process_result("execute_shell", out, tool_context={"command": "ls -la"})
        assert modified
        assert "Command: ls -la | Output: 1,000 lines" in text
        # the rows collapsed as `file_*  (×957, lines 1-957)` are read back at the
        # run's end, the last omitted lines (the lines after the run are shown)
        assert "file_*  (×957, lines 1-957)" in text
        assert "execute_shell(command=\"ls -la 2>&1 | sed -n '887,957p'\")" in text

    def test_a_code_file_lists_its_structure(self) -> None:
        src = "".join(
            f"class Loader{i}:\n    def load(self, path):\n        return open(path).read()\n\n\n"
            f"def main_{i}():\n    Loader{i}().load('x')\n\n\n"
            for i in range(200)
        )
        text, _ = ToolResultProcessor().process_result("read_file", src, tool_context={"file_path": "loader.py"})
        assert "File: loader.py | 1,800 lines" in text and "| python" in text
        assert "Structure (lines 1-1800):" in text
        # the first definitions past the cut, by their first lines and numbers, then
        # the rest with their line spans
        structure = text.split("Structure (lines 1-1800):\n", 1)[1]
        assert structure.startswith("  154: class Loader17:\n  163: class Loader18:\n")
        assert "Loader49 442-444, Loader50 451-453" in structure


class TestThresholds:
    def test_below_the_read_file_threshold(self) -> None:
        result = "a" * 3000
        assert ToolResultProcessor().process_result("read_file", result) == (result, False)

    def test_above_the_read_file_threshold(self) -> None:
        result = "a\n" * 2000  # 4,000 chars
        text, modified = ToolResultProcessor().process_result("read_file", result)
        assert modified and len(text) < len(result)

    def test_each_tool_has_its_threshold(self) -> None:
        result = "b\n" * 2250  # 4,500 chars
        p = ToolResultProcessor()
        assert p.process_result("web_fetch", result) == (result, False)  # 5,000
        assert p.process_result("read_file", result)[1] is True  # 3,500
        assert p.process_result("web_search", result)[1] is True  # 4,000


class TestToolContextForms:
    def test_a_tool_call_object_with_arguments_and_id(self) -> None:
        p = ToolResultProcessor()
        call = SimpleNamespace(id="call_7", name="read_file", arguments=json.dumps({"file_path": "loader.py"}))
        big = PY_SOURCE * 60
        text, modified = p.process_result("read_file", big, call)
        assert modified and "File: loader.py |" in text
        # kept under the call's id: the model can page through it
        assert 'tool_call_id="call_7"' in text
        more = p.handle_tool_call("get_continuation", {"tool_call_id": "call_7", "start_line": 5, "end_line": 6})
        assert more is not None
        assert "class Loader:\n    def __init__(self):\n" in more

    def test_an_object_with_argument_attributes(self) -> None:
        text, _ = ToolResultProcessor().process_result(
            "execute_shell", "".join(f"row {i} {i * i}\n" for i in range(2000)), SimpleNamespace(command="cat big.log")
        )
        assert "cat big.log" in text

    def test_an_openai_tool_call_dict(self) -> None:
        call = {"id": "c9", "type": "function", "function": {"name": "read_file", "arguments": '{"file_path": "a.py"}'}}
        text, _ = ToolResultProcessor().process_result("read_file", PY_SOURCE * 60, call)
        assert "File: a.py |" in text and 'tool_call_id="c9"' in text

    def test_a_bad_context_is_a_clear_error(self) -> None:
        with pytest.raises(TypeError, match="tool_context"):
            ToolResultProcessor().process_result("read_file", "x", SimpleNamespace(arguments=[1, 2]))


class _SeedShapedAgent:
    """A tool loop shaped like the seed harness's: it builds a context from the
    call's arguments and calls the processor by keyword."""

    def __init__(self, tools: Dict[str, Any]) -> None:
        self.tools = tools
        self.processor = ToolResultProcessor()
        self.transcript: List[str] = []

    def _context(self, name: str, arguments: Dict[str, Any]) -> Dict[str, Any]:
        keys = {"read_file": ["file_path"], "execute_shell": ["command"], "grep_content": ["pattern", "path"]}
        return {k: arguments.get(k, "") for k in keys.get(name, [])}

    def run(self, calls: List[Dict[str, Any]]) -> List[str]:
        for call in calls:
            raw = self.tools[call["name"]](**call["arguments"])
            processed, was_modified = self.processor.process_result(
                tool_name=call["name"], result=raw, tool_context=self._context(call["name"], call["arguments"])
            )
            if was_modified:
                processed += "\n\n[Note: Result was truncated.]"
            self.transcript.append(processed)
            # the harness's own token budget check
            assert self.processor.estimate_tokens(processed) < 4000
        return self.transcript


def test_a_seed_shaped_agent_loop_runs() -> None:
    files = {"big.py": PY_SOURCE * 100, "small.txt": "hello\n"}
    agent = _SeedShapedAgent(
        {
            "read_file": lambda file_path: files[file_path],
            "execute_shell": lambda command: "".join(f"log line {i}\n" for i in range(5000)),
            "manage_todo_list": lambda items: "\n".join(items),
        }
    )
    out = agent.run(
        [
            {"name": "read_file", "arguments": {"file_path": "big.py"}},
            {"name": "read_file", "arguments": {"file_path": "small.txt"}},
            {"name": "execute_shell", "arguments": {"command": "make test"}},
            {"name": "manage_todo_list", "arguments": {"items": ["a"] * 3}},
        ]
    )
    assert out[0].endswith("[Note: Result was truncated.]") and "File: big.py |" in out[0]
    assert out[1] == "hello\n"
    assert "make test" in out[2]
    assert out[3] == "a\na\na"


def test_the_other_call_shape_returns_the_text() -> None:
    p = ToolResultProcessor()
    text = p.process("read_file", PY_SOURCE * 60, {"path": "loader.py"}, "call_1")
    assert isinstance(text, str) and 'tool_call_id="call_1"' in text
    assert p.last is not None and p.last.truncated
    none: Optional[str] = p.handle_tool_call("read_file", {"path": "x"})
    assert none is None


class TestTheHarnessOwnSettings:
    """What ouro's own processor tests and agent loop need beyond the call shape: its
    bypass list where it keeps it, `was_modified` whenever the text changed, and
    suggestions that call its own tools."""

    @pytest.fixture
    def harness_config(self, monkeypatch: pytest.MonkeyPatch) -> Any:
        # ouro's `config` module: `Config.TOOL_RESULT_BYPASS_TOOLS`, a list read by its
        # processor on each call (its tests monkeypatch it)
        module = ModuleType("config")

        class Config:
            TOOL_RESULT_BYPASS_TOOLS = "retrieve_tool_result".split(",")

        module.Config = Config  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, "config", module)
        return Config

    def test_the_harness_bypass_list_is_read_on_each_call(self, harness_config: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        p = ToolResultProcessor()
        big = "x" * 100_000
        assert p.process_result("retrieve_tool_result", big) == (big, False)
        assert p.process_result("custom_bypass_tool", big)[1] is True
        # as ouro's test does it: set after the processor was made
        monkeypatch.setattr("config.Config.TOOL_RESULT_BYPASS_TOOLS", ["custom_bypass_tool"])
        assert p.process_result("custom_bypass_tool", big) == (big, False)
        assert "custom_bypass_tool" in p.get_bypass_tools()
        assert p.process("custom_bypass_tool", big) == big

    def test_no_harness_config_module_no_harness_list(self) -> None:
        assert "config" not in sys.modules or not hasattr(sys.modules["config"], "Config")
        assert ToolResultProcessor.get_bypass_tools() == frozenset({"manage_todo_list"})

    def test_was_modified_whenever_the_text_changed(self) -> None:
        # 1,000 identical lines collapse to one counted line: not cut, but changed
        text, modified = ToolResultProcessor().process_result("execute_shell", "output\n" * 1000, tool_context={"command": "ls -la"})
        assert len(text) < 7000 and text != "output\n" * 1000
        assert modified is True
        small = "output\n" * 3
        assert ToolResultProcessor().process_result("execute_shell", small) == (small, False)
        assert ToolResultProcessor().process_result("execute_shell", small.encode()) == (small, False)

    def test_suggestions_call_the_shell_tool_the_harness_passes(self) -> None:
        p = ToolResultProcessor()
        big = "".join(f"row {i}\n" for i in range(5000))
        assert 'shell(command="sed -n' in p.process_result("read_file", big, {"filename": "a.txt"})[0]
        # ouro runs its shell tool as `shell`: nothing changes
        p.process_result("shell", big, {"command": "seq 5000"})
        assert 'shell(command="sed -n' in p.process_result("read_file", big, {"filename": "a.txt"})[0]
        # a harness whose shell tool is `run_command`: from its first result on
        text, _ = p.process_result("run_command", big, {"command": "seq 5000"})
        assert "run_command(command=" in text and " shell(command=" not in text
        text, _ = p.process_result("read_file", big, {"filename": "a.txt"})
        assert "run_command(command=\"sed -n '" in text

    def test_one_line_setting_names_the_shell_tool(self) -> None:
        p = ToolResultProcessor(shell_tool="execute_shell")
        big = "".join(f"row {i}\n" for i in range(5000))
        p.process_result("Bash", big, {"command": "seq 5000"})  # not learned: the setting holds
        text, _ = p.process_result("read_file", big, {"filename": "a.txt"})
        assert "execute_shell(command=\"sed -n '" in text
        with pytest.raises(ValueError, match=r"\[suggest.shell\] tool"):
            ToolResultProcessor("thresholds.toml", shell_tool="shell")
        # a configuration that names the tool is used as it is
        q = ToolResultProcessor({"suggest": {"shell": {"tool": "sh_exec"}}})
        q.process_result("Bash", big, {"command": "seq 5000"})
        assert "sh_exec(command=\"sed -n '" in q.process_result("read_file", big, {"filename": "a.txt"})[0]
