"""Which reader capture uses by default, and when a turn is admitted.

The learned reader, when MiniLM and the shipped weights are there; otherwise the keyword
reader, with a warning (it stores far more junk on real conversations: `dctx bench real`).
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass

from dctx.capture.reading.base import TurnClassifier
from dctx.capture.reading.heuristic import HeuristicTurnClassifier
from dctx.errors import DctxError

log = logging.getLogger("dctx")


@dataclass(frozen=True, slots=True)
class ReadingBands:
    """Probability bands of a lasting turn. At `active` and above it becomes a rule at once;
    from `candidate` a candidate (stored with evidence, never injected, active when the lesson
    recurs in another session or a person approves it); below, nothing. A configured LLM is
    asked about every turn from `consult_below` up."""

    active: float
    candidate: float
    consult_below: float = 0.05


def bands_for(reader: TurnClassifier) -> ReadingBands:
    thresholds = getattr(getattr(reader, "model", None), "thresholds", None)
    if thresholds is None:  # a reader without calibrated probabilities: 0 or 1
        return ReadingBands(active=0.5, candidate=0.5, consult_below=0.0)
    return ReadingBands(active=thresholds.active, candidate=thresholds.candidate)


@functools.lru_cache(maxsize=1)
def default_reader() -> TurnClassifier:
    from dctx.providers.minilm import missing_minilm_dependencies

    missing = missing_minilm_dependencies()
    if not missing:
        try:
            from dctx.capture.reading.learned import LearnedTurnClassifier

            return LearnedTurnClassifier()
        except DctxError as exc:
            log.warning("learned turn reader unavailable (%s); using keyword cues", exc)
    else:
        log.warning(
            "learned turn reader needs MiniLM (missing %s); using keyword cues, which keep "
            "more junk. Install it with: pip install 'dctx[minilm]'",
            ", ".join(missing),
        )
    return HeuristicTurnClassifier()
