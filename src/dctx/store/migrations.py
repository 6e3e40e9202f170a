"""Schema migrations as ordered, named steps, recorded by name in a `migrations` table.

The pattern of simonw/llm: each step is a plain function registered in order; a database
remembers which names it has applied, so a step runs exactly once and new steps are appended,
never edited. This module is dialect-free: each backend owns a `Migrations` list of steps that
take its own connection type (see `sqlite_migrations.py`) and a small `MigrationLedger` that
reads and writes its `migrations` table. The backend runs `apply` inside one write transaction,
so concurrent openers serialize and a failing step leaves the schema as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from dctx.errors import StoreError

ConnT = TypeVar("ConnT")

MIGRATIONS_TABLE = "migrations"


@dataclass(frozen=True, slots=True)
class Migration(Generic[ConnT]):
    """One named schema step; `name` is what the `migrations` table records."""

    name: str
    apply: Callable[[ConnT], None]


class MigrationLedger(Protocol):
    """Backend access to the `migrations` table (created by the backend if absent)."""

    def applied(self) -> list[str]:
        """Names already applied, in the order they were applied."""
        ...

    def record(self, name: str) -> None: ...


class Migrations(Generic[ConnT]):
    """An ordered registry of steps for one backend; use `step` as a decorator."""

    def __init__(self, backend: str) -> None:
        self.backend = backend
        self._steps: list[Migration[ConnT]] = []

    def step(self, fn: Callable[[ConnT], None]) -> Callable[[ConnT], None]:
        """Register `fn` as the next step, named after the function (m001_initial ...)."""
        name = fn.__name__
        if any(s.name == name for s in self._steps):
            raise ValueError(f"duplicate {self.backend} migration name {name!r}")
        self._steps.append(Migration(name, fn))
        return fn

    def __iter__(self) -> Iterator[Migration[ConnT]]:
        return iter(self._steps)

    def names(self) -> list[str]:
        return [s.name for s in self._steps]

    def pending(self, applied: list[str]) -> list[Migration[ConnT]]:
        """Steps not applied yet. Refuses a database that knows steps this code does not
        (it was migrated by a newer dctx: running old code on it could corrupt it)."""
        known = set(self.names())
        unknown = [name for name in applied if name not in known]
        if unknown:
            raise StoreError(
                f"this {self.backend} database was migrated by a newer dctx "
                f"(unknown migrations: {', '.join(unknown)}); upgrade dctx to open it"
            )
        done = set(applied)
        return [s for s in self._steps if s.name not in done]

    def apply(self, conn: ConnT, ledger: MigrationLedger) -> list[str]:
        """Run pending steps in order and record each; return the names applied.

        The caller wraps this in one transaction: all pending steps land, or none.
        """
        names: list[str] = []
        for step in self.pending(ledger.applied()):
            step.apply(conn)
            ledger.record(step.name)
            names.append(step.name)
        return names


__all__ = ["MIGRATIONS_TABLE", "Migration", "MigrationLedger", "Migrations"]
