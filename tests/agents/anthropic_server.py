"""A scripted Anthropic Messages server on 127.0.0.1 for the Claude Agent SDK tests
(python/tests/test_claude_agent_sdk.py imports it; node/test/claude-agent-sdk.test.mjs
runs it): the same answers as tests/agents/server.rs gives Claude Code.

Each request of the main conversation (one that lists tools) is answered from the
script, a list of tool calls ``[{"name": ..., "input": {...}}, ...]``: with N tool
results in the request so far, call N of the list (id ``toolu_sdk_N``), or the text
"done" once the list is used up. Other requests (token counts, side questions) get
a small fixed answer. Every main request's tool results are recorded, in order.

    python3 anthropic_server.py SCRIPT.json RECORD.json

prints the port on its first line, then serves until it is killed, rewriting
RECORD.json (a list of lists of tool result texts) after each request.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(c.get("text", json.dumps(c)) if isinstance(c, dict) else str(c) for c in content)
    return "" if content is None else json.dumps(content)


def tool_results(path: str, body: Any) -> Optional[List[str]]:
    """The tool results of a main-conversation request, or None for a side request."""
    if not isinstance(body, dict) or not path.startswith("/v1/messages") or "count_tokens" in path:
        return None
    if not body.get("tools"):
        return None
    out: List[str] = []
    for m in body.get("messages") or []:
        content = m.get("content") if isinstance(m, dict) else None
        for c in content if isinstance(content, list) else []:
            if isinstance(c, dict) and c.get("type") == "tool_result":
                out.append(_text(c.get("content")))
    return out


def _sse(events: List[Dict[str, Any]]) -> bytes:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


def answer(path: str, body: Any, script: List[Dict[str, Any]]) -> tuple:
    """(content type, payload) for one request."""
    if "count_tokens" in path:
        return "application/json", json.dumps({"input_tokens": 100}).encode()
    results = tool_results(path, body)
    turn = len(results) if results is not None else 0
    call = script[turn] if results is not None and turn < len(script) else None
    model = body.get("model", "m") if isinstance(body, dict) else "m"
    if call is not None:
        block = {"type": "tool_use", "id": f"toolu_sdk_{turn}", "name": call["name"], "input": call["input"]}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": "done"}
        stop = "end_turn"
    usage = {"input_tokens": 100, "output_tokens": 10}
    message = {
        "id": f"msg_sdk_{turn}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [block],
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage,
    }
    if not (isinstance(body, dict) and body.get("stream") is True):
        return "application/json", json.dumps(message).encode()
    start = dict(message, content=[], stop_reason=None)
    if call is not None:
        opened: Dict[str, Any] = dict(block, input={})
        delta = {"type": "input_json_delta", "partial_json": json.dumps(call["input"])}
    else:
        opened = {"type": "text", "text": ""}
        delta = {"type": "text_delta", "text": "done"}
    return "text/event-stream", _sse(
        [
            {"type": "message_start", "message": start},
            {"type": "content_block_start", "index": 0, "content_block": opened},
            {"type": "content_block_delta", "index": 0, "delta": delta},
            {"type": "content_block_stop", "index": 0},
            {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 10}},
            {"type": "message_stop"},
        ]
    )


class Server:
    """The server on a thread: ``url``, ``turns`` (each main request's tool results)."""

    def __init__(self, script: List[Dict[str, Any]], on_request: Optional[Callable[[], None]] = None) -> None:
        self.turns: List[List[str]] = []
        lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n) if n else b""
                try:
                    body = json.loads(raw or b"null")
                except ValueError:
                    body = None
                results = tool_results(self.path, body)
                if results is not None:
                    with lock:
                        outer.turns.append(results)
                    if on_request is not None:
                        on_request()
                kind, payload = answer(self.path, body, script)
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(payload)))
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(payload)
                self.close_connection = True

            def do_GET(self) -> None:  # noqa: N802
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        script = json.load(f)
    record = sys.argv[2]
    server: Server
    saving = threading.Lock()

    def save() -> None:
        with saving:
            tmp = record + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                json.dump(server.turns, f)
            os.replace(tmp, record)

    server = Server(script, on_request=save)
    print(server.port, flush=True)
    threading.Event().wait()


if __name__ == "__main__":
    main()
