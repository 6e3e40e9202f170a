"""Reciprocal rank fusion (Cormack et al. 2009): RRF(d) = sum over rankings of 1 / (k + rank)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import TypeVar

K = TypeVar("K", bound=Hashable)

RRF_K = 60


def rrf(rankings: Iterable[Sequence[K]], k: int = RRF_K) -> dict[K, float]:
    """Fuse rankings (each best first, ranks from 1) into one score per item."""
    scores: dict[K, float] = {}
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + rank)
    return scores
