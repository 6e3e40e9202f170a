"""A retriever follows another process's writes by applying the changed rules to its
snapshot (`Store.rule_changes`), never reloading everything, and ends in the state a full
load would give: same rules in the same order with the same vectors, forgotten ones gone."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from dctx.memory import Memory
from dctx.models import Rule, RuleSource, RuleStatus, RuleType, Scope, Trigger, TriggerKind
from dctx.retrieve.engine import INJECTED, VECTOR_DTYPE, Retriever, Snapshot
from dctx.store.base import CaptureBatch, RuleIndex
from dctx.store.registry import open_store

DIM = 8


def _rule(i: int, actor: str = "alice", skill: str | None = "fin") -> Rule:
    return Rule(
        id=f"r{i}",
        text=f"Rule number {i} about reports.",
        type=RuleType.CONTENT,
        trigger=Trigger(kind=TriggerKind.QUERY, text=f"situation {i}"),
        scope=Scope(skill=skill),
        source=RuleSource.CORRECTION,
        actor=actor,
        supporters=[actor],
        group=f"g{i}",
        created_at=f"2026-01-01T00:00:{i:02d}Z",
        updated_at=f"2026-01-01T00:00:{i:02d}Z",
    )


def _batch(*rules: Rule) -> CaptureBatch:
    vec = {r.id: _vectors(int(r.id[1:])) for r in rules}
    return CaptureBatch(rules=list(rules), rule_vectors=vec)


def _vectors(i: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(i)
    a, b = rng.standard_normal(DIM), rng.standard_normal(DIM)
    return (a / np.linalg.norm(a)).astype(np.float32), (b / np.linalg.norm(b)).astype(np.float32)


def _state(snap: Snapshot) -> list[tuple[str, str, list[float]]]:
    """(id, status, vectors) of the live rules in delivery order."""
    slots = snap.ordered(snap.live_slots())
    return [
        (
            snap.rule(i).id,
            snap.rule(i).status.value,
            np.concatenate([snap.text_vectors[i], snap.trigger_vectors[i]]).astype(float).tolist(),
        )
        for i in slots
    ]


def _ids(snap: Snapshot) -> list[str]:
    return [r.id for r in snap.rules(snap.live_slots())]


@pytest.fixture
def reader(backend_mem: Memory) -> Iterator[Retriever]:
    store = open_store(backend_mem.store.url)
    yield Retriever(store, backend_mem.embedder)
    store.close()


def test_changes_from_another_connection_are_applied_not_reloaded(
    backend_mem: Memory, reader: Retriever, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = backend_mem.store
    writer.write(_batch(*(_rule(i) for i in range(1, 7))))
    warm = reader.snapshot("default")
    view = reader.view(warm, skill="fin", actor="alice")
    assert len(view.query) == 6

    def no_full_load(*_: object) -> RuleIndex:
        raise AssertionError("the snapshot was reloaded in full")

    monkeypatch.setattr(reader.store, "rule_index", no_full_load)
    writer.set_rule_status("r2", RuleStatus.DISABLED)  # leaves the injectable set
    writer.delete_rule("r3")
    changed = _rule(4)
    changed.text = "Rule four, reworded."
    writer.write(_batch(changed, _rule(7), _rule(8, actor="bob")))
    writer.set_rule_status("r2", RuleStatus.ACTIVE)  # back, at its old place in the order
    writer.write(_batch(_rule(9, skill="support")))
    elsewhere = _rule(10)
    elsewhere.scope.namespace = "other"
    writer.write(_batch(elsewhere))

    snap = reader.snapshot("default")
    assert snap is warm  # updated in place
    assert snap.text_vectors.dtype == np.float16  # half the memory of float32
    assert reader.view(snap, skill="fin", actor="alice") is view
    monkeypatch.undo()
    full = Snapshot.build(
        reader.store.rule_index("default", INJECTED, dtype=VECTOR_DTYPE, packed=True)
    )
    assert _state(snap) == _state(full)
    assert [i for i, _, _ in _state(snap)] == ["r1", "r2", "r4", "r5", "r6", "r7", "r8", "r9"]
    assert snap.rule(snap.ordered(view.query)[1]).id == "r2"
    assert sorted(snap.rule(i).id for i in view.query) == ["r1", "r2", "r4", "r5", "r6", "r7", "r8"]
    assert "Rule four, reworded." in [r.text for r in snap.rules(snap.live_slots())]
    support = reader.view(snap, skill="support", actor="alice")
    assert sorted(snap.rule(i).id for i in support.query) == ["r9"]


def test_forget_leaves_nothing_in_the_snapshot(backend_mem: Memory, reader: Retriever) -> None:
    writer = backend_mem.store
    writer.write(_batch(_rule(1), _rule(2, actor="bob"), _rule(3)))
    warm = reader.snapshot("default")
    reader.view(warm, skill="fin", actor="alice")
    writer.forget_actor("default", "alice")
    snap = reader.snapshot("default")
    assert snap is warm
    assert _ids(snap) == ["r2"]
    for slot in range(snap.slots):
        if not snap.alive[slot]:  # the forgotten rules' vectors are zeroed too
            assert not snap.text_vectors[slot].any() and not snap.trigger_vectors[slot].any()
    for vectors in (snap.text_vectors, snap.trigger_vectors):  # and not just unreferenced
        held = set(vectors.rows[snap.alive].tolist())
        assert not any(vectors.matrix[r].any() for r in range(vectors.used) if r not in held)
    assert snap.slot_of("r1") is None and snap.slot_of("r3") is None
    view = reader.view(snap, skill="fin", actor="alice")
    assert [snap.rule(i).id for i in view.query] == ["r2"]


def test_a_cursor_read_inside_a_write_transaction_gets_no_changes(
    backend_mem: Memory, reader: Retriever
) -> None:
    writer = backend_mem.store
    writer.write(_batch(_rule(1)))
    warm = reader.snapshot("default")
    assert reader.store.rule_changes("default", INJECTED, warm.cursor) is not None
    assert reader.store.rule_changes("default", INJECTED, -1) is None  # read inside a write


def test_a_dropped_namespace_is_reloaded_empty(backend_mem: Memory, reader: Retriever) -> None:
    writer = backend_mem.store
    writer.write(_batch(_rule(1), _rule(2)))
    warm = reader.snapshot("default")
    writer.drop_namespace("default")  # the log forgets the namespace: a full reload follows
    snap = reader.snapshot("default")
    assert snap is not warm and snap.size == 0
    writer.write(_batch(_rule(3)))
    assert _ids(reader.snapshot("default")) == ["r3"]


def test_a_snapshot_read_just_after_a_drop_elsewhere_follows_changes(
    backend_mem: Memory, reader: Retriever, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cursor read after the log last lost rows (here: a drop) still gets changes: the
    log's floor is the oldest position it can answer, not one it has lost."""
    writer = backend_mem.store
    elsewhere = _rule(1)
    elsewhere.scope.namespace = "other"
    writer.write(_batch(elsewhere, _rule(2)))
    writer.drop_namespace("other")
    warm = reader.snapshot("default")
    monkeypatch.setattr(reader.store, "rule_index", _no_full_load)
    writer.write(_batch(_rule(3)))
    snap = reader.snapshot("default")
    assert snap is warm and _ids(snap) == ["r2", "r3"]


def test_a_snapshot_read_during_a_drop_of_its_namespace_sees_the_drop(
    backend_mem: Memory, reader: Retriever
) -> None:
    """The snapshot is read while the drop is written but not committed, so it still holds
    the dropped rules and its cursor is as old as the drop itself; once the drop commits,
    the log (which forgot the namespace) cannot say what it removed: a full reload."""
    writer = backend_mem.store
    writer.write(_batch(_rule(1), _rule(2)))
    with writer.transaction():
        writer.drop_namespace("default")
        warm = reader.snapshot("default")
        assert _ids(warm) == ["r1", "r2"]
    assert reader.snapshot("default").size == 0


def _no_full_load(*_: object, **__: object) -> RuleIndex:
    raise AssertionError("the snapshot was reloaded in full")
