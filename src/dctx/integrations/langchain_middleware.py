"""dctx in LangChain's `create_agent` (the prebuilt agent of LangChain/LangGraph 1.x).

    from langchain.agents import create_agent
    from dctx.integrations.langchain_middleware import DctxMiddleware

    dctx = DctxMiddleware(mem)
    agent = create_agent(model, tools, system_prompt="Be brief.", middleware=[dctx])
    config = {"configurable": {"actor": "ana", "skill": "analyst", "thread_id": "t1"}}
    state = agent.invoke({"messages": [("user", "Where is GLBX trading?")]}, config)
    dctx.capture(state["messages"], config)

The same `DctxHook` underneath: before each model call the stage-1 pair goes in front of the
conversation and the stage-2 rules after the system prompt (the graph state keeps neither);
each tool call passes the guards first. Who a call is for comes from `config["configurable"]`
(`actor`, `skill`, `namespace`), else from the defaults given here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from dctx.errors import MissingDependencyError
from dctx.integrations.langgraph_hook import DctxHook, current_config, stage1_messages

try:
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.messages import SystemMessage
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise MissingDependencyError(
        "The LangChain agent middleware", "langgraph", "langchain"
    ) from exc

if TYPE_CHECKING:
    from langchain.agents.middleware import ModelRequest, ModelResponse, ToolCallRequest
    from langchain_core.messages import BaseMessage

    from dctx.memory import CaptureReport, Memory


class DctxMiddleware(AgentMiddleware):
    """Injection and guards for `create_agent`; `capture` closes the loop."""

    def __init__(
        self,
        memory: Memory,
        *,
        actor: str | None = None,
        skill: str | None = None,
        namespace: str | None = None,
        tools: Sequence[str] | None = None,
        guards: bool = True,
    ) -> None:
        super().__init__()
        self.hook = DctxHook(
            memory, actor=actor, skill=skill, namespace=namespace, tools=tools, guards=guards
        )

    def _request(self, request: ModelRequest) -> ModelRequest:
        session = self.hook.advance(request.messages, current_config())
        base = request.system_message
        text = base.content if base is not None and isinstance(base.content, str) else None
        system = session.system(text)
        overrides: dict[str, Any] = {"messages": [*stage1_messages(session), *request.messages]}
        if system and system != text:
            overrides["system_message"] = SystemMessage(content=system)
        if self.hook.tool_names is None:
            self.hook.tool_names = [getattr(t, "name", str(t)) for t in request.tools]
        return request.override(**overrides)

    def wrap_model_call(
        self,
        request: ModelRequest,
        handler: Callable[[ModelRequest], ModelResponse],
    ) -> Any:
        return handler(self._request(request))

    async def awrap_model_call(
        self,
        request: ModelRequest,
        handler: Callable[[ModelRequest], Awaitable[ModelResponse]],
    ) -> Any:
        return await handler(self._request(request))

    def wrap_tool_call(self, request: ToolCallRequest, handler: Callable[..., Any]) -> Any:
        call = request.tool_call
        return self.hook.run_tool(
            str(call["id"]),
            call["name"],
            dict(call.get("args") or {}),
            request.runtime.config,
            lambda args: handler(request.override(tool_call={**call, "args": args})),
        )

    async def awrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[..., Awaitable[Any]]
    ) -> Any:
        call = request.tool_call
        return await self.hook.arun_tool(
            str(call["id"]),
            call["name"],
            dict(call.get("args") or {}),
            request.runtime.config,
            lambda args: handler(request.override(tool_call={**call, "args": args})),
        )

    def capture(self, messages: Sequence[BaseMessage], config: Any = None) -> CaptureReport:
        """Learn from the finished agent run (its final `messages`) for `config`'s caller."""
        return self.hook.capture(messages, config)


__all__ = ["DctxMiddleware"]
