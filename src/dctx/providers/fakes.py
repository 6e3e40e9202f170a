"""Deterministic stand-ins for an LLM and an embedder, for tests (yours and ours).

    llm = ScriptedLLM()
    llm.when("Agent output", {"aftermath": "correction"})   # a rule: answers every match
    llm.queue('{"rules": []}')                              # answered once, in order
    mem = Memory("memory.db", llm=llm, embedder=FakeEmbedder())
    ...
    assert llm.calls[0].schema is not None

Neither makes a network call. Token usage is counted with dctx's documented tokenizer, so
cost accounting can be asserted exactly.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dctx.errors import ProviderError
from dctx.providers.base import Usage, Vector
from dctx.tokens import count_tokens

__all__ = ["FakeEmbedder", "LLMCall", "ScriptedLLM"]

#: A scripted answer: text, a JSON-able value (dumped), an exception instance (raised), or a
#: function of (system, user, schema) returning text or a JSON-able value.
Response = (
    str
    | dict[str, Any]
    | list[Any]
    | BaseException
    | Callable[[str, str, dict[str, Any] | None], Any]
)
#: What a rule matches: a substring or compiled regex searched in system + user, or a
#: predicate of (system, user, schema).
Matcher = str | re.Pattern[str] | Callable[[str, str, dict[str, Any] | None], bool]


@dataclass(slots=True)
class LLMCall:
    """One call the ScriptedLLM received, and what it answered."""

    system: str
    user: str
    schema: dict[str, Any] | None
    text: str | None  # None when the call raised
    usage: Usage


class ScriptedLLM:
    """An LLM that answers from a script: rules first (in order added), then the queue, then
    `default`; with none of these it raises ProviderError (like a real outage would)."""

    def __init__(
        self,
        responses: Iterable[Response] = (),
        *,
        default: Response | None = None,
        id: str = "fake:scripted",
    ) -> None:
        self.id = id
        self.default = default
        self.calls: list[LLMCall] = []
        self._rules: list[tuple[Matcher, Response]] = []
        self._queue: deque[Response] = deque(responses)
        self._lock = threading.Lock()

    def when(self, match: Matcher, response: Response) -> ScriptedLLM:
        """Answer `response` to every call that `match` matches. Returns self, to chain."""
        with self._lock:
            self._rules.append((match, response))
        return self

    def queue(self, *responses: Response) -> ScriptedLLM:
        """Answer each response once, in order, to calls no rule matches."""
        with self._lock:
            self._queue.extend(responses)
        return self

    @property
    def pending(self) -> int:
        """How many queued responses have not been used."""
        with self._lock:
            return len(self._queue)

    @property
    def usage(self) -> Usage:
        """Total usage over all calls."""
        with self._lock:
            return Usage(
                sum(c.usage.input_tokens for c in self.calls),
                sum(c.usage.output_tokens for c in self.calls),
            )

    def complete(
        self, system: str, user: str, *, schema: dict[str, Any] | None = None
    ) -> tuple[str, Usage]:
        with self._lock:
            response = self._pick(system, user, schema)
        usage = Usage(count_tokens(system) + count_tokens(user), 0)
        try:
            text = _render(response, system, user, schema)
        except BaseException:
            with self._lock:
                self.calls.append(LLMCall(system, user, schema, None, usage))
            raise
        usage.output_tokens = count_tokens(text)
        with self._lock:
            self.calls.append(LLMCall(system, user, schema, text, usage))
        return text, usage

    def _pick(self, system: str, user: str, schema: dict[str, Any] | None) -> Response:
        for match, response in self._rules:
            if _matches(match, system, user, schema):
                return response
        if self._queue:
            return self._queue.popleft()
        if self.default is not None:
            return self.default
        preview = " ".join(user.split())[:80]
        return ProviderError(f"{self.id}: no scripted response for a call ({preview!r})")


def _matches(match: Matcher, system: str, user: str, schema: dict[str, Any] | None) -> bool:
    if isinstance(match, str):
        return match in system or match in user
    if isinstance(match, re.Pattern):
        return bool(match.search(system) or match.search(user))
    return bool(match(system, user, schema))


def _render(response: Response, system: str, user: str, schema: dict[str, Any] | None) -> str:
    if isinstance(response, BaseException):
        raise response
    if callable(response):
        return _render(response(system, user, schema), system, user, schema)
    if isinstance(response, str):
        return response
    return json.dumps(response)


class FakeEmbedder:
    """Deterministic bag-of-words vectors: each lowercased word hashed (blake2b) to a signed
    bucket, rows L2-normalized. Texts sharing words get similar vectors; the same text gets
    the same vector in every process. Records what it embedded in `calls`."""

    def __init__(self, dim: int = 64, *, id: str | None = None) -> None:
        if dim < 2:
            raise ValueError("dim must be at least 2")
        self.dim = dim
        self.id = id or f"fake-bow-{dim}"
        self.calls: list[list[str]] = []
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> Vector:
        with self._lock:
            self.calls.append(list(texts))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            words = re.findall(r"\w+", text.lower()) or ["\x00empty"]
            for word in words:
                digest = hashlib.blake2b(word.encode("utf-8"), digest_size=8).digest()
                value = int.from_bytes(digest, "little")
                out[row, (value >> 1) % self.dim] += 1.0 if value & 1 else -1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        # A row can cancel to zero (rare); give it a fixed unit vector instead.
        zero = norms[:, 0] == 0
        out[zero, 0], norms[zero] = 1.0, 1.0
        normalized: Vector = (out / norms).astype(np.float32)
        return normalized
