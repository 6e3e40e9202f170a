"""Server-side runs for the HTTP API: kept by id, bounded by an idle TTL and an LRU cap.

Why keep runs on the server: a `Run` remembers which rules it already delivered, how much of
the token budget is used, and the accumulated tool context. Sending all of that back on every
step would re-embed every earlier step per call; keeping it makes each `observe` one embedding.
Bounds keep memory flat when clients forget to end runs: an idle run expires after `ttl_s`, and
beyond `max_runs` the least recently used one is dropped (the client then gets 404 and can
start a new run, or use the stateless /guidance endpoint).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from dctx.errors import NotFoundError
from dctx.inject.run import Run


@dataclass(slots=True)
class _Entry:
    namespace: str
    run: Run
    touched: float
    lock: threading.Lock = field(default_factory=threading.Lock)  # one step at a time


class RunRegistry:
    """Runs by id, each bound to the namespace that started it."""

    def __init__(
        self,
        *,
        ttl_s: float = 3600.0,
        max_runs: int = 1000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.ttl_s = ttl_s
        self.max_runs = max_runs
        self._clock = clock
        self._runs: OrderedDict[str, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, namespace: str, run: Run) -> str:
        run_id = run.id  # unguessable (inject/run.py): the id is the capability
        with self._lock:
            self._expire()
            self._runs[run_id] = _Entry(namespace, run, self._clock())
            while len(self._runs) > self.max_runs:
                self._runs.popitem(last=False)
        return run_id

    def get(self, namespace: str, run_id: str) -> Run:
        """The run, if it exists in this namespace and has not expired; refreshes its TTL."""
        return self._entry(namespace, run_id).run

    @contextmanager
    def using(self, namespace: str, run_id: str) -> Iterator[Run]:
        """The run, held by this caller alone: two steps of one run never interleave (a run
        changes with each step), while other runs and requests go on in parallel."""
        entry = self._entry(namespace, run_id)
        with entry.lock:
            yield entry.run

    def _entry(self, namespace: str, run_id: str) -> _Entry:
        with self._lock:
            self._expire()
            entry = self._runs.get(run_id)
            if entry is None or entry.namespace != namespace:
                raise NotFoundError(
                    f"no open run {run_id!r} in namespace {namespace!r}: it ended, expired "
                    f"after {int(self.ttl_s)} s idle, or never existed; start a new run"
                )
            entry.touched = self._clock()
            self._runs.move_to_end(run_id)
            return entry

    def end(self, namespace: str, run_id: str) -> None:
        self.get(namespace, run_id)
        with self._lock:
            self._runs.pop(run_id, None)

    def drop_actor(self, namespace: str, actor: str) -> int:
        """End the actor's open runs in the namespace (they hold what the actor asked, and
        would record outcomes under their name after a forget); how many."""
        with self._lock:
            gone = [
                rid
                for rid, e in self._runs.items()
                if e.namespace == namespace and e.run.actor == actor
            ]
            for rid in gone:
                del self._runs[rid]
        return len(gone)

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._runs)

    def _expire(self) -> None:
        deadline = self._clock() - self.ttl_s
        while self._runs:
            run_id, entry = next(iter(self._runs.items()))
            if entry.touched >= deadline:
                break
            del self._runs[run_id]


__all__ = ["RunRegistry"]
