"""Lookup in a per-process cache of vectors keyed by text (least recently used last out)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from dctx.providers.base import Vector


def fill_from_cache(
    cache: OrderedDict[str, Vector], texts: Sequence[str], out: Vector
) -> dict[str, list[int]]:
    """Write the cached vector of each of `texts` into its row of `out` (and mark it recently
    used); return the texts not cached, each once, with the rows that wait for its vector."""
    missing: dict[str, list[int]] = {}
    for i, text in enumerate(texts):
        hit = cache.get(text)
        if hit is None:
            missing.setdefault(text, []).append(i)
        else:
            cache.move_to_end(text)
            out[i] = hit
    return missing
