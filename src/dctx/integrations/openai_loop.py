"""dctx in an OpenAI chat-completions tool-calling loop.

    from openai import OpenAI
    from dctx import Memory
    from dctx.integrations.openai_loop import run_openai_loop

    result = run_openai_loop(
        OpenAI(), Memory("memory.db"), model="gpt-4o-mini",
        messages=[{"role": "user", "content": "Where is ACME trading?"}],
        tools=[...], functions={"get_price": get_price},
        actor="ana", skill="analyst",
    )
    print(result.text)

Every request carries the stage-1 pair right after the leading system messages and the
stage-2 rules delivered so far in the system message. Each proposed call is checked by the
guards first (corrected, or rejected with the reason as the tool result). When the model
answers without tool calls the session is captured (see `_loop` for the failure policy).
`arun_openai_loop` is the same loop on an `openai.AsyncOpenAI` (tools may be coroutine
functions there).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dctx.integrations._loop import (
    AgentLoopError,
    LoopResult,
    LoopSession,
    ToolCallRequest,
    ToolFunction,
    ToolOutcome,
    adrive,
    check_inputs,
    decode_arguments,
    drive,
    last_user_text,
    model_call,
    require_functions,
)

if TYPE_CHECKING:
    from dctx.memory import Memory


def tool_names(tools: Sequence[Any]) -> list[str]:
    """Names of OpenAI tool definitions ({type: function, function: {name}})."""
    names = []
    for i, tool in enumerate(tools):
        fn = tool.get("function") if isinstance(tool, Mapping) else None
        if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
            raise AgentLoopError(
                f"tools[{i}] must look like {{'type': 'function', 'function': "
                "{'name': ..., 'parameters': {...}}}"
            )
        names.append(fn["name"])
    return names


class OpenAIAdapter:
    """Builds chat-completions requests with dctx's injections; keeps the history."""

    def __init__(
        self,
        client: Any,
        model: str,
        history: list[dict[str, Any]],
        tools: list[Any],
        create_kwargs: dict[str, Any],
        create: Any = None,
    ) -> None:
        self.client = client
        self.create = create or client.chat.completions.create
        self.model = model
        self.history = history
        self.tools = tools
        self.kwargs = create_kwargs

    def request_messages(self, session: LoopSession) -> list[dict[str, Any]]:
        lead = 0
        while lead < len(self.history) and self.history[lead].get("role") in (
            "system",
            "developer",
        ):
            lead += 1
        head = [dict(m) for m in self.history[:lead]]
        if head and head[0].get("role") == "system" and isinstance(head[0].get("content"), str):
            head[0]["content"] = session.system(head[0]["content"])
        else:
            extra = session.system(None)
            if extra:
                head.insert(0, {"role": "system", "content": extra})
        return head + session.stage1 + self.history[lead:]

    def request(self, session: LoopSession) -> dict[str, Any]:
        """The keyword arguments of the next `chat.completions.create` call."""
        kwargs = dict(self.kwargs)
        if self.tools:
            kwargs["tools"] = self.tools
        return {"model": self.model, "messages": self.request_messages(session), **kwargs}

    def send(self, session: LoopSession) -> Any:
        return self.create(**self.request(session))

    async def asend(self, session: LoopSession) -> Any:
        return await self.create(**self.request(session))

    def calls(self, reply: Any) -> list[ToolCallRequest]:
        msg = reply.choices[0].message
        out = []
        for call in msg.tool_calls or []:
            fn = call.function
            out.append(decode_arguments(call.id, fn.name, fn.arguments))
        return out

    def text(self, reply: Any) -> str:
        return str(reply.choices[0].message.content or "")

    def append(self, reply: Any, outcomes: list[ToolOutcome]) -> None:
        msg = reply.choices[0].message
        turn: dict[str, Any] = {"role": "assistant", "content": msg.content}
        if outcomes:
            turn["tool_calls"] = [
                {
                    "id": o.call_id,
                    "type": "function",
                    "function": {"name": o.tool, "arguments": json.dumps(o.arguments)},
                }
                for o in outcomes
            ]
        self.history.append(turn)
        for o in outcomes:
            self.history.append({"role": "tool", "tool_call_id": o.call_id, "content": o.result})

    def transcript(self, rejected: set[str]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for msg in self.history:
            if msg.get("role") == "tool" and msg.get("tool_call_id") in rejected:
                continue
            if msg.get("tool_calls"):
                kept = [c for c in msg["tool_calls"] if c["id"] not in rejected]
                msg = {**msg, "tool_calls": kept}
                if not kept:
                    del msg["tool_calls"]
                    if not msg.get("content"):
                        continue
            out.append(msg)
        return out


@dataclass(slots=True)
class _Prepared:
    adapter: OpenAIAdapter
    session: LoopSession
    functions: dict[str, ToolFunction]


def _prepare(
    client: Any,
    memory: Memory,
    *,
    is_async: bool,
    model: str,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Any],
    functions: Mapping[str, ToolFunction] | None,
    actor: str,
    skill: str,
    max_turns: int,
    guards: bool,
    conversation_id: str | None,
    create_kwargs: dict[str, Any],
) -> _Prepared:
    pair = ("arun_openai_loop", "run_openai_loop")
    helper, other = pair if is_async else pair[::-1]
    path = "chat.completions.create"
    create = model_call(client, path, is_async=is_async, helper=helper, other=other)
    fns = dict(functions or {})
    history = check_inputs(list(messages), list(tools), fns, max_turns)
    names = tool_names(list(tools))
    require_functions(names, fns)
    session = LoopSession(
        memory,
        actor=actor,
        skill=skill,
        query=last_user_text(history),
        tools=names,
        guards=guards,
        conversation_id=conversation_id,
    )
    adapter = OpenAIAdapter(client, model, history, list(tools), create_kwargs, create)
    return _Prepared(adapter, session, fns)


def run_openai_loop(
    client: Any,
    memory: Memory,
    *,
    model: str,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Any] = (),
    functions: Mapping[str, ToolFunction] | None = None,
    actor: str = "anonymous",
    skill: str = "default",
    max_turns: int = 8,
    guards: bool = True,
    capture: bool = True,
    conversation_id: str | None = None,
    **create_kwargs: Any,
) -> LoopResult:
    """Run a tool-calling loop on `client` (an `openai.OpenAI`) with dctx in it.

    `functions` maps tool names to Python callables taking the tool's arguments as keywords.
    Raises AgentLoopError for malformed input or a client of the wrong kind, MaxTurnsError
    when the model does not finish, and whatever the SDK raises for API failures; in every
    error case nothing is captured.
    """
    p = _prepare(
        client,
        memory,
        is_async=False,
        model=model,
        messages=messages,
        tools=tools,
        functions=functions,
        actor=actor,
        skill=skill,
        max_turns=max_turns,
        guards=guards,
        conversation_id=conversation_id,
        create_kwargs=create_kwargs,
    )
    return drive(p.adapter, p.session, p.functions, max_turns=max_turns, capture=capture)


async def arun_openai_loop(
    client: Any,
    memory: Memory,
    *,
    model: str,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Any] = (),
    functions: Mapping[str, ToolFunction] | None = None,
    actor: str = "anonymous",
    skill: str = "default",
    max_turns: int = 8,
    guards: bool = True,
    capture: bool = True,
    conversation_id: str | None = None,
    **create_kwargs: Any,
) -> LoopResult:
    """`run_openai_loop` on an `openai.AsyncOpenAI`; tools may be async functions."""
    p = _prepare(
        client,
        memory,
        is_async=True,
        model=model,
        messages=messages,
        tools=tools,
        functions=functions,
        actor=actor,
        skill=skill,
        max_turns=max_turns,
        guards=guards,
        conversation_id=conversation_id,
        create_kwargs=create_kwargs,
    )
    return await adrive(p.adapter, p.session, p.functions, max_turns=max_turns, capture=capture)


__all__ = ["OpenAIAdapter", "arun_openai_loop", "run_openai_loop", "tool_names"]
