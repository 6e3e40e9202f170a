"""Server-side runs: bound to a namespace, expired after an idle TTL, capped by LRU."""

from __future__ import annotations

import pytest

from dctx.errors import NotFoundError
from dctx.inject.run import Run
from dctx.server.runs import RunRegistry
from dctx.server.service import DctxService


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _run(service: DctxService) -> Run:
    return service.memory.start(actor="a", skill="s", query="q")


def test_ttl_counts_idle_time(service: DctxService) -> None:
    clock = Clock()
    runs = RunRegistry(ttl_s=10, clock=clock)
    rid = runs.add("ns", _run(service))
    clock.now = 9
    runs.get("ns", rid)  # touching it restarts the idle clock
    clock.now = 18
    assert runs.get("ns", rid) is not None
    clock.now = 28.5
    with pytest.raises(NotFoundError, match="expired after 10 s idle"):
        runs.get("ns", rid)
    assert len(runs) == 0


def test_lru_cap_drops_the_least_recently_used(service: DctxService) -> None:
    clock = Clock()
    runs = RunRegistry(max_runs=2, clock=clock)
    first = runs.add("ns", _run(service))
    second = runs.add("ns", _run(service))
    runs.get("ns", first)  # first is now the most recent
    third = runs.add("ns", _run(service))
    assert len(runs) == 2
    runs.get("ns", first)
    runs.get("ns", third)
    with pytest.raises(NotFoundError):
        runs.get("ns", second)


def test_runs_are_bound_to_their_namespace(service: DctxService) -> None:
    runs = RunRegistry()
    rid = runs.add("tenant-a", _run(service))
    with pytest.raises(NotFoundError):
        runs.get("tenant-b", rid)
    with pytest.raises(NotFoundError):
        runs.end("tenant-b", rid)
    runs.end("tenant-a", rid)
    with pytest.raises(NotFoundError):
        runs.get("tenant-a", rid)
    assert rid.startswith("run_") and len(rid) == 28


def test_forgetting_an_actor_ends_their_open_runs(service: DctxService) -> None:
    """An open run holds what they asked and would record outcomes under their name."""
    theirs = service.runs.add("default", service.memory.start(actor="x", skill="s", query="q"))
    other = service.runs.add("default", service.memory.start(actor="y", skill="s", query="q"))
    elsewhere = service.runs.add("b", service.memory.start(actor="x", skill="s", query="q"))
    service.forget_actor("default", "x")
    with pytest.raises(NotFoundError):
        service.runs.get("default", theirs)
    assert service.runs.get("default", other).actor == "y"
    assert service.runs.get("b", elsewhere).actor == "x"
