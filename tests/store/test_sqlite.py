"""SQLite-only behavior: paths, error mapping, pragmas, migrations, storage format, scale."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from dctx.errors import ConfigError, StoreError
from dctx.models import Rule, RuleSource, RuleStatus, RuleType, Scope, Trigger, TriggerKind
from dctx.store._rows import rule_to_row
from dctx.store.base import CaptureBatch
from dctx.store.migrations import Migrations
from dctx.store.sqlite import SQLiteStore, fts_query
from dctx.store.sqlite_migrations import SQLITE_MIGRATIONS
from dctx.store.sqlite_ops import RULE_UPSERT


def _rule(rule_id: str, text: str = "Use metric units.") -> Rule:
    return Rule(
        id=rule_id,
        text=text,
        type=RuleType.CONTENT,
        trigger=Trigger(kind=TriggerKind.QUERY, text="units of measure"),
        scope=Scope(),
        source=RuleSource.CORRECTION,
        actor="alice",
        group="units",
    )


def test_fts_query_quotes_and_ors_every_word() -> None:
    assert fts_query('cc AND "lead" (x)') == '"cc" OR "and" OR "lead" OR "x"'
    assert fts_query("Lead lead LEAD") == '"lead"'
    assert fts_query("?! -- ()") is None
    assert fts_query(" ".join(f"w{i}" for i in range(500))).count(" OR ") == 63


def test_missing_directory_is_a_config_error_naming_the_path(tmp_path: Path) -> None:
    target = tmp_path / "nope" / "dctx.db"
    with pytest.raises(ConfigError, match=str(tmp_path / "nope")):
        SQLiteStore(target)


def test_directory_and_non_database_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=str(tmp_path)):
        SQLiteStore(tmp_path)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database file" * 100)
    with pytest.raises(ConfigError, match="not a SQLite database"):
        SQLiteStore(junk)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_unwritable_directory_is_a_config_error(tmp_path: Path) -> None:
    locked = tmp_path / "ro"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        with pytest.raises(ConfigError, match="not writable"):
            SQLiteStore(locked / "dctx.db")
    finally:
        locked.chmod(0o700)


def test_sqlite_errors_become_store_errors(tmp_path: Path) -> None:
    path = tmp_path / "locked.db"
    store = SQLiteStore(path, busy_timeout=0.2)
    blocker = sqlite3.connect(path, isolation_level=None)
    blocker.execute("BEGIN IMMEDIATE")  # another writer holds the lock past the timeout
    try:
        with pytest.raises(StoreError) as info:
            store.write(CaptureBatch(rules=[_rule("r1")]))
        assert isinstance(info.value.__cause__, sqlite3.OperationalError)
        assert store.list_rules() == []  # readers are not blocked by a writer (WAL)
    finally:
        blocker.execute("ROLLBACK")
        blocker.close()
    store.write(CaptureBatch(rules=[_rule("r1")]))
    assert [r.id for r in store.list_rules()] == ["r1"]
    store.close()


def test_pragmas_and_persistence(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    store = SQLiteStore(path)
    assert store._query("PRAGMA journal_mode") == [("wal",)]
    assert store._query("PRAGMA foreign_keys") == [(1,)]
    assert store._query("PRAGMA busy_timeout") == [(30000,)]
    store.write(CaptureBatch(rules=[_rule("r1")], rule_vectors={"r1": (np.ones(4), np.ones(4))}))
    store.close()
    again = SQLiteStore(path)
    assert again.migrate() == []
    assert [r.id for r in again.list_rules()] == ["r1"]
    again.close()


def test_migrations_are_recorded_by_name_and_newer_databases_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    store = SQLiteStore(path, migrate=False)
    assert store.migrate() == SQLITE_MIGRATIONS.names()
    assert store.migrate() == []
    names = [r[0] for r in store._query("SELECT name FROM migrations ORDER BY rowid")]
    assert names == SQLITE_MIGRATIONS.names()
    store.close()
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO migrations VALUES ('m999_from_the_future', '2030-01-01')")
    conn.commit()
    conn.close()
    with pytest.raises(StoreError, match="newer dctx"):
        SQLiteStore(path)


def test_m004_reindexes_existing_rules_for_scoped_search(tmp_path: Path) -> None:
    """A store written before m004 keeps its rules searchable (and scoped) after upgrading."""
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("CREATE TABLE migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    for step in list(SQLITE_MIGRATIONS)[:2]:
        step.apply(conn)
        conn.execute("INSERT INTO migrations VALUES (?, '2026-01-01')", (step.name,))
    elsewhere = _rule("r2", "Use metric units everywhere.")
    elsewhere.scope.namespace = "other"
    for rule in (_rule("r1"), elsewhere):  # as the old code wrote them (no change log yet)
        conn.execute("INSERT INTO actors VALUES (?, 'alice')", (rule.scope.namespace,))
        conn.execute(RULE_UPSERT, rule_to_row(rule))
    conn.close()
    store = SQLiteStore(path)
    assert store.applied_on_open == SQLITE_MIGRATIONS.names()[2:]
    assert [i for i, _ in store.search_text("default", "metric units")] == ["r1"]
    assert [i for i, _ in store.search_text("other", "metric units", skill="x")] == ["r2"]
    store.close()


def test_migration_names_are_unique() -> None:
    steps: Migrations[object] = Migrations("test")

    @steps.step
    def m001_a(conn: object) -> None: ...

    with pytest.raises(ValueError, match="duplicate"):
        steps.step(m001_a)


def test_vectors_are_float32_blobs_and_rules_are_json(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "v.db")
    text = np.array([0.6, 0.8, 0.0], dtype=np.float32)
    store.write(CaptureBatch(rules=[_rule("r1")], rule_vectors={"r1": (text, -text)}))
    rows = store._query(
        "SELECT kind, dim, typeof(data), data FROM vectors WHERE owner = 'r1' ORDER BY kind"
    )
    assert [row[:3] for row in rows] == [("rule_text", 3, "blob"), ("rule_trigger", 3, "blob")]
    np.testing.assert_array_equal(np.frombuffer(rows[0][3], dtype="<f4"), text)
    assert store._query("SELECT json_valid(body) FROM rules") == [(1,)]
    store.close()


@pytest.mark.slow
def test_rule_index_over_several_write_batches(tmp_path: Path) -> None:
    """The index of a rulebook written in several batches holds every rule and its vectors.
    (How long it takes is a benchmark: `dctx bench perf`, not a timed test.)"""
    store = SQLiteStore(tmp_path / "big.db")
    rng = np.random.default_rng(0)
    dim, n, chunk = 384, 20_000, 10_000
    for start in range(0, n, chunk):
        rules = [_rule(f"r{i}", f"Rule {i}, topic {i % 97}.") for i in range(start, start + chunk)]
        text = rng.standard_normal((chunk, dim)).astype(np.float32)
        trig = rng.standard_normal((chunk, dim)).astype(np.float32)
        vectors = {r.id: (text[j], trig[j]) for j, r in enumerate(rules)}
        store.write(CaptureBatch(rules=rules, rule_vectors=vectors))
    index = store.rule_index("default", [RuleStatus.ACTIVE])
    assert len(index.rules) == n and index.text_vectors.shape == (n, dim)
    assert {r.id for r in index.rules} == {f"r{i}" for i in range(n)}
    np.testing.assert_allclose(index.trigger_vectors[-1], trig[-1], rtol=1e-2, atol=1e-2)
    store.close()
