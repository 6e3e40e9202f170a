"""Run one LLM step: a prompt, a validated JSON answer, cached by everything that shapes it.

`run_step` returns the validated result, or None when the LLM failed or kept giving invalid
output (logged, and counted as a "fallback" in the active usage meters); the caller then keeps
its deterministic result. Results are cached by a hash of step, prompt version, LLM id,
prompt text, schema and input, so capturing the same trace again costs no tokens. A store
serves as the cache through `StoreCache`.

    cache = StoreCache(store, namespace="default")
    out = run_step(llm, AFTERMATH, rendered_input, AftermathOutput.model_validate, cache)
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections.abc import Callable
from typing import Any, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from dctx.errors import DctxError
from dctx.providers.base import LLM
from dctx.providers.prompts import PromptSpec
from dctx.providers.structured import complete_json
from dctx.providers.usage import record_event

__all__ = [
    "CacheBackend",
    "LLMCache",
    "MemoryCache",
    "StoreCache",
    "cache_key",
    "run_step",
]

logger = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)


@runtime_checkable
class LLMCache(Protocol):
    """Where validated LLM results are kept, keyed by input hash."""

    def get(self, key: str) -> str | None: ...

    def put(self, key: str, value: str) -> None: ...


class MemoryCache:
    """An in-process LLMCache (tests, one-off scripts)."""

    def __init__(self) -> None:
        self._data: dict[str, str] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            return self._data.get(key)

    def put(self, key: str, value: str) -> None:
        with self._lock:
            self._data[key] = value

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)


class CacheBackend(Protocol):
    """Where cached answers live: a Store, or a capture's PendingCache over one."""

    def cache_get(self, key: str) -> str | None: ...

    def cache_put(self, key: str, value: str, *, namespace: str, actor: str | None) -> None: ...


class StoreCache:
    """An LLMCache over a Store's cache table. Entries carry namespace and actor, so
    `forget_actor` / `drop_namespace` remove them with the rest of the actor's data."""

    def __init__(self, store: CacheBackend, *, namespace: str, actor: str | None = None) -> None:
        self.store = store
        self.namespace = namespace
        self.actor = actor

    def get(self, key: str) -> str | None:
        return self.store.cache_get(key)

    def put(self, key: str, value: str) -> None:
        self.store.cache_put(key, value, namespace=self.namespace, actor=self.actor)


def cache_key(prompt: PromptSpec, llm_id: str, user: str) -> str:
    """sha256 over step, prompt version, LLM id, system text, schema and input."""
    payload = json.dumps(
        [prompt.name, prompt.version, llm_id, prompt.system, prompt.schema, user],
        sort_keys=True,
        ensure_ascii=False,
    )
    return f"llm:{prompt.name}:{hashlib.sha256(payload.encode('utf-8')).hexdigest()}"


def run_step(
    llm: LLM,
    prompt: PromptSpec,
    user: str,
    validate: Callable[[dict[str, Any]], M],
    cache: LLMCache | None,
) -> M | None:
    """`validate(answer)` for `prompt` on `user`, from the cache when it holds a readable entry;
    None when the LLM gave up. Cache failures are logged and never fail the step."""
    key = cache_key(prompt, llm.id, user) if cache is not None else ""
    if cache is not None:
        try:
            hit = cache.get(key)
        except DctxError as exc:
            logger.warning("LLM cache read failed (%s); calling the LLM", exc)
            hit = None
        if hit is not None:
            try:
                cached = validate(json.loads(hit))
            except (ValueError, TypeError, KeyError):
                logger.info("ignoring an unreadable cache entry for step %r", prompt.name)
            else:
                record_event("cache_hits")
                return cached
    result = complete_json(llm, prompt.system, user, prompt.schema, validate, step=prompt.name)
    if result is not None and cache is not None:
        try:
            cache.put(key, result.model_dump_json())
        except DctxError as exc:
            logger.warning("LLM cache write failed (%s); the result is not cached", exc)
    return result
