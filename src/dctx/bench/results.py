"""Result records of a benchmark run, JSON-serializable (they cross process boundaries as
JSON text, never pickled objects)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from dctx.bench.scoring import Summary, summarize


@dataclass(slots=True)
class ScenarioResult:
    """One (scenario, approach) pair. Live results are means over `runs`."""

    scenario: str
    dimension: str
    domain: str
    approach: str
    score: float
    tokens: float
    units: float
    items: dict[str, float] = field(default_factory=dict)
    runs: int = 1
    run_scores: list[float] = field(default_factory=list)
    seconds: float = 0.0
    error: str | None = None  # the pair failed (an approach or provider error)
    notes: str | None = None  # e.g. judge verdicts that could not be read
    delivered: list[list[dict[str, str]]] | None = None  # units per DP, when asked for
    guards: dict[str, Any] | None = None  # guard coverage of the tool checks (guard_coverage)
    usage: dict[str, int] | None = None  # LLM / embedding tokens (UsageTotals), with an LLM

    @property
    def injected(self) -> bool:
        return self.units > 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScenarioResult:
        return cls(**data)


@dataclass(slots=True)
class BenchResult:
    mode: str
    approaches: list[str]
    results: list[ScenarioResult]
    seconds: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)

    def of(self, approach: str) -> list[ScenarioResult]:
        return sorted((r for r in self.results if r.approach == approach), key=lambda r: r.scenario)

    def summary(self, approach: str) -> Summary:
        return summarize(
            approach,
            [(r.dimension, r.score, r.tokens, r.injected) for r in self.of(approach)],
        )

    def scenario_ids(self) -> list[str]:
        return sorted({r.scenario for r in self.results})

    def errors(self) -> list[ScenarioResult]:
        return [r for r in self.results if r.error]
