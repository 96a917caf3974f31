"""One-line integrations with agent frameworks. Each module imports its framework
only when it is imported itself (``pip install toolcap[langchain]``,
``toolcap[openai-agents]``, ``toolcap[claude-agent-sdk]``):

- :mod:`toolcap.integrations.langchain`: ``ToolcapMiddleware`` for LangChain 1.x
  ``create_agent`` (and LangGraph), with the recovery tools as LangChain tools.
- :mod:`toolcap.integrations.openai_agents`: ``capped(tools)`` for the OpenAI
  Agents SDK, with the recovery tools as ``FunctionTool``\\ s.
- :mod:`toolcap.integrations.claude_agent_sdk`: ``with_toolcap(options)`` for the
  Claude Agent SDK: toolcap's shell prefix and hooks for the Claude Code it runs.
"""
