"""Rows of the `transcript_files` table, shared by both backends (only placeholders differ)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from dctx.store.base import TranscriptFile

TRANSCRIPT_COLUMNS = (
    "namespace",
    "client",
    "path",
    "actor",
    "size",
    "mtime_ns",
    "sha256",
    "sessions",
    "captured_at",
)


def transcript_row(record: TranscriptFile) -> tuple[Any, ...]:
    sessions = {conv: [n, digest] for conv, (n, digest) in record.sessions.items()}
    return (
        record.namespace,
        record.client,
        record.path,
        record.actor,
        record.size,
        record.mtime_ns,
        record.sha256,
        json.dumps(sessions, ensure_ascii=False, sort_keys=True),
        record.captured_at,
    )


def transcript_from_row(row: Sequence[Any]) -> TranscriptFile:
    sessions = json.loads(row[7])
    return TranscriptFile(
        namespace=row[0],
        client=row[1],
        path=row[2],
        actor=row[3],
        size=int(row[4]),
        mtime_ns=int(row[5]),
        sha256=row[6],
        sessions={conv: (int(n), str(digest)) for conv, (n, digest) in sessions.items()},
        captured_at=row[8],
    )


def select(ph: str, namespace: str, client: str, path: str | None) -> tuple[str, tuple[str, ...]]:
    """The statement and parameters reading a client's records (or one file's)."""
    where = f"namespace = {ph} AND client = {ph}" + (f" AND path = {ph}" if path else "")
    params = (namespace, client, path) if path else (namespace, client)
    sql = (
        f"SELECT {', '.join(TRANSCRIPT_COLUMNS)} FROM transcript_files WHERE {where} ORDER BY path"
    )
    return sql, params


def upsert_sql(ph: str) -> str:
    updates = ", ".join(f"{c} = excluded.{c}" for c in TRANSCRIPT_COLUMNS[3:])
    return (
        f"INSERT INTO transcript_files ({', '.join(TRANSCRIPT_COLUMNS)}) "
        f"VALUES ({', '.join([ph] * len(TRANSCRIPT_COLUMNS))}) "
        f"ON CONFLICT (namespace, client, path) DO UPDATE SET {updates}"
    )


__all__ = [
    "TRANSCRIPT_COLUMNS",
    "select",
    "transcript_from_row",
    "transcript_row",
    "upsert_sql",
]
