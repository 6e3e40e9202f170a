"""The paper's shared hybrid search for the chunk baselines: BM25 (bm25s) + cosine over the
embedder's vectors, fused by reciprocal rank fusion (k = 60)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from dctx.errors import MissingDependencyError
from dctx.providers.base import Embedder
from dctx.retrieve.fusion import RRF_K, rrf


def _bm25s() -> Any:
    try:
        import bm25s
    except ImportError:
        raise MissingDependencyError("the benchmark baselines", None, "bm25s") from None
    return bm25s


def _tokens(bm25s: Any, texts: Sequence[str]) -> list[list[str]]:
    out: list[list[str]] = bm25s.tokenize(
        list(texts), stopwords="en", return_ids=False, show_progress=False
    )
    return out


class BM25Ranker:
    """BM25 over a handful of texts: the lexical half of the shared hybrid search."""

    def __init__(self, texts: Sequence[str]) -> None:
        self._bm25s = _bm25s()
        self._bm25: Any = None
        if texts:
            toks = _tokens(self._bm25s, texts)
            if any(toks):
                self._bm25 = self._bm25s.BM25()
                self._bm25.index(toks, show_progress=False)

    def ranking(self, query: str) -> list[int]:
        """Indexes of the texts with a positive BM25 score for `query`, best first."""
        q = _tokens(self._bm25s, [query])[0]
        if self._bm25 is None or not q:
            return []
        scores = np.asarray(self._bm25.get_scores(q))
        return [int(i) for i in np.argsort(-scores, kind="stable") if scores[i] > 0]


class HybridIndex:
    """An in-memory index over a handful of texts (one scenario's chunks)."""

    def __init__(
        self,
        texts: Sequence[str],
        embedder: Embedder,
        *,
        embed_texts: Sequence[str] | None = None,
    ) -> None:
        """Index `texts` for BM25; cosine uses `embed_texts` (default: the same texts)."""
        self.texts = list(texts)
        dense = list(embed_texts) if embed_texts is not None else self.texts
        if len(dense) != len(self.texts):
            raise ValueError("embed_texts must align with texts")
        self._embedder = embedder
        self._bm25 = BM25Ranker(self.texts)
        self._vectors = embedder.embed(dense) if dense else None

    def ranking(self, query: str) -> tuple[list[int], list[int]]:
        """(BM25 ranking of documents with a positive score, cosine ranking of all)."""
        if not self.texts:
            return [], []
        bm = self._bm25.ranking(query)
        assert self._vectors is not None
        qv = self._embedder.embed([query])[0]
        sims = self._vectors @ qv
        cos = [int(i) for i in np.argsort(-sims, kind="stable")]
        return bm, cos

    def search(self, query: str, k: int, among: Sequence[int] | None = None) -> list[int]:
        """Top-k document indexes by RRF over both rankings (restricted to `among`)."""
        bm, cos = self.ranking(query)
        if among is not None:
            keep = set(among)
            bm = [i for i in bm if i in keep]
            cos = [i for i in cos if i in keep]
        fused = rrf([bm, cos], k=RRF_K)
        return sorted(fused, key=lambda i: (-fused[i], i))[:k]
