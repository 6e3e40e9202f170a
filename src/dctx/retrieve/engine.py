"""Find the rules that apply at a decision point.

Type routing (Finding 2): FORMAT/ALWAYS rules apply in scope without any similarity test; tool
rules apply before their tool; DATA rules when their condition is met by what the run has seen;
free-text DATA conditions by a fitted match on cosine and words (condition_match.py); QUERY
rules by hybrid search (BM25 + cosine fused with RRF, k = 60) above a similarity floor.
Conflicting rules of one group are resolved per querying actor (conflicts.py).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dctx.models import Rule, RuleStatus
from dctx.providers.base import Embedder, Vector
from dctx.retrieve.condition_match import ConditionModel, condition_model
from dctx.retrieve.conflicts import Decision, decide, resolve_conflicts
from dctx.retrieve.context import RunContext, judge_change
from dctx.retrieve.fusion import rrf
from dctx.retrieve.items import judge, may_name_a_field
from dctx.retrieve.snapshot import VECTOR_DTYPE, Snapshot, View
from dctx.retrieve.vectors import SlotVectors
from dctx.store.base import Store
from dctx.store.packed import IntArray, key_hash

__all__ = ["INJECTED", "VECTOR_DTYPE", "Calibration", "Retriever", "Snapshot", "View"]


@dataclass(frozen=True, slots=True)
class Calibration:
    """Similarity floors for one embedder (cosine scales differ between embedders)."""

    query_floor: float  # a QUERY rule applies when the query is at least this similar
    step_floor: float  # ... or when a tool step is at least this similar
    condition_floor: float  # ... or when the query meets its stated request condition
    top_k: int = 5


CALIBRATIONS: dict[str, Calibration] = {
    # situations are compared with names masked on both sides ("Brief on X (X)"), so a same-task
    # request scores well above unrelated ones; 0.35 keeps paraphrased tasks ("stack up" vs
    # "compare") without reaching across tasks
    "minilm-l6-v2-int8": Calibration(query_floor=0.35, step_floor=0.55, condition_floor=0.25),
    "hashing-384": Calibration(query_floor=0.30, step_floor=0.40, condition_floor=0.2),
}
DEFAULT_CALIBRATION = Calibration(query_floor=0.45, step_floor=0.55, condition_floor=0.3)
# the only status ever delivered: drafts wait for a person, candidates (lessons taken from tool
# output) for independent evidence or a person; both are stored, never injected
INJECTED = (RuleStatus.ACTIVE,)


def _sims(matrix: SlotVectors, rows: np.ndarray, vec: Vector) -> np.ndarray:
    """Cosines of the rows with `vec`: the float16 rows are widened first, since numpy has no
    BLAS product of float16 by float32 (mixed, it runs a generic loop 50x slower)."""
    return np.asarray(matrix[rows], dtype=np.float32) @ np.asarray(vec, dtype=np.float32)


class Retriever:
    """Retrieval over one store; caches a snapshot per namespace and keeps it current by
    applying the rules changed since (`Store.rule_changes`), reloading in full only when the
    change log no longer reaches back or a quarter of the slots are empty."""

    def __init__(self, store: Store, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder
        self.calibration = CALIBRATIONS.get(embedder.id, DEFAULT_CALIBRATION)
        self.conditions: ConditionModel = condition_model(embedder.id)
        self._snapshots: dict[str, Snapshot] = {}
        self._lock = threading.Lock()

    def snapshot(self, namespace: str) -> Snapshot:
        generation = self.store.generation(namespace)
        with self._lock:
            snap = self._snapshots.get(namespace)
            if snap is not None and snap.generation == generation:
                return snap
            changes = None
            if snap is not None and snap.empty * 4 <= snap.slots:
                changes = self.store.rule_changes(
                    namespace, INJECTED, snap.cursor, dtype=VECTOR_DTYPE, packed=True
                )
                if changes is not None and not snap.accepts(changes):
                    changes = None  # (freed before the rebuild reads anything)
            if snap is None or changes is None:
                self._snapshots.pop(namespace, None)
                snap = None  # the old snapshot goes before the new one is read: never two
                snap = Snapshot.build(
                    self.store.rule_index(namespace, INJECTED, dtype=VECTOR_DTYPE, packed=True)
                )
                self._snapshots[namespace] = snap
            else:
                snap.apply(changes)
            return snap

    def visible(self, snap: Snapshot, *, skill: str, actor: str) -> np.ndarray:
        """Slots of rules whose scope admits this actor and skill."""
        return self.view(snap, skill=skill, actor=actor).idx

    def view(self, snap: Snapshot, *, skill: str, actor: str) -> View:
        """The (skill, actor) view of a snapshot, built on first use."""
        key = (skill, actor)
        view = snap.views.get(key)
        if view is None:
            idx = np.flatnonzero(snap.scope_mask(skill=skill, actor=actor))
            view = snap.views[key] = View.build(snap.pack, idx)
        return view

    def _resolve(self, snap: Snapshot, view: View, chosen: list[int], actor: str) -> list[Rule]:
        """The chosen slots as rules, conflicts resolved where one is possible: a group with a
        single visible member always keeps it, so only rules of larger groups go through
        `resolve_conflicts` (given just those groups' members: the same decision at a
        fraction of the cost on big rulebooks)."""
        keys = snap.pack.group_hash[np.asarray(chosen, dtype=np.int64)]
        shared = view.group_sizes(keys) > 1
        if not shared.any():
            return snap.rules(chosen)
        contested = [i for i, many in zip(chosen, shared.tolist(), strict=True) if many]
        members = sorted({int(j) for key in set(keys[shared].tolist()) for j in view.group(key)})
        rules = snap.rules(members)
        won = resolve_conflicts(snap.rules(contested), rules, np.arange(len(rules)), actor=actor)
        winners = {r.id for r in won}
        out = []
        for i, many in zip(chosen, shared.tolist(), strict=True):
            rule = snap.rule(i)
            if not many or rule.id in winners:
                out.append(rule)
        return out

    def conflict(self, namespace: str, group: str, *, skill: str, actor: str) -> Decision:
        """How `group` is resolved for `actor`: its members that actor can see, the winner,
        and why (own rule, majority, abstain; or no conflict)."""
        snap = self.snapshot(namespace)
        view = self.view(snap, skill=skill, actor=actor)
        slots = sorted(view.group(key_hash(group)).tolist())
        members = [r for r in snap.rules(slots) if r.group == group]
        if not members:
            return Decision(group, actor, "no_conflict")
        return decide(members, actor)

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
        view = self.view(snap, skill=skill, actor=actor)
        chosen = list(view.always)
        if tools is None:
            chosen += view.upfront_tools
        else:
            codes = {c for c in (snap.pack.vocab.get(t) for t in tools) if c > 0}
            tool = snap.pack.tool
            chosen += [i for i in view.upfront_tools if int(tool[i]) in codes]
        chosen += snap.met_data(view, ctx)
        # a free-text condition met by the query ("when the invoice is overdue": "chase the
        # overdue invoices"); predicates are judged on result items and the query's own words,
        # except soft ones, which no result has tested yet
        worded = np.array(view.data_worded, dtype=np.int64)
        strict = snap.pack.predicate & ~snap.pack.soft
        plain = worded[~strict[worded]] if worded.size else worded
        chosen += self._worded_met(snap, view, plain, query_vec, ctx.query_stems)
        chosen = snap.ordered(chosen)  # oldest first, as delivered
        chosen.extend(
            self._query_matches(
                namespace, snap, view.query_slots(), query_vec, ctx.query, skill=skill
            )
        )
        return self._resolve(snap, view, chosen, actor)

    def _query_matches(
        self,
        namespace: str,
        snap: Snapshot,
        candidates: Sequence[int] | np.ndarray,
        query_vec: Vector,
        query: str,
        *,
        skill: str | None = None,
    ) -> list[int]:
        cand = np.asarray(candidates, dtype=np.int64)
        if not cand.size:
            return []
        pack = snap.pack
        trig = _sims(snap.trigger_vectors, cand, query_vec)
        sims = np.maximum(trig, _sims(snap.text_vectors, cand, query_vec))
        conditional = pack.conditional[cand]
        ok = (sims >= self.calibration.query_floor) | (
            conditional & (trig >= self.calibration.condition_floor)
        )
        stated = pack.stated_hash[cand[ok & conditional]]
        if stated.size:
            # one condition stated for several rules ("whenever I ask you to compare: a table,
            # and bold the winner"): when it holds for one, it holds for all of them
            ok |= np.isin(pack.stated_hash[cand], stated)
        passing = cand[ok]
        if passing.size == 0:
            return []
        order = passing[np.argsort(-sims[ok])]
        cos_rank = order.tolist()
        slot_by_id = dict(zip(pack.id_hash[order].tolist(), cos_rank, strict=True))
        bm25_rank = [
            slot_by_id[h]
            for rid, _ in self.store.search_text(namespace, query, 50, skill=skill)
            if (h := key_hash(rid)) in slot_by_id
        ]
        fused = rrf([cos_rank, bm25_rank])
        return sorted(fused, key=lambda i: -fused[i])[: self.calibration.top_k]

    def _worded_met(
        self, snap: Snapshot, view: View, slots: IntArray, vec: Vector, stems: set[str]
    ) -> list[int]:
        """The slots whose free-text condition the text (its vector and stems) meets."""
        if not slots.size:
            return []
        codes = snap.pack.vocab.codes
        seen = view.lexical(snap.pack, {c for s in stems if (c := codes.get(s)) is not None})
        met = self.conditions.fires_among(_sims(snap.trigger_vectors, slots, vec), slots, seen)
        return slots[met].tolist()  # type: ignore[no-any-return]

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
        view = self.view(snap, skill=skill, actor=actor)
        pack = snap.pack
        done = np.array([key_hash(rid) for rid in delivered], dtype=np.int64)

        def fresh(slots: Sequence[int] | np.ndarray) -> np.ndarray:
            arr = np.asarray(slots, dtype=np.int64)
            return arr[~np.isin(pack.id_hash[arr], done)] if done.size and arr.size else arr

        last_tool = ctx.tools_called[-1] if ctx.tools_called else None
        chosen = fresh(snap.met_data(view, ctx)).tolist()
        if step_vec is not None and view.data_worded:
            # "the news turns up litigation" met by a headline that says "sues", or by a step
            # that holds all its words; never by one word of several
            rest = fresh(np.setdiff1d(np.array(view.data_worded, dtype=np.int64), chosen))
            if ctx.last_structured:  # a predicate is judged on structured data, never by
                rest = rest[~_tested_here(snap, rest, ctx)]  # resemblance to it
            chosen += self._worded_met(snap, view, rest, step_vec, ctx.step_stems | ctx.query_stems)
        if last_tool is not None:
            after = view.after_tool.get(pack.vocab.get(last_tool), [])
            chosen += fresh(after).tolist()
        chosen = snap.ordered(chosen)  # oldest first, as delivered
        cand = fresh(view.query_slots())
        if step_vec is not None and cand.size:
            sims = np.maximum(
                _sims(snap.trigger_vectors, cand, step_vec),
                _sims(snap.text_vectors, cand, step_vec),
            )
            passing = np.flatnonzero(sims >= self.calibration.step_floor)
            best = passing[np.argsort(-sims[passing], kind="stable")][: self.calibration.top_k]
            chosen.extend(cand[best].tolist())
        return self._resolve(snap, view, chosen, actor)


def _tested_here(snap: Snapshot, slots: IntArray, ctx: RunContext) -> np.ndarray:
    """Which of these slots have a predicate the latest result tests: all strict ones, and
    soft ones where the result has the field they name (the others are left to free text)."""
    pack = snap.pack
    names = pack.vocab.names
    tested: np.ndarray = pack.predicate[slots].copy()
    for j in np.flatnonzero(pack.soft[slots]).tolist():
        slot = int(slots[j])
        if pack.change[slot]:  # a change: tested where the latest result shows a move
            pred = snap.rule(slot).trigger.predicate
            tested[j] = pred is not None and judge_change(pred, ctx, latest=True).testable
            continue
        if not may_name_a_field((names[t] for t in pack.terms(slot).tolist()), ctx.last_field_keys):
            tested[j] = False  # names no field of this result: free text judges it
            continue
        pred = snap.rule(slot).trigger.predicate
        tested[j] = pred is not None and judge(pred, ctx.last_items).testable
    return tested
