"""Provider interfaces: embedders and LLMs. Implementations live one per module beside this.

An embedder's one essential primitive is `embed(texts) -> (n, dim) float32, L2-normalized`.
Its `id` names the model and its settings; a store records it and refuses vectors from another.
Query and step texts, embedded at every decision point and only compared with stored vectors,
go through `embed_query`: an embedder may offer a faster path for them (MiniLM's quantized
copy); any other embedder's `embed` serves. An embedder that can count the word pieces of
its query pass offers `query_pieces`, so step summaries are budgeted in what they cost.

An LLM's one essential primitive is `complete(system, user, schema) -> text`. Capture and
compile call it only when configured, and fall back to the deterministic path on any failure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

Vector = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    id: str  # e.g. "minilm-l6-v2-int8", "hashing-384"; stored with the vectors
    dim: int

    def embed(self, texts: Sequence[str]) -> Vector:
        """Return an (len(texts), dim) float32 array with L2-normalized rows."""
        ...


def embed_query(embedder: Embedder, texts: Sequence[str]) -> Vector:
    """Vectors for query or step texts: `embedder.embed_query` when it has one, else `embed`."""
    fast = getattr(embedder, "embed_query", None)
    if callable(fast):
        return fast(texts)  # type: ignore[no-any-return]
    return embedder.embed(texts)


def query_pieces(embedder: Embedder, words: Sequence[str]) -> list[int] | None:
    """How many word pieces each of `words` costs in `embed_query` (`embedder.query_pieces`
    when it has one), or None when the embedder cannot say."""
    count = getattr(embedder, "query_pieces", None)
    if callable(count):
        return count(words)  # type: ignore[no-any-return]
    return None


def forget_texts(embedder: Embedder) -> None:
    """Drop every text the embedder keeps in memory (`embedder.forget_texts` when it has
    one): after a forget, no cache of this process is keyed by what was forgotten."""
    drop = getattr(embedder, "forget_texts", None)
    if callable(drop):
        drop()


@dataclass(slots=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0


@runtime_checkable
class LLM(Protocol):
    id: str  # "provider:model"

    def complete(
        self, system: str, user: str, *, schema: dict[str, Any] | None = None
    ) -> tuple[str, Usage]:
        """Return the model's text (JSON text when `schema` is given) and its token usage."""
        ...
