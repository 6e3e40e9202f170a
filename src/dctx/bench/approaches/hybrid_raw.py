"""`hybrid_raw`: typed-graph storage with raw human corrections (paper, section 4.1).

Capture builds the typed graph (decision nodes with node and accumulated embeddings, edges,
raw CORRECTION evidence; `_graph.py`) from human corrections only: no self-assessment, no
compilation. DP0 delivers a system-prompt global readout (per-action correction rates) and the
top precedents of the hybrid node search; after every tool result, a per-tool-call lookup
matches the step against stored calls of the same tool and follows their INFORMED_BY edges to
the corrections those results informed. Each unit is a correction chain as the user said it,
with the decision it corrected, so the agent has to interpret it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dctx.bench.approaches._graph import Chain, ChainKey, GraphMemory, RunTrace
from dctx.bench.approaches.base import ApproachContext
from dctx.bench.schema import SeedSession
from dctx.models import Unit


class HybridRaw:
    def __init__(self, ctx: ApproachContext) -> None:
        self.ctx = ctx
        self.graph = GraphMemory(ctx.workdir, ctx.embedder)
        self.run: RunTrace | None = None
        self.delivered: set[ChainKey] = set()

    def capture(self, seed: Sequence[SeedSession]) -> None:
        self.graph.capture(seed)

    def start(self, actor: str, skill: str, query: str, tools: Sequence[str]) -> list[Unit]:
        self.run = RunTrace(self.ctx.embedder, actor=actor, skill=skill, query=query)
        self.delivered = set()
        if not self.graph.has_corrections(skill):
            return []
        units: list[Unit] = []
        rates = self.graph.correction_readout(skill)
        if rates is not None:
            units.append(Unit(text=rates, channel="system"))
        units += self._fresh(self.graph.precedents(actor=actor, skill=skill, query=query))
        return units

    def observe(self, call: dict[str, Any], result: str) -> list[Unit]:
        if self.run is None:
            return []
        step, acc = self.run.step(call, result)
        if not self.graph.has_corrections(self.run.skill):
            return []
        found = self.graph.informed_by(
            skill=self.run.skill, tool=str(call.get("name", "")), step=step, run=acc
        )
        return self._fresh(found)

    def _fresh(self, chains: Sequence[Chain]) -> list[Unit]:
        """Units for chains not delivered yet in this run (what was delivered stays)."""
        out: list[Unit] = []
        for chain in chains:
            if chain.key not in self.delivered:
                self.delivered.add(chain.key)
                out.append(Unit(text=chain.render(), channel="system"))
        return out

    def close(self) -> None:
        self.graph.close()
