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
        columns = [r[1] for r in store._query(f"PRAGMA table_info('{table}')")]
        for row in store._query(f'SELECT * FROM "{table}"'):
            cells.extend((table, c, v) for c, v in zip(columns, row, strict=True))
    return cells


BACKENDS: dict[str, Backend] = {
    "sqlite-file": Backend("sqlite-file", lambda tmp: open_store(tmp / "dctx.db"), _sqlite_dump),
    "sqlite-memory": Backend("sqlite-memory", lambda tmp: open_store(":memory:"), _sqlite_dump),
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


@pytest.fixture
def dump(backend: Backend) -> Callable[[Store], list[Cell]]:
    return backend.dump
