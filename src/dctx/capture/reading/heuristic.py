"""The keyword reader: capture/cues.py's sentence cues, read as a whole-turn verdict.

Kept beside the learned reader so both are measured by the same evaluation; it is what
capture used before the learned reader, and the fallback when MiniLM is not installed.
"""

from __future__ import annotations

from collections.abc import Sequence

from dctx.capture.cues import SentenceKind, classify_sentence
from dctx.capture.reading.base import TurnInput, TurnKind, TurnVerdict
from dctx.text import sentences

_ORDER = (
    (SentenceKind.WITHDRAWAL, TurnKind.WITHDRAWAL),
    (SentenceKind.DIRECTIVE, TurnKind.STANDING),
    (SentenceKind.ONE_OFF, TurnKind.ONE_OFF),
    (SentenceKind.ACCEPTANCE, TurnKind.ACCEPTANCE),
    (SentenceKind.REQUEST, TurnKind.TASK),
)


class HeuristicTurnClassifier:
    """TurnClassifier over the keyword cues; probabilities are 0 or 1."""

    id = "heuristic"

    def read(self, turns: Sequence[TurnInput]) -> list[TurnVerdict]:
        return [self._one(t) for t in turns]

    def _one(self, turn: TurnInput) -> TurnVerdict:
        if not turn.text.strip():
            return TurnVerdict(TurnKind.NOISE, 0.0, by=self.id)
        kinds = {classify_sentence(s, first_turn=turn.first_turn) for s in sentences(turn.text)}
        kind = next((t for s, t in _ORDER if s in kinds), TurnKind.INFORMATION)
        lasting = kind in (TurnKind.STANDING, TurnKind.WITHDRAWAL)
        return TurnVerdict(kind, 1.0 if lasting else 0.0, {kind: 1.0}, by=self.id)
