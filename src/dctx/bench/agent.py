"""The live-mode agent's model: an OpenAI-compatible chat-completions endpoint with tools.

Built from a provider string through dctx.providers (same keys, URLs and retry policy as
every other LLM in dctx); SDK errors are mapped onto ProviderError.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dctx.errors import ConfigError, ProviderError
from dctx.providers.llm import ProviderConfig, parse_llm_spec, require_sdk


@dataclass(slots=True)
class AgentReply:
    content: str
    tool_calls: list[dict[str, Any]] = field(default_factory=list)  # OpenAI wire dicts


class ChatAgent:
    """One chat-completions call per agent step."""

    def __init__(self, spec: str) -> None:
        config = parse_llm_spec(spec)
        if config.api != "openai":
            raise ConfigError(
                f"the live agent talks to OpenAI-compatible endpoints; {spec!r} is "
                f"{config.provider}. Use e.g. 'openai-compatible:MODEL@http://HOST:PORT/v1'"
            )
        require_sdk("openai", "the live benchmark agent")
        from dctx.providers.openai_llm import openai_client

        self.config: ProviderConfig = config
        self.id = config.id
        self.client = openai_client(config)

    def step(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> AgentReply:
        from dctx.providers.openai_llm import _TRANSIENT, map_openai_error
        from dctx.providers.retry import with_retries

        request: dict[str, Any] = {"model": self.config.model, "messages": messages}
        if tools:
            request["tools"] = tools
        if self.config.temperature is not None:
            request["temperature"] = self.config.temperature
        try:
            response = with_retries(
                lambda: self.client.chat.completions.create(**request),
                policy=self.config.retry,
                transient=_TRANSIENT,
                what=self.id,
            )
        except Exception as exc:
            raise map_openai_error(exc, self.config) from exc
        if not getattr(response, "choices", None):
            raise ProviderError(f"{self.id}: the response has no choices")
        msg = response.choices[0].message
        calls = [
            {
                "id": tc.id,
                "type": "function",
                "function": {"name": tc.function.name, "arguments": tc.function.arguments or ""},
            }
            for tc in (msg.tool_calls or [])
            if getattr(tc, "function", None) is not None
        ]
        return AgentReply(content=msg.content or "", tool_calls=calls)
