"""What the integrations share: the processor they use and the recovery tools'
definitions."""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Union, cast

from .. import Store, ToolResultProcessor, open_store
from .._types import OpenAIToolDefinition


def processor_of(
    processor: Optional[ToolResultProcessor],
    config: Union[None, str, "os.PathLike[str]", Dict[str, Any]],
    store: Union[None, str, "os.PathLike[str]", Store],
    dialog: Optional[str],
) -> ToolResultProcessor:
    """The processor given, else one made from ``config``, ``store`` (a spec as
    :func:`toolcap.open_store` reads it: ``"memory"`` by default) and ``dialog``."""
    if processor is not None:
        return processor
    return ToolResultProcessor(config, store=open_store(store), dialog=dialog)


def recovery_definitions(processor: ToolResultProcessor) -> List[Dict[str, Any]]:
    """``(name, description, JSON schema of the arguments)`` of each recovery tool,
    as OpenAI-form dicts' ``function`` parts."""
    defs = cast(List[OpenAIToolDefinition], processor.tool_definitions("openai"))
    return [dict(d["function"]) for d in defs]
