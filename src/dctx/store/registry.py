"""Open a store from a URL or a path. The registry is data: scheme -> opener.

    memory.db, ~/dctx/memory.db      SQLite file (created if absent)
    :memory:                         SQLite in memory (one process, lost on close)
    sqlite:///relative/memory.db     SQLite; four slashes for an absolute path:
    sqlite:////var/lib/dctx.db       (the SQLAlchemy convention); sqlite:// alone is in memory
    postgresql://user@host/db        PostgreSQL + pgvector (optional extra `postgres`)

Backends are imported only when used, so `import dctx` stays light.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable

from dctx.errors import ConfigError, MissingDependencyError
from dctx.store.base import Store

Opener = Callable[[str, bool], Store]  # (url or path, migrate) -> store


def sqlite_path(url: str) -> str:
    """The file a SQLite URL or path names (":memory:" for an in-memory database)."""
    if not url.startswith("sqlite:"):
        return url
    rest = url.removeprefix("sqlite:")
    if rest in ("", "//", "///:memory:", "//:memory:"):
        return ":memory:"
    if rest.startswith("///"):
        return rest[3:]  # sqlite:///rel.db -> rel.db, sqlite:////abs.db -> /abs.db
    raise ConfigError(
        f"bad SQLite URL {url!r}: use sqlite:///relative/path.db or "
        "sqlite:////absolute/path.db (or just the path)"
    )


def _open_sqlite(url: str, migrate: bool) -> Store:
    from dctx.store.sqlite import SQLiteStore

    return SQLiteStore(sqlite_path(url), migrate=migrate)


def _lazy(label: str, module: str, cls: str, extra: str, package: str) -> Opener:
    """An opener for a backend in an optional extra: importing it is the dependency check."""

    def open_backend(url: str, migrate: bool) -> Store:
        try:
            backend = importlib.import_module(module)
        except ImportError as exc:
            if exc.name is None or not (module.startswith(exc.name) or exc.name == package):
                raise
            raise MissingDependencyError(f"The {label} store backend", extra, package) from exc
        store: Store = getattr(backend, cls)(url, migrate=migrate)
        return store

    return open_backend


BACKENDS: dict[str, Opener] = {
    "sqlite": _open_sqlite,
    "postgresql": _lazy(
        "PostgreSQL", "dctx.store.postgres", "PostgresStore", "postgres", "psycopg"
    ),
    "postgres": _lazy("PostgreSQL", "dctx.store.postgres", "PostgresStore", "postgres", "psycopg"),
}


def scheme_of(url_or_path: str) -> str:
    """The backend a URL names; anything without a known `scheme:` prefix is a SQLite path."""
    head, sep, _ = url_or_path.partition(":")
    if sep and head.lower() in BACKENDS:
        return head.lower()
    if sep and "+" in head and head.split("+")[0].lower() in BACKENDS:  # postgresql+psycopg
        return head.split("+")[0].lower()
    return "sqlite"


def require_existing(url_or_path: str | os.PathLike[str]) -> None:
    """Raise ConfigError if a SQLite database file is not there (servers are not checked:
    connecting tells). For commands that only read, so a mistyped --db is not a new file."""
    target = os.fspath(url_or_path)
    if scheme_of(target) != "sqlite":
        return
    path = sqlite_path(target)
    if path != ":memory:" and not os.path.exists(path):
        raise ConfigError(
            f"no dctx database at {path!r}; this command works on an existing one and does "
            "not create it. Check --db / DCTX_DB for a typo, or learn rules first with: "
            f"dctx capture TRACE.jsonl --db {path}"
        )


def open_store(url_or_path: str | os.PathLike[str], *, migrate: bool = True) -> Store:
    """Open (and by default migrate) the store a URL or path names."""
    target = os.fspath(url_or_path)
    if not target:
        raise ConfigError("no store given: pass a path such as memory.db or a URL")
    return BACKENDS[scheme_of(target)](target, migrate)


__all__ = ["BACKENDS", "open_store", "scheme_of"]
