"""Elliptical turns: "same with anything flagged hazmat class 3" says the command of the
turn before again, for a new case. Capture finds such a turn and what it extends
(`CorrectionSignal.extends`); this module writes out what it means, so the rule reads alone.
"""

from __future__ import annotations

from dctx.capture.base import CorrectionSignal
from dctx.capture.condition_words import Condition
from dctx.capture.corrections import elliptical_subject
from dctx.compile.conditions import split_condition
from dctx.compile.phrasing import lower_first


def said_again(signal: CorrectionSignal) -> list[str]:
    """ "same with anything flagged hazmat class 3" after "if an order has lithium batteries,
    book the DG service. rebook it": the earlier commands, for the new case instead of the old
    one ("For anything flagged hazmat class 3, book the DG service"); those that had a case
    (a condition) when any did, the one said alone is about that run. Empty for other turns."""
    other = elliptical_subject(signal.directive) if signal.extends else None
    if other is None:
        return []
    before = [d for d in signal.extends.split("\n") if d.strip()]
    conds = [split_condition(d, signal.subjects) for d in before]
    kept: list[tuple[str, Condition | None]] = [
        (d, c) for d, c in zip(before, conds, strict=True) if c is not None
    ] or [(d, None) for d in before]
    return [f"For {other}, {lower_first((c.main if c else d).strip())}" for d, c in kept]
