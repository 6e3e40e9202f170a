"""A rulebook's health on one screen: how many rules in each status, which are flagged, which
were delivered and which never fired, stale ones, and duplicates / near-duplicates.

Duplicates use the thresholds maintenance merges by (compile/maintain.py: DUPLICATE text
cosine for the same directive, SAME_TOPIC for the same behavior), compared within a skill,
so the report shows what maintenance kept apart (other scopes, other conditions, one turn's
rules) for a person to judge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from dctx.compile.maintain import DUPLICATE, SAME_TOPIC, same_scope
from dctx.models import Rule, RuleEventKind, RuleStatus
from dctx.providers.base import Vector
from dctx.review.stale import StaleRule, Tally, find_stale, last_triggered

MAX_PAIRS = 50  # per list: enough to act on, short enough to read
_BLOCK = 1024  # rows per similarity block, so a large rulebook never needs an n x n matrix


@dataclass(slots=True)
class SimilarPair:
    a: str
    b: str
    similarity: float
    same_scope: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "similarity": round(self.similarity, 3),
            "same_scope": self.same_scope,
        }


@dataclass(slots=True)
class HealthReport:
    namespace: str
    counts: dict[str, int]  # rules per status, every status listed
    flagged: list[Rule] = field(default_factory=list)
    delivered: int = 0  # live rules delivered at least once
    never_triggered: list[Rule] = field(default_factory=list)  # active, never delivered
    stale: list[StaleRule] = field(default_factory=list)
    stale_days: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)  # events per kind
    duplicates: list[SimilarPair] = field(default_factory=list)
    near_duplicates: list[SimilarPair] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "namespace": self.namespace,
            "counts": dict(self.counts),
            "flagged": [r.id for r in self.flagged],
            "delivered": self.delivered,
            "never_triggered": [r.id for r in self.never_triggered],
            "stale": [{"rule": s.rule.id, **_brief(s)} for s in self.stale],
            "stale_days": self.stale_days,
            "outcomes": dict(self.outcomes),
            "duplicates": [p.to_dict() for p in self.duplicates],
            "near_duplicates": [p.to_dict() for p in self.near_duplicates],
        }


def _brief(s: StaleRule) -> dict[str, Any]:
    return {"last_triggered": s.last_triggered, "idle_days": round(s.idle_days, 1)}


def build_report(
    namespace: str,
    rules: Sequence[Rule],
    tally: Tally,
    live: Sequence[Rule],
    vectors: Vector,
    *,
    stale_days: int,
    now: datetime | None = None,
) -> HealthReport:
    """`rules`: every rule of the namespace; `live` with `vectors`: the ACTIVE, DRAFT and
    CANDIDATE rules and their text vectors (row i for live[i])."""
    counts = {s.value: 0 for s in RuleStatus}
    for rule in rules:
        counts[rule.status.value] += 1
    counts["flagged"] = sum(1 for r in rules if r.flagged_at and _is_live(r))
    active = [r for r in rules if r.status is RuleStatus.ACTIVE]
    outcomes = {k.value: 0 for k in RuleEventKind}
    for kinds in tally.values():
        for kind, (n, _) in kinds.items():
            outcomes[kind.value] += n
    dups, near = similar_pairs(live, vectors)
    return HealthReport(
        namespace=namespace,
        counts=counts,
        flagged=[r for r in rules if r.flagged_at and _is_live(r)],
        delivered=sum(
            1 for r in rules if _is_live(r) and RuleEventKind.DELIVERED in tally.get(r.id, {})
        ),
        never_triggered=[r for r in active if last_triggered(r.id, tally) is None],
        stale=find_stale(active, tally, days=stale_days, now=now),
        stale_days=stale_days,
        outcomes=outcomes,
        duplicates=dups,
        near_duplicates=near,
    )


def _is_live(rule: Rule) -> bool:
    return rule.status in (RuleStatus.ACTIVE, RuleStatus.DRAFT, RuleStatus.CANDIDATE)


def similar_pairs(
    rules: Sequence[Rule], vectors: Vector
) -> tuple[list[SimilarPair], list[SimilarPair]]:
    """Pairs of rules of one skill whose texts say the same (>= DUPLICATE) or nearly the
    same (>= SAME_TOPIC), most similar first, at most MAX_PAIRS each."""
    dups: list[SimilarPair] = []
    near: list[SimilarPair] = []
    by_skill: dict[str | None, list[int]] = {}
    for i, rule in enumerate(rules):
        by_skill.setdefault(rule.scope.skill, []).append(i)
    for rows in by_skill.values():
        if len(rows) < 2:
            continue
        matrix = np.asarray(vectors[rows], dtype=np.float32)
        for start in range(0, len(rows), _BLOCK):
            sims = matrix[start : start + _BLOCK] @ matrix.T
            for i, j in zip(*np.nonzero(sims >= SAME_TOPIC), strict=True):
                a, b = start + int(i), int(j)
                if b <= a:
                    continue
                ra, rb = rules[rows[a]], rules[rows[b]]
                pair = SimilarPair(ra.id, rb.id, float(sims[i, j]), same_scope(ra.scope, rb.scope))
                (dups if pair.similarity >= DUPLICATE else near).append(pair)
    dups.sort(key=lambda p: -p.similarity)
    near.sort(key=lambda p: -p.similarity)
    return dups[:MAX_PAIRS], near[:MAX_PAIRS]


__all__ = ["HealthReport", "SimilarPair", "build_report", "similar_pairs"]
