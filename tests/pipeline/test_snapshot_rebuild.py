"""A change set larger than half the snapshot is read by a rebuild, which drops the old snapshot
before reading: applying it would hold the old columns, the changes and the grown ones."""

from __future__ import annotations

import pytest

import dctx.retrieve.snapshot as snapshot_module
from dctx.memory import Memory
from dctx.retrieve.engine import INJECTED, VECTOR_DTYPE, Snapshot
from pipeline.test_snapshot_changes import _batch, _rule, _state


def test_more_changes_than_slots_rebuild_and_fewer_apply(
    backend_mem: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(snapshot_module, "REBUILD_ROWS", 2)
    store, retriever = backend_mem.store, backend_mem.retriever
    store.write(_batch(*(_rule(i) for i in range(1, 4))))
    warm = retriever.snapshot("default")
    store.write(_batch(_rule(4), _rule(5)))  # 2 changes on 3 slots: applied (at most 2)
    assert retriever.snapshot("default") is warm
    store.write(_batch(*(_rule(i) for i in range(6, 9))))  # 3 changes on 5 slots: rebuilt
    rebuilt = retriever.snapshot("default")
    assert rebuilt is not warm and rebuilt.empty == 0
    full = Snapshot.build(store.rule_index("default", INJECTED, dtype=VECTOR_DTYPE, packed=True))
    assert _state(rebuilt) == _state(full) and len(_state(full)) == 8
