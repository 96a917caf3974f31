"""Rust errors become Python exceptions with the CLI's messages; bad Python values
are TypeError / ValueError; nothing panics across the boundary."""

from __future__ import annotations

from pathlib import Path

import pytest

import toolcap
from conftest import FIXTURES

SMALL = FIXTURES / "read_file" / "command.rs"


def cli_message(cli, *args: str) -> str:
    p = cli.run(*args, check=False)
    assert p.returncode != 0
    err = p.stderr.decode()
    assert err.startswith("toolcap: ")
    return err[len("toolcap: ") :].rstrip("\n")


def test_exception_classes() -> None:
    for cls in (toolcap.ConfigError, toolcap.StoreError, toolcap.OutlineError):
        assert issubclass(cls, toolcap.ToolcapError)
    assert issubclass(toolcap.ToolcapError, Exception)


def test_a_bad_config_file_is_a_config_error_with_the_cli_message(tmp_path: Path, cli) -> None:
    bad = tmp_path / "toolcap.toml"
    bad.write_text("[tools.read_file]\nthreshold = 100\n")
    with pytest.raises(toolcap.ConfigError) as e:
        toolcap.ToolResultProcessor(bad)
    assert str(e.value) == cli_message(cli, "process", "--tool", "read_file", "--config", str(bad), str(SMALL))
    assert "threshold" in str(e.value) and "fix:" in str(e.value)
    missing = tmp_path / "missing.toml"
    with pytest.raises(toolcap.ConfigError) as e:
        toolcap.ToolResultProcessor(str(missing))
    assert str(e.value) == cli_message(cli, "config", "--config", str(missing))


def test_the_config_env_var_is_read_like_the_cli(tmp_path: Path, monkeypatch, cli) -> None:
    bad = tmp_path / "env.toml"
    bad.write_text("max_kept_chars = -1\n")
    monkeypatch.setenv("TOOLCAP_CONFIG", str(bad))
    with pytest.raises(toolcap.ConfigError) as e:
        toolcap.ToolResultProcessor()
    assert str(bad) in str(e.value) and "max_kept_chars" in str(e.value)


def test_a_config_dict(tmp_path: Path) -> None:
    p = toolcap.ToolResultProcessor({"bypass": ["my_tool"], "tools": {"read_file": {"threshold": 9000}}})
    assert p.is_bypassed("my_tool")
    text = SMALL.read_text()
    out = p.process("read_file", text, {"path": "command.rs"})
    assert out.threshold == 9000 and out.truncated  # 180,725 chars: cut all the same
    short = text[:8000]
    assert p.process("read_file", short, {"path": "command.rs"}).text == short  # under 9,000
    assert toolcap.ToolResultProcessor().process("read_file", short, {"path": "command.rs"}).truncated
    assert p.process("my_tool", text * 3).text == text * 3
    with pytest.raises(toolcap.ConfigError) as e:
        toolcap.ToolResultProcessor({"tools": {"read_file": {"threshold": 100}}})
    assert str(e.value).startswith("<config dict>: tools.read_file.threshold")
    with pytest.raises(toolcap.ConfigError) as e:
        toolcap.ToolResultProcessor({"no_such_key": 1})
    assert "no_such_key" in str(e.value)
    with pytest.raises(TypeError):
        toolcap.ToolResultProcessor(42)


def test_a_store_that_cannot_open_is_a_store_error_with_the_cli_message(tmp_path: Path, cli) -> None:
    with pytest.raises(toolcap.StoreError) as e:
        toolcap.SqliteStore(tmp_path)  # a directory
    assert str(e.value) == cli_message(
        cli, "process", "--tool", "read_file", "--store", str(tmp_path), "--id", "x", str(SMALL)
    )
    notdb = tmp_path / "not.db"
    notdb.write_bytes(b"this is not a SQLite database\n" * 100)
    with pytest.raises(toolcap.StoreError) as e:
        toolcap.SqliteStore(notdb)
    assert str(e.value) == cli_message(cli, "process", "--tool", "read_file", "--store", str(notdb), "--id", "x", str(SMALL))


def test_an_invalid_id_is_a_store_error_with_the_cli_message(cli) -> None:
    bad = "call\n1"
    with pytest.raises(toolcap.StoreError) as e:
        toolcap.ToolResultProcessor().process("read_file", "x", None, bad)
    assert "--id: " + str(e.value) == cli_message(cli, "process", "--tool", "read_file", "--id", bad, str(SMALL))
    with pytest.raises(toolcap.StoreError):
        toolcap.ToolResultProcessor(dialog="x" * 300)


def test_recovery_tool_errors_are_replies_the_model_reads() -> None:
    store = toolcap.MemoryStore()
    r = toolcap.get_continuation(store, "nope")
    assert r.is_error and r.text == "{\"error\": \"No cached result for tool_call_id 'nope'\"}"
    assert r.error == "not_stored"
    store.put("c", "bash", "abc")
    r = toolcap.get_continuation(store, "c", 3)
    assert r.is_error and r.text == '{"error": "Offset beyond end of result"}'
    assert r.error == "past_end"
    assert toolcap.get_continuation(store, "c", 0).error is None
    r = toolcap.dispatch(store, "get_continuation", "{not json")
    assert r.is_error and "arguments are not valid JSON" in r.text
    assert r.error == "bad_argument"
    r = toolcap.search_tool_output(store, "c", "(")
    assert r.is_error and r.error == "bad_argument" and "escape regex characters" in r.text
    r = toolcap.get_continuation(store, "c", start_line=2)
    assert r.error == "bad_argument" and "past the last line of the result (1 lines)" in r.text
    with pytest.raises(ValueError, match="not both"):
        toolcap.get_continuation(store, "c", 0, start_line=1)
    with pytest.raises(ValueError, match="end_line needs start_line"):
        toolcap.get_continuation(store, "c", end_line=3)
    with pytest.raises(ValueError, match="context = 9"):
        toolcap.search_tool_output(store, "c", "a", context=9)
    r = toolcap.dispatch(store, "get_continuation", {})
    assert r.is_error and "missing required argument tool_call_id" in r.text
    # without a store, a recovery call gets the reply a model can read
    r = toolcap.ToolResultProcessor().dispatch("get_continuation", {"tool_call_id": "c"})
    assert r is not None and r.error == "not_stored" and r.text == '{"error": "No cached result for tool_call_id \'c\'"}'
    # the direct calls need a store
    with pytest.raises(toolcap.ToolcapError, match="no result store attached"):
        toolcap.ToolResultProcessor().get_continuation("c")


def test_bad_python_values() -> None:
    p = toolcap.ToolResultProcessor()
    with pytest.raises(TypeError, match="result: expected str or bytes"):
        p.process("read_file", 42)
    with pytest.raises(TypeError, match="args: expected a dict"):
        p.process("read_file", "x", ["path"])
    with pytest.raises(ValueError, match="args: not valid JSON"):
        p.process("read_file", "x", "{bad")
    with pytest.raises(TypeError, match="cannot pass a object as JSON"):
        p.process("read_file", "x", {"k": object()})
    with pytest.raises(ValueError, match="is not a JSON number"):
        p.process("read_file", "x", {"k": float("nan")})
    with pytest.raises(ValueError, match="unknown language"):
        p.process("read_file", "x", lang="klingon")
    with pytest.raises(ValueError, match='save "some"'):
        toolcap.ToolResultProcessor(save="some")
    with pytest.raises(TypeError, match="store: expected a toolcap.MemoryStore"):
        toolcap.ToolResultProcessor(store="memory")
    with pytest.raises(ValueError, match="unknown tool format"):
        toolcap.tool_definitions("gemini")
    with pytest.raises(ValueError, match="chunk_chars = 0"):
        toolcap.get_continuation(toolcap.MemoryStore(), "c", chunk_chars=0)
    with pytest.raises(ValueError, match="cannot tell the language"):
        toolcap.outline("just words\n")


def test_strange_inputs_do_not_crash() -> None:
    p = toolcap.ToolResultProcessor()
    for text in ["", "\x00" * 10000, "\ud800 lone surrogate " * 500, "é" * 100000, "\n" * 50000, b"\xff" * 9000]:
        out = p.process("read_file", text, {"path": "x.py"})
        assert isinstance(out.text, str)


def test_a_panic_in_rust_is_a_toolcap_error() -> None:
    from toolcap import _toolcap

    with pytest.raises(toolcap.ToolcapError) as e:
        _toolcap._panic_for_tests()
    assert str(e.value) == "internal error in toolcap (please report it): deliberate panic for the tests"
    # and the interpreter goes on
    assert toolcap.ToolResultProcessor().process("read_file", "ok\n").text == "ok\n"


def test_lone_surrogates_are_replaced_in_text_and_report_alike() -> None:
    s = "a\ud800b\n" * 2000
    p = toolcap.ToolResultProcessor().process("read_file", s, {"path": "x.txt"})
    # one U+FFFD per lone surrogate: the counts are the str's own (len())
    assert p.truncated and p.original["chars"] == len(s)
    assert p.text.startswith("a\ufffdb\n")
    assert p.text == p.to_dict()["text"]
