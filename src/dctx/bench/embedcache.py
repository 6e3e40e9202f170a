"""A per-process embedding cache shared by every approach on a scenario.

The baselines embed the same seed chunks and queries (doc_naive and doc_chunk share chunk
texts); caching by text makes each distinct text cost one forward pass per process.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

from dctx.providers.base import Embedder, Vector, embed_query, query_pieces
from dctx.providers.text_cache import fill_from_cache


class CachedEmbedder:
    """Wraps an Embedder; same `id` and `dim`, so stores see the real embedder's identity."""

    def __init__(self, inner: Embedder, max_entries: int = 20_000) -> None:
        self.inner = inner
        self.id = inner.id
        self.dim = inner.dim
        self.max_entries = max_entries
        self._cache: OrderedDict[str, Vector] = OrderedDict()
        self._query_cache: OrderedDict[str, Vector] = OrderedDict()  # inner.embed_query's
        self.hits = 0
        self.misses = 0

    def embed(self, texts: Sequence[str]) -> Vector:
        return self._cached(texts, self._cache, self.inner.embed)

    def embed_query(self, texts: Sequence[str]) -> Vector:
        return self._cached(texts, self._query_cache, lambda ts: embed_query(self.inner, ts))

    def query_pieces(self, words: Sequence[str]) -> list[int] | None:
        return query_pieces(self.inner, words)

    def _cached(
        self,
        texts: Sequence[str],
        cache: OrderedDict[str, Vector],
        embed: Callable[[Sequence[str]], Vector],
    ) -> Vector:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        todo = fill_from_cache(cache, texts, out)
        self.hits += len(texts) - sum(len(rows) for rows in todo.values())
        if todo:
            fresh = list(todo)
            self.misses += len(fresh)
            vecs = np.asarray(embed(fresh), dtype=np.float32)
            for t, vec in zip(fresh, vecs, strict=True):
                out[todo[t]] = vec
                cache[t] = vec.copy()
            while len(cache) > self.max_entries:
                cache.popitem(last=False)
        return out
