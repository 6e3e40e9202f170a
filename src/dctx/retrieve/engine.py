"""Find the rules that apply at a decision point.

Type routing (Finding 2): FORMAT/ALWAYS rules apply in scope without any similarity test; tool
rules apply before their tool; DATA rules when their condition is met by what the run has seen;
QUERY rules by hybrid search (BM25 + cosine fused with RRF, k = 60) above a similarity floor.
Conflicting rules of one group are resolved per querying actor (conflicts.py).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

import numpy as np

from dctx.models import Rule, RuleStatus, TriggerKind
from dctx.providers.base import Embedder, Vector
from dctx.retrieve.condition_match import (
    NOTHING_SEEN,
    ConditionModel,
    Lexical,
    alternatives,
    condition_model,
)
from dctx.retrieve.conflicts import Decision, decide, resolve_conflicts
from dctx.retrieve.context import RunContext, data_condition_met
from dctx.retrieve.fusion import rrf
from dctx.store.base import RuleChanges, RuleIndex, Store


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
# snapshots hold vectors as float16: half the memory of a 100,000-rule rulebook; similarities
# move by ~1e-3 (products are computed in float32), far inside every calibrated margin
VECTOR_DTYPE = np.float16
# the only status ever delivered: drafts wait for a person, candidates (lessons taken from tool
# output) for independent evidence or a person; both are stored, never injected
INJECTED = (RuleStatus.ACTIVE,)


@dataclass(slots=True)
class View:
    """The rules one (skill, actor) can see, sorted by how they are triggered, so a decision
    point only touches rules that could fire there. Built once per snapshot and pair, then
    kept current by `add` / `remove` as changed rules are applied to the snapshot.

    DATA rules tested by `data_condition_met` are indexed by keyword stem and by numeric
    term: it needs at least one keyword among the stems seen, or a numeric field whose path
    shares a term, so rules outside those lists cannot be met and are never evaluated. Rules
    with neither keywords nor a threshold are kept in `data_other` and always evaluated.
    Free-text conditions (and predicates, on prose results) are judged by the fitted
    condition model (condition_match.py): they are listed in `data_worded` and indexed by
    keyword in `worded_by_keyword`, which counts the keywords a text holds.
    """

    idx: np.ndarray  # visible slots, ascending
    always: list[int]
    upfront_tools: list[int]  # TOOL rules delivered before the run
    after_tool: dict[str, list[int]]  # TOOL rules by the tool whose return triggers them
    by_keyword: dict[str, list[int]]
    by_term: dict[str, list[int]]
    data_worded: list[int]  # DATA rules judged by the condition model
    worded_by_keyword: dict[str, list[int]]
    worded_groups: dict[int, list[frozenset[str]]]  # slot -> its alternatives' keywords
    data_other: list[int]
    query: list[int]
    groups: dict[str, list[int]]  # conflict group -> visible members

    @classmethod
    def build(cls, rules: Sequence[Rule | None], idx: np.ndarray) -> View:
        view = cls(idx, [], [], {}, {}, {}, [], {}, {}, [], [], {})
        for i in (int(j) for j in idx):
            rule = rules[i]
            assert rule is not None  # idx holds live slots only
            view._file(i, rule, add=True)
        return view

    def add(self, i: int, rule: Rule) -> None:
        self.idx = np.append(self.idx, i)
        self._file(i, rule, add=True)

    def remove(self, i: int, rule: Rule) -> None:
        self.idx = self.idx[self.idx != i]
        self._file(i, rule, add=False)

    def _file(self, i: int, rule: Rule, *, add: bool) -> None:
        """Put slot i into (or take it out of) every list its trigger belongs to."""
        trig = rule.trigger
        lists = [self.groups.setdefault(rule.group, [])]
        if trig.kind is TriggerKind.ALWAYS:
            lists.append(self.always)
        elif trig.kind is TriggerKind.TOOL:
            if trig.after_tool is None:
                lists.append(self.upfront_tools)
            else:
                lists.append(self.after_tool.setdefault(trig.after_tool, []))
        elif trig.kind is TriggerKind.DATA:
            if trig.numeric is not None:
                lists += [self.by_term.setdefault(t, []) for t in set(trig.numeric.terms)]
            elif trig.keywords and not trig.excluded and not names_subject(rule):
                # a free-text condition, or a predicate (judged by it on prose results)
                lists += [self.worded_by_keyword.setdefault(w, []) for w in set(trig.keywords)]
                lists.append(self.data_worded)
                if add:
                    self.worded_groups[i] = alternatives(trig.text, trig.keywords)
                else:
                    self.worded_groups.pop(i, None)
                if trig.predicate is not None:
                    lists += [self.by_keyword.setdefault(w, []) for w in set(trig.keywords)]
            elif trig.keywords:
                lists += [self.by_keyword.setdefault(w, []) for w in set(trig.keywords)]
            else:
                lists.append(self.data_other)
        else:
            lists.append(self.query)
        for members in lists:
            if add:
                members.append(i)
            elif i in members:
                members.remove(i)

    def lexical(self, stems: set[str]) -> dict[int, Lexical]:
        """What `stems` hold of the words of each `data_worded` slot with any keyword there
        (a slot not in the answer holds none)."""
        touched = {i for s in stems for i in self.worded_by_keyword.get(s, ())}
        return {i: Lexical.of(self.worded_groups[i], stems) for i in touched}

    def data_candidates(self, ctx: RunContext) -> list[int]:
        """DATA rules that could be met by what the run has seen."""
        found: set[int] = set(self.data_other)
        if len(ctx.stems) < len(self.by_keyword):
            for stem_ in ctx.stems:
                found.update(self.by_keyword.get(stem_, ()))
        else:
            for word, members in self.by_keyword.items():
                if word in ctx.stems:
                    found.update(members)
        if self.by_term and ctx.numbers:
            for term in set().union(*(path for path, _ in ctx.numbers)):
                found.update(self.by_term.get(term, ()))
        return sorted(found)


@dataclass(slots=True)
class Snapshot:
    """A namespace's injectable rules and vectors, with arrays for vectorized scope masks.

    Rules live in slots: a change read from the store's change log empties the slots of the
    rows it touched and appends their current state, so a snapshot follows other processes'
    captures without reloading everything (`Retriever.snapshot`). Emptied slots hold None and
    a zero vector (a forgotten rule leaves nothing behind); delivery order comes from `keys`
    (created_at, row key), as a full load would order the rules.

    Scope skills and actors are held as integer codes (0: unscoped), never as numpy string
    arrays: numpy compares strings as fixed-width, trailing-NUL-padded values, so
    "alice\x00" would equal "alice". A name the snapshot does not know has no code.
    """

    generation: int
    cursor: int
    rules: list[Rule | None]  # by slot
    keys: list[tuple[str, int]]  # by slot: delivery order
    slot_of: dict[int, int]  # row key -> slot
    text_vectors: np.ndarray  # (capacity >= slots, dim), VECTOR_DTYPE; rows past the slots unused
    trigger_vectors: np.ndarray
    skills: np.ndarray  # int codes into skill_codes
    actors: np.ndarray  # int codes into actor_codes
    skill_codes: dict[str, int]
    actor_codes: dict[str, int]
    conditional: np.ndarray  # QUERY rules whose trigger is a stated request condition
    empty: int = 0  # emptied slots
    views: dict[tuple[str, str], View] = field(default_factory=dict)  # by (skill, actor)

    @classmethod
    def build(cls, index: RuleIndex) -> Snapshot:
        rules = index.rules
        seqs = index.seqs or list(range(len(rules)))
        snap = cls(
            generation=index.generation,
            cursor=index.cursor,
            rules=list(rules),
            keys=[(r.created_at, q) for r, q in zip(rules, seqs, strict=True)],
            slot_of={q: i for i, q in enumerate(seqs)},
            text_vectors=index.text_vectors,
            trigger_vectors=index.trigger_vectors,
            skills=np.zeros(0, dtype=np.int64),
            actors=np.zeros(0, dtype=np.int64),
            skill_codes={},
            actor_codes={},
            conditional=np.array([bool(r.qualifiers) for r in rules], dtype=bool),
        )
        snap.skills = _codes([r.scope.skill for r in rules], snap.skill_codes)
        snap.actors = _codes([r.scope.actor for r in rules], snap.actor_codes)
        return snap

    @property
    def size(self) -> int:
        """Live rules."""
        return len(self.rules) - self.empty

    def apply(self, changes: RuleChanges) -> None:
        """Bring the snapshot to `changes.index.generation`: empty the slots of every changed
        row, then append the current state of those still injectable (views follow)."""
        for seq in changes.changed:
            slot = self.slot_of.pop(seq, None)
            rule = None if slot is None else self.rules[slot]
            if slot is None or rule is None:
                continue
            for (skill, actor), view in self.views.items():
                if self._admits(slot, skill, actor):
                    view.remove(slot, rule)
            self.rules[slot] = None
            self.text_vectors[slot] = 0.0
            self.trigger_vectors[slot] = 0.0
            self.skills[slot] = self.actors[slot] = -2  # in no scope
            self.empty += 1
        new = changes.index
        if new.rules:
            first = len(self.rules)
            self.rules += new.rules
            self.keys += [(r.created_at, q) for r, q in zip(new.rules, new.seqs, strict=True)]
            self.slot_of.update({q: first + k for k, q in enumerate(new.seqs)})
            self.text_vectors = _append_rows(self.text_vectors, first, new.text_vectors)
            self.trigger_vectors = _append_rows(self.trigger_vectors, first, new.trigger_vectors)
            self.skills = np.append(
                self.skills, _codes([r.scope.skill for r in new.rules], self.skill_codes)
            )
            self.actors = np.append(
                self.actors, _codes([r.scope.actor for r in new.rules], self.actor_codes)
            )
            self.conditional = np.append(self.conditional, [bool(r.qualifiers) for r in new.rules])
            for (skill, actor), view in self.views.items():
                for slot in range(first, len(self.rules)):
                    if self._admits(slot, skill, actor):
                        rule = self.rules[slot]
                        assert rule is not None
                        view.add(slot, rule)
        self.generation, self.cursor = new.generation, new.cursor

    def accepts(self, changes: RuleChanges) -> bool:
        """Changed rows fit this snapshot (same vector size: not a re-embed to another one)."""
        new = changes.index.text_vectors
        return (
            not changes.index.rules or not self.rules or new.shape[1] == self.text_vectors.shape[1]
        )

    def _admits(self, slot: int, skill: str, actor: str) -> bool:
        sk, ac = int(self.skills[slot]), int(self.actors[slot])
        return (sk == 0 or sk == self.skill_codes.get(skill, -1)) and (
            ac == 0 or ac == self.actor_codes.get(actor, -1)
        )

    def ordered(self, slots: list[int]) -> list[int]:
        """Slots in delivery order (oldest rule first)."""
        return sorted(slots, key=self.keys.__getitem__)

    @property
    def live(self) -> list[Rule]:
        """The slots as rules, for indexing by the slots of a view (never an emptied one)."""
        return cast("list[Rule]", self.rules)


def _sims(matrix: np.ndarray, rows: np.ndarray, vec: Vector) -> np.ndarray:
    """Cosines of the rows with `vec`: the float16 rows are widened first, since numpy has no
    BLAS product of float16 by float32 (mixed, it runs a generic loop 50x slower)."""
    return np.asarray(matrix[rows], dtype=np.float32) @ np.asarray(vec, dtype=np.float32)


def _append_rows(matrix: np.ndarray, used: int, more: np.ndarray) -> np.ndarray:
    """Rows `more` after the first `used` rows, growing by a quarter when full: a change
    applied to a 100,000-rule snapshot copies the whole matrix only now and then."""
    if used == 0 and matrix.shape[1:] != more.shape[1:]:
        matrix = np.zeros((0, *more.shape[1:]), dtype=VECTOR_DTYPE)
    need = used + more.shape[0]
    if need > matrix.shape[0]:
        bigger = np.zeros((max(need, used + used // 4 + 64), *matrix.shape[1:]), matrix.dtype)
        bigger[:used] = matrix[:used]
        matrix = bigger
    matrix[used:need] = more
    return matrix


def _codes(names: Sequence[str | None], codes: dict[str, int]) -> np.ndarray:
    """Exact integer codes for scope names: 0 for None or "", then 1, 2, ... per distinct name."""
    out = np.zeros(len(names), dtype=np.int64)
    for i, name in enumerate(names):
        if name:
            out[i] = codes.setdefault(name, len(codes) + 1)
    return out


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
            if snap is not None and snap.empty * 4 <= len(snap.rules):
                changes = self.store.rule_changes(
                    namespace, INJECTED, snap.cursor, dtype=VECTOR_DTYPE
                )
                if changes is not None and not snap.accepts(changes):
                    changes = None
            if snap is None or changes is None:
                snap = Snapshot.build(
                    self.store.rule_index(namespace, INJECTED, dtype=VECTOR_DTYPE)
                )
                self._snapshots[namespace] = snap
            else:
                snap.apply(changes)
            return snap

    def visible(self, snap: Snapshot, *, skill: str, actor: str) -> np.ndarray:
        """Indices of rules whose scope admits this actor and skill."""
        return self.view(snap, skill=skill, actor=actor).idx

    def view(self, snap: Snapshot, *, skill: str, actor: str) -> View:
        """The (skill, actor) view of a snapshot, built on first use."""
        key = (skill, actor)
        view = snap.views.get(key)
        if view is None:
            if snap.live:
                skill_code = snap.skill_codes.get(skill, -1)  # -1: matches no rule's scope
                actor_code = snap.actor_codes.get(actor, -1)
                mask = ((snap.skills == 0) | (snap.skills == skill_code)) & (
                    (snap.actors == 0) | (snap.actors == actor_code)
                )
                idx = np.flatnonzero(mask)
            else:
                idx = np.zeros(0, dtype=np.int64)
            view = snap.views[key] = View.build(snap.live, idx)
        return view

    def _resolve(
        self, view: View, rules: Sequence[Rule], chosen: list[int], actor: str
    ) -> list[Rule]:
        """Resolve conflicts where one is possible: a group with a single visible member always
        keeps it, so only rules of larger groups go through `resolve_conflicts` (given just
        those groups' members: the same decision at a fraction of the cost on big rulebooks)."""
        contested = [i for i in chosen if len(view.groups[rules[i].group]) > 1]
        if not contested:
            return [rules[i] for i in chosen]
        members = sorted({j for i in contested for j in view.groups[rules[i].group]})
        won = resolve_conflicts(
            [rules[i] for i in contested], rules, np.array(members, dtype=np.int64), actor=actor
        )
        winners = {r.id for r in won}
        return [
            rules[i]
            for i in chosen
            if len(view.groups[rules[i].group]) == 1 or rules[i].id in winners
        ]

    def conflict(self, namespace: str, group: str, *, skill: str, actor: str) -> Decision:
        """How `group` is resolved for `actor`: its members that actor can see, the winner,
        and why (own rule, majority, abstain; or no conflict)."""
        snap = self.snapshot(namespace)
        view = self.view(snap, skill=skill, actor=actor)
        members = [r for r in (snap.rules[i] for i in view.groups.get(group, [])) if r is not None]
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
        rules = snap.live
        chosen = list(view.always)
        chosen += [i for i in view.upfront_tools if tools is None or rules[i].trigger.tool in tools]
        chosen += [
            i for i in view.data_candidates(ctx) if data_condition_met(rules[i].trigger, ctx)
        ]
        # a free-text condition met by the query ("when the invoice is overdue": "chase the
        # overdue invoices"); predicates are judged on result items and the query's own words
        plain = [i for i in view.data_worded if rules[i].trigger.predicate is None]
        chosen += self._worded_met(snap, view, plain, query_vec, ctx.query_stems)
        chosen = snap.ordered(chosen)  # oldest first, as delivered
        chosen.extend(
            self._query_matches(namespace, snap, view.query, query_vec, ctx.query, skill=skill)
        )
        return self._resolve(view, rules, chosen, actor)

    def _query_matches(
        self,
        namespace: str,
        snap: Snapshot,
        candidates: list[int],
        query_vec: Vector,
        query: str,
        *,
        skill: str | None = None,
    ) -> list[int]:
        if not candidates:
            return []
        cand = np.array(candidates)
        trig = _sims(snap.trigger_vectors, cand, query_vec)
        sims = np.maximum(trig, _sims(snap.text_vectors, cand, query_vec))
        conditional = snap.conditional[cand]
        ok = (sims >= self.calibration.query_floor) | (
            conditional & (trig >= self.calibration.condition_floor)
        )
        rules = snap.live
        stated = {_stated_condition(rules[int(i)]) for i in cand[ok & conditional]}
        if stated:
            # one condition stated for several rules ("whenever I ask you to compare: a table,
            # and bold the winner"): when it holds for one, it holds for all of them
            ok |= np.array([_stated_condition(rules[int(i)]) in stated for i in cand])
        passing = cand[ok]
        if passing.size == 0:
            return []
        order = passing[np.argsort(-sims[ok])]
        cos_rank = [snap.live[int(i)].id for i in order]
        allowed = set(cos_rank)
        bm25_rank = [
            rid
            for rid, _ in self.store.search_text(namespace, query, 50, skill=skill)
            if rid in allowed
        ]
        fused = rrf([cos_rank, bm25_rank])
        best = sorted(fused, key=lambda rid: -fused[rid])[: self.calibration.top_k]
        pos = {r.id: int(i) for i, r in ((int(j), snap.live[int(j)]) for j in order)}
        return [pos[rid] for rid in best]

    def _worded_met(
        self, snap: Snapshot, view: View, slots: list[int], vec: Vector, stems: set[str]
    ) -> list[int]:
        """The slots whose free-text condition the text (its vector and stems) meets."""
        if not slots:
            return []
        cand = np.array(slots, dtype=np.int64)
        seen = view.lexical(stems)
        met = self.conditions.fires(
            _sims(snap.trigger_vectors, cand, vec), [seen.get(i, NOTHING_SEEN) for i in slots]
        )
        return [int(i) for i in cand[met]]

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
        rules = snap.live
        last_tool = ctx.tools_called[-1] if ctx.tools_called else None
        chosen = [
            i
            for i in view.data_candidates(ctx)
            if rules[i].id not in delivered and data_condition_met(rules[i].trigger, ctx)
        ]
        if step_vec is not None and view.data_worded:
            # "the news turns up litigation" met by a headline that says "sues", or by a step
            # that holds all its words; never by one word of several
            met = set(chosen)
            rest = [
                i
                for i in view.data_worded
                if i not in met
                and rules[i].id not in delivered
                # a predicate is judged on structured data, never by resemblance to it
                and not (ctx.last_structured and rules[i].trigger.predicate is not None)
            ]
            chosen += self._worded_met(snap, view, rest, step_vec, ctx.step_stems | ctx.query_stems)
        if last_tool is not None:
            chosen += [
                i for i in view.after_tool.get(last_tool, ()) if rules[i].id not in delivered
            ]
        chosen = snap.ordered(chosen)  # oldest first, as delivered
        query_candidates = [i for i in view.query if rules[i].id not in delivered]
        if step_vec is not None and query_candidates:
            cand = np.array(query_candidates)
            sims = np.maximum(
                _sims(snap.trigger_vectors, cand, step_vec),
                _sims(snap.text_vectors, cand, step_vec),
            )
            passing = np.flatnonzero(sims >= self.calibration.step_floor)
            best = passing[np.argsort(-sims[passing], kind="stable")][: self.calibration.top_k]
            chosen.extend(int(i) for i in cand[best])
        return self._resolve(view, rules, chosen, actor)


def names_subject(rule: Rule) -> bool:
    """A subject-scoped rule triggered by its subject's name: a name, not a condition, so
    its words are matched as words (`data_condition_met`)."""
    return rule.scope.subject is not None and rule.trigger.text == rule.scope.subject


def _stated_condition(rule: Rule) -> tuple[str | None, str, tuple[str, ...]]:
    """Who stated which request condition: rules sharing it are delivered together."""
    return (rule.actor, rule.trigger.text, tuple(rule.qualifiers))
