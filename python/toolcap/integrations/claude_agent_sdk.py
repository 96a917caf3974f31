"""toolcap for the Claude Agent SDK (``claude-agent-sdk``).

The SDK runs Claude Code as a child process; ``with_toolcap(options)`` adds to its
options what ``toolcap install claude-code`` adds to Claude Code's settings, without
writing any settings file::

    from claude_agent_sdk import ClaudeAgentOptions, query
    from toolcap.integrations.claude_agent_sdk import with_toolcap

    options = with_toolcap(ClaudeAgentOptions(allowed_tools=["Bash", "Read", "Grep"]))

- ``env["CLAUDE_CODE_SHELL_PREFIX"]``: toolcap's prefix script (``toolcap shell-prefix
  claude-code --script`` writes it in toolcap's state dir): Bash commands run through
  toolcap after Claude Code's permission rules decided on the model's own command, and
  a long output reaches the model as toolcap's view. A prefix already in ``env`` is
  left as it is.
- ``hooks``: a ``PreToolUse`` callback on ``Bash`` (notes the call for the prefix;
  changes nothing) and a ``PostToolUse`` callback on ``mcp__.*|Read|Grep`` (caps those
  results after they ran), after the options' own: each hands the hook input to
  ``toolcap hook claude-code`` and returns its reply.

It fails open: without a toolcap program that runs, the options come back as they
were; a callback whose toolcap fails (or takes over 30 s) returns ``{}``; the prefix script
runs each command with the shell itself when toolcap is gone.

Needs ``pip install claude-agent-sdk``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sysconfig
from typing import Any, Dict, List, Mapping, Optional, Union, cast

import anyio
from claude_agent_sdk import ClaudeAgentOptions, HookContext, HookJSONOutput, HookMatcher

__all__ = ["with_toolcap"]


def _program(toolcap: Union[None, str, "os.PathLike[str]"]) -> Optional[str]:
    """The toolcap program: the one given, else this environment's ``toolcap``
    command (the wheel's), else the PATH's."""
    if toolcap is not None:
        return os.fspath(toolcap)
    here = os.path.join(sysconfig.get_path("scripts"), "toolcap")
    if os.path.isfile(here) and os.access(here, os.X_OK):
        return here
    return shutil.which("toolcap")


def _prefix_script(program: str, env: Mapping[str, str]) -> Optional[str]:
    """The prefix script's path, or None when toolcap cannot give one."""
    try:
        r = subprocess.run(
            [program, "shell-prefix", "claude-code", "--script"],
            env=dict(env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    path = r.stdout.decode("utf-8", "replace").strip() if r.returncode == 0 else ""
    return path if path.startswith("/") else None


def _hook_timeout() -> float:
    """Seconds a hook may take before it is ended and changes nothing (as the
    opencode and Pi integrations: 30 s, ``TOOLCAP_HOOK_TIMEOUT_MS`` overrides)."""
    try:
        ms = float(os.environ.get("TOOLCAP_HOOK_TIMEOUT_MS") or 30_000)
    except ValueError:
        ms = 30_000
    return ms / 1000 if ms > 0 else 30.0


def _hook(program: str, env: Mapping[str, str]) -> Any:
    """A hook callback running ``toolcap hook claude-code`` on the input: its
    reply, or ``{}``."""

    async def hook(input_data: Any, tool_use_id: Optional[str], context: HookContext) -> HookJSONOutput:
        cwd = input_data.get("cwd") if isinstance(input_data, dict) else None
        try:
            with anyio.fail_after(_hook_timeout()):
                done = await anyio.run_process(
                    [program, "hook", "claude-code"],
                    input=json.dumps(input_data).encode("utf-8"),
                    stderr=subprocess.DEVNULL,
                    env=dict(env),
                    cwd=cwd if isinstance(cwd, str) and os.path.isdir(cwd) else None,
                    check=False,
                )
        except (OSError, ValueError, TimeoutError):
            return {}
        if done.returncode != 0:
            return {}
        try:
            reply = json.loads(done.stdout.decode("utf-8", "replace") or "{}")
        except ValueError:
            return {}
        return cast(HookJSONOutput, reply) if isinstance(reply, dict) else {}

    return hook


def with_toolcap(
    options: Optional[ClaudeAgentOptions] = None,
    *,
    toolcap: Union[None, str, "os.PathLike[str]"] = None,
) -> ClaudeAgentOptions:
    """``options`` (default: ``ClaudeAgentOptions()``) with toolcap's shell prefix in
    ``env`` and its ``PreToolUse`` / ``PostToolUse`` hook callbacks after the
    options' own; the options as given when no toolcap program runs.

    ``toolcap``: the program to use (default: this environment's ``toolcap``
    command, else the one on PATH).
    """
    opts = options if options is not None else ClaudeAgentOptions()
    program = _program(toolcap)
    if program is None:
        return opts
    # the environment the SDK gives Claude Code (this process's, updated by
    # options.env), so the callbacks here and the prefix there share a state dir
    env: Dict[str, str] = {**os.environ, **opts.env}
    script = _prefix_script(program, env)
    if script is None:
        return opts
    added_env = dict(opts.env)
    if not env.get("CLAUDE_CODE_SHELL_PREFIX"):
        added_env["CLAUDE_CODE_SHELL_PREFIX"] = script
        env["CLAUDE_CODE_SHELL_PREFIX"] = script
    hook = _hook(program, env)
    hooks: Dict[Any, List[HookMatcher]] = {k: list(v) for k, v in (opts.hooks or {}).items()}
    hooks.setdefault("PreToolUse", []).append(HookMatcher(matcher="Bash", hooks=[hook]))
    hooks.setdefault("PostToolUse", []).append(HookMatcher(matcher="mcp__.*|Read|Grep", hooks=[hook]))
    return dataclasses.replace(opts, env=added_env, hooks=hooks)
