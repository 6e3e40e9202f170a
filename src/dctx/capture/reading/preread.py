"""A turn reader that reads the turns of a whole capture in one batch, then answers from it.

Capture decides each session's turns in turn (capture/corrections.py), and the learned
reader embeds every turn it reads: session by session that is a few texts per forward pass.
Read up front for every session of a capture, the model runs on full, length-sorted
batches instead. A verdict depends on its own turn only, so the answers are the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dctx.capture.reading.base import TurnClassifier, TurnInput, TurnVerdict


class PrereadReader:
    """`TurnClassifier` over `inner`, remembering the verdict of every turn it has read."""

    def __init__(self, inner: TurnClassifier) -> None:
        self.inner = inner
        # calibrated bands (reading/default.bands_for) are the inner reader's
        self.model: Any = getattr(inner, "model", None)
        self._known: dict[TurnInput, TurnVerdict] = {}

    @property
    def id(self) -> str:
        return self.inner.id

    def prime(self, turns: Sequence[TurnInput]) -> None:
        """Read `turns` now, in one call of the inner reader (each distinct turn once)."""
        fresh = [t for t in dict.fromkeys(turns) if t not in self._known]
        if fresh:
            self._known.update(zip(fresh, self.inner.read(fresh), strict=True))

    def read(self, turns: Sequence[TurnInput]) -> list[TurnVerdict]:
        self.prime(turns)
        return [self._known[t] for t in turns]


__all__ = ["PrereadReader"]
