"""Offline (`delivery`) scoring, exactly as DCBENCH.md fixes it.

A run is scored from what the memory system delivered at each decision point: `dps[0]` is
DP0 (start), `dps[k]` the units delivered after the k-th tool result. A unit delivered at a
point stays in context for the rest of the run, so an item with deadline DPj looks at every
unit of DP0..DPj. Matching is per unit: the scorer never splits or joins units.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from dctx.bench.schema import BeforeCall, By, Item, Pattern, Scenario
from dctx.models import Unit
from dctx.tokens import count_tokens


@functools.lru_cache(maxsize=4096)
def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


def matches(text: str, pattern: Pattern) -> bool:
    """True when `text` (one unit) meets every `all`, at least one `any` and no `none` regex.

    An empty or absent list imposes nothing, so an empty pattern matches any unit.
    """
    if not all(_rx(p).search(text) for p in pattern.all):
        return False
    if pattern.any and not any(_rx(p).search(text) for p in pattern.any):
        return False
    return not any(_rx(p).search(text) for p in pattern.none)


def deadline(by: By, n_steps: int) -> int:
    """The last decision point an item may use: start -> DP0, before_call N -> DP(N-1),
    final -> DPn. A `before_call` past the last call is clamped to DPn."""
    if isinstance(by, BeforeCall):
        return min(by.before_call - 1, n_steps)
    return 0 if by == "start" else n_steps


def item_satisfied(item: Item, dps: Sequence[Sequence[Unit]], n_steps: int) -> bool:
    """Positive: some unit up to the deadline matches. Negative: no unit does."""
    last = deadline(item.by, n_steps)
    hit = any(matches(u.text, item.pattern) for dp in dps[: last + 1] for u in dp)
    return hit if item.mode == "positive" else not hit


def weighted_score(items: Sequence[Item], satisfied: dict[str, float]) -> float:
    """Satisfied weight / total weight x 100 (a live item may be satisfied in part)."""
    total = sum(i.weight for i in items)
    got = sum(i.weight * satisfied.get(i.id, 0.0) for i in items)
    return 100.0 * got / total if total else 0.0


def injected_tokens(dps: Iterable[Iterable[Unit]]) -> int:
    """Sum of unit tokens over every decision point (documented regex tokenizer)."""
    return sum(count_tokens(u.text) for dp in dps for u in dp)


@dataclass(slots=True)
class ScenarioScore:
    score: float
    items: dict[str, float]
    tokens: int
    units: int

    @property
    def injected(self) -> bool:
        return self.units > 0


def score_delivery(scenario: Scenario, dps: Sequence[Sequence[Unit]]) -> ScenarioScore:
    """Score one replay: `dps` holds the units of DP0..DPn (n = number of test steps)."""
    n = len(scenario.test.steps)
    items = {it.id: 1.0 if item_satisfied(it, dps, n) else 0.0 for it in scenario.expect}
    return ScenarioScore(
        score=weighted_score(scenario.expect, items),
        items=items,
        tokens=injected_tokens(dps),
        units=sum(len(dp) for dp in dps),
    )


@dataclass(slots=True)
class Summary:
    """One approach over a set of scenarios (Tables 2 and 3)."""

    approach: str
    n: int
    overall: float
    dimensions: dict[str, float] = field(default_factory=dict)
    dimension_counts: dict[str, int] = field(default_factory=dict)
    tokens_mean: float = 0.0
    efficacy: float | None = None  # None when the approach never injected anything


def summarize(approach: str, rows: Sequence[tuple[str, float, float, bool]]) -> Summary:
    """Aggregate (dimension, score, tokens, injected) rows of one approach.

    Dimension score = mean of its scenarios; overall = mean over all scenarios (not over
    dimensions); efficacy = share of scenarios with any injection whose score > 0.
    """
    if not rows:
        return Summary(approach=approach, n=0, overall=0.0)
    by_dim: dict[str, list[float]] = {}
    for dim, score, _, _ in rows:
        by_dim.setdefault(dim, []).append(score)
    injected = [score for _, score, _, inj in rows if inj]
    return Summary(
        approach=approach,
        n=len(rows),
        overall=sum(r[1] for r in rows) / len(rows),
        dimensions={d: sum(v) / len(v) for d, v in sorted(by_dim.items())},
        dimension_counts={d: len(v) for d, v in sorted(by_dim.items())},
        tokens_mean=sum(r[2] for r in rows) / len(rows),
        efficacy=(sum(1 for s in injected if s > 0) / len(injected)) if injected else None,
    )
