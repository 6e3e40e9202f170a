"""LLM adapter for the OpenAI chat-completions wire format (OpenAI and every compatible server).

Needs the `openai` extra. Retries follow `config.retry` (the SDK's own retries are off).
With a schema, the strongest response format the server accepts is used: `json_schema`, then
`json_object` carrying the schema (llama.cpp, llama-cpp-python), then plain `json_object`,
then the schema in the prompt only. A mode the server refuses (HTTP 400/422) is stepped over
and remembered for later calls. Every mode below `json_schema` also puts the schema in the
system prompt.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import openai

from dctx.errors import ProviderError
from dctx.providers.base import Usage
from dctx.providers.llm import ProviderConfig
from dctx.providers.retry import provider_error, with_retries
from dctx.providers.structured import schema_instruction
from dctx.tokens import count_tokens

__all__ = ["OpenAILLM", "map_openai_error", "openai_client"]

logger = logging.getLogger(__name__)

_LADDER = ("json_schema", "json_object_schema", "json_object", "prompt")
_TRANSIENT: tuple[type[BaseException], ...] = (openai.APIConnectionError,)  # incl. timeouts
_TIMEOUTS: tuple[type[BaseException], ...] = (openai.APITimeoutError,)
_REFUSED_MODE = (openai.BadRequestError, openai.UnprocessableEntityError)


def openai_client(config: ProviderConfig) -> openai.OpenAI:
    """An SDK client for `config` (retries off: dctx's policy decides). Also for the bench."""
    return openai.OpenAI(
        api_key=config.api_key,
        base_url=config.base_url,
        timeout=config.timeout,
        max_retries=0,
    )


def map_openai_error(exc: BaseException, config: ProviderConfig) -> ProviderError:
    """Map an openai SDK exception onto ProviderError."""
    return provider_error(
        exc,
        who=config.id,
        timeout=config.timeout,
        base_url=config.base_url,
        key_env=config.key_env,
        timeouts=_TIMEOUTS,
        transient=_TRANSIENT,
    )


class OpenAILLM:
    """`complete(system, user, schema=...)` over /v1/chat/completions."""

    def __init__(
        self,
        config: ProviderConfig,
        *,
        client: openai.OpenAI | None = None,
        sleep: Callable[[float], Any] = time.sleep,
    ) -> None:
        self.config = config
        self.id = config.id
        self.client = client if client is not None else openai_client(config)
        self._sleep = sleep
        self._lock = threading.Lock()
        fixed = config.json_mode != "auto"
        self._modes: tuple[str, ...] = (config.json_mode,) if fixed else _LADDER

    @property
    def json_mode(self) -> str:
        """The response-format mode schema calls use now (after any step-downs)."""
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
                    raise map_openai_error(exc, self.config) from exc
                logger.info(
                    "%s refused response format %r (HTTP %s); trying %r",
                    self.id,
                    mode,
                    exc.status_code,
                    modes[i + 1],
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
                lambda: self.client.chat.completions.create(**request),
                policy=self.config.retry,
                transient=_TRANSIENT,
                what=self.id,
                sleep=self._sleep,
            )
        except Exception as exc:
            if mode is not None and isinstance(exc, _REFUSED_MODE):
                raise  # complete() steps down the ladder
            raise map_openai_error(exc, self.config) from exc
        return self._read(response, system, user)

    def _request(
        self, system: str, user: str, schema: dict[str, Any] | None, mode: str | None
    ) -> dict[str, Any]:
        if schema is not None and mode != "json_schema":
            note = schema_instruction(schema)
            system = f"{system}\n\n{note}" if system else note
        messages: list[dict[str, str]] = []
        if system:
            messages.append({"role": "system", "content": system})
        messages.append({"role": "user", "content": user})
        request: dict[str, Any] = {"model": self.config.model, "messages": messages}
        if schema is not None and mode is not None:
            fmt = _response_format(schema, mode)
            if fmt is not None:
                request["response_format"] = fmt
        if self.config.temperature is not None:
            request["temperature"] = self.config.temperature
        if self.config.max_tokens is not None:
            if self.config.base_url is None:  # official API; raw field for older SDKs too
                request["extra_body"] = {"max_completion_tokens": self.config.max_tokens}
            else:
                request["max_tokens"] = self.config.max_tokens
        return request

    def _read(self, response: Any, system: str, user: str) -> tuple[str, Usage]:
        choices = getattr(response, "choices", None)
        if not choices:
            raise ProviderError(f"{self.id}: the response has no choices")
        message = choices[0].message
        text = message.content
        if text is None:
            refusal = getattr(message, "refusal", None)
            reason = f"the model refused: {refusal}" if refusal else "the response has no text"
            raise ProviderError(f"{self.id}: {reason}")
        if choices[0].finish_reason == "length":
            logger.info("%s stopped at the token limit; the output may be cut off", self.id)
        usage = getattr(response, "usage", None)
        if usage is not None and usage.prompt_tokens is not None:
            return text, Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0)
        # The server reported nothing: estimate with the documented tokenizer.
        return text, Usage(count_tokens(system) + count_tokens(user), count_tokens(text))


def _response_format(schema: dict[str, Any], mode: str) -> dict[str, Any] | None:
    if mode == "json_schema":
        name = str(schema.get("title") or "dctx_output")
        safe = "".join(c if c.isalnum() or c in "_-" else "_" for c in name)[:64]
        spec: dict[str, Any] = {"name": safe, "schema": schema}
        if schema.get("additionalProperties") is False:
            spec["strict"] = True  # the schema was written for strict mode (see prompts.py)
        return {"type": "json_schema", "json_schema": spec}
    if mode == "json_object_schema":
        return {"type": "json_object", "schema": schema}
    if mode == "json_object":
        return {"type": "json_object"}
    return None
