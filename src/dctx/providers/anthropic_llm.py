"""LLM adapter for the Anthropic Messages API (/v1/messages).

Needs the `anthropic` extra. Retries follow `config.retry` (the SDK's own retries are off).
With a schema, structured outputs (`output_config.format = json_schema`) are requested; a model
that refuses them (HTTP 400/422) gets the schema in the system prompt instead, and that choice
is remembered for later calls.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import anthropic

from dctx.errors import ProviderError
from dctx.providers.base import Usage
from dctx.providers.llm import ProviderConfig
from dctx.providers.retry import provider_error, with_retries
from dctx.providers.structured import schema_instruction

__all__ = ["DEFAULT_MAX_TOKENS", "AnthropicLLM", "anthropic_client", "map_anthropic_error"]

logger = logging.getLogger(__name__)

DEFAULT_MAX_TOKENS = 4096  # the Messages API requires a limit
_LADDER = ("json_schema", "prompt")
_TRANSIENT: tuple[type[BaseException], ...] = (anthropic.APIConnectionError,)  # incl. timeouts
_TIMEOUTS: tuple[type[BaseException], ...] = (anthropic.APITimeoutError,)
_REFUSED_MODE = (anthropic.BadRequestError, anthropic.UnprocessableEntityError)


def anthropic_client(config: ProviderConfig) -> anthropic.Anthropic:
    """An SDK client for `config` (retries off: dctx's policy decides). Also for the bench."""
    return anthropic.Anthropic(
        api_key=config.api_key,
        base_url=config.base_url,
        timeout=config.timeout,
        max_retries=0,
    )


def map_anthropic_error(exc: BaseException, config: ProviderConfig) -> ProviderError:
    """Map an anthropic SDK exception onto ProviderError."""
    return provider_error(
        exc,
        who=config.id,
        timeout=config.timeout,
        base_url=config.base_url,
        key_env=config.key_env,
        timeouts=_TIMEOUTS,
        transient=_TRANSIENT,
    )


class AnthropicLLM:
    """`complete(system, user, schema=...)` over the Messages API."""

    def __init__(
        self,
        config: ProviderConfig,
        *,
        client: anthropic.Anthropic | None = None,
        sleep: Callable[[float], Any] = time.sleep,
    ) -> None:
        self.config = config
        self.id = config.id
        self.client = client if client is not None else anthropic_client(config)
        self._sleep = sleep
        self._lock = threading.Lock()
        mode = config.json_mode
        if mode == "auto":
            self._modes: tuple[str, ...] = _LADDER
        else:  # the OpenAI-only response formats mean "schema in the prompt" here
            self._modes = ("json_schema",) if mode == "json_schema" else ("prompt",)

    @property
    def json_mode(self) -> str:
        """The mode schema calls use now (after any step-down)."""
        return self._modes[0]

    def complete(
        self, system: str, user: str, *, schema: dict[str, Any] | None = None
    ) -> tuple[str, Usage]:
        if schema is None:
            return self._complete(system, user, None, None)
        modes = self._modes
        for i, mode in enumerate(modes):
            try:
                result = self._complete(system, user, schema, mode)
            except _REFUSED_MODE as exc:
                if i + 1 >= len(modes):
                    raise map_anthropic_error(exc, self.config) from exc
                logger.info(
                    "%s refused structured output (HTTP %s); putting the schema in the prompt",
                    self.id,
                    exc.status_code,
                )
                continue
            if i:
                with self._lock:
                    self._modes = modes[i:]
            return result
        raise AssertionError("unreachable: the mode ladder is never empty")

    def _complete(
        self, system: str, user: str, schema: dict[str, Any] | None, mode: str | None
    ) -> tuple[str, Usage]:
        request = self._request(system, user, schema, mode)
        try:
            response = with_retries(
                lambda: self.client.messages.create(**request),
                policy=self.config.retry,
                transient=_TRANSIENT,
                what=self.id,
                sleep=self._sleep,
            )
        except Exception as exc:
            if mode is not None and isinstance(exc, _REFUSED_MODE):
                raise  # complete() steps down the ladder
            raise map_anthropic_error(exc, self.config) from exc
        return self._read(response)

    def _request(
        self, system: str, user: str, schema: dict[str, Any] | None, mode: str | None
    ) -> dict[str, Any]:
        if schema is not None and mode == "prompt":
            note = schema_instruction(schema)
            system = f"{system}\n\n{note}" if system else note
        request: dict[str, Any] = {
            "model": self.config.model,
            "max_tokens": self.config.max_tokens or DEFAULT_MAX_TOKENS,
            "messages": [{"role": "user", "content": user}],
        }
        if system:
            request["system"] = system
        # Sent as raw body fields: not every SDK version names them as parameters.
        extra: dict[str, Any] = {}
        if schema is not None and mode == "json_schema":
            extra["output_config"] = {"format": {"type": "json_schema", "schema": schema}}
        if self.config.temperature is not None:
            extra["temperature"] = self.config.temperature
        if extra:
            request["extra_body"] = extra
        return request

    def _read(self, response: Any) -> tuple[str, Usage]:
        blocks = getattr(response, "content", None) or []
        text = "".join(
            getattr(b, "text", "") or "" for b in blocks if getattr(b, "type", "") == "text"
        )
        stop = getattr(response, "stop_reason", None)
        if stop == "refusal":
            raise ProviderError(f"{self.id}: the model refused to answer")
        if not text:
            raise ProviderError(f"{self.id}: the response has no text (stop reason {stop!r})")
        if stop == "max_tokens":
            logger.info("%s stopped at max_tokens; the output may be cut off", self.id)
        usage = response.usage
        input_tokens = (
            (usage.input_tokens or 0)
            + (getattr(usage, "cache_creation_input_tokens", None) or 0)
            + (getattr(usage, "cache_read_input_tokens", None) or 0)
        )
        return text, Usage(input_tokens, usage.output_tokens or 0)
