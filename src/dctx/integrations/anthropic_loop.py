"""dctx in an Anthropic Messages API tool-use loop.

    from anthropic import Anthropic
    from dctx.integrations.anthropic_loop import run_anthropic_loop

    result = run_anthropic_loop(
        Anthropic(), mem, model="claude-sonnet-4-5", max_tokens=1024,
        messages=[{"role": "user", "content": "Where is ACME trading?"}],
        tools=[{"name": "get_price", "input_schema": {...}}],
        functions={"get_price": get_price}, actor="ana", skill="analyst",
    )

Stage 1 goes first as a user/assistant pair (the conversation still starts with a user turn
and alternates); stage-2 rules are appended to the `system` prompt. Tool results go back as
`tool_result` blocks, a guard's rejection with `is_error: true`. Shared behavior (guards,
capture and its failure policy) lives in `_loop`. `arun_anthropic_loop` is the same loop on an
`anthropic.AsyncAnthropic` (tools may then be coroutine functions).

Prompt caching: `system` may be a list of content blocks, e.g. with
`{"cache_control": {"type": "ephemeral"}}` on the last one. The blocks are sent exactly as
given, and dctx's stage-2 rules go in one more text block AFTER them, so the cached prefix
(tools, then your system blocks) never changes during a run; only the part after the cache
breakpoint grows. A string `system` gets the rules appended to its text.
"""

from __future__ import annotations

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
    """Names of Anthropic tool definitions ({name, description, input_schema})."""
    names = []
    for i, tool in enumerate(tools):
        if not isinstance(tool, Mapping) or not isinstance(tool.get("name"), str):
            raise AgentLoopError(
                f"tools[{i}] must look like {{'name': ..., 'input_schema': {{...}}}}"
            )
        names.append(tool["name"])
    return names


SystemPrompt = str | Sequence[Mapping[str, Any]]


def system_blocks(system: Any) -> list[dict[str, Any]] | str | None:
    """Validate `system`: None, a string, or a list of content blocks (kept as given)."""
    if system is None or isinstance(system, str):
        return system
    if not isinstance(system, list | tuple) or not all(
        isinstance(b, Mapping) and isinstance(b.get("type"), str) for b in system
    ):
        raise AgentLoopError(
            "system must be a string or a list of content blocks like "
            "{'type': 'text', 'text': ..., 'cache_control': {'type': 'ephemeral'}}"
        )
    return [dict(b) for b in system]


def _block(block: Any) -> dict[str, Any]:
    """A response content block as a request block (only the fields a request accepts)."""
    kind = getattr(block, "type", None)
    if kind == "text":
        return {"type": "text", "text": block.text}
    if kind == "tool_use":
        return {"type": "tool_use", "id": block.id, "name": block.name, "input": block.input}
    dumped: dict[str, Any] = block.model_dump(exclude_none=True)
    return dumped


class AnthropicAdapter:
    """Builds Messages requests with dctx's injections; keeps the history."""

    def __init__(
        self,
        client: Any,
        model: str,
        history: list[dict[str, Any]],
        tools: list[Any],
        system: str | list[dict[str, Any]] | None,
        create_kwargs: dict[str, Any],
        create: Any = None,
    ) -> None:
        self.client = client
        self.create = create or client.messages.create
        self.model = model
        self.history = history
        self.tools = tools
        self.base_system = system
        self.kwargs = create_kwargs

    def request(self, session: LoopSession) -> dict[str, Any]:
        """The keyword arguments of the next `messages.create` call."""
        kwargs = dict(self.kwargs)
        if self.tools:
            kwargs["tools"] = self.tools
        system = self.system(session)
        if system:
            kwargs["system"] = system
        return {"model": self.model, "messages": session.stage1 + self.history, **kwargs}

    def system(self, session: LoopSession) -> str | list[dict[str, Any]] | None:
        """The user's system prompt with dctx's block after it (blocks stay blocks)."""
        if not isinstance(self.base_system, list):
            return session.system(self.base_system)
        block = session.system_block
        extra = [{"type": "text", "text": block}] if block else []
        return [*self.base_system, *extra]

    def send(self, session: LoopSession) -> Any:
        return self.create(**self.request(session))

    async def asend(self, session: LoopSession) -> Any:
        return await self.create(**self.request(session))

    def calls(self, reply: Any) -> list[ToolCallRequest]:
        return [
            decode_arguments(b.id, b.name, b.input)
            for b in reply.content
            if getattr(b, "type", None) == "tool_use"
        ]

    def text(self, reply: Any) -> str:
        return "".join(b.text for b in reply.content if getattr(b, "type", None) == "text")

    def append(self, reply: Any, outcomes: list[ToolOutcome]) -> None:
        ran = {o.call_id: o for o in outcomes}
        blocks = []
        for b in reply.content:
            block = _block(b)
            if block.get("type") == "tool_use" and block["id"] in ran:
                block["input"] = ran[block["id"]].arguments  # what ran, after corrections
            blocks.append(block)
        self.history.append({"role": "assistant", "content": blocks})
        if outcomes:
            self.history.append(
                {
                    "role": "user",
                    "content": [
                        {
                            "type": "tool_result",
                            "tool_use_id": o.call_id,
                            "content": o.result,
                            "is_error": o.is_error,
                        }
                        for o in outcomes
                    ],
                }
            )

    def transcript(self, rejected: set[str]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for msg in self.history:
            content = msg.get("content")
            if isinstance(content, list):
                kept = [
                    b
                    for b in content
                    if not (
                        isinstance(b, Mapping)
                        and (b.get("id") in rejected or b.get("tool_use_id") in rejected)
                    )
                ]
                if not kept:
                    continue
                msg = {**msg, "content": kept}
            out.append(msg)
        return out


@dataclass(slots=True)
class _Prepared:
    adapter: AnthropicAdapter
    session: LoopSession
    functions: dict[str, ToolFunction]


def _prepare(
    client: Any,
    memory: Memory,
    *,
    is_async: bool,
    model: str,
    messages: Sequence[Mapping[str, Any]],
    max_tokens: int,
    tools: Sequence[Any],
    functions: Mapping[str, ToolFunction] | None,
    system: Any,
    actor: str,
    skill: str,
    max_turns: int,
    guards: bool,
    conversation_id: str | None,
    create_kwargs: dict[str, Any],
) -> _Prepared:
    names_ = ("arun_anthropic_loop", "run_anthropic_loop")
    helper, other = names_ if is_async else names_[::-1]
    create = model_call(client, "messages.create", is_async=is_async, helper=helper, other=other)
    fns = dict(functions or {})
    history = check_inputs(list(messages), list(tools), fns, max_turns)
    if any(m["role"] not in ("user", "assistant") for m in history):
        raise AgentLoopError(
            "Anthropic messages have roles user/assistant only; pass the system prompt as "
            "system=..."
        )
    base_system = system_blocks(system)
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
    adapter = AnthropicAdapter(
        client,
        model,
        history,
        list(tools),
        base_system,
        {"max_tokens": max_tokens, **create_kwargs},
        create,
    )
    return _Prepared(adapter, session, fns)


def run_anthropic_loop(
    client: Any,
    memory: Memory,
    *,
    model: str,
    messages: Sequence[Mapping[str, Any]],
    max_tokens: int = 1024,
    tools: Sequence[Any] = (),
    functions: Mapping[str, ToolFunction] | None = None,
    system: SystemPrompt | None = None,
    actor: str = "anonymous",
    skill: str = "default",
    max_turns: int = 8,
    guards: bool = True,
    capture: bool = True,
    conversation_id: str | None = None,
    **create_kwargs: Any,
) -> LoopResult:
    """Run a tool-use loop on `client` (an `anthropic.Anthropic`) with dctx in it.

    Same contract as `run_openai_loop`; the system prompt is the `system` argument here (a
    string or a list of content blocks, see the module docstring on prompt caching).
    """
    p = _prepare(
        client,
        memory,
        is_async=False,
        model=model,
        messages=messages,
        max_tokens=max_tokens,
        tools=tools,
        functions=functions,
        system=system,
        actor=actor,
        skill=skill,
        max_turns=max_turns,
        guards=guards,
        conversation_id=conversation_id,
        create_kwargs=create_kwargs,
    )
    return drive(p.adapter, p.session, p.functions, max_turns=max_turns, capture=capture)


async def arun_anthropic_loop(
    client: Any,
    memory: Memory,
    *,
    model: str,
    messages: Sequence[Mapping[str, Any]],
    max_tokens: int = 1024,
    tools: Sequence[Any] = (),
    functions: Mapping[str, ToolFunction] | None = None,
    system: SystemPrompt | None = None,
    actor: str = "anonymous",
    skill: str = "default",
    max_turns: int = 8,
    guards: bool = True,
    capture: bool = True,
    conversation_id: str | None = None,
    **create_kwargs: Any,
) -> LoopResult:
    """`run_anthropic_loop` on an `anthropic.AsyncAnthropic`; tools may be async functions."""
    p = _prepare(
        client,
        memory,
        is_async=True,
        model=model,
        messages=messages,
        max_tokens=max_tokens,
        tools=tools,
        functions=functions,
        system=system,
        actor=actor,
        skill=skill,
        max_turns=max_turns,
        guards=guards,
        conversation_id=conversation_id,
        create_kwargs=create_kwargs,
    )
    return await adrive(p.adapter, p.session, p.functions, max_turns=max_turns, capture=capture)


__all__ = [
    "AnthropicAdapter",
    "SystemPrompt",
    "arun_anthropic_loop",
    "run_anthropic_loop",
    "system_blocks",
    "tool_names",
]
