"""Complete deletion, checked by scanning every cell of every table (SQLite's FTS shadow
tables and PostgreSQL's tsvector column included) after a real capture: forgetting an actor
leaves no trace of them (name, conversations, nodes, evidence, rules, vectors, history,
caches), and dropping a namespace leaves no row of it and not even its name. Both backends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dctx.bench.perf_data import synthetic_sessions
from dctx.memory import Memory
from dctx.store.copy import COPY_COLUMNS, Copyable
from store.scan import Dump, hits

GONE = "analyst_3"  # synthetic_sessions' actors are analyst_0 .. analyst_9


def _capture(mem: Memory, namespace: str, count: int, seed: int, prefix: str = "") -> None:
    for actor, conv, msgs in synthetic_sessions(count, seed=seed):
        mem.capture(msgs, actor=prefix + actor, skill="financial_analyst",
                    conversation_id=conv, namespace=namespace)  # fmt: skip


def _rows(store: Any, table: str) -> list[dict[str, Any]]:
    assert isinstance(store, Copyable)
    return [dict(zip(COPY_COLUMNS[table], r, strict=True)) for r in store.export_rows(table)]


def test_forget_actor_leaves_nothing_in_any_table(memory: Memory, dump: Dump) -> None:
    _capture(memory, "default", 30, seed=11)
    _capture(memory, "other", 6, seed=12, prefix="x")  # (per-namespace: test_contract.py)
    store = memory.store
    sessions = [r for r in _rows(store, "sessions") if r["namespace"] == "default"]
    convs = [r["conversation_id"] for r in sessions if r["actor"] == GONE]
    nodes = [r["id"] for r in _rows(store, "nodes")
             if r["namespace"] == "default" and r["conversation_id"] in convs]  # fmt: skip
    evidence = [r["id"] for r in _rows(store, "evidence")
                if r["namespace"] == "default" and r["conversation_id"] in convs]  # fmt: skip
    rules = [r.id for r in store.list_rules(namespace="default")
             if r.actor == GONE or r.scope.actor == GONE]  # fmt: skip
    assert convs and nodes and evidence
    supported = [r for r in store.list_rules(namespace="default") if GONE in r.supporters]
    needles = {GONE, *convs, *nodes, *evidence, *rules}
    assert hits(dump, store, needles)  # the scan sees them before
    other_before = store.rule_index("other", [])  # untouched namespace, for comparison
    kept = {r.id for r in store.list_rules(namespace="other")}

    memory.forget_actor(GONE)

    assert hits(dump, store, needles) == []
    for rule in supported:  # shared rules stay, without her
        if rule.id not in rules:
            assert GONE not in store.get_rule(rule.id).supporters
    assert {r.id for r in store.list_rules(namespace="other")} == kept
    assert store.rule_index("other", []).generation == other_before.generation


def test_drop_namespace_leaves_no_row_and_no_name(memory: Memory, dump: Dump) -> None:
    tenant = "tenant-acme"
    _capture(memory, tenant, 16, seed=21)
    _capture(memory, "kept", 6, seed=22)
    store = memory.store
    ids = [r["id"] for t in ("nodes", "evidence") for r in _rows(store, t)
           if r["namespace"] == tenant]  # fmt: skip
    ids += [r.id for r in store.list_rules(namespace=tenant)]
    ids += [r["conversation_id"] for r in _rows(store, "sessions") if r["namespace"] == tenant]
    assert ids and store.list_rules(namespace=tenant)
    needles = {tenant, *ids}
    assert hits(dump, store, needles)
    kept_before = store.count_rows()

    counts = store.drop_namespace(tenant)

    assert hits(dump, store, needles) == []
    assert counts["rules"] > 0 and counts["sessions"] == 16
    for table, fields in COPY_COLUMNS.items():
        if "namespace" in fields:
            assert all(r["namespace"] != tenant for r in _rows(store, table)), table
    assert store.list_rules(namespace="kept")
    after = store.count_rows()
    assert after["sessions"] == kept_before["sessions"] - 16


def test_a_rule_kept_after_forget_holds_none_of_the_authors_words(
    backend: Any, tmp_path: Path, dump: Dump
) -> None:
    """Alice's team rule that bob stated too is kept as bob said it: no cell of any table
    (FTS shadow tables and tsvectors included) keeps her name, conversation or wording."""
    store = backend.open(tmp_path)
    mem = Memory(store, embedder="auto")

    def said(text: str) -> list[dict[str, str]]:
        return [
            {"role": "user", "content": "Summarize Acme's quarter."},
            {"role": "assistant", "content": "Acme grew revenue 12% to $40M."},
            {"role": "user", "content": text},
            {"role": "assistant", "content": "Acme grew revenue 12% to EUR 37M."},
        ]

    try:
        team = "Company policy for everyone: always show {} in EUR."
        mem.capture(said(team.format("all revenue figures")), actor="alice_q", skill="fa",
                    conversation_id="conv-alice-7")  # fmt: skip
        mem.capture(said(team.format("revenue")), actor="bob", skill="fa", conversation_id="b1")
        [rule] = mem.rules()
        assert rule.support == 2
        needles = {"alice_q", "conv-alice-7", "figures"}
        if backend.name != "postgres":
            needles.add("figur")  # FTS5 stores the porter stem
        for needle in needles:
            assert hits(dump, store, {needle}), needle  # the scan sees each before
        mem.forget_actor("alice_q")
        assert [r.id for r in mem.rules()] == [rule.id]
        assert hits(dump, store, needles) == []
    finally:
        mem.close()
        if backend.name == "postgres":
            import pg_server

            pg_server.get().drop_store(store.url)
