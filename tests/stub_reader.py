"""A turn reader for tests: sure that the turns it is told about are standing corrections,
and that every other turn is a task, so a test decides what capture keeps."""

from __future__ import annotations

from collections.abc import Sequence

from dctx.capture.reading.base import TurnInput, TurnKind, TurnVerdict


class SureOf:
    id = "sure-of"

    def __init__(self, *lasting: str) -> None:
        self.lasting = set(lasting)

    def read(self, turns: Sequence[TurnInput]) -> list[TurnVerdict]:
        return [
            TurnVerdict(TurnKind.STANDING, 0.99, by=self.id)
            if t.text in self.lasting
            else TurnVerdict(TurnKind.TASK, 0.0, by=self.id)
            for t in turns
        ]
