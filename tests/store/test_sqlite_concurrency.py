"""SQLite under real concurrency: several processes (spawned, not forked), a reader racing a
writer, and a writer killed with SIGKILL in the middle of a transaction."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sqlite3
import sys
import time
from collections import Counter
from multiprocessing.synchronize import Barrier, Event
from pathlib import Path

import numpy as np
import pytest

from dctx.models import Rule, RuleSource, RuleStatus, RuleType, Scope, Trigger, TriggerKind
from dctx.store.base import CaptureBatch
from dctx.store.registry import open_store
from dctx.store.sqlite import SQLiteStore
from dctx.store.sqlite_migrations import SQLITE_MIGRATIONS

CTX = multiprocessing.get_context("spawn")
DIM = 16
BATCH = 5  # rules per batch in the all-or-nothing checks
JOIN_S = 60

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def _rule(rule_id: str, tag: str) -> Rule:
    return Rule(
        id=rule_id,
        text=f"Rule {rule_id} of batch {tag}.",
        type=RuleType.CONTENT,
        trigger=Trigger(kind=TriggerKind.QUERY, text=f"situation {tag}"),
        scope=Scope(),
        source=RuleSource.CORRECTION,
        actor="writer",
        group=tag,  # the batch a rule came in, for the all-or-nothing checks
    )


def _batch(tag: str, size: int = BATCH) -> CaptureBatch:
    rules = [_rule(f"{tag}_r{i}", tag) for i in range(size)]
    rng = np.random.default_rng(abs(hash(tag)) % 2**32)
    vectors = {
        r.id: tuple(v / np.linalg.norm(v) for v in rng.standard_normal((2, DIM)).astype("f4"))
        for r in rules
    }
    return CaptureBatch(rules=rules, rule_vectors=vectors)  # type: ignore[arg-type]


def _assert_whole_batches(store: SQLiteStore) -> int:
    """Every batch is fully there or absent, with both vectors of each rule; returns #rules."""
    index = store.rule_index("default", [RuleStatus.ACTIVE])
    sizes = Counter(r.group for r in index.rules)
    assert all(n == BATCH for n in sizes.values()), sizes
    assert bool(np.all(np.linalg.norm(index.text_vectors, axis=1) > 0.5))
    assert bool(np.all(np.linalg.norm(index.trigger_vectors, axis=1) > 0.5))
    return len(index.rules)


def _integrity(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        conn.close()


# --- worker processes (module-level so spawn can import them) --------------------------------


def _writer(path: str, worker: int, n: int, barrier: Barrier) -> None:
    barrier.wait(JOIN_S)  # all open a database nobody has created yet, at once
    store = open_store(path)
    for i in range(n):
        store.write(CaptureBatch(rules=[_rule(f"w{worker}_r{i}", f"w{worker}")]))
    store.close()


def _batch_writer(path: str, batches: int, started: Event) -> None:
    store = open_store(path)
    started.set()
    for b in range(batches):
        store.write(_batch(f"b{b}"))
    store.close()


def _doomed_writer(path: str, committed: Event, inside: Event) -> None:
    store = SQLiteStore(path)
    store.write(_batch("committed"))
    committed.set()
    with store.transaction():
        for b in range(40):  # big enough to spill pages to the WAL before the kill
            store.write(_batch(f"doomed{b}", size=25))
        inside.set()
        time.sleep(JOIN_S)  # killed here, holding the write lock mid-transaction


def _looping_writer(path: str, started: Event) -> None:
    store = SQLiteStore(path)
    started.set()
    b = 0
    while True:  # killed at a random moment
        store.write(_batch(f"loop{b}"))
        b += 1


def _run(target: object, *args: object) -> multiprocessing.process.BaseProcess:
    proc = CTX.Process(target=target, args=args, daemon=True)  # type: ignore[attr-defined]
    proc.start()
    return proc


# --- tests ---------------------------------------------------------------------------------


def test_concurrent_writer_processes_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "shared.db"
    barrier = CTX.Barrier(4)
    procs = [_run(_writer, str(path), w, 50, barrier) for w in range(4)]
    deadline = time.monotonic() + JOIN_S
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    store = SQLiteStore(path)
    ids = {r.id for r in store.list_rules()}
    assert ids == {f"w{w}_r{i}" for w in range(4) for i in range(50)}
    assert store.migrate() == []  # migrated exactly once between them
    steps = len(SQLITE_MIGRATIONS.names())  # each step recorded once, not once per process
    assert store._query("SELECT count(*) FROM migrations") == [(steps,)]
    assert store._query("PRAGMA journal_mode") == [("wal",)]
    store.close()
    assert _integrity(path) == "ok"


def test_reader_never_sees_half_a_batch(tmp_path: Path) -> None:
    path = tmp_path / "race.db"
    reader = SQLiteStore(path)
    started = CTX.Event()
    total = 60
    proc = _run(_batch_writer, str(path), total, started)
    assert started.wait(JOIN_S)
    seen: list[int] = []
    while proc.is_alive() or not seen:
        seen.append(_assert_whole_batches(reader))
        counts = reader.count_rows()  # one snapshot: rules and vectors agree
        assert counts["vectors"] == 2 * counts["rules"]
    proc.join(JOIN_S)
    assert proc.exitcode == 0
    assert _assert_whole_batches(reader) == total * BATCH
    assert any(0 < n < total * BATCH for n in seen), "the reader never overlapped the writer"
    reader.close()


def test_writer_killed_mid_transaction_leaves_database_consistent(tmp_path: Path) -> None:
    path = tmp_path / "killed.db"
    SQLiteStore(path).close()
    committed, inside = CTX.Event(), CTX.Event()
    proc = _run(_doomed_writer, str(path), committed, inside)
    assert inside.wait(JOIN_S) and committed.is_set()
    assert path.with_name("killed.db-wal").stat().st_size > 0
    os.kill(proc.pid, signal.SIGKILL)  # type: ignore[arg-type]
    proc.join(JOIN_S)
    assert proc.exitcode == -signal.SIGKILL
    assert _integrity(path) == "ok"
    store = SQLiteStore(path)
    assert {r.group for r in store.list_rules()} == {"committed"}
    assert _assert_whole_batches(store) == BATCH
    assert store.count_rows()["vectors"] == 2 * BATCH
    store.write(_batch("after"))  # the dead writer's lock is gone
    assert _assert_whole_batches(store) == 2 * BATCH
    store.close()


def test_writer_killed_at_a_random_moment_leaves_whole_batches(tmp_path: Path) -> None:
    path = tmp_path / "random.db"
    SQLiteStore(path).close()
    for round_ in range(3):
        started = CTX.Event()
        proc = _run(_looping_writer, str(path), started)
        assert started.wait(JOIN_S)
        time.sleep(0.15 + 0.1 * round_)
        os.kill(proc.pid, signal.SIGKILL)  # type: ignore[arg-type]
        proc.join(JOIN_S)
        assert _integrity(path) == "ok"
        store = SQLiteStore(path)
        assert _assert_whole_batches(store) > 0
        counts = store.count_rows()
        assert counts["vectors"] == 2 * counts["rules"]
        store.close()
