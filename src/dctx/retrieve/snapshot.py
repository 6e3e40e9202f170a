"""A namespace's injectable rules held for retrieval: compact columns, views per reader.

The snapshot keeps the store's `PackedRules` (numpy columns, rows as JSON bytes) and the
vectors a decision point compares (`SlotVectors`: none for ALWAYS, TOOL or threshold rules);
a `View` sorts the slots one (skill, actor) can see by how they are triggered. No `Rule`
object exists per rule: the few a decision point returns are decoded (`Snapshot.rule`, with
a small cache), so a 100,000-rule snapshot costs the vectors it compares and a few bytes per
rule.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from dctx.models import Rule, TriggerKind
from dctx.retrieve.condition_match import Lexical
from dctx.retrieve.context import RunContext, data_condition_met
from dctx.retrieve.items import may_name_a_field, names_key
from dctx.retrieve.vectors import SlotVectors
from dctx.store.base import RuleChanges, RuleIndex
from dctx.store.packed import KINDS, IntArray, PackedRules, kept_vectors, key_hash, vector_needs

# snapshots hold vectors as float16: half the memory of a 100,000-rule rulebook; similarities
# move by ~1e-3 (products are computed in float32), far inside every calibrated margin
VECTOR_DTYPE = np.float16
DECODED_CACHE = 4096  # decoded rules kept per snapshot (those delivered again and again)
# Changes to more rows than this and than half the snapshot's slots are read by a rebuild:
# applying them holds the old columns, the changes and the grown columns at once, twice the
# memory of a rebuild (a process that wrote 50,000 rules onto its 50,000-rule snapshot
# peaked 100 MB higher than a rebuild).
REBUILD_ROWS = 1_000
_ALWAYS, _TOOL, _DATA = (
    KINDS.index(k) for k in (TriggerKind.ALWAYS, TriggerKind.TOOL, TriggerKind.DATA)
)


@dataclass(slots=True)
class View:
    """The slots one (skill, actor) can see, sorted by how they are triggered, so a decision
    point only touches rules that could fire there. Built once per snapshot and pair, then
    kept current by `add` / `remove` as changed rules are applied to the snapshot.

    DATA rules are indexed by keyword code (once per occurrence, so the lists also count the
    hits) and by numeric term code: a subject's name needs one of its stems seen, a negated
    value or a predicate a field or item, a threshold a numeric field whose path shares a
    term (or, while no such field is seen, a term seen at all: it may name the item that
    holds the number), so rules outside those lists cannot be met and are never evaluated.
    Rules with neither, and thresholds in percent (a fraction may meet them), are kept in
    `data_other`. Free-text conditions (and predicates, on prose results)
    are judged by the fitted condition model (retrieve/condition_match.py), on every text:
    they are listed in `data_worded`, and by keyword in `worded_by_keyword`, to count the
    words a text holds. Conflict groups are a sorted array of group hashes with the slots
    beside it.
    """

    idx: IntArray  # visible slots, ascending
    always: list[int]
    upfront_tools: list[int]  # TOOL rules delivered before the run
    after_tool: dict[int, list[int]]  # TOOL rules by the code of the tool that triggers them
    by_keyword: dict[int, list[int]]
    by_term: dict[int, list[int]]
    data_worded: list[int]  # DATA rules judged by the condition model
    worded_by_keyword: dict[int, list[int]]
    data_other: list[int]
    query: list[int]
    group_keys: IntArray  # group hashes of the visible slots, sorted
    group_slots: IntArray  # the slot of each entry of group_keys
    data_dated: list[int] = field(default_factory=list)  # thresholds with a date window
    _query: IntArray | None = None  # `query` as an array, until the next change
    _terms: dict[int, IntArray] = field(default_factory=dict)  # by_term lists as arrays

    @classmethod
    def build(cls, pack: PackedRules, idx: IntArray) -> View:
        keys = pack.group_hash[idx]
        order = np.argsort(keys, kind="stable")
        view = cls(idx, [], [], {}, {}, {}, [], {}, [], [], keys[order], idx[order])
        for i in idx.tolist():
            view._file(i, pack, add=True)
        return view

    def add(self, i: int, pack: PackedRules) -> None:
        self.idx = np.append(self.idx, i)
        key = pack.group_hash[i]
        at = int(np.searchsorted(self.group_keys, key, side="right"))
        self.group_keys = np.insert(self.group_keys, at, key)
        self.group_slots = np.insert(self.group_slots, at, i)
        self._file(i, pack, add=True)

    def remove(self, i: int, pack: PackedRules) -> None:
        self.idx = self.idx[self.idx != i]
        keep = self.group_slots != i
        self.group_keys, self.group_slots = self.group_keys[keep], self.group_slots[keep]
        self._file(i, pack, add=False)

    def group(self, key: int) -> IntArray:
        """Visible slots of the conflict group with this hash."""
        lo = int(np.searchsorted(self.group_keys, key, side="left"))
        hi = int(np.searchsorted(self.group_keys, key, side="right"))
        return self.group_slots[lo:hi]

    def group_sizes(self, keys: IntArray) -> IntArray:
        """Visible members of the conflict group of each of these group hashes."""
        hi = np.searchsorted(self.group_keys, keys, side="right")
        sizes: IntArray = hi - np.searchsorted(self.group_keys, keys, side="left")
        return sizes

    def query_slots(self) -> IntArray:
        if self._query is None:
            self._query = np.array(self.query, dtype=np.int64)
        return self._query

    def _file(self, i: int, pack: PackedRules, *, add: bool) -> None:
        """Put slot i into (or take it out of) every list its trigger belongs to."""
        self._query = None
        self._terms.clear()
        kind = int(pack.kind[i])
        lists: list[list[int]] = []
        if kind == _ALWAYS:
            lists.append(self.always)
        elif kind == _TOOL:
            after = int(pack.after_tool[i])
            lists.append(self.after_tool.setdefault(after, []) if after else self.upfront_tools)
        elif kind == _DATA:
            if pack.num_op[i] >= 0 and pack.percent[i]:  # a fraction may meet it: read whole
                lists.append(self.data_other)
            elif pack.num_op[i] >= 0:
                lists += [self.by_term.setdefault(t, []) for t in pack.terms(i).tolist()]
                if pack.soft[i]:  # in days: a date field may meet it too
                    lists.append(self.data_dated)
            elif words := pack.keywords(i).tolist():
                free_text = not pack.excluded[i] and not pack.subject_named[i]
                if free_text:  # a free-text condition, or a predicate (judged by it on prose)
                    lists += [self.worded_by_keyword.setdefault(w, []) for w in set(words)]
                    lists.append(self.data_worded)
                if not free_text or pack.predicate[i]:
                    lists += [self.by_keyword.setdefault(w, []) for w in words]
            else:
                lists.append(self.data_other)
        else:
            lists.append(self.query)
        for members in lists:
            if add:
                members.append(i)
            elif i in members:
                members.remove(i)

    def lexical(self, pack: PackedRules, seen: set[int]) -> dict[int, Lexical]:
        """What a text holds (`seen`: the codes of its stems) of the words of each
        `data_worded` slot with any keyword there; a slot not in the answer holds none."""
        touched = {i for code in seen for i in self.worded_by_keyword.get(code, ())}
        return {
            i: Lexical.of([frozenset(g.tolist()) for g in pack.alternatives(i)], seen)
            for i in touched
        }

    def term_slots(self, term: int) -> IntArray:
        found = self._terms.get(term)
        if found is None:
            found = self._terms[term] = np.array(self.by_term.get(term, ()), dtype=np.int64)
        return found


@dataclass(slots=True)
class Snapshot:
    """A namespace's injectable rules and vectors, by slot.

    A change read from the store's change log empties the slots of the rows it touched and
    appends their current state, so a snapshot follows other processes' captures without
    reloading everything (`Retriever.snapshot`). An emptied slot is dead (`alive` False), has
    zero vectors and no scope (a forgotten rule leaves nothing behind); delivery order is
    (created_at, row key), as a full load orders the rules.

    Scope skills and actors are integer codes of the pack's vocabulary (0: unscoped), never
    numpy string arrays: numpy compares strings as fixed-width, trailing-NUL-padded values,
    so "alice\\x00" would equal "alice". A name the snapshot does not know has no code.
    """

    generation: int
    cursor: int
    pack: PackedRules  # by slot
    alive: np.ndarray  # bool by slot
    text_vectors: SlotVectors  # VECTOR_DTYPE; only the vectors retrieval compares
    trigger_vectors: SlotVectors
    empty: int = 0  # emptied slots
    views: dict[tuple[str, str], View] = field(default_factory=dict)  # by (skill, actor)
    _decoded: OrderedDict[int, Rule] = field(default_factory=OrderedDict)
    _cache_lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def build(cls, index: RuleIndex) -> Snapshot:
        pack = index.packed
        if pack is None:  # a store that gave Rule objects: pack them
            pack = PackedRules.from_rules(index.rules, index.seqs or range(len(index.rules)))
        text, trigger = _slot_vectors(index, pack)
        return cls(
            generation=index.generation,
            cursor=index.cursor,
            pack=pack,
            alive=np.ones(len(pack), dtype=bool),
            text_vectors=text,
            trigger_vectors=trigger,
        )

    @property
    def slots(self) -> int:
        """Slots in use, live or emptied."""
        return len(self.pack)

    @property
    def size(self) -> int:
        """Live rules."""
        return self.slots - self.empty

    @property
    def decoded(self) -> int:
        """Rules held decoded (the cache of `rule`)."""
        return len(self._decoded)

    def live_slots(self) -> IntArray:
        return np.flatnonzero(self.alive)

    def rule(self, slot: int) -> Rule:
        """The rule in a live slot, decoded in full (recently decoded ones are kept)."""
        slot = int(slot)
        with self._cache_lock:  # decision points of several threads share the snapshot
            hit = self._decoded.get(slot)
            if hit is not None:
                self._decoded.move_to_end(slot)
                return hit
        if not self.alive[slot]:
            raise IndexError(f"snapshot slot {slot} was emptied")
        rule = self.pack.rule(slot)
        with self._cache_lock:
            self._decoded[slot] = rule
            if len(self._decoded) > DECODED_CACHE:
                self._decoded.popitem(last=False)
        return rule

    def rules(self, slots: Iterable[int]) -> list[Rule]:
        return [self.rule(i) for i in slots]

    def slot_of(self, rule_id: str) -> int | None:
        """The live slot holding this rule id, if any (a scan: for explain, not per decision)."""
        for i in np.flatnonzero((self.pack.id_hash == key_hash(rule_id)) & self.alive).tolist():
            if self.rule(i).id == rule_id:
                return int(i)
        return None

    def apply(self, changes: RuleChanges) -> None:
        """Bring the snapshot to `changes.index.generation`: empty the slots of every changed
        row, then append the current state of those still injectable (views follow)."""
        pack = self.pack
        changed = np.asarray(changes.changed, dtype=np.int64)
        for slot in np.flatnonzero(np.isin(pack.seq, changed) & self.alive).tolist():
            for (skill, actor), view in self.views.items():
                if self.admits(slot, skill, actor):
                    view.remove(slot, pack)
            self.alive[slot] = False
            with self._cache_lock:
                self._decoded.pop(slot, None)
            self.text_vectors.clear(slot)
            self.trigger_vectors.clear(slot)
            pack.skill[slot] = pack.scope_actor[slot] = -2  # in no scope
            self.empty += 1
        new = changes.index
        more = new.packed
        if more is None:
            more = PackedRules.from_rules(new.rules, new.seqs)
        if len(more):
            first = len(pack)
            pack.extend(more)
            self.alive = np.append(self.alive, np.ones(len(more), dtype=bool))
            text, trigger = _slot_vectors(new, more)
            self.text_vectors.extend(text)
            self.trigger_vectors.extend(trigger)
            for (skill, actor), view in self.views.items():
                for slot in range(first, len(pack)):
                    if self.admits(slot, skill, actor):
                        view.add(slot, pack)
        self.generation, self.cursor = new.generation, new.cursor

    def accepts(self, changes: RuleChanges) -> bool:
        """Changed rows fit this snapshot (same vector size: not a re-embed to another one)
        and cheaper to apply than a rebuild (at most REBUILD_ROWS or half the slots held)."""
        new = changes.index.text_vectors
        more = changes.index.packed
        count = len(more) if more is not None else len(changes.index.rules)
        if len(changes.changed) > max(REBUILD_ROWS, self.slots // 2):
            return False
        return not count or not self.slots or new.shape[1] == self.text_vectors.dim

    def admits(self, slot: int, skill: str, actor: str) -> bool:
        sk, ac = int(self.pack.skill[slot]), int(self.pack.scope_actor[slot])
        vocab = self.pack.vocab
        return (sk == 0 or sk == vocab.get(skill)) and (ac == 0 or ac == vocab.get(actor))

    def scope_mask(self, *, skill: str, actor: str) -> np.ndarray:
        """Slots whose scope admits this skill and actor (emptied slots are in no scope)."""
        vocab, pack = self.pack.vocab, self.pack
        sk, ac = vocab.get(skill), vocab.get(actor)  # -1 (unknown) matches no scope
        mask: np.ndarray = ((pack.skill == 0) | (pack.skill == sk)) & (
            (pack.scope_actor == 0) | (pack.scope_actor == ac)
        )
        return mask

    def ordered(self, slots: Iterable[int]) -> list[int]:
        """Slots in delivery order (oldest rule first)."""
        arr = np.asarray(list(slots), dtype=np.int64)
        if arr.size < 2:
            return arr.tolist()  # type: ignore[no-any-return]
        order = np.lexsort((self.pack.seq[arr], self.pack.created[arr]))
        return arr[order].tolist()  # type: ignore[no-any-return]

    def met_data(self, view: View, ctx: RunContext) -> list[int]:
        """DATA slots of the view whose condition the run has met, ascending: subjects'
        names met whole (every stem seen, counted from the view's lists), thresholds
        compared as arrays (only their hits decoded and tested in full), and negated,
        predicate and other conditions decoded and tested in full. Free-text conditions
        are not met here (`Retriever` judges them, text by text)."""
        pack = self.pack
        codes, names = pack.vocab.codes, pack.vocab.names
        hits: dict[int, int] = {}
        if len(ctx.stems) < len(view.by_keyword):
            seen = (view.by_keyword.get(codes.get(s, -1), ()) for s in ctx.stems)
        else:
            seen = (m for w, m in view.by_keyword.items() if names[w] in ctx.stems)
        for members in seen:
            for i in members:
                hits[i] = hits.get(i, 0) + 1
        met: set[int] = set()
        full = list(view.data_other)
        changed: set[str] | None = None
        for i, count in hits.items():
            if pack.change[i]:  # tested only where a number has a key it names
                if changed is None:  # a number's key, or a field's ("differ")
                    changed = ctx.number_keys | ctx.field_keys
                if names_key((names[t] for t in pack.terms(i).tolist()), changed):
                    full.append(i)
            elif pack.soft[i]:  # tested only on items with a field it names, or a status
                if may_name_a_field((names[t] for t in pack.terms(i).tolist()), ctx.field_keys):
                    full.append(i)
            elif pack.excluded[i] or pack.predicate[i]:
                full.append(i)
            elif count >= int(pack.kw_off[i + 1] - pack.kw_off[i]):  # the whole name
                met.add(i)
        if view.data_dated and ctx.date_keys:  # date windows naming a date field seen
            full += [
                i
                for i in view.data_dated
                if names_key((names[t] for t in pack.terms(i).tolist()), ctx.date_keys)
            ]
        if view.by_term and ctx.numbers:
            for path, value in ctx.numbers:
                terms = [codes[t] for t in path if t in codes]
                arrays = [view.term_slots(t) for t in terms if t in view.by_term]
                if not arrays:
                    continue
                cand = np.unique(np.concatenate(arrays)) if len(arrays) > 1 else arrays[0]
                # a hit is tested in full: of the fields its terms name, the test reads only
                # those that say what it measures (`threshold_fields`)
                full += cand[_threshold_met(pack, cand, value)].tolist()
        if view.by_term:
            full += _unnamed_thresholds(pack, view, ctx)
        met.update(i for i in set(full) if data_condition_met(self.rule(i).trigger, ctx))
        return sorted(met)


def _unnamed_thresholds(pack: PackedRules, view: View, ctx: RunContext) -> list[int]:
    """Thresholds of the view none of whose terms names a numeric field seen, though the run
    has seen one of them: `data_condition_met` reads them on the numbers of the items their
    terms name (`threshold_fields`)."""
    codes, names = pack.vocab.codes, pack.vocab.names
    keyed = ctx.number_keys
    if len(ctx.stems) < len(view.by_term):
        lists = (view.by_term.get(codes.get(s, -1), ()) for s in ctx.stems if s not in keyed)
    else:
        lists = (
            m for t, m in view.by_term.items() if names[t] in ctx.stems and names[t] not in keyed
        )
    touched = {i for members in lists for i in members}
    return [i for i in touched if not any(names[t] in keyed for t in pack.terms(i).tolist())]


def _threshold_met(pack: PackedRules, slots: IntArray, value: float) -> np.ndarray:
    """Which of these numeric conditions `value` meets (op codes index packed.OPS)."""
    op, bound = pack.num_op[slots], pack.num_value[slots]
    met: np.ndarray = (
        ((op == 0) & (value < bound))
        | ((op == 1) & (value <= bound))
        | ((op == 2) & (value > bound))
        | ((op == 3) & (value >= bound))
    )
    return met


def _slot_vectors(index: RuleIndex, pack: PackedRules) -> tuple[SlotVectors, SlotVectors]:
    """The index's vectors by slot of `pack`, only those retrieval compares (a store that
    read them all gives them dense: the others are dropped here)."""
    if index.compact_vectors:
        rows = kept_vectors(pack)
        return (
            SlotVectors.compact(index.text_vectors, rows[0]),
            SlotVectors.compact(index.trigger_vectors, rows[1]),
        )
    keep = vector_needs(pack)
    return (
        SlotVectors.keep(index.text_vectors, keep[0]),
        SlotVectors.keep(index.trigger_vectors, keep[1]),
    )
