"""Capture throughput with several writer processes at once (`dctx bench perf --writers N`).

Each writer is a separate process with its own store connection, embedder and tenant
namespace, capturing generated sessions one by one (as agent integrations do). All writers
load their embedder first and then start together on a barrier; the clock runs from the
barrier to the last writer's end, so model loading is not counted. On SQLite the writers
share one file (WAL: one writer at a time); on PostgreSQL they write in parallel.
"""

from __future__ import annotations

import multiprocessing
import time
from dataclasses import dataclass
from multiprocessing.synchronize import Barrier

from dctx.errors import StoreError

JOIN_S = 3600


@dataclass(slots=True)
class ParallelCaptureResult:
    writers: int
    sessions: int
    messages: int
    seconds: float
    messages_per_s: float
    rules: int


def _writer(url: str, embedder: str, worker: int, sessions: int, barrier: Barrier) -> None:
    from dctx.bench.perf_data import SKILL, synthetic_sessions
    from dctx.memory import Memory
    from dctx.store.registry import open_store

    namespace = f"perf-writer-{worker}"
    data = synthetic_sessions(sessions, seed=1000 + worker)
    with Memory(open_store(url), embedder=embedder, embed_nodes=False, namespace=namespace) as m:
        m.embedder.embed(["warm up"])
        barrier.wait(JOIN_S)
        for i, (actor, conv, msgs) in enumerate(data):
            stamp = f"2026-02-{1 + i % 28:02d}T{i % 24:02d}:00:00Z"
            m.capture(msgs, actor=actor, skill=SKILL, conversation_id=conv, timestamp=stamp)


def measure_parallel_capture(
    url: str, embedder: str, writers: int, sessions: int
) -> ParallelCaptureResult:
    """`writers` processes each capture `sessions` sessions into their own namespace of the
    store at `url` (which must not hold those namespaces yet)."""
    from dctx.bench.perf_data import synthetic_sessions
    from dctx.store.registry import open_store

    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(writers + 1)
    procs = [
        ctx.Process(target=_writer, args=(url, embedder, w, sessions, barrier))
        for w in range(writers)
    ]
    for p in procs:
        p.start()
    barrier.wait(JOIN_S)
    t0 = time.perf_counter()
    for p in procs:
        p.join(JOIN_S)
    seconds = time.perf_counter() - t0
    if any(p.exitcode != 0 for p in procs):
        raise StoreError(f"a capture writer failed (exit codes {[p.exitcode for p in procs]})")
    messages = sum(
        len(m) for w in range(writers) for *_, m in synthetic_sessions(sessions, seed=1000 + w)
    )
    store = open_store(url)
    try:
        rules = sum(len(store.list_rules(namespace=f"perf-writer-{w}")) for w in range(writers))
    finally:
        store.close()
    return ParallelCaptureResult(
        writers=writers,
        sessions=writers * sessions,
        messages=messages,
        seconds=round(seconds, 2),
        messages_per_s=round(messages / seconds, 1),
        rules=rules,
    )


__all__ = ["ParallelCaptureResult", "measure_parallel_capture"]
