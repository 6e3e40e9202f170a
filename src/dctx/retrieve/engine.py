"""Find the rules that apply at a decision point.

Type routing (Finding 2): FORMAT/ALWAYS rules apply in scope without any similarity test; tool
rules apply before their tool; DATA rules when their condition is met by what the run has seen;
QUERY rules by hybrid search (BM25 + cosine fused with RRF, k = 60) above a similarity floor.
Conflicting rules of one group are resolved per querying actor (conflicts.py).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dctx.models import Rule, RuleStatus, TriggerKind
from dctx.providers.base import Embedder, Vector
from dctx.retrieve.conflicts import resolve_conflicts
from dctx.retrieve.context import RunContext, data_condition_met
from dctx.retrieve.fusion import rrf
from dctx.store.base import RuleIndex, Store


@dataclass(frozen=True, slots=True)
class Calibration:
    """Similarity floors for one embedder (cosine scales differ between embedders)."""

    query_floor: float  # a QUERY rule applies when the query is at least this similar
    step_floor: float  # ... or when a tool step is at least this similar
    top_k: int = 5


CALIBRATIONS: dict[str, Calibration] = {
    "minilm-l6-v2-int8": Calibration(query_floor=0.45, step_floor=0.55),
    "hashing-384": Calibration(query_floor=0.30, step_floor=0.40),
}
DEFAULT_CALIBRATION = Calibration(query_floor=0.45, step_floor=0.55)


@dataclass(slots=True)
class Snapshot:
    """A namespace's injectable rules and vectors, with arrays for vectorized scope masks."""

    index: RuleIndex
    skills: np.ndarray
    actors: np.ndarray
    kinds: np.ndarray

    @classmethod
    def build(cls, index: RuleIndex) -> Snapshot:
        rules = index.rules
        return cls(
            index=index,
            skills=np.array([r.scope.skill or "" for r in rules], dtype=object),
            actors=np.array([r.scope.actor or "" for r in rules], dtype=object),
            kinds=np.array([r.trigger.kind.value for r in rules], dtype=object),
        )


class Retriever:
    """Retrieval over one store; caches a snapshot per namespace until the store changes."""

    def __init__(self, store: Store, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder
        self.calibration = CALIBRATIONS.get(embedder.id, DEFAULT_CALIBRATION)
        self._snapshots: dict[str, Snapshot] = {}
        self._lock = threading.Lock()

    def snapshot(self, namespace: str) -> Snapshot:
        generation = self.store.generation(namespace)
        with self._lock:
            snap = self._snapshots.get(namespace)
            if snap is None or snap.index.generation != generation:
                snap = Snapshot.build(self.store.rule_index(namespace, [RuleStatus.ACTIVE]))
                self._snapshots[namespace] = snap
            return snap

    def visible(self, snap: Snapshot, *, skill: str, actor: str) -> np.ndarray:
        """Indices of rules whose scope admits this actor and skill."""
        if not snap.index.rules:
            return np.zeros(0, dtype=np.int64)
        mask = ((snap.skills == "") | (snap.skills == skill)) & (
            (snap.actors == "") | (snap.actors == actor)
        )
        return np.flatnonzero(mask)

    # ------------------------------------------------------------------ stage 1
    def stage1(
        self,
        namespace: str,
        *,
        skill: str,
        actor: str,
        ctx: RunContext,
        query_vec: Vector,
        tools: Sequence[str] | None,
    ) -> list[Rule]:
        snap = self.snapshot(namespace)
        idx = self.visible(snap, skill=skill, actor=actor)
        rules = snap.index.rules
        chosen: list[int] = []
        query_candidates: list[int] = []
        for i in idx:
            rule = rules[int(i)]
            kind = rule.trigger.kind
            if kind is TriggerKind.ALWAYS:
                chosen.append(int(i))
            elif kind is TriggerKind.TOOL:
                if rule.trigger.after_tool is None and (
                    tools is None or rule.trigger.tool in tools
                ):
                    chosen.append(int(i))
            elif kind is TriggerKind.DATA:
                if data_condition_met(rule.trigger, ctx):
                    chosen.append(int(i))
            else:
                query_candidates.append(int(i))
        chosen.extend(self._query_matches(namespace, snap, query_candidates, query_vec, ctx.query))
        return resolve_conflicts([rules[i] for i in chosen], rules, idx, actor=actor)

    def _query_matches(
        self,
        namespace: str,
        snap: Snapshot,
        candidates: list[int],
        query_vec: Vector,
        query: str,
    ) -> list[int]:
        if not candidates:
            return []
        cand = np.array(candidates)
        sims = np.maximum(
            snap.index.trigger_vectors[cand] @ query_vec, snap.index.text_vectors[cand] @ query_vec
        )
        passing = cand[sims >= self.calibration.query_floor]
        if passing.size == 0:
            return []
        order = passing[np.argsort(-sims[sims >= self.calibration.query_floor])]
        cos_rank = [snap.index.rules[int(i)].id for i in order]
        allowed = set(cos_rank)
        bm25_rank = [
            rid for rid, _ in self.store.search_text(namespace, query, 50) if rid in allowed
        ]
        fused = rrf([cos_rank, bm25_rank])
        best = sorted(fused, key=lambda rid: -fused[rid])[: self.calibration.top_k]
        pos = {r.id: int(i) for i, r in ((int(j), snap.index.rules[int(j)]) for j in order)}
        return [pos[rid] for rid in best]

    # ------------------------------------------------------------------ stage 2
    def stage2(
        self,
        namespace: str,
        *,
        skill: str,
        actor: str,
        ctx: RunContext,
        step_vec: Vector | None,
        delivered: set[str],
    ) -> list[Rule]:
        snap = self.snapshot(namespace)
        idx = self.visible(snap, skill=skill, actor=actor)
        rules = snap.index.rules
        last_tool = ctx.tools_called[-1] if ctx.tools_called else None
        chosen: list[int] = []
        query_candidates: list[int] = []
        for i in idx:
            rule = rules[int(i)]
            if rule.id in delivered:
                continue
            kind = rule.trigger.kind
            if kind is TriggerKind.DATA:
                if data_condition_met(rule.trigger, ctx):
                    chosen.append(int(i))
            elif kind is TriggerKind.TOOL:
                if rule.trigger.after_tool is not None and rule.trigger.after_tool == last_tool:
                    chosen.append(int(i))
            elif kind is TriggerKind.QUERY:
                query_candidates.append(int(i))
        if step_vec is not None and query_candidates:
            cand = np.array(query_candidates)
            sims = np.maximum(
                snap.index.trigger_vectors[cand] @ step_vec,
                snap.index.text_vectors[cand] @ step_vec,
            )
            top = cand[sims >= self.calibration.step_floor]
            chosen.extend(int(i) for i in top[: self.calibration.top_k])
        found = [rules[i] for i in chosen]
        return resolve_conflicts(found, rules, idx, actor=actor)
