"""A pure-numpy hashing embedder: the fallback when the MiniLM model cannot run.

Each text becomes a bag of features (lowercased word unigrams and character 3-5-grams of
each word, with word-boundary marks), hashed with blake2b into `dim` signed buckets, then
L2-normalized. blake2b, unlike Python's salted `hash()`, gives the same vector in every
process, so stored vectors stay valid across runs. It captures lexical overlap only.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from dctx.errors import ConfigError
from dctx.providers.base import Vector

__all__ = ["HashingEmbedder"]

_WORD = re.compile(r"\w+", re.UNICODE)
_NGRAM_SIZES = (3, 4, 5)
# Words carry more meaning than any one of their many n-grams; n-grams add robustness to
# inflection ("refund" ~ "refunds") and typos.
_WORD_WEIGHT = 1.0
_NGRAM_WEIGHT = 0.5
_EMPTY_FEATURE = "\x00empty"


@lru_cache(maxsize=65536)
def _bucket(feature: str, dim: int) -> tuple[int, float]:
    """Map a feature to (index, sign) with a stable 64-bit blake2b hash."""
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    value = int.from_bytes(digest, "little")
    sign = 1.0 if value & 1 else -1.0
    return (value >> 1) % dim, sign


def _features(text: str) -> list[tuple[str, float]]:
    """The weighted features of one text (duplicates kept: counts matter)."""
    feats: list[tuple[str, float]] = []
    for word in _WORD.findall(text.lower()):
        feats.append(("w:" + word, _WORD_WEIGHT))
        marked = f"<{word}>"
        for n in _NGRAM_SIZES:
            for i in range(len(marked) - n + 1):
                feats.append(("c:" + marked[i : i + n], _NGRAM_WEIGHT))
    return feats


class HashingEmbedder:
    """Signed feature hashing into `dim` dimensions; no model, no dependencies beyond numpy."""

    def __init__(self, dim: int = 384) -> None:
        if dim < 8:
            raise ConfigError(f"hashing embedder dim must be at least 8, got {dim}")
        self.dim = dim
        self.id = f"hashing-{dim}"

    def forget_texts(self) -> None:
        """Empty the feature cache (its keys are words of the texts embedded)."""
        _bucket.cache_clear()

    def embed(self, texts: Sequence[str]) -> Vector:
        """Return an (len(texts), dim) float32 array with L2-normalized rows."""
        if isinstance(texts, str):
            raise ConfigError("embed() takes a sequence of texts, not one string")
        out = np.zeros((len(texts), self.dim), dtype=np.float64)
        for row, text in enumerate(texts):
            feats = _features(text) or [(_EMPTY_FEATURE, 1.0)]
            for feat, weight in feats:
                index, sign = _bucket(feat, self.dim)
                out[row, index] += sign * weight
            # Sublinear term frequency: a repeated word should not dominate the vector.
            np.copyto(out[row], np.sign(out[row]) * np.log1p(np.abs(out[row])))
            norm = float(np.linalg.norm(out[row]))
            if norm == 0.0:  # every feature cancelled out: fall back to the empty marker
                index, sign = _bucket(_EMPTY_FEATURE, self.dim)
                out[row, index] = sign
                norm = 1.0
            out[row] /= norm
        return out.astype(np.float32)

    def __repr__(self) -> str:
        return f"HashingEmbedder(dim={self.dim})"
