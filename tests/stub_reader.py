"""A turn reader for tests: sure that the turns it is told about are standing corrections,
and that every other turn is a task, so a test decides what capture keeps."""

from __future__ import annotations

from collections.abc import Sequence

from dctx.capture.reading.base import TurnInput, TurnKind, TurnVerdict


class SureOf:
    id = "sure-of"

    def __init__(self, *lasting: str, p: float = 0.99) -> None:
        """`p`: how sure of them; below 0.9 (and above the 0.5 it admits at) the reader admits
        a turn without being sure enough to stand for a rule when no sentence says one."""
        self.lasting = set(lasting)
        self.p = p

    def read(self, turns: Sequence[TurnInput]) -> list[TurnVerdict]:
        return [
            TurnVerdict(TurnKind.STANDING, self.p, by=self.id)
            if t.text in self.lasting
            else TurnVerdict(TurnKind.TASK, 0.0, by=self.id)
            for t in turns
        ]
