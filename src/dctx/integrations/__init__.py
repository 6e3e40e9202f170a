"""dctx inside agent loops: OpenAI / Anthropic SDK helpers (sync and async) and a LangGraph
pre-model hook.

The SDK helpers are imported lazily (`dctx.integrations.openai_loop`, `.anthropic_loop`,
`.langgraph_hook`), so `import dctx.integrations` needs none of the SDKs. The shared core,
`LoopSession`, wraps a loop you already have.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from dctx.integrations._loop import (
    AgentLoopError,
    LoopResult,
    LoopSession,
    MaxTurnsError,
    ToolCallRequest,
    ToolOutcome,
)

if TYPE_CHECKING:
    from dctx.integrations.anthropic_loop import arun_anthropic_loop, run_anthropic_loop
    from dctx.integrations.langchain_middleware import DctxMiddleware
    from dctx.integrations.langgraph_hook import DctxHook
    from dctx.integrations.openai_loop import arun_openai_loop, run_openai_loop

_LAZY = {
    "run_openai_loop": "dctx.integrations.openai_loop",
    "arun_openai_loop": "dctx.integrations.openai_loop",
    "run_anthropic_loop": "dctx.integrations.anthropic_loop",
    "arun_anthropic_loop": "dctx.integrations.anthropic_loop",
    "DctxHook": "dctx.integrations.langgraph_hook",
    "DctxMiddleware": "dctx.integrations.langchain_middleware",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(name)
    import importlib

    return getattr(importlib.import_module(module), name)


__all__ = [
    "AgentLoopError",
    "DctxHook",
    "DctxMiddleware",
    "LoopResult",
    "LoopSession",
    "MaxTurnsError",
    "ToolCallRequest",
    "ToolOutcome",
    "arun_anthropic_loop",
    "arun_openai_loop",
    "run_anthropic_loop",
    "run_openai_loop",
]
