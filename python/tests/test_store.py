"""Stores paged back byte for byte (ASCII and multi-byte), in memory and in a SQLite
file shared with the CLI (`toolcap continue` / `show` read what Python wrote, and
Python reads what `toolcap process --store` wrote)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

import toolcap
from conftest import FIXTURES

# real material: a Rust source file (ASCII) and the Rust book's chapter on strings,
# which greets in a dozen scripts (multi-byte UTF-8: Arabic, Hindi, Japanese, ...)
ASCII = FIXTURES / "read_file" / "command.rs"
MULTI = FIXTURES / "web_fetch" / "ch08-02-strings.md"
MARK = "\n\n[truncated — showing "


def page_all(get, total_chars: int, chunk: int) -> str:
    """Read a stored result from offset 0 to its end with get(offset) -> ToolReply,
    checking each chunk's marker."""
    parts = []
    offset = 0
    while True:
        r = get(offset)
        assert not r.is_error, r.text
        if r.next_offset is None:
            parts.append(r.text)
            break
        body, marker = r.text.rsplit(MARK, 1)
        end = r.next_offset
        assert end == offset + len(body)
        assert len(body) <= chunk
        assert MARK + marker == (
            f"\n\n[truncated — showing {offset}-{end}/{total_chars} chars. {total_chars - end} chars remaining. "
            f"Call get_continuation with tool_call_id=\"call_1\" offset={end} to read more]"
        )
        parts.append(body)
        offset = end
    return "".join(parts)


def stores(tmp_path: Path):
    return [toolcap.MemoryStore(), toolcap.SqliteStore(tmp_path / "results.db")]


@pytest.mark.parametrize("source", [ASCII, MULTI], ids=["ascii", "multibyte"])
@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_a_cut_result_pages_back_byte_for_byte(source: Path, kind: str, tmp_path: Path) -> None:
    text = source.read_text(encoding="utf-8")
    if source == MULTI:
        assert len(text.encode()) > len(text)  # really multi-byte
    store = toolcap.MemoryStore() if kind == "memory" else toolcap.SqliteStore(tmp_path / "r.db")
    processor = toolcap.ToolResultProcessor(store=store, dialog="d1")
    tool = "read_file" if source == ASCII else "web_fetch"
    args = {"path": source.name} if source == ASCII else {"url": "https://doc.rust-lang.org/book/ch08-02-strings.html"}
    p = processor.process(tool, text, args, "call_1")
    assert p.truncated
    assert p.stored == {"tool_call_id": "call_1", "dialog_id": "d1", "storage_type": kind, "offset": p.stored["offset"]}
    # the first get_continuation (no offset) starts right after what the model saw
    first = processor.get_continuation("call_1")
    shown = p.stored["offset"]
    assert first.text.startswith(text[shown : shown + 100])
    # from 0, chunk by chunk: the whole original
    paged = page_all(lambda o: processor.get_continuation("call_1", o), len(text), 2000)
    assert paged == text
    assert paged.encode("utf-8") == source.read_bytes()
    # fetch_tool_output in pages of 777 chars
    out, offset = [], 0
    while offset is not None:
        r = json.loads(processor.fetch_tool_output("call_1", offset, 777).text)
        assert r["tool_name"] == tool and r["tool_args"] == args and r["total_chars"] == len(text)
        out.append(r["tool_output"])
        offset = r["next_offset"]
    assert "".join(out) == text
    assert processor.get_tool_result("call_1").text == text
    assert store.get("call_1", dialog="d1") == text
    meta = store.meta("call_1", dialog="d1")
    assert meta["size_chars"] == len(text) and meta["size_bytes"] == len(text.encode()) and meta["truncated"]
    # another dialog does not see it
    assert store.get("call_1") is None
    assert processor.get_continuation("call_1", dialog="other").text == (
        "{\"error\": \"No cached result for tool_call_id 'call_1'\"}"
    )


def _body(reply: str) -> str:
    """A recovery reply without its last bracketed line (how to read on): the CLI's
    names its own command, the library's the recovery tool call."""
    return reply[: reply.rstrip("\n").rfind("\n[")]


@pytest.mark.parametrize("source", [ASCII, MULTI], ids=["ascii", "multibyte"])
def test_the_cli_reads_what_python_wrote(source: Path, tmp_path: Path, cli) -> None:
    db = tmp_path / "shared.db"
    text = source.read_text(encoding="utf-8")
    processor = toolcap.ToolResultProcessor(store=toolcap.SqliteStore(db))
    p = processor.process("read_file", text, {"path": source.name}, "call_1")
    assert p.truncated
    # `toolcap show` prints the full output, byte for byte
    assert cli.run("show", "call_1", "--store", str(db)).stdout == source.read_bytes()
    # `toolcap continue` gives the same chunks (the CLI adds a line end after a marker)
    for offset in (None, 0, 1999, len(text) - 10):
        extra = [] if offset is None else ["--offset", str(offset)]
        got = cli.run("continue", "call_1", "--store", str(db), *extra).stdout.decode("utf-8")
        r = processor.get_continuation("call_1", offset)
        if r.next_offset is None:
            assert got == r.text
            continue
        # the same chunk; the read-on line names the command to run next instead of
        # the get_continuation call
        assert _body(got) == _body(r.text)
        assert r.text.endswith(f'Call get_continuation with tool_call_id="call_1" offset={r.next_offset} to read more]')
        assert got.endswith(f" continue call_1 --store {db} --offset {r.next_offset}` to read more]\n"), got[-200:]
    # and fetch
    got = cli.run("fetch", "call_1", "--store", str(db)).stdout.decode("utf-8")
    assert json.loads(got)["tool_output"] == text
    assert got == processor.fetch_tool_output("call_1").text + "\n"


@pytest.mark.parametrize("source", [ASCII, MULTI], ids=["ascii", "multibyte"])
def test_python_reads_what_the_cli_wrote(source: Path, tmp_path: Path, cli) -> None:
    db = tmp_path / "shared.db"
    cli.run(
        "process", "--tool", "read_file", "--arg", f"path={source.name}", "--store", str(db), "--id", "call_1",
        "--dialog", "d9", str(source),
    )
    store = toolcap.SqliteStore(db)
    text = source.read_text(encoding="utf-8")
    assert store.get("call_1", dialog="d9").encode("utf-8") == source.read_bytes()
    paged = page_all(lambda o: store.get_continuation("call_1", o, dialog="d9"), len(text), 2000)
    assert paged.encode("utf-8") == source.read_bytes()
    assert [m["tool_call_id"] for m in store.list("d9")] == ["call_1"]
    assert store.meta("call_1", dialog="d9")["tool_args"] == {"path": source.name}


def test_save_all_keeps_results_that_were_not_cut(tmp_path: Path) -> None:
    store = toolcap.MemoryStore()
    processor = toolcap.ToolResultProcessor(store=store, save="all")
    p = processor.process("read_file", "print('hi')\n", {"path": "a.py"}, "call_small")
    assert not p.truncated and p.text == "print('hi')\n"
    assert store.get("call_small") == "print('hi')\n"
    assert len(store) == 1
    # without an id nothing is kept
    processor.process("read_file", "x\n", {"path": "b.py"})
    assert len(store) == 1


def test_store_put_delete_and_prune(tmp_path: Path) -> None:
    for store in stores(tmp_path):
        store.put("call_a", "bash", "héllo\nwörld\n", {"command": "ls"}, dialog="d1")
        store.put("call_b", "bash", b"bytes\n", dialog="d2")
        assert store.get("call_a", dialog="d1") == "héllo\nwörld\n"
        assert store.get("call_b", dialog="d2") == "bytes\n"
        assert store.fetch_tool_output("call_a", dialog="d1").text == (
            '{"tool_name": "bash", "tool_args": {"command": "ls"}, "tool_output": "héllo\\nwörld\\n"}'
        )
        assert store.prune_older_than(3600) == 0
        assert store.delete_dialog("d1") == 1
        assert store.get("call_a", dialog="d1") is None
        time.sleep(0.01)  # created before the cutoff, to the millisecond
        assert store.prune_older_than(0) == 1
        assert store.list() == []


def test_prepare_messages_loads_references(tmp_path: Path) -> None:
    store = toolcap.SqliteStore(tmp_path / "r.db")
    text = MULTI.read_text(encoding="utf-8")
    store.put("call_1", "web_fetch", text, {"url": "u"}, dialog="d1")
    ref = toolcap.reference_message(store, "call_1", dialog="d1")
    assert ref["role"] == "tool" and ref["tool_call_id"] == "call_1"
    content = json.loads(ref["content"])
    assert content["result_ref"] == {"storage_type": "sqlite", "dialog_id": "d1", "tool_call_id": "call_1"}
    assert content["metadata"]["size_bytes"] == len(text.encode())
    messages = [{"role": "user", "content": "read it"}, ref]
    assert toolcap.prepare_messages(store, messages, dialog="d1") == messages
    assert toolcap.prepare_messages(store, messages, False, dialog="d1") == messages
    loaded = toolcap.prepare_messages(store, messages, True, dialog="d1")
    assert loaded[0] == messages[0]
    assert loaded[1] == {"role": "tool", "tool_call_id": "call_1", "content": text}
    assert toolcap.prepare_messages(store, messages, ["call_1"], dialog="d1") == loaded
    assert toolcap.prepare_messages(store, messages, ["call_2"], dialog="d1") == messages
    processor = toolcap.ToolResultProcessor(store=store, dialog="d1")
    assert processor.prepare_messages(messages, load_tool_results=True) == loaded


def test_line_ranges_and_search_read_the_stored_result(tmp_path: Path, cli) -> None:
    """get_continuation(start_line=, end_line=) and search_tool_output, as functions,
    store methods and processor methods, answer from the stored real file what the
    file holds, and say the same as `toolcap continue` / `toolcap search`."""
    import re

    text = ASCII.read_text()
    lines = text.splitlines()
    db = tmp_path / "r.db"
    store = toolcap.SqliteStore(str(db))
    processor = toolcap.ToolResultProcessor(store=store)
    processor.process("read_file", text, {"path": "command.rs"}, "call_1")

    r = toolcap.get_continuation(store, "call_1", start_line=10, end_line=14)
    assert not r.is_error and r.error is None
    # a range served whole is its lines, nothing more
    assert r.text == "\n".join(lines[9:14]) + "\n"
    r = toolcap.get_continuation(store, "call_1", start_line=10)
    assert f"[showing lines 10-" in r.text and f" of {len(lines)}." in r.text
    assert store.get_continuation("call_1", start_line=10).text == r.text
    assert processor.get_continuation("call_1", start_line=10).text == r.text

    want = [i + 1 for i, l in enumerate(lines) if re.search(r"\bfn ", l)]
    assert len(want) > 5
    s = toolcap.search_tool_output(store, "call_1", r"\bfn ", context=0, max_matches=3)
    assert s.text.startswith(f"{len(want)} of {len(lines)} lines match ")
    shown = [int(l.split(":", 1)[0]) for l in s.text.splitlines()[1:] if re.match(r"^\d+:", l)]
    assert shown == want[:3]
    assert f"skip=3 to see them]" in s.text
    assert processor.search_tool_output("call_1", r"\bfn ", context=0, max_matches=3).text == s.text
    assert store.search_tool_output("call_1", r"\bfn ", context=0, max_matches=3).text == s.text

    out = cli.run("search", "call_1", r"\bfn ", "--context", "0", "--max", "3", "--store", str(db)).stdout.decode()
    # the same matches; the read-on line names the command to run next
    assert _body(out) == _body(s.text)
    assert out.endswith(f" search call_1 '\\bfn ' --store {db} --context 0 --max 3 --skip 3` to see them]\n"), out[-200:]

    # from the end: the last two matches, and where the earlier ones are
    e = toolcap.search_tool_output(store, "call_1", r"\bfn ", context=0, max_matches=2, from_end=True)
    shown = [int(l.split(":", 1)[0]) for l in e.text.splitlines()[1:] if re.match(r"^\d+:", l)]
    assert shown == want[-2:]
    assert f"showing the last 2 (lines {want[-2]}-{want[-1]}):" in e.text
    assert e.text.endswith(f"from_end=true skip=2 to see them]\n")
    assert processor.search_tool_output("call_1", r"\bfn ", context=0, max_matches=2, from_end=True).text == e.text
    assert store.search_tool_output("call_1", r"\bfn ", context=0, max_matches=2, from_end=True).text == e.text
    out = cli.run("search", "call_1", r"\bfn ", "--context", "0", "--max", "2", "--from-end", "--store", str(db)).stdout.decode()
    assert _body(out) == _body(e.text)
    assert out.endswith("--skip 2` to see them]\n") and "--from-end" in out.splitlines()[-1], out[-200:]
