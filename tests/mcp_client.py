"""Drive `toolcap mcp-proxy` with the official MCP Python SDK client.

Run by tests/mcp_filesystem.rs (not by hand, though it can be):

    python tests/mcp_client.py --toolcap BIN --root DIR --big FILE --image FILE \
        --out FILE [--store DB] -- SERVER_COMMAND ARGS...

The proxy runs the MCP server SERVER_COMMAND (the reference filesystem server, allowed
to read DIR). The client reads FILE through it, sees the capped result with its
recovery notes, pages the rest with get_continuation until the end and writes what it
put together to --out (the Rust test compares it with FILE byte for byte). It also
checks that an error result stays an error, an image passes through untouched,
fetch_tool_output pages, and that tools/list holds the server's tools and the
recovery tools. Any failed check raises: the exit status is not 0.
"""

import argparse
import asyncio
import base64
import json
import re
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

MARKER = re.compile(
    r"\n\n\[truncated — showing (\d+)-(\d+)/(\d+) chars\. (\d+) chars remaining\. "
    r'Call get_continuation with tool_call_id="([^"]+)" offset=(\d+) to read more\]$'
)
MAX_CALLS = 1000


def text_of(result):
    texts = [c.text for c in result.content if c.type == "text"]
    assert len(texts) == 1, f"expected one text content, got {result.content!r}"
    return texts[0]


def suggestions(shown):
    """The suggested calls of a recovery section: (tool, arguments, purpose) for
    each `  • tool(key=JSON, ...)  # purpose` line."""
    out = []
    dec = json.JSONDecoder()
    for line in shown.splitlines():
        if not line.startswith("  • "):
            continue
        call, _, purpose = line[4:].partition("  # ")
        tool, _, rest = call.partition("(")
        args, i = {}, 0
        while i < len(rest) and rest[i] != ")":
            key_end = rest.index("=", i)
            key = rest[i:key_end]
            value, j = dec.raw_decode(rest, key_end + 1)
            args[key] = value
            i = j + 2 if rest[j : j + 2] == ", " else j
        out.append((tool, args, purpose))
    return out


def check_range(original, call_args, purpose, out):
    """A get_continuation line range returns those lines of the original; a
    read_text_file head/tail the first/last lines; the size said is what came."""
    lines = original.splitlines(keepends=True)
    m = re.search(r"\(lines (\d+)-(\d+)", purpose) or re.search(r"lines (\d+)-(\d+),", purpose)
    if "start_line" in call_args:
        a, b = call_args["start_line"], call_args["end_line"]
        want = "".join(lines[a - 1 : b])
        assert out.startswith(want), (call_args, out[:200])
        if m:
            assert (int(m.group(1)), int(m.group(2))) == (a, b), (purpose, call_args)
        size = re.search(r"([\d,]+) chars", purpose)
        if size:
            assert len(want) == int(size.group(1).replace(",", "")), (purpose, len(want))
    elif "head" in call_args:
        assert out == "".join(lines[: call_args["head"]]).rstrip("\n") or out.startswith(
            "".join(lines[: call_args["head"]])[:200]
        ), out[:200]


async def main(args):
    with open(args.big, encoding="utf-8", newline="") as f:
        original = f.read()
    params = StdioServerParameters(
        command=args.toolcap,
        args=["mcp-proxy", "--dialog", "e2e", *(["--store", args.store] if args.store else []), "--", *args.server],
    )
    report = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            report["server"] = init.server_info.name

            tools = await session.list_tools()
            names = [t.name for t in tools.tools]
            for want in ("read_text_file", "read_media_file", "get_continuation", "fetch_tool_output", "search_tool_output"):
                assert want in names, f"{want} missing from tools/list: {names}"
            report["tools"] = len(names)

            # 1. the large file comes back capped, with recovery notes
            first = await session.call_tool("read_text_file", {"path": args.big})
            assert not first.is_error, text_of(first)
            shown = text_of(first)
            assert len(shown) < 6000, f"{len(shown)} chars shown: not capped"
            assert "--- Recovery Options ---" in shown, shown
            assert re.search(r"\[\.\.\. [\d,]+ chars, [\d,]+ lines omitted \(lines \d+-\d+ of \d+\) \.\.\.\]", shown), shown
            # the suggestions name the stored result's id; get_continuation without an
            # offset reads on right after what was shown, and its marker says from where
            ids = [a["tool_call_id"] for _, a, _ in suggestions(shown) if "tool_call_id" in a]
            assert ids, f"no call reading the stored result in:\n{shown}"
            tool_call_id = ids[0]
            r = await session.call_tool("get_continuation", {"tool_call_id": tool_call_id})
            assert not r.is_error, text_of(r)
            m = MARKER.search(text_of(r))
            assert m, f"no continuation marker in:\n{text_of(r)[-300:]}"
            offset = int(m.group(1))
            head = shown[:offset]
            assert original.startswith(head), "the kept head is not the file's start"
            # the server's structuredContent (its output schema) is capped the same way
            assert first.structured_content == {"content": shown}, first.structured_content
            report["shown_chars"] = len(shown)
            report["tool_call_id"] = tool_call_id
            report["offset"] = offset

            # 1b. every suggested call names a tool the client was given, and runs
            suggested = suggestions(shown)
            assert suggested, f"no suggestions in:\n{shown}"
            report["suggested_tools"] = sorted({t for t, _, _ in suggested})
            report["suggestions_ran"] = 0
            for tool, call_args, purpose in suggested:
                assert tool in names, f"{tool} is not in tools/list: {names}"
                r = await session.call_tool(tool, call_args)
                out = text_of(r)
                assert not r.is_error, f"{tool}({call_args}) failed: {out}"
                check_range(original, call_args, purpose, out)
                report["suggestions_ran"] += 1

            # 2. page the rest with get_continuation until the end
            parts, calls = [head], 0
            while True:
                calls += 1
                assert calls <= MAX_CALLS, "get_continuation did not reach the end"
                r = await session.call_tool(
                    "get_continuation", {"tool_call_id": tool_call_id, "offset": offset}
                )
                assert not r.is_error, text_of(r)
                chunk = text_of(r)
                tail = MARKER.search(chunk)
                if tail is None:
                    parts.append(chunk)
                    break
                start, end, total = int(tail.group(1)), int(tail.group(2)), int(tail.group(3))
                assert start == offset and tail.group(5) == tool_call_id, chunk[-200:]
                assert total == len(original), (total, len(original))
                parts.append(chunk[: tail.start()])
                offset = end
            report["continuation_calls"] = calls
            with open(args.out, "w", encoding="utf-8", newline="") as f:
                f.write("".join(parts))

            # 3. fetch_tool_output pages by characters
            r = await session.call_tool(
                "fetch_tool_output", {"tool_call_id": tool_call_id, "offset": 100, "limit": 50}
            )
            fetched = json.loads(text_of(r))
            assert fetched["tool_name"] == "read_text_file", fetched
            assert fetched["tool_args"] == {"path": args.big}, fetched
            assert fetched["tool_output"] == original[100:150], fetched
            assert fetched["next_offset"] == 150, fetched

            # 3b. search_tool_output finds lines in the stored result, counted exactly,
            #     and get_continuation reads a line range
            lines = original.splitlines()
            want = [i + 1 for i, l in enumerate(lines) if l.startswith("class ")]
            r = await session.call_tool(
                "search_tool_output",
                {"tool_call_id": tool_call_id, "pattern": "^class ", "context": 0, "max_matches": 3},
            )
            found = text_of(r)
            assert not r.is_error, found
            head = f"{len(want):,} of {len(lines)} lines match \"^class \"; showing 3 of them"
            assert found.startswith(head), found
            assert f"\n{want[0]}: {lines[want[0] - 1]}\n" in found, found
            report["class_lines"] = len(want)
            r = await session.call_tool(
                "get_continuation",
                {"tool_call_id": tool_call_id, "start_line": want[0], "end_line": want[0] + 2},
            )
            got = text_of(r)
            assert got.startswith("\n".join(lines[want[0] - 1 : want[0] + 2]) + "\n"), got

            # 4. an error result stays an error, its text intact
            missing = args.root.rstrip("/") + "/no-such-file.txt"
            r = await session.call_tool("read_text_file", {"path": missing})
            assert r.is_error, r
            assert "no-such-file.txt" in text_of(r) and "Recovery" not in text_of(r), text_of(r)

            # 5. an image passes through untouched
            with open(args.image, "rb") as f:
                image = f.read()
            r = await session.call_tool("read_media_file", {"path": args.image})
            assert not r.is_error, r
            kinds = [c.type for c in r.content]
            assert kinds == ["image"], kinds
            assert base64.b64decode(r.content[0].data) == image
            assert r.content[0].mime_type == "image/png", r.content[0].mime_type

            # 6. an unknown id is a readable error from the proxy itself
            r = await session.call_tool("get_continuation", {"tool_call_id": "nope"})
            assert r.is_error and "No cached result for tool_call_id 'nope'" in text_of(r), r
    print(json.dumps(report))


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--toolcap", required=True)
    p.add_argument("--root", required=True)
    p.add_argument("--big", required=True)
    p.add_argument("--image", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--store")
    p.add_argument("server", nargs=argparse.REMAINDER)
    a = p.parse_args()
    if a.server and a.server[0] == "--":
        a.server = a.server[1:]
    if not a.server:
        sys.exit("name the MCP server command after --")
    asyncio.run(asyncio.wait_for(main(a), timeout=120))
