"""An embedder that answers from vectors computed earlier, so work can move out of a lock.

A capture embeds the texts its rules will need before the write transaction opens
(`prime`), then compiles inside it against this wrapper: the expensive model runs while no
lock is held, and a text nobody foresaw is still embedded correctly (just inside the lock).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from dctx.providers.base import Embedder, Vector


class MemoEmbedder:
    """`Embedder` over `inner`, remembering every vector it has produced."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.id = inner.id
        self.dim = inner.dim
        self._memo: dict[str, Vector] = {}

    def prime(self, texts: Iterable[str]) -> None:
        """Embed `texts` now (one batch) so later `embed` calls of them cost nothing."""
        self.embed(list(dict.fromkeys(texts)))

    def embed(self, texts: Sequence[str]) -> Vector:
        missing = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if missing:
            for text, vec in zip(missing, self.inner.embed(missing), strict=True):
                self._memo[text] = vec
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._memo[t] for t in texts]).astype(np.float32, copy=False)


__all__ = ["MemoEmbedder"]
