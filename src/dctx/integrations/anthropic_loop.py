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
capture and its failure policy) lives in `_loop`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from dctx.integrations._loop import (
    AgentLoopError,
    LoopResult,
    LoopSession,
    ToolCallRequest,
    ToolFunction,
    ToolOutcome,
    check_inputs,
    decode_arguments,
    drive,
    last_user_text,
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
        system: str | None,
        create_kwargs: dict[str, Any],
    ) -> None:
        self.client = client
        self.model = model
        self.history = history
        self.tools = tools
        self.base_system = system
        self.kwargs = create_kwargs

    def send(self, session: LoopSession) -> Any:
        kwargs = dict(self.kwargs)
        if self.tools:
            kwargs["tools"] = self.tools
        system = session.system(self.base_system)
        if system:
            kwargs["system"] = system
        return self.client.messages.create(
            model=self.model, messages=session.stage1 + self.history, **kwargs
        )

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


def run_anthropic_loop(
    client: Any,
    memory: Memory,
    *,
    model: str,
    messages: Sequence[Mapping[str, Any]],
    max_tokens: int = 1024,
    tools: Sequence[Any] = (),
    functions: Mapping[str, ToolFunction] | None = None,
    system: str | None = None,
    actor: str = "anonymous",
    skill: str = "default",
    max_turns: int = 8,
    guards: bool = True,
    capture: bool = True,
    conversation_id: str | None = None,
    **create_kwargs: Any,
) -> LoopResult:
    """Run a tool-use loop on `client` (an `anthropic.Anthropic`) with dctx in it.

    Same contract as `run_openai_loop`; the system prompt is the `system` argument here.
    """
    functions = dict(functions or {})
    history = check_inputs(list(messages), list(tools), functions, max_turns)
    if any(m["role"] not in ("user", "assistant") for m in history):
        raise AgentLoopError(
            "Anthropic messages have roles user/assistant only; pass the system prompt as "
            "system=..."
        )
    names = tool_names(list(tools))
    require_functions(names, functions)
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
        client, model, history, list(tools), system, {"max_tokens": max_tokens, **create_kwargs}
    )
    return drive(adapter, session, functions, max_turns=max_turns, capture=capture)


__all__ = ["AnthropicAdapter", "run_anthropic_loop", "tool_names"]
