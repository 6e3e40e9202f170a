"""Structured output: ask an LLM for JSON that follows a schema, validate it, or give up.

`complete_json` is the one way dctx's LLM steps talk to a model. The adapter enforces the
schema as strongly as its server allows (json_schema response format, else json_object with
the schema in the prompt); this module parses leniently (code fences, reasoning preambles),
validates, retries once with the validation error shown to the model, and otherwise returns
None after logging, so the caller keeps its deterministic result. It never raises for a model
or provider failure.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from typing import Any, TypeVar, overload

from dctx.providers.base import LLM
from dctx.providers.usage import UsageMeter, record_event, record_llm

__all__ = ["complete_json", "extract_json", "schema_instruction"]

logger = logging.getLogger(__name__)

T = TypeVar("T")

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_INVALID = (ValueError, TypeError, KeyError)  # pydantic's ValidationError is a ValueError


def schema_instruction(schema: dict[str, Any]) -> str:
    """The text that carries a schema in the prompt, for servers without schema support."""
    return (
        "Answer with one JSON object only: no prose, no code fences. "
        "It must follow this JSON schema:\n" + json.dumps(schema, separators=(",", ":"))
    )


def extract_json(text: str) -> Any:
    """Parse the JSON value in a model's answer, tolerating fences and preambles.

    Raises ValueError when no JSON can be found.
    """
    cleaned = _THINK.sub("", text).strip()
    candidates = [cleaned]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(cleaned)]
    start, end = cleaned.find("{"), cleaned.rfind("}")
    if 0 <= start < end:
        candidates.append(cleaned[start : end + 1])
    for candidate in candidates:
        if not candidate:
            continue
        try:
            return json.loads(candidate)
        except json.JSONDecodeError:
            continue
    preview = " ".join(cleaned.split())[:200]
    raise ValueError(f"no JSON object in the model output: {preview!r}")


def _as_object(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise ValueError(f"expected a JSON object, got {type(data).__name__}")
    return data


@overload
def complete_json(
    llm: LLM,
    system: str,
    user: str,
    schema: dict[str, Any],
    validator: None = None,
    *,
    step: str = ...,
    retries: int = ...,
    meter: UsageMeter | None = ...,
) -> dict[str, Any] | None: ...


@overload
def complete_json(
    llm: LLM,
    system: str,
    user: str,
    schema: dict[str, Any],
    validator: Callable[[dict[str, Any]], T],
    *,
    step: str = ...,
    retries: int = ...,
    meter: UsageMeter | None = ...,
) -> T | None: ...


def complete_json(
    llm: LLM,
    system: str,
    user: str,
    schema: dict[str, Any],
    validator: Callable[[dict[str, Any]], Any] | None = None,
    *,
    step: str = "llm",
    retries: int = 1,
    meter: UsageMeter | None = None,
) -> Any:
    """Ask `llm` for a JSON object following `schema`; return `validator(obj)` or None.

    `validator` receives the parsed object and returns the typed result, raising ValueError
    (or TypeError / KeyError) when it is unacceptable; without one the object itself is
    returned. Invalid output is retried `retries` times, with the error shown to the model.
    Usage is recorded in the active meters (and `meter`); failures count as "fallbacks".
    """
    prompt = user
    for attempt in range(retries + 1):
        try:
            text, usage = llm.complete(system, prompt, schema=schema)
        except Exception as exc:  # any failure: the deterministic path takes over
            logger.warning(
                "LLM step %r with %s failed (%s: %s); keeping the deterministic result",
                step,
                getattr(llm, "id", "?"),
                type(exc).__name__,
                exc,
            )
            record_event("fallbacks", meter=meter)
            return None
        record_llm(usage, meter=meter)
        try:
            data = _as_object(extract_json(text))
            return validator(data) if validator is not None else data
        except _INVALID as exc:
            record_event("invalid_outputs", meter=meter)
            reason = " ".join(str(exc).split())[:500]
            logger.info(
                "LLM step %r: invalid output (attempt %d/%d): %s",
                step,
                attempt + 1,
                retries + 1,
                reason,
            )
            prompt = _retry_prompt(user, text, reason)
    logger.warning(
        "LLM step %r with %s gave invalid output %d times; keeping the deterministic result",
        step,
        getattr(llm, "id", "?"),
        retries + 1,
    )
    record_event("fallbacks", meter=meter)
    return None


def _retry_prompt(user: str, previous: str, reason: str) -> str:
    shown = previous if len(previous) <= 1500 else previous[:1500] + "..."
    return (
        f"{user}\n\n"
        f"Your previous answer was:\n{shown}\n\n"
        f"It was rejected: {reason}\n"
        "Answer again with one JSON object that follows the schema exactly."
    )
