"""Helpers of the "forget leaves nothing" checks: the cells of every table holding a needle,
and the bytes of a SQLite file with its -wal and -shm."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dctx.store.base import Store

Dump = Callable[[Any], list[tuple[str, str, Any]]]
_ID = re.compile(r"[\w-]+")


def hits(dump: Dump, store: Store, needles: set[str]) -> list[tuple[str, str, str]]:
    """Cells containing a needle as a whole id (perf-11-3 is not in perf-11-30)."""
    found = []
    for table, column, value in dump(store):
        text = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        if isinstance(text, str) and needles.intersection(_ID.findall(text)):
            found.append((table, column, text[:160]))
    return found


def on_disk(path: Path) -> dict[str, bytes]:
    """The bytes of a SQLite database file and of its -wal and -shm, by file name."""
    return {
        p.name: p.read_bytes()
        for p in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm"))
        if p.exists()
    }
