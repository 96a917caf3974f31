"""The one-line framework integrations, each in its framework's real agent loop
with a scripted model that reads a big file, follows the marker's
get_continuation(tool_call_id, start_line, end_line) and gets the exact lines."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from typing import Any, Dict, List, Optional

import pytest

from conftest import FIXTURES

BIG = (FIXTURES / "read_file" / "typing.py").read_text()
LINES = BIG.splitlines(keepends=True)
NEXT = re.compile(r'get_continuation\(tool_call_id="([^"]+)", start_line=(\d+), end_line=(\d+)\)')


def _follow(marker_text: str) -> Dict[str, Any]:
    m = NEXT.search(marker_text)
    assert m, marker_text[-1500:]
    return {"tool_call_id": m.group(1), "start_line": int(m.group(2)), "end_line": int(m.group(3))}


def _expected(args: Dict[str, Any]) -> str:
    return "".join(LINES[args["start_line"] - 1 : args["end_line"]])


def test_integrations_do_not_import_their_frameworks_unless_used() -> None:
    code = (
        "import sys, toolcap, toolcap.adapter, toolcap.integrations\n"
        "bad = [m for m in ('langchain', 'langchain_core', 'langgraph', 'agents', 'openai') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


# ---------------------------------------------------------------------------
# LangChain 1.x: create_agent + ToolcapMiddleware


def _langchain_agent(middleware: Any, log: List[Any]) -> Any:
    from langchain.agents import create_agent
    from langchain_core.language_models.chat_models import BaseChatModel
    from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
    from langchain_core.outputs import ChatGeneration, ChatResult
    from langchain_core.tools import tool

    @tool
    def read_file(path: str) -> str:
        """Read a file."""
        assert path == "typing.py"
        return BIG

    @tool
    def read_file_blocks(path: str) -> List[Dict[str, Any]]:
        """Read a file, as content blocks."""
        return [{"type": "text", "text": BIG}]

    class Scripted(BaseChatModel):
        """Reads the file, then follows the marker's get_continuation."""

        @property
        def _llm_type(self) -> str:
            return "scripted"

        def bind_tools(self, tools: Any, **kw: Any) -> Any:
            log.append(sorted(t.name if hasattr(t, "name") else t["name"] for t in tools))
            return self

        def _generate(self, messages: List[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
            tool_msgs = [m for m in messages if isinstance(m, ToolMessage)]
            if not tool_msgs:
                msg = AIMessage(content="", tool_calls=[{"name": "read_file", "args": {"path": "typing.py"}, "id": "call_1"}])
            elif len(tool_msgs) == 1:
                text = tool_msgs[0].content
                assert isinstance(text, str)
                args = _follow(text)
                log.append(args)
                msg = AIMessage(content="", tool_calls=[{"name": "get_continuation", "args": args, "id": "call_2"}])
            else:
                msg = AIMessage(content="done")
            return ChatResult(generations=[ChatGeneration(message=msg)])

    return create_agent(Scripted(), tools=[read_file, read_file_blocks], middleware=[middleware])


def test_langchain_agent_follows_the_marker_to_the_exact_lines() -> None:
    pytest.importorskip("langchain")
    from langchain_core.messages import ToolMessage

    from toolcap.integrations.langchain import ToolcapMiddleware

    log: List[Any] = []
    mw = ToolcapMiddleware()
    agent = _langchain_agent(mw, log)
    state = agent.invoke({"messages": [{"role": "user", "content": "read typing.py"}]})
    tool_msgs = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    assert len(tool_msgs) == 2
    first, second = tool_msgs
    assert "--- Recovery Options ---" in first.content and len(first.content) < 6000
    # the recovery tools were offered to the model next to the agent's own
    assert "get_continuation" in log[0] and "search_tool_output" in log[0] and "read_file" in log[0]
    args = next(x for x in log if isinstance(x, dict))
    # the reply carries exactly those lines of the file (and passed through uncut)
    assert second.content.startswith(_expected(args))
    assert second.content == mw.processor.get_continuation(
        "call_1", start_line=args["start_line"], end_line=args["end_line"]
    ).text


def test_langchain_async_loop_and_content_blocks() -> None:
    pytest.importorskip("langchain")
    from langchain_core.messages import ToolMessage
    from langgraph.types import Command

    from toolcap.integrations.langchain import ToolcapMiddleware

    mw = ToolcapMiddleware()
    log: List[Any] = []
    agent = _langchain_agent(mw, log)
    state = asyncio.run(agent.ainvoke({"messages": [{"role": "user", "content": "read typing.py"}]}))
    tool_msgs = [m for m in state["messages"] if isinstance(m, ToolMessage)]
    assert tool_msgs[1].content.startswith(_expected(next(x for x in log if isinstance(x, dict))))

    # list content blocks: the text blocks are cut as one text, others kept
    class Req:
        tool_call = {"name": "read_file", "args": {"path": "typing.py"}, "id": "call_b"}

    image = {"type": "image", "url": "https://example.invalid/x.png"}
    msg = ToolMessage(content=[{"type": "text", "text": BIG[:50_000]}, {"type": "text", "text": BIG[50_000:]}, image], tool_call_id="call_b")
    out = mw.wrap_tool_call(Req(), lambda r: msg)
    assert isinstance(out, ToolMessage) and isinstance(out.content, list)
    assert out.content[1] == image and "--- Recovery Options ---" in out.content[0]["text"]
    assert mw.processor.store is not None and mw.processor.store.get("call_b") == BIG  # type: ignore[union-attr]
    # a Command's ToolMessages are capped too
    cmd = Command(update={"messages": [ToolMessage(content=BIG, tool_call_id="call_c")], "other": 1})
    out2 = mw.wrap_tool_call(Req(), lambda r: cmd)
    assert isinstance(out2, Command) and out2.update["other"] == 1
    assert "--- Recovery Options ---" in out2.update["messages"][0].content
    # small results are the very same message
    small = ToolMessage(content="ok", tool_call_id="call_d")
    assert mw.wrap_tool_call(Req(), lambda r: small) is small


# ---------------------------------------------------------------------------
# OpenAI Agents SDK: capped(tools) in Runner with a scripted model


def test_openai_agents_runner_follows_the_marker_to_the_exact_lines() -> None:
    pytest.importorskip("agents")
    from agents import Agent, ModelResponse, Runner, Usage, function_tool
    from agents.models.interface import Model
    from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

    from toolcap.integrations.openai_agents import capped

    @function_tool
    def read_file(path: str) -> str:
        """Read a file."""
        return BIG

    seen: List[Any] = []

    def call(name: str, args: Dict[str, Any], call_id: str) -> ResponseFunctionToolCall:
        return ResponseFunctionToolCall(
            type="function_call", name=name, arguments=json.dumps(args), call_id=call_id, id=f"fc_{call_id}", status="completed"
        )

    class Scripted(Model):
        async def get_response(self, system_instructions: Any, input: Any, model_settings: Any, tools: Any, *a: Any, **kw: Any) -> ModelResponse:
            seen.append(sorted(t.name for t in tools))
            items = input if isinstance(input, list) else []
            outputs = [i for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"]
            if not outputs:
                out: List[Any] = [call("read_file", {"path": "typing.py"}, "call_1")]
            elif len(outputs) == 1:
                args = _follow(str(outputs[0]["output"]))
                seen.append(args)
                out = [call("get_continuation", args, "call_2")]
            else:
                seen.append(str(outputs[1]["output"]))
                out = [
                    ResponseOutputMessage(
                        id="msg_1",
                        type="message",
                        role="assistant",
                        status="completed",
                        content=[ResponseOutputText(type="output_text", text="done", annotations=[])],
                    )
                ]
            return ModelResponse(output=out, usage=Usage(), response_id=None)

        def stream_response(self, *a: Any, **kw: Any) -> Any:  # pragma: no cover
            raise NotImplementedError

    tools = capped([read_file])
    assert [t.name for t in tools][:1] == ["read_file"] and "get_continuation" in [t.name for t in tools]
    agent = Agent(name="reader", tools=tools, model=Scripted())
    result = Runner.run_sync(agent, "read typing.py")
    assert result.final_output == "done"
    args = next(x for x in seen if isinstance(x, dict))
    reply = next(x for x in seen if isinstance(x, str))
    assert reply.startswith(_expected(args))


def test_openai_agents_shell_tools_capped_and_followed_to_the_exact_lines() -> None:
    """ShellTool (a local executor returning a ShellResult) and LocalShellTool (one
    returning text), run for real by the SDK's Runner: a long output reaches the model
    as toolcap's view under the call id, its marker leads back to the exact lines, and
    a short output and stderr arrive as the executor returned them."""
    pytest.importorskip("agents")
    from agents import (
        Agent,
        LocalShellTool,
        ModelResponse,
        Runner,
        ShellCallOutcome,
        ShellCommandOutput,
        ShellResult,
        ShellTool,
        Usage,
    )
    from agents.models.interface import Model
    from openai.types.responses import (
        ResponseFunctionShellToolCall,
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )
    from openai.types.responses.response_output_item import LocalShellCall

    from toolcap.integrations.openai_agents import capped

    def sh(command: str) -> "subprocess.CompletedProcess[str]":
        return subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=60)

    def run_shell(request: Any) -> ShellResult:
        out = []
        for c in request.data.action.commands:
            p = sh(c)
            out.append(ShellCommandOutput(stdout=p.stdout, stderr=p.stderr, command=c,
                                          outcome=ShellCallOutcome(type="exit", exit_code=p.returncode)))
        return ShellResult(output=out)

    async def run_local(request: Any) -> str:
        return sh(" ".join(request.data.action.command[2:])).stdout

    seq = sh("seq 1 20000").stdout
    seq_lines = seq.splitlines(keepends=True)
    got: Dict[str, Any] = {}

    class Scripted(Model):
        async def get_response(self, system_instructions: Any, input: Any, model_settings: Any, tools: Any, *a: Any, **kw: Any) -> ModelResponse:
            items = [i for i in (input if isinstance(input, list) else []) if isinstance(i, dict)]
            shell_out = [i for i in items if i.get("type") == "shell_call_output"]
            fn_out = [i for i in items if i.get("type") == "function_call_output"]
            local_out = [i for i in items if i.get("type") == "local_shell_call_output"]
            out: List[Any]
            if not shell_out:
                out = [ResponseFunctionShellToolCall(
                    type="shell_call", id="sh_1", call_id="call_sh", status="completed",
                    action={"commands": ["seq 1 20000", "echo short; echo warn >&2"]})]
            elif not fn_out:
                got["shell"] = shell_out[0]["output"]
                args = _follow(str(shell_out[0]["output"][0]["stdout"]))
                got["args"] = args
                out = [ResponseFunctionToolCall(type="function_call", name="get_continuation", arguments=json.dumps(args),
                                                call_id="call_more", id="fc_more", status="completed")]
            elif not local_out:
                got["more"] = str(fn_out[0]["output"])
                out = [LocalShellCall(type="local_shell_call", id="ls_1", call_id="call_local", status="completed",
                                      action={"type": "exec", "command": ["bash", "-c", "seq 1 20000"], "env": {}})]
            else:
                got["local"] = str(local_out[0]["output"])
                out = [ResponseOutputMessage(id="msg_1", type="message", role="assistant", status="completed",
                                             content=[ResponseOutputText(type="output_text", text="done", annotations=[])])]
            return ModelResponse(output=out, usage=Usage(), response_id=None)

        def stream_response(self, *a: Any, **kw: Any) -> Any:  # pragma: no cover
            raise NotImplementedError

    tools = capped([ShellTool(executor=run_shell), LocalShellTool(executor=run_local)])
    agent = Agent(name="shell", tools=tools, model=Scripted())
    result = Runner.run_sync(agent, "count")
    assert result.final_output == "done"
    long, short = got["shell"]
    # seq's 108,894 chars reach the model as toolcap's view, keyed by the call id
    assert len(seq) == 108_894 and len(long["stdout"]) <= 3500, len(long["stdout"])
    assert "--- Recovery Options ---" in long["stdout"] and "call_sh-1" in long["stdout"]
    assert got["args"]["tool_call_id"] == "call_sh-1"
    # the marker's range, followed, gives exactly those lines of the original
    a = got["args"]
    assert got["more"].startswith("".join(seq_lines[a["start_line"] - 1 : a["end_line"]]))
    # the short command and its stderr: as the executor returned them
    assert (short["stdout"], short["stderr"]) == ("short\n", "warn\n")
    # LocalShellTool's text result: capped the same way, under its call id
    assert len(got["local"]) <= 3500 and "call_local" in got["local"] and "--- Recovery Options ---" in got["local"]
