"""One-line integrations with agent frameworks. Each module imports its framework
only when it is imported itself (``pip install toolcap[langchain]``,
``toolcap[openai-agents]``):

- :mod:`toolcap.integrations.langchain`: ``ToolcapMiddleware`` for LangChain 1.x
  ``create_agent`` (and LangGraph), with the recovery tools as LangChain tools.
- :mod:`toolcap.integrations.openai_agents`: ``capped(tools)`` for the OpenAI
  Agents SDK, with the recovery tools as ``FunctionTool``\\ s.
"""
