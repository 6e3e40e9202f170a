"""Retrieval snapshots keep rules as compact columns (store/packed.py) and decode only the
rules a decision point returns; what they decide must be what the full rules decide."""

from __future__ import annotations

import random

import numpy as np

from dctx.memory import Memory
from dctx.models import (
    NumericCondition,
    Predicate,
    Rule,
    RuleSource,
    RuleStatus,
    RuleType,
    Scope,
    Trigger,
    TriggerKind,
)
from dctx.retrieve.condition_match import NOTHING_SEEN, Lexical, alternatives, names_subject
from dctx.retrieve.context import RunContext, data_condition_met
from dctx.retrieve.engine import INJECTED, VECTOR_DTYPE, Snapshot, View
from dctx.store.base import CaptureBatch, RuleIndex
from dctx.store.packed import PackedRules, kept_vectors, vector_needs

DIM = 8
STEMS = ["revenu", "margin", "churn", "refund", "lawsuit", "outag", "price", "runway", "harlow"]
SUBJECT = "Harlow Freight"
TERMS = ["revenu", "margin", "runway", "month", "price"]


def _trigger(rng: random.Random) -> Trigger:
    kind = rng.choice(list(TriggerKind))
    if kind is TriggerKind.DATA:
        shape = rng.randrange(7)
        words = rng.sample(STEMS, rng.randint(1, 4))
        if shape == 0:  # a threshold
            op = rng.choice(["<", "<=", ">", ">="])
            terms = rng.sample(TERMS, rng.randint(1, 2))
            return Trigger(kind, "a threshold", numeric=NumericCondition(terms, op, 10.0))  # type: ignore[arg-type]
        if shape == 1:  # a negated condition
            return Trigger(kind, "not usd", keywords=["currenc"], excluded=["USD"])
        if shape == 2:  # a predicate over result items
            pred = Predicate(terms=["pod"], values=["CrashLoopBackOff"])
            return Trigger(kind, "a crashing pod", keywords=["pod"], predicate=pred)
        if shape == 3:  # nothing to index by
            return Trigger(kind, "anything")
        if shape == 4:  # a subject's name (its scope names it too: `_rules`)
            return Trigger(kind, SUBJECT, keywords=["harlow", "freight"])
        if shape == 5:  # a condition that lists alternatives
            return Trigger(
                kind, "refunds, lawsuits or outages", keywords=["refund", "lawsuit", "outag"]
            )
        return Trigger(kind, "words", keywords=words + words[:1] * rng.randint(0, 1))
    if kind is TriggerKind.TOOL:
        after = rng.choice([None, "get_orders", "get_logs"])
        return Trigger(kind, "a tool", tool=rng.choice(["refund", "restart"]), after_tool=after)
    return Trigger(kind, f"situation {rng.random():.3f}")


def _rules(n: int, seed: int = 3) -> list[Rule]:
    rng = random.Random(seed)
    return [
        Rule(
            id=f"r{i:04d}",
            text=f"Rule {i}: do the thing {rng.random():.4f}.",
            type=rng.choice(list(RuleType)),
            trigger=(trigger := _trigger(rng)),
            scope=Scope(
                namespace=rng.choice(["default", "default", "other"]),
                skill=rng.choice([None, "fin", "ops"]),
                actor=rng.choice([None, "alice", "bob"]),
                subject=SUBJECT if trigger.text == SUBJECT else None,
            ),
            source=RuleSource.CORRECTION,
            actor=rng.choice(["alice", "bob", "carol"]),
            group=f"g{rng.randrange(n // 3 + 1)}",
            qualifiers=rng.choice([[], ["for enterprise clients"]]),
            supporters=["alice"],
            history=[{"event": "edited", "note": "ünïcode ✓"}] if i % 7 == 0 else [],
            created_at=f"2026-01-{1 + i % 28:02d}T00:00:{i % 60:02d}Z",  # not in id order
        )
        for i in range(n)
    ]


def _write(mem: Memory, rules: list[Rule]) -> None:
    text = mem.embedder.embed([r.text for r in rules])
    trigger = mem.embedder.embed([r.trigger.text for r in rules])
    vectors = {r.id: (text[i], trigger[i]) for i, r in enumerate(rules)}
    mem.store.write(CaptureBatch(rules=rules, rule_vectors=vectors))


def _snapshot(rules: list[Rule]) -> Snapshot:
    n = len(rules)
    pack = PackedRules.from_rules(rules, list(range(1, n + 1)))
    zeros = np.zeros((n, DIM), dtype=VECTOR_DTYPE)
    return Snapshot.build(RuleIndex(1, [], zeros, zeros.copy(), packed=pack))


def test_packed_rows_decode_to_the_rules_the_store_holds(backend_mem: Memory) -> None:
    rules = _rules(120)
    _write(backend_mem, rules)
    full = backend_mem.store.rule_index("default", INJECTED)
    packed = backend_mem.store.rule_index("default", INJECTED, packed=True)
    assert packed.rules == [] and packed.packed is not None
    decoded = [packed.packed.rule(i).to_dict() for i in range(len(packed.packed))]
    assert decoded == [r.to_dict() for r in full.rules]  # every field, in delivery order
    assert packed.seqs == full.seqs
    assert packed.compact_vectors and not full.compact_vectors
    needs = vector_needs(packed.packed)
    for keep, rows, compact, dense in zip(
        needs,
        kept_vectors(packed.packed),
        (packed.text_vectors, packed.trigger_vectors),
        (full.text_vectors, full.trigger_vectors),
        strict=True,
    ):
        assert 0 < keep.sum() < len(keep)  # some vectors are held, not all
        assert compact.shape == (1 + keep.sum(), dense.shape[1])  # a zero row, then the kept
        assert not compact[0].any() and (rows[~keep] == 0).all()
        assert np.array_equal(compact[rows[keep]], dense[keep])  # exactly the stored vectors


def test_data_conditions_from_columns_match_the_full_test() -> None:
    rules = [r for r in _rules(400) if r.scope.namespace == "default"]
    snap = _snapshot(rules)
    view = View.build(snap.pack, np.arange(len(rules)))
    rng = random.Random(5)
    data = [i for i, r in enumerate(rules) if r.trigger.kind is TriggerKind.DATA]
    met = 0
    for _ in range(40):
        ctx = RunContext.start("review the quarter")
        ctx.stems.update(rng.sample(STEMS, rng.randint(0, 5)))
        for _ in range(rng.randint(0, 3)):
            ctx.numbers.append((set(rng.sample(TERMS, 2)), rng.uniform(0, 20)))
        if rng.random() < 0.7:  # a string field, its key seen as a stem (as add_step does)
            ctx.strings.append(({"currenc"}, rng.choice(["USD", "EUR"])))
            ctx.stems.add("currenc")
        expected = [
            i
            for i in data
            if not _free_text(rules[i]) and data_condition_met(rules[i].trigger, ctx)
        ]
        assert snap.met_data(view, ctx) == expected
        met += len(expected)
    assert met  # the contexts do meet some conditions


def test_words_seen_of_free_text_conditions_from_columns_match_the_rules() -> None:
    rules = [r for r in _rules(400) if r.scope.namespace == "default"]
    snap = _snapshot(rules)
    view = View.build(snap.pack, np.arange(len(rules)))
    codes = snap.pack.vocab.codes
    free = [i for i, r in enumerate(rules) if _free_text(r)]
    assert sorted(view.data_worded) == free
    assert any(len(snap.pack.alternatives(i)) > 1 for i in free)  # some list alternatives
    rng = random.Random(7)
    for _ in range(40):
        stems = set(rng.sample(STEMS, rng.randint(0, 5)))
        got = view.lexical(snap.pack, {codes[s] for s in stems if s in codes})
        for i in free:
            trig = rules[i].trigger
            expected = Lexical.of(alternatives(trig.text, trig.keywords), stems)
            assert got.get(i, NOTHING_SEEN) == expected, (trig.text, stems)


def _free_text(rule: Rule) -> bool:
    """Judged by the condition model, read from the Rule."""
    trig = rule.trigger
    return (
        trig.kind is TriggerKind.DATA
        and trig.numeric is None
        and bool(trig.keywords)
        and not trig.excluded
        and not names_subject(rule)
    )


def test_views_keep_exactly_the_scope_filters(mem: Memory) -> None:
    rules = _rules(150)
    _write(mem, rules)
    snap = mem.retriever.snapshot("default")
    for skill in ("fin", "ops", "hr"):
        for actor in ("alice", "bob", "zed", "alice\x00"):
            expected = sorted(
                r.id for r in rules if r.scope.admits(namespace="default", skill=skill, actor=actor)
            )
            got = sorted(
                r.id for r in snap.rules(mem.retriever.visible(snap, skill=skill, actor=actor))
            )
            assert got == expected, (skill, actor)


def test_a_decision_point_decodes_only_what_it_returns(mem: Memory) -> None:
    rules = [r for r in _rules(300) if r.scope.namespace == "default"]
    for r in rules:  # one author and group each: no conflict to resolve
        r.scope, r.group = Scope(), r.id
    _write(mem, rules)
    snap = mem.retriever.snapshot("default")
    assert snap.size == len(rules) and snap.decoded == 0
    query = "review the quarter"
    found = mem.retriever.stage1(
        "default",
        skill="fin",
        actor="alice",
        ctx=RunContext.start(query),
        query_vec=mem.embedder.embed([query])[0],
        tools=None,
    )
    tested = [  # DATA conditions only a decoded rule can test (negated, predicate, other)
        r
        for r in rules
        if r.trigger.kind is TriggerKind.DATA
        and r.trigger.numeric is None
        and (r.trigger.excluded or r.trigger.predicate or not r.trigger.keywords)
    ]
    assert found  # ALWAYS rules at least
    assert snap.decoded <= len(found) + len(tested) < len(rules) // 2


def test_a_disabled_rule_leaves_the_snapshot(mem: Memory) -> None:
    rules = [r for r in _rules(30) if r.scope.namespace == "default"]
    _write(mem, rules)
    snap = mem.retriever.snapshot("default")
    gone = rules[3].id
    assert snap.slot_of(gone) is not None
    mem.store.set_rule_status(gone, RuleStatus.DISABLED, note="test")
    snap = mem.retriever.snapshot("default")
    assert snap.slot_of(gone) is None
    assert gone not in {r.id for r in snap.rules(snap.live_slots())}
    assert snap.size == len(rules) - 1


def _compared(rule: Rule) -> tuple[bool, bool]:
    """Whether retrieval compares the rule's (text, trigger) vector, read from the Rule."""
    trig = rule.trigger
    query = trig.kind is TriggerKind.QUERY
    return query, query or _free_text(rule)


def _check_vectors(mem: Memory, snap: Snapshot, rules: list[Rule]) -> None:
    by_id = {r.id: r for r in rules}
    live = snap.live_slots().tolist()
    stored = mem.store.rule_index("default", INJECTED)  # every vector, dense
    dense = {r.id: i for i, r in enumerate(stored.rules)}
    for slot in live:
        rule = snap.rule(slot)
        for held, wanted, full in zip(
            (snap.text_vectors, snap.trigger_vectors),
            _compared(by_id[rule.id]),
            (stored.text_vectors, stored.trigger_vectors),
            strict=True,
        ):
            expected = full[dense[rule.id]].astype(VECTOR_DTYPE) if wanted else 0.0
            assert np.array_equal(held[slot], np.broadcast_to(expected, held[slot].shape))
    names = snap.pack.vocab.names
    for slot in live:  # the alternatives a condition lists, through appended changes too
        trig = by_id[snap.rule(slot).id].trigger
        if _free_text(by_id[snap.rule(slot).id]):
            held_groups = [{names[c] for c in g.tolist()} for g in snap.pack.alternatives(slot)]
            assert held_groups == [set(g) for g in alternatives(trig.text, trig.keywords)]
    counts = [sum(_compared(by_id[snap.rule(s).id])[k] for s in live) for k in (0, 1)]
    assert [snap.text_vectors.kept, snap.trigger_vectors.kept] == counts
    assert 0 < counts[0] < counts[1] < len(live)  # QUERY < QUERY + worded DATA < all


def test_a_snapshot_holds_exactly_the_vectors_retrieval_compares(backend_mem: Memory) -> None:
    rules = _rules(150)
    _write(backend_mem, rules[:100])
    snap = backend_mem.retriever.snapshot("default")
    _check_vectors(backend_mem, snap, rules)
    _write(backend_mem, rules[100:])  # applied as changes to the warm snapshot
    first = next(r for r in rules if r.scope.namespace == "default")
    backend_mem.store.set_rule_status(first.id, RuleStatus.DISABLED)  # a slot emptied
    again = backend_mem.retriever.snapshot("default")
    assert again is snap and snap.empty
    _check_vectors(backend_mem, snap, rules)
