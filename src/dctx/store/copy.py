"""Move a whole memory between stores (SQLite <-> PostgreSQL, or a store to a fresh copy).

Every logical table is streamed row by row in a backend-neutral form (the same columns on
every backend; vectors as float32 arrays) and written into an empty target in one
transaction, so a failed copy leaves the target empty. Afterwards the row counts of both
stores are compared table by table. Generation counters are not copied: the target gives every
copied namespace a fresh one. `dctx copy SRC DST` is the command line for this.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from dctx.errors import ConfigError, StoreError
from dctx.store._events import EVENT_COLUMNS
from dctx.store._rows import RULE_COLUMNS
from dctx.store._transcripts import TRANSCRIPT_COLUMNS
from dctx.store.base import Store
from dctx.store.sqlite_ops import EVIDENCE_FIELDS, NODE_FIELDS

Row = tuple[Any, ...]

# Columns per table, in write order (actors first: the other tables refer to them).
COPY_COLUMNS: dict[str, tuple[str, ...]] = {
    "actors": ("namespace", "name"),
    "subjects": ("namespace", "name"),
    "sessions": ("namespace", "conversation_id", "actor", "skill", "timestamp", "source",
                 "messages"),
    "nodes": NODE_FIELDS,
    "evidence": EVIDENCE_FIELDS,
    "edges": ("src", "type", "dst", "namespace"),
    "rules": RULE_COLUMNS,
    "vectors": ("owner", "kind", "dim", "vector"),  # vector: a float32 numpy array
    "meta": ("key", "value"),
    "cache": ("key", "value", "namespace", "actor", "created"),
    "transcript_files": TRANSCRIPT_COLUMNS,
    "rule_events": EVENT_COLUMNS,
}  # fmt: skip
# Meta keys that belong to one store and are not copied.
LOCAL_META_PREFIXES = ("generation",)


@runtime_checkable
class Copyable(Protocol):
    """A store whose tables can be streamed out and bulk-loaded (both built-in backends)."""

    def export_rows(self, table: str) -> Iterator[Row]:
        """Rows of one COPY_COLUMNS table, in COPY_COLUMNS order, oldest first."""
        ...

    def import_rows(self, tables: Iterable[tuple[str, Iterable[Row]]]) -> None:
        """Insert rows into an empty store in one transaction; then give every namespace
        of the copied rules a fresh generation."""
        ...


@dataclass(slots=True)
class CopyResult:
    source: dict[str, int]
    target: dict[str, int]

    @property
    def ok(self) -> bool:
        return all(self.source[t] == self.target.get(t) for t in COPY_COLUMNS if t != "meta")


def _copyable(store: Store, role: str) -> Copyable:
    if not isinstance(store, Copyable):
        raise ConfigError(f"the {role} store {store.url} does not support copying")
    return store


def _kept(table: str, rows: Iterable[Row]) -> Iterator[Row]:
    for row in rows:
        if table == "meta" and str(row[0]).startswith(LOCAL_META_PREFIXES):
            continue
        yield row


def copy_store(
    source: Store, target: Store, *, progress: Callable[[str], None] | None = None
) -> CopyResult:
    """Copy everything from `source` into the empty `target`; check the counts match."""
    src, dst = _copyable(source, "source"), _copyable(target, "target")
    busy = {t: n for t, n in target.count_rows().items() if n and t != "meta"}
    if busy:
        listed = ", ".join(f"{t}: {n}" for t, n in sorted(busy.items()))
        raise ConfigError(
            f"the target store {target.url} is not empty ({listed}); copy into a new database "
            "(or a new file), or empty the target first"
        )
    say = progress or (lambda _msg: None)

    def tables() -> Iterator[tuple[str, Iterable[Row]]]:
        for table in COPY_COLUMNS:
            say(f"copying {table}")
            yield table, _kept(table, src.export_rows(table))

    dst.import_rows(tables())
    result = CopyResult(source=source.count_rows(), target=target.count_rows())
    if not result.ok:
        diff = {t: (result.source[t], result.target.get(t)) for t in COPY_COLUMNS
                if t != "meta" and result.source[t] != result.target.get(t)}  # fmt: skip
        raise StoreError(
            f"copy finished but row counts differ (source, target): {diff}; was the source "
            "written to during the copy? Empty the target and copy again"
        )
    return result


__all__ = ["COPY_COLUMNS", "CopyResult", "Copyable", "copy_store"]
