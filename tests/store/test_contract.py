"""The Store contract: every backend passes this suite unchanged (see conftest.BACKENDS).

Only the `Store` Protocol is used here, plus the backend's `dump` helper to scan every table.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from dctx.errors import EmbedderMismatchError, NotFoundError, StoreError
from dctx.models import (
    DecisionNode,
    Edge,
    EdgeType,
    Evidence,
    EvidenceKind,
    Message,
    NumericCondition,
    Predicate,
    Rule,
    RuleEvent,
    RuleEventKind,
    RuleSource,
    RuleStatus,
    RuleType,
    Scope,
    Session,
    ToolCall,
    Trigger,
    TriggerKind,
)
from dctx.store.base import CaptureBatch, Store
from dctx.store.packed import PackedRules

DIM = 8
Dump = Callable[[Store], list[tuple[str, str, Any]]]


def unit(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def axis(i: int) -> np.ndarray:
    v = np.zeros(DIM, dtype=np.float32)
    v[i] = 1.0
    return v


def make_rule(
    rule_id: str,
    text: str = "Always cc the finance lead on quarterly reports.",
    *,
    actor: str | None = "alice",
    namespace: str = "default",
    skill: str | None = "financial_analyst",
    status: RuleStatus = RuleStatus.ACTIVE,
    trigger_text: str = "writing a report for a client",
    created_at: str = "2026-03-02T09:00:00Z",
    **extra: Any,
) -> Rule:
    return Rule(
        id=rule_id,
        text=text,
        type=RuleType.CONTENT,
        trigger=Trigger(kind=TriggerKind.QUERY, text=trigger_text),
        scope=Scope(namespace=namespace, skill=skill),
        source=RuleSource.CORRECTION,
        actor=actor,
        group=f"group-{rule_id}",
        status=status,
        created_at=created_at,
        updated_at=created_at,
        **extra,
    )


def rich_rule(rule_id: str = "rule_rich") -> Rule:
    """A rule with every field set to something non-default, unicode included."""
    return Rule(
        id=rule_id,
        text="Flag runway under 12 months — “always” in bold.",
        type=RuleType.FORMAT,
        trigger=Trigger(
            kind=TriggerKind.DATA,
            text="runway months",
            keywords=["runway", "month"],
            numeric=NumericCondition(terms=["runway"], op="<", value=12.5),
            tool="get_financials",
            after_tool="search_company",
            node_id="node_trigger",
        ),
        scope=Scope(namespace="tenant-ü", skill="analyst", actor="carol", subject="Acme"),
        source=RuleSource.SELF_ASSESSMENT,
        actor="carol",
        group="runway",
        status=RuleStatus.DRAFT,
        qualifiers=["for enterprise clients", "ünïcode"],
        support=3,
        supporters=["dave", "erin"],
        evidence_ids=["ev_1", "ev_2"],
        conversation_id="conv_9",
        created_at="2026-01-01T00:00:00Z",
        updated_at="2026-01-02T00:00:00Z",
        superseded_by="rule_newer",
        history=[{"event": "merge", "from": ["rule_a", "rule_b"], "n": 2, "ok": True, "x": None}],
    )


def rule_batch(*rules: Rule, vectors: bool = True) -> CaptureBatch:
    batch = CaptureBatch(rules=list(rules))
    if vectors:
        for r in rules:
            seed = sum(r.id.encode())
            batch.rule_vectors[r.id] = (unit(seed), unit(seed + 1000))
    return batch


def session_batch(actor: str, conversation: str, namespace: str = "default") -> CaptureBatch:
    """One conversation of `actor`: a session, two nodes with vectors, evidence, edges."""
    session = Session(
        conversation_id=conversation,
        messages=[
            Message(0, "user", f"{actor} asks for a report"),
            Message(
                1, "assistant", "", tool_calls=[ToolCall("c1", "get_financials", {"co": "Beta"})]
            ),
            Message(2, "tool", "revenue 10", tool_call_id="c1", tool_name="get_financials"),
        ],
        actor=actor,
        skill="financial_analyst",
        namespace=namespace,
        timestamp="2026-03-02T09:00:00Z",
        source=f"{actor}-traces.jsonl",
    )
    nodes = [
        DecisionNode(
            id=f"node_{conversation}_{i}",
            conversation_id=conversation,
            namespace=namespace,
            actor=actor,
            skill="financial_analyst",
            position=i,
            kind=kind,
            text=f"{actor} step {i}",
            accumulated=f"{actor} steps 0..{i}",
            message_index=i,
            tool="get_financials" if kind == "tool_call" else None,
            subject=f"subject-of-{actor}",
        )
        for i, kind in enumerate(("user", "tool_call"))
    ]
    evidence = Evidence(
        id=f"ev_{conversation}",
        kind=EvidenceKind.CORRECTION,
        namespace=namespace,
        conversation_id=conversation,
        actor=actor,
        message_index=0,
        text=f"{actor} said: no, cc the finance lead",
        timestamp="2026-03-02T09:01:00Z",
        source=f"{actor}-traces.jsonl",
        node_id=nodes[0].id,
    )
    failure = Evidence(
        id=f"ev_{conversation}_fail",
        kind=EvidenceKind.TOOL_FAILURE,
        namespace=namespace,
        conversation_id=conversation,
        actor=None,  # a tool failure has no human author, but it is in the actor's session
        message_index=2,
        text="timeout",
        timestamp="2026-03-02T09:02:00Z",
    )
    edges = [
        Edge(actor, EdgeType.MADE, nodes[0].id),
        Edge(nodes[0].id, EdgeType.LED_TO, nodes[1].id),
        Edge(nodes[0].id, EdgeType.ABOUT, f"subject-of-{actor}"),
        Edge(nodes[1].id, EdgeType.PRODUCED, failure.id),
        Edge(nodes[0].id, EdgeType.INFORMED_BY, evidence.id),
        Edge(conversation, EdgeType.HAS_SUMMARY, nodes[1].id),
    ]
    return CaptureBatch(
        sessions=[session],
        nodes=nodes,
        node_vectors={n.id: (unit(i), unit(i + 50)) for i, n in enumerate(nodes)},
        evidence=[evidence, failure],
        edges=edges,
    )


def merge(*batches: CaptureBatch) -> CaptureBatch:
    out = CaptureBatch()
    for b in batches:
        out.sessions += b.sessions
        out.nodes += b.nodes
        out.node_vectors |= b.node_vectors
        out.evidence += b.evidence
        out.edges += b.edges
        out.rules += b.rules
        out.rule_vectors |= b.rule_vectors
    return out


# --- lifecycle and identity ----------------------------------------------------------------


def test_store_satisfies_protocol_and_migrate_is_idempotent(store: Store) -> None:
    assert isinstance(store, Store)
    assert store.migrate() == []
    assert store.url
    assert set(store.count_rows()) >= {"sessions", "nodes", "evidence", "edges", "rules"}
    assert all(n == 0 for t, n in store.count_rows().items() if t != "meta")


def test_embedder_identity(store: Store) -> None:
    assert store.embedder_id() is None
    store.set_embedder_id("minilm-l6")
    store.set_embedder_id("minilm-l6")  # same one: fine
    with pytest.raises(EmbedderMismatchError) as info:
        store.set_embedder_id("hashing-256")
    assert (info.value.stored, info.value.current) == ("minilm-l6", "hashing-256")
    assert store.embedder_id() == "minilm-l6"
    store.set_embedder_id("hashing-256", force=True)
    assert store.embedder_id() == "hashing-256"


def test_vectors_of_another_dimension_are_refused(store: Store) -> None:
    store.write(rule_batch(make_rule("r1")))
    bad = CaptureBatch(rules=[make_rule("r2")], rule_vectors={"r2": (np.ones(4), np.ones(4))})
    with pytest.raises(StoreError):
        store.write(bad)
    assert [r.id for r in store.list_rules()] == ["r1"]


def test_closed_store_raises_store_error(store: Store) -> None:
    store.close()
    with pytest.raises(StoreError):
        store.list_rules()


# --- round trips ---------------------------------------------------------------------------


def test_rule_round_trips_exactly(store: Store) -> None:
    rich, plain = rich_rule(), make_rule("r_plain", actor=None, skill=None)
    store.write(rule_batch(rich, plain))
    assert store.get_rule(rich.id) == rich
    assert store.get_rule(rich.id).to_dict() == rich.to_dict()
    assert store.get_rule(plain.id) == plain
    assert {r.id for r in store.list_rules()} == {rich.id, plain.id}


def test_rule_is_replaced_by_id(store: Store) -> None:
    store.write(rule_batch(make_rule("r1", "Use metric units.")))
    store.write(rule_batch(make_rule("r1", "Use imperial units.")))
    assert [r.text for r in store.list_rules()] == ["Use imperial units."]
    assert store.count_rows()["rules"] == 1
    assert [i for i, _ in store.search_text("default", "metric")] == []
    assert [i for i, _ in store.search_text("default", "imperial")] == ["r1"]


def test_graph_records_round_trip(store: Store) -> None:
    batch = session_batch("alice", "conv_a")
    store.write(batch)
    ids = [n.id for n in batch.nodes]
    assert store.get_nodes(ids) == batch.nodes
    assert store.get_nodes([ids[1], "missing", ids[0]]) == [batch.nodes[1], batch.nodes[0]]
    ev_ids = [e.id for e in batch.evidence]
    assert store.get_evidence(ev_ids[::-1]) == batch.evidence[::-1]
    assert store.get_evidence(["missing"]) == []
    assert store.edges() == batch.edges
    assert store.edges(src=ids[0]) == [e for e in batch.edges if e.src == ids[0]]
    assert store.edges(dst=ids[1]) == [e for e in batch.edges if e.dst == ids[1]]
    assert store.edges(src=ids[0], dst=ids[1]) == [Edge(ids[0], EdgeType.LED_TO, ids[1])]
    counts = store.count_rows()
    assert (counts["sessions"], counts["nodes"], counts["evidence"]) == (1, 2, 2)
    assert counts["vectors"] == 4
    store.write(batch)  # writing the same batch again changes nothing
    assert store.count_rows() == counts


def test_all_nine_edge_types_round_trip(store: Store) -> None:
    edges = [Edge(f"s{i}", t, f"d{i}") for i, t in enumerate(EdgeType)]
    assert len(edges) == 9
    store.write(CaptureBatch(edges=edges))
    assert store.edges() == edges
    assert all(isinstance(e.type, EdgeType) for e in store.edges())


def test_cache(store: Store) -> None:
    assert store.cache_get("k") is None
    store.cache_put("k", '{"label": "correction"}', namespace="default", actor="alice")
    assert store.cache_get("k") == '{"label": "correction"}'
    store.cache_put("k", "v2", namespace="default", actor=None)
    assert store.cache_get("k") == "v2"
    assert store.count_rows()["cache"] == 1


# --- statuses and filters --------------------------------------------------------------------


def test_set_rule_status_records_history(store: Store) -> None:
    store.write(rule_batch(make_rule("r1")))
    before = store.generation("default")
    changed = store.set_rule_status("r1", RuleStatus.DISABLED, note="too noisy")
    assert changed.status is RuleStatus.DISABLED
    assert store.get_rule("r1") == changed
    last = changed.history[-1]
    assert (last["from"], last["to"], last["note"]) == ("active", "disabled", "too noisy")
    assert store.generation("default") != before
    store.set_rule_status("r1", RuleStatus.ACTIVE)
    assert store.get_rule("r1").status is RuleStatus.ACTIVE
    assert len(store.get_rule("r1").history) == 2


def test_not_found(store: Store) -> None:
    with pytest.raises(NotFoundError):
        store.get_rule("nope")
    with pytest.raises(NotFoundError):
        store.set_rule_status("nope", RuleStatus.DISABLED)
    with pytest.raises(NotFoundError):
        store.delete_rule("nope")
    with pytest.raises(NotFoundError):  # vectors for a rule that does not exist
        store.write(CaptureBatch(rule_vectors={"nope": (unit(1), unit(2))}))


def test_list_filters_and_order(store: Store) -> None:
    store.write(
        rule_batch(
            make_rule("r3", actor="bob", created_at="2026-03-03T00:00:00Z"),
            make_rule("r1", actor="alice", created_at="2026-03-01T00:00:00Z"),
            make_rule("r2", actor="alice", skill="support", status=RuleStatus.DRAFT,
                      created_at="2026-03-02T00:00:00Z"),
            make_rule("r4", actor=None, namespace="other", created_at="2026-02-01T00:00:00Z"),
        )
    )  # fmt: skip

    def ids(**kw: Any) -> list[str]:
        return [r.id for r in store.list_rules(**kw)]

    assert ids() == ["r4", "r1", "r2", "r3"]  # oldest first
    assert ids(namespace="default") == ["r1", "r2", "r3"]
    assert ids(actor="alice") == ["r1", "r2"]
    assert ids(skill="support") == ["r2"]
    assert ids(statuses=[RuleStatus.DRAFT]) == ["r2"]
    assert ids(statuses=[RuleStatus.ACTIVE, RuleStatus.DRAFT], namespace="default") == [
        "r1",
        "r2",
        "r3",
    ]
    assert ids(statuses=[]) == []
    assert ids(namespace="default", actor="bob", statuses=[RuleStatus.ACTIVE]) == ["r3"]


# --- search ------------------------------------------------------------------------------------


def test_search_text_ranks_matching_rules_first(store: Store) -> None:
    store.write(
        rule_batch(
            make_rule("r_cc", "Always cc the finance lead on quarterly reports."),
            make_rule("r_units", "Report revenue in millions of euros.", trigger_text="revenue"),
            make_rule("r_other", "Greet the customer by name.", trigger_text="support chat"),
            make_rule("r_ns", "Always cc the finance lead.", namespace="elsewhere"),
        )
    )
    hits = store.search_text("default", "cc finance lead")
    assert hits[0][0] == "r_cc"
    assert "r_other" not in [i for i, _ in hits]
    assert "r_ns" not in [i for i, _ in hits]  # namespaces do not leak
    scores = [s for _, s in hits]
    assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)
    # trigger text is searched too
    assert [i for i, _ in store.search_text("default", "support chat")] == ["r_other"]
    assert len(store.search_text("default", "the", limit=1)) == 1


def test_search_text_scoped_to_a_skill_keeps_unscoped_rules(store: Store) -> None:
    store.write(
        rule_batch(
            make_rule("r_fin", "Always cc the finance lead.", skill="financial_analyst"),
            make_rule("r_any", "Always cc the finance lead on reports.", skill=None),
            make_rule("r_sup", "Always cc the finance lead too.", skill="customer_support"),
            make_rule("r_ns", "Always cc the finance lead.", namespace="default2", skill=None),
        )
    )
    scoped = {
        i for i, _ in store.search_text("default", "cc finance lead", skill="financial_analyst")
    }
    assert scoped == {"r_fin", "r_any"}
    everything = {i for i, _ in store.search_text("default", "cc finance lead")}
    assert everything == {"r_fin", "r_any", "r_sup"}
    assert {i for i, _ in store.search_text("default2", "finance", skill="x")} == {"r_ns"}


@pytest.mark.parametrize(
    "query",
    ['"', "'", "cc AND", "OR", "NOT finance", "finance*", "lead:", "(cc", 'a"b', "NEAR(x y)",
     "^", "-", "{}", "report; DROP TABLE rules; --", "💥 émoji", "", "   ", "cc\x00lead",
     "___", "get_financials", "x" * 5000],
)  # fmt: skip
def test_search_text_never_fails_on_user_text(store: Store, query: str) -> None:
    store.write(rule_batch(make_rule("r_cc", "Always cc the finance lead.")))
    hits = store.search_text("default", query)
    assert all(isinstance(i, str) and isinstance(s, float) for i, s in hits)
    assert store.count_rows()["rules"] == 1


def test_search_nodes_combines_node_and_accumulated_similarity(store: Store) -> None:
    batch = session_batch("alice", "conv_a")
    q, other = axis(0), axis(1)
    both, node_only = batch.nodes
    accum_only = dataclasses.replace(both, id="node_accum_only", position=2)
    batch.nodes.append(accum_only)
    batch.node_vectors = {both.id: (q, q), node_only.id: (q, other), accum_only.id: (other, q)}
    store.write(batch)
    store.write(session_batch("zoe", "conv_z", namespace="elsewhere"))
    hits = store.search_nodes("default", q * 3.0, limit=10)  # cosine: scale does not matter
    assert [n.id for n, _ in hits] == [both.id, node_only.id, accum_only.id]
    assert [round(s, 4) for _, s in hits] == [1.0, 0.7, 0.3]
    assert hits[0][0] == both
    assert len(store.search_nodes("default", q, limit=1)) == 1
    assert store.search_nodes("nowhere", q) == []


# --- rule index and generations ------------------------------------------------------------------


def test_rule_index_rows_align_with_rules(store: Store) -> None:
    rules = [make_rule(f"r{i}", created_at=f"2026-03-0{i + 1}T00:00:00Z") for i in range(5)]
    batch = rule_batch(*rules)
    del batch.rule_vectors["r3"]  # one rule without vectors: zero rows
    batch.rules.append(make_rule("r_draft", status=RuleStatus.DRAFT))
    batch.rules.append(make_rule("r_far", namespace="elsewhere"))
    store.write(batch)
    index = store.rule_index("default", [RuleStatus.ACTIVE])
    assert [r.id for r in index.rules] == ["r0", "r1", "r2", "r3", "r4"]
    assert index.text_vectors.shape == index.trigger_vectors.shape == (5, DIM)
    assert index.text_vectors.dtype == np.float32
    for i, rule in enumerate(index.rules):
        if rule.id == "r3":
            assert not index.text_vectors[i].any() and not index.trigger_vectors[i].any()
        else:
            text, trigger = batch.rule_vectors[rule.id]
            np.testing.assert_array_equal(index.text_vectors[i], text)
            np.testing.assert_array_equal(index.trigger_vectors[i], trigger)
    assert index.rules[0] == rules[0]
    assert index.generation == store.generation("default")
    both = store.rule_index("default", [RuleStatus.ACTIVE, RuleStatus.DRAFT])
    assert len(both.rules) == 6 and both.text_vectors.shape == (6, DIM)
    empty = store.rule_index("nowhere", [RuleStatus.ACTIVE])
    assert empty.rules == [] and empty.text_vectors.shape[0] == 0
    half = store.rule_index("default", [RuleStatus.ACTIVE], dtype=np.float16)
    assert half.text_vectors.dtype == half.trigger_vectors.dtype == np.float16
    np.testing.assert_allclose(half.text_vectors, index.text_vectors, atol=1e-3)
    np.testing.assert_allclose(half.trigger_vectors, index.trigger_vectors, atol=1e-3)


def test_generation_changes_on_every_rule_write(store: Store) -> None:
    seen = [store.generation("default")]
    other = store.generation("other")

    def changed() -> None:
        now = store.generation("default")
        assert now not in seen
        seen.append(now)

    store.write(rule_batch(make_rule("r1"), make_rule("r2", actor="bob")))
    changed()
    store.rule_index("default", [RuleStatus.ACTIVE])
    store.list_rules()
    assert store.generation("default") == seen[-1]  # reads change nothing
    store.write(CaptureBatch(rule_vectors={"r1": (unit(7), unit(8))}))  # vectors only
    changed()
    store.set_rule_status("r1", RuleStatus.DISABLED)
    changed()
    store.delete_rule("r1")
    changed()
    store.forget_actor("default", "bob")
    changed()
    store.write(rule_batch(make_rule("r3")))
    changed()
    store.drop_namespace("default")
    changed()
    store.write(rule_batch(make_rule("r4")))  # a dropped namespace never reuses a value
    changed()
    assert store.generation("other") == other  # other namespaces untouched


# --- atomicity ------------------------------------------------------------------------------------


def test_exception_inside_transaction_writes_nothing(store: Store) -> None:
    store.write(rule_batch(make_rule("r0")))
    before, generation = store.count_rows(), store.generation("default")
    with pytest.raises(RuntimeError), store.transaction():
        store.write(merge(session_batch("alice", "conv_a"), rule_batch(make_rule("r1"))))
        store.cache_put("k", "v", namespace="default", actor="alice")
        with store.transaction():  # nested: joins the outer one
            store.set_rule_status("r0", RuleStatus.DISABLED)
        raise RuntimeError("boom")
    assert store.count_rows() == before
    assert store.generation("default") == generation
    assert store.get_rule("r0").status is RuleStatus.ACTIVE
    assert store.cache_get("k") is None


def test_transaction_commits_all_on_success(store: Store) -> None:
    with store.transaction():
        store.write(rule_batch(make_rule("r1")))
        with store.transaction():
            store.write(rule_batch(make_rule("r2")))
        store.set_rule_status("r1", RuleStatus.DRAFT)
    assert [r.status for r in store.list_rules()] == [RuleStatus.DRAFT, RuleStatus.ACTIVE]


def test_write_failing_midway_leaves_nothing(store: Store) -> None:
    store.write(rule_batch(make_rule("r0")))
    before = store.count_rows()
    broken = merge(session_batch("alice", "conv_a"), rule_batch(make_rule("r1")))
    broken.rule_vectors["ghost"] = (unit(1), unit(2))  # fails after rows were written
    with pytest.raises(NotFoundError):
        store.write(broken)
    assert store.count_rows() == before
    wrong_dim = rule_batch(make_rule("r2"))
    wrong_dim.rule_vectors["r2"] = (unit(1), np.ones(DIM + 1, dtype=np.float32))
    with pytest.raises(StoreError):
        store.write(wrong_dim)
    assert store.count_rows() == before
    assert [r.id for r in store.list_rules()] == ["r0"]


def test_failed_write_inside_a_transaction_undoes_only_itself(store: Store) -> None:
    broken = rule_batch(make_rule("r2"))
    broken.rule_vectors["ghost"] = (unit(1), unit(2))
    with store.transaction():
        store.write(rule_batch(make_rule("r1")))
        with pytest.raises(NotFoundError):
            store.write(broken)
    assert [r.id for r in store.list_rules()] == ["r1"]


def test_threads_share_one_store(store: Store) -> None:
    errors: list[BaseException] = []

    def worker(t: int) -> None:
        try:
            for i in range(20):
                store.write(rule_batch(make_rule(f"t{t}_r{i}", actor=f"actor{t}")))
                store.rule_index("default", [RuleStatus.ACTIVE])
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert store.count_rows()["rules"] == 80
    assert store.count_rows()["vectors"] == 160


# --- deletion ---------------------------------------------------------------------------------


def test_delete_rule_removes_rule_vectors_edges_and_text(store: Store) -> None:
    store.write(rule_batch(make_rule("r1", "Quote prices in euros."), make_rule("r2")))
    store.write(CaptureBatch(edges=[Edge("r1", EdgeType.FORGED_FROM, "node_x")]))
    store.delete_rule("r1")
    with pytest.raises(NotFoundError):
        store.get_rule("r1")
    assert store.search_text("default", "euros") == []
    assert store.edges(src="r1") == []
    assert [r.id for r in store.rule_index("default", [RuleStatus.ACTIVE]).rules] == ["r2"]
    assert store.count_rows()["vectors"] == 2


ACTOR = "zeldaqx"  # a name that appears nowhere except in what this actor left


def _actor_world(store: Store) -> tuple[CaptureBatch, list[str]]:
    """The actor and bob in one namespace; returns the actor's batch and every id of hers."""
    mine = merge(session_batch(ACTOR, "conv_z1"), session_batch(ACTOR, "conv_z2"))
    mine.edges.append(Edge("conv_z1", EdgeType.FOLLOWED_BY, "conv_z2"))
    own_rule = make_rule("rule_z", f"Always cc {ACTOR}'s manager.", actor=ACTOR,
                         evidence_ids=["ev_conv_z1"], conversation_id="conv_z1",
                         history=[{"event": "created", "by": ACTOR}])  # fmt: skip
    scoped = make_rule("rule_scoped", "Use short answers.", actor=None)
    scoped.scope = Scope(namespace="default", actor=ACTOR)  # personal, though self-assessed
    scoped.trigger.node_id = "node_conv_z1_0"
    mine = merge(mine, rule_batch(own_rule, scoped))
    mine.edges.append(Edge("rule_z", EdgeType.FORGED_FROM, "node_conv_z1_0"))
    theirs = merge(session_batch("bob", "conv_b1"))
    shared = make_rule(
        "rule_bob",
        "Report revenue in millions.",
        actor="bob",
        support=3,
        supporters=["bob", ACTOR],
        evidence_ids=["ev_conv_b1", "ev_conv_z2"],
        conversation_id="conv_b1",
        history=[{"event": "support", "actor": ACTOR}, {"event": "created", "by": "bob"}],
    )
    shared.trigger.node_id = "node_conv_z2_1"
    theirs = merge(theirs, rule_batch(shared))
    theirs.edges.append(Edge("rule_bob", EdgeType.APPLIED, "node_conv_z1_1"))
    store.write(mine)
    store.write(theirs)
    store.cache_put("cache_z", f"label for {ACTOR}", namespace="default", actor=ACTOR)
    store.cache_put("cache_b", "label for bob", namespace="default", actor="bob")
    delivered = RuleEventKind.DELIVERED
    store.add_rule_events(
        [  # what her runs were given, an event of her own rule, and bob's run
            RuleEvent("rule_bob", delivered, run_id="run_z", conversation_id="conv_z1",
                      actor=ACTOR, decision_point=0),
            RuleEvent("rule_z", RuleEventKind.STATUS, detail={"to": "candidate"}),
            RuleEvent("rule_bob", delivered, run_id="run_b", conversation_id="conv_b1",
                      actor="bob", decision_point=0, id="evt_bob"),
        ]
    )  # fmt: skip
    her_ids = [ACTOR, "conv_z1", "conv_z2", "rule_z", "rule_scoped", "ev_conv_z1", "ev_conv_z2"]
    her_ids += [n.id for n in mine.nodes] + [f"subject-of-{ACTOR}"]
    return mine, her_ids


def _mentions(dump: Dump, store: Store, needles: list[str]) -> list[tuple[str, str, Any]]:
    found = []
    for table, column, value in dump(store):
        if isinstance(value, bytes):
            text = value.decode("utf-8", "replace")
        elif isinstance(value, str):
            text = value
        else:
            continue
        if any(n in text for n in needles):
            found.append((table, column, value))
    return found


def test_forget_actor_leaves_no_trace(store: Store, dump: Dump) -> None:
    _, her_ids = _actor_world(store)
    assert _mentions(dump, store, [ACTOR])  # the scan does see her before
    before = store.count_rows()
    counts = store.forget_actor("default", ACTOR)
    assert _mentions(dump, store, her_ids) == []
    after = store.count_rows()
    for table in ("sessions", "nodes", "evidence", "edges", "rules", "vectors", "cache"):
        assert counts[table] == before[table] - after[table], table
    assert counts["rules"] == 2 and counts["sessions"] == 2
    bob = store.get_rule("rule_bob")
    assert bob.supporters == ["bob"] and bob.support == 2
    assert bob.evidence_ids == ["ev_conv_b1"]
    assert bob.history == [{"event": "created", "by": "bob"}]
    assert bob.trigger.node_id is None
    assert bob.conversation_id == "conv_b1"
    assert [n.actor for n in store.get_nodes(["node_conv_b1_0"])] == ["bob"]
    assert store.cache_get("cache_b") == "label for bob"
    assert store.search_text("default", "manager") == []
    assert [r.id for r in store.rule_index("default", list(RuleStatus)).rules] == ["rule_bob"]
    assert [e.id for e in store.rule_events("default")] == ["evt_bob"]


def test_forget_actor_is_per_namespace(store: Store) -> None:
    store.write(merge(session_batch(ACTOR, "conv_1"), rule_batch(make_rule("r_default",
                actor=ACTOR))))  # fmt: skip
    store.write(
        merge(
            session_batch(ACTOR, "conv_2", namespace="other"),
            rule_batch(make_rule("r_other", actor=ACTOR, namespace="other")),
        )
    )
    store.forget_actor("default", ACTOR)
    assert [r.id for r in store.list_rules(actor=ACTOR)] == ["r_other"]
    assert len(store.get_nodes(["node_conv_2_0", "node_conv_2_1"])) == 2
    assert len(store.edges(src=ACTOR)) == 1  # her MADE edge in the other namespace
    assert store.forget_actor("default", ACTOR)["rules"] == 0  # idempotent


def test_rule_events_round_trip_once_per_run_and_leave_the_index(store: Store) -> None:
    store.write(rule_batch(make_rule("r1"), make_rule("r2")))
    generation = store.generation("default")
    first = RuleEvent("r1", RuleEventKind.DELIVERED, run_id="run_1", conversation_id="c1",
                      actor="alice", decision_point=2, detail={"channel": "system", "n": [1]},
                      at="2026-03-02T09:00:00Z")  # fmt: skip
    again = dataclasses.replace(first, id="evt_again", decision_point=5)
    guard = RuleEvent("r1", RuleEventKind.GUARD, run_id="run_1", at="2026-03-02T09:01:00Z")
    other = RuleEvent("r2", RuleEventKind.DELIVERED, run_id="run_2", conversation_id="c2",
                      at="2026-03-03T09:00:00Z")  # fmt: skip
    store.add_rule_events([first, again, guard, dataclasses.replace(guard, id="evt_g2")])
    store.add_rule_events([other])
    # a rule is delivered once per run (the first decision point stays); guards may repeat
    assert store.rule_events("default", rule_ids=["r1"]) == [
        first,
        guard,
        dataclasses.replace(guard, id="evt_g2"),
    ]
    assert [e.id for e in store.rule_events("default", runs=["c2"])] == [other.id]
    run_1 = store.rule_events("default", runs=["run_1"])
    assert [e.id for e in run_1] == [first.id, guard.id, "evt_g2"]
    delivered = store.rule_events("default", kinds=[RuleEventKind.DELIVERED])
    assert [e.id for e in delivered] == [first.id, other.id]
    assert store.rule_events("other") == []
    tally = store.rule_event_tally("default")
    assert tally["r1"][RuleEventKind.GUARD] == (2, "2026-03-02T09:01:00Z")
    assert tally["r2"] == {RuleEventKind.DELIVERED: (1, "2026-03-03T09:00:00Z")}
    assert store.generation("default") == generation  # no rule changed: caches stay valid
    assert store.count_rows()["rule_events"] == 4
    store.delete_rule("r1")  # an explicit delete takes its events along
    assert store.rule_events("default", rule_ids=["r1"]) == []


def test_copy_moves_rule_events(store: Store) -> None:
    from dctx.store.copy import copy_store
    from dctx.store.registry import open_store

    store.write(rule_batch(make_rule("r1")))
    events = [
        RuleEvent("r1", RuleEventKind.DELIVERED, run_id="run_1", decision_point=0,
                  detail={"channel": "user"}, at="2026-03-02T09:00:00Z"),
        RuleEvent("r1", RuleEventKind.STATUS, detail={"to": "candidate", "evidence": ["e"]},
                  at="2026-03-02T09:05:00Z"),
    ]  # fmt: skip
    store.add_rule_events(events)
    target = open_store(":memory:")
    try:
        copy_store(store, target)
        assert target.rule_events("default") == events
    finally:
        target.close()


def test_rule_events_join_the_open_transaction(store: Store) -> None:
    with pytest.raises(RuntimeError), store.transaction():
        store.add_rule_events([RuleEvent("r1", RuleEventKind.QUIET, run_id="run_1")])
        raise RuntimeError("boom")
    assert store.rule_events("default") == []


def test_drop_namespace(store: Store, dump: Dump) -> None:
    store.write(merge(session_batch("amy", "conv_gone"), rule_batch(make_rule("rule_gone",
                actor="amy", namespace="default"))))  # fmt: skip
    store.cache_put("cache_gone", "x", namespace="default", actor=None)
    store.add_rule_events([RuleEvent("rule_gone", RuleEventKind.DELIVERED, run_id="run_gone")])
    store.add_rule_events(
        [RuleEvent("rule_kept", RuleEventKind.DELIVERED, namespace="kept", run_id="run_kept")]
    )
    store.write(
        merge(
            session_batch("ben", "conv_kept", namespace="kept"),
            rule_batch(make_rule("rule_kept", actor="ben", namespace="kept")),
        )
    )
    kept_before = store.rule_index("kept", list(RuleStatus))
    counts = store.drop_namespace("default")
    assert counts["rules"] == 1 and counts["sessions"] == 1 and counts["cache"] == 1
    assert counts["rule_events"] == 1
    assert [e.run_id for e in store.rule_events("kept")] == ["run_kept"]
    gone = ["amy", "conv_gone", "rule_gone", "node_conv_gone_0", "ev_conv_gone", "cache_gone"]
    assert _mentions(dump, store, gone) == []
    assert store.list_rules(namespace="default") == []
    kept = store.rule_index("kept", list(RuleStatus))
    assert kept.rules == kept_before.rules
    np.testing.assert_array_equal(kept.text_vectors, kept_before.text_vectors)
    assert len(store.edges(src="ben")) == 1


def test_soft_predicate_fields_round_trip_and_pack(store: Store) -> None:
    """A soft predicate (the field it names, the state it wants) is stored and loaded whole,
    and packed as soft: retrieval leaves it to free text where no result has that field."""
    soft = Predicate(key=["frozen", "vault"], flag=False, soft=True)
    named = Predicate(terms=["crate"], values=["in transit"], key=["stage"], soft=True)
    rules = []
    for rid, pred in (("r_flag", soft), ("r_named", named)):
        trig = Trigger(kind=TriggerKind.DATA, text="the vault is not frozen", predicate=pred)
        rules.append(dataclasses.replace(make_rule(rid), trigger=trig))
    store.write(rule_batch(*rules))
    for rule in rules:
        assert store.get_rule(rule.id).trigger.predicate == rule.trigger.predicate
    index = store.rule_index("default", [RuleStatus.ACTIVE])
    pack = index.packed or PackedRules.from_rules(index.rules, index.seqs or range(2))
    assert pack.soft.tolist() == [True, True] and pack.predicate.tolist() == [True, True]
    assert [pack.rule(i).trigger.predicate for i in range(2)] == [soft, named]
