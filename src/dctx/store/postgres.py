"""The server store: PostgreSQL with pgvector, for many processes, hosts and tenants.

The same `Store` contract as SQLite. Connections (psycopg 3, autocommit, transactions issued
here) come from the small pool in `_pool.py`; a broken connection is dropped, never reused.
Writes run in READ COMMITTED transactions that take a per-namespace advisory lock before
touching a namespace, so a capture's read-compile-write of one tenant is serialized like on
SQLite while other tenants write in parallel; nested `transaction()` calls use savepoints.
Multi-statement reads run in one REPEATABLE READ snapshot. Generations come from a database
sequence, so they are right across processes. Full-text search is PostgreSQL's (`tsvector`,
GIN, `ts_rank`), standing in for SQLite's FTS5 BM25. Every psycopg error is mapped onto the
dctx error tree with a message naming the fix. Statements: `postgres_ops.py`; schema:
`postgres_migrations.py`.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any

import numpy as np
import numpy.typing as npt
import psycopg
from psycopg import errors as pg_errors
from psycopg.conninfo import conninfo_to_dict

from dctx.errors import (
    ConfigError,
    EmbedderMismatchError,
    MissingDependencyError,
    NotFoundError,
    StoreError,
)
from dctx.models import (
    DecisionNode,
    Edge,
    EdgeType,
    Evidence,
    EvidenceKind,
    Rule,
    RuleEvent,
    RuleEventKind,
    RuleStatus,
    Session,
    utcnow,
)
from dctx.store import _events as events
from dctx.store import _policies as policies
from dctx.store import _scrub
from dctx.store import _transcripts as transcripts
from dctx.store import postgres_ops as ops
from dctx.store._index import assemble, oldest_first
from dctx.store._pool import ConnectionPool
from dctx.store._rows import (
    SESSION_SELECT,
    gc_paused,
    rule_to_row,
    rules_from_rows,
    session_from_row,
    vector_to_blob,
)
from dctx.store.base import CaptureBatch, RuleChanges, RuleIndex, TranscriptFile, Vector
from dctx.store.copy import COPY_COLUMNS
from dctx.store.migrations import MIGRATIONS_TABLE
from dctx.store.packed import PackedRules
from dctx.store.postgres_migrations import POSTGRES_MIGRATIONS

try:
    from pgvector.psycopg import register_vector
except ImportError as exc:  # psycopg is there but not pgvector: the extra is half-installed
    raise MissingDependencyError("The PostgreSQL store backend", "postgres", "pgvector") from exc

Conn = ops.Conn
_TOKEN = re.compile(r"\w+")
_MAX_QUERY_TOKENS = 64
_MAX_TOKEN_CHARS = 200  # PostgreSQL refuses words over 2 KB; no real word is this long
_VEC_BYTES = "substring(vector_send({}) from 5)"  # pgvector's binary form: big-endian float4


def ts_query(text: str) -> str | None:
    """A safe `to_tsquery` input for arbitrary user text: each word quoted, ORed (None if no
    words). Words are `\\w+` runs, so no quote or operator can reach the query parser."""
    words = (t.lower() for t in _TOKEN.findall(text) if len(t) <= _MAX_TOKEN_CHARS)
    tokens = list(dict.fromkeys(words))[:_MAX_QUERY_TOKENS]
    return " | ".join(f"'{t}'" for t in tokens) or None


def normalize_url(url: str) -> str:
    """libpq's URL: `postgresql+psycopg://` (SQLAlchemy style) becomes `postgresql://`."""
    head, sep, rest = url.partition("://")
    return f"{head.split('+')[0]}{sep}{rest}" if sep else url


def _describe(params: dict[str, Any]) -> str:
    """host:port/db for messages; never the password."""
    host = params.get("host") or "localhost"
    port = params.get("port") or "5432"
    return f"{host}:{port}/{params.get('dbname') or params.get('user') or '(default)'}"


def _connect_hint(message: str, params: dict[str, Any]) -> str:
    db = params.get("dbname") or "the database"
    text = message.lower()
    if "does not exist" in text and "database" in text:
        return f"create it first (createdb {db}, or CREATE DATABASE {db};) or fix the URL"
    if "password" in text or "authentication" in text:
        return "check the user and password in the URL (or PGPASSWORD / ~/.pgpass)"
    if "role" in text and "does not exist" in text:
        return "check the user name in the URL (postgresql://USER:PASSWORD@HOST:PORT/DB)"
    return (
        "check that the server is running and reachable, and the host and port in the URL "
        "(postgresql://USER:PASSWORD@HOST:PORT/DB)"
    )


def _one_line(exc: BaseException) -> str:
    return " ".join(line.strip() for line in str(exc).splitlines() if line.strip()) or repr(exc)


def _close_quietly(conn: Conn) -> None:
    with suppress(psycopg.Error):
        conn.close()


class _Ledger:
    def __init__(self, conn: Conn) -> None:
        self._conn = conn

    def applied(self) -> list[str]:
        return ops.ids(self._conn, f"SELECT name FROM {MIGRATIONS_TABLE} ORDER BY seq", ())

    def record(self, name: str) -> None:
        self._conn.execute(
            f"INSERT INTO {MIGRATIONS_TABLE} (name, applied_at) VALUES (%s, %s)", (name, utcnow())
        )


def _vector_rows(
    pairs: dict[str, tuple[Vector, Vector]], kinds: tuple[str, str]
) -> list[ops.VectorRow]:
    rows = []
    for owner, pair in pairs.items():
        for kind, vector in zip(kinds, pair, strict=True):
            dim, blob = vector_to_blob(vector, owner=owner)  # validates shape and finiteness
            rows.append((owner, kind, dim, np.frombuffer(blob, dtype="<f4")))
    return rows


def _register_vector(conn: Conn) -> bool:
    """Teach the connection pgvector's type; False while the extension is not there yet."""
    try:
        register_vector(conn)
    except psycopg.ProgrammingError:  # "vector type not found in the database"
        return False
    return True


class PostgresStore:
    """`Store` on PostgreSQL + pgvector. `url` is a libpq URL: postgresql://user:pw@host/db."""

    def __init__(self, url: str, *, migrate: bool = True, connect_timeout: int = 10) -> None:
        self.url = url
        conninfo = normalize_url(url)
        try:
            params = conninfo_to_dict(conninfo)
        except psycopg.ProgrammingError as exc:
            raise ConfigError(
                f"bad PostgreSQL URL: {_one_line(exc)}; use "
                "postgresql://USER:PASSWORD@HOST:PORT/DB (or a libpq connection string)"
            ) from exc
        params.setdefault("connect_timeout", connect_timeout)
        params.setdefault("application_name", "dctx")
        self._params: dict[str, Any] = params
        self._where = _describe(params)
        self._local = threading.local()
        self._pool: ConnectionPool[Conn] = ConnectionPool(self._connect, _close_quietly)
        self._release(self._pool.acquire())  # a bad URL or a dead server fails here
        self.applied_on_open: list[str] = []  # for `dctx migrate`
        if migrate:
            self.applied_on_open = self.migrate()
        else:
            self._check_schema()

    def __repr__(self) -> str:
        return f"PostgresStore({self._where!r})"

    # --- connections and transactions ----------------------------------------------------

    def _connect(self) -> Conn:
        try:
            conn = psycopg.connect(autocommit=True, **self._params)
        except psycopg.ProgrammingError as exc:  # an unknown option in the URL
            raise ConfigError(
                f"bad PostgreSQL URL: {_one_line(exc)}; use postgresql://USER:PASSWORD@HOST:PORT/DB"
            ) from exc
        except psycopg.Error as exc:
            message = _one_line(exc)
            raise ConfigError(
                f"cannot connect to PostgreSQL at {self._where}: {message}; "
                f"{_connect_hint(str(exc), self._params)}"
            ) from exc
        try:
            _register_vector(conn)
        except psycopg.Error as exc:
            _close_quietly(conn)
            raise StoreError(f"PostgreSQL store {self._where}: {exc}") from exc
        return conn

    def _release(self, conn: Conn) -> None:
        """Back to the pool if clean; a broken connection or one left inside a transaction
        (a failed COMMIT or ROLLBACK) is closed instead."""
        idle = psycopg.pq.TransactionStatus.IDLE
        if conn.closed or conn.broken or conn.info.transaction_status != idle:
            self._pool.discard(conn)
        else:
            self._pool.release(conn)

    @contextmanager
    def _mapped(self) -> Iterator[None]:
        try:
            yield
        except pg_errors.UndefinedTable as exc:
            raise ConfigError(
                f"the dctx schema is missing or out of date in PostgreSQL at {self._where} "
                f"({exc}); create or upgrade it with: dctx migrate --db URL"
            ) from exc
        except psycopg.OperationalError as exc:
            if isinstance(exc, pg_errors.QueryCanceled | pg_errors.LockNotAvailable):
                raise StoreError(f"PostgreSQL store {self._where}: {exc}") from exc
            raise StoreError(
                f"lost the connection to PostgreSQL at {self._where} ({_one_line(exc)}); "
                "the interrupted transaction was not committed, nothing of it was written; "
                "check the server and run the command again"
            ) from exc
        except psycopg.Error as exc:
            raise StoreError(f"PostgreSQL store {self._where}: {exc}") from exc

    def _tx_conn(self) -> Conn | None:
        conn: Conn | None = getattr(self._local, "conn", None)
        return conn

    @contextmanager
    def transaction(self) -> Iterator[None]:
        conn = self._tx_conn()
        if conn is not None:
            yield from self._savepoint(conn)
            return
        conn = self._pool.acquire()
        self._local.conn, self._local.depth = conn, 0
        try:
            with self._mapped():
                conn.execute("BEGIN")
            try:
                yield
            except BaseException:
                with suppress(psycopg.Error):
                    conn.execute("ROLLBACK")
                raise
            with self._mapped():
                conn.execute("COMMIT")
        finally:
            self._local.conn = None
            self._release(conn)

    def _savepoint(self, conn: Conn) -> Iterator[None]:
        self._local.depth += 1
        name = f"dctx_sp{self._local.depth}"
        try:
            with self._mapped():
                conn.execute(f"SAVEPOINT {name}")
            try:
                yield
            except BaseException:
                with suppress(psycopg.Error):
                    conn.execute(f"ROLLBACK TO SAVEPOINT {name}")
                    conn.execute(f"RELEASE SAVEPOINT {name}")
                raise
            with self._mapped():
                conn.execute(f"RELEASE SAVEPOINT {name}")
        finally:
            self._local.depth -= 1

    @contextmanager
    def _writing(self) -> Iterator[Conn]:
        with self.transaction():
            conn = self._tx_conn()
            assert conn is not None
            with self._mapped():
                yield conn

    @contextmanager
    def _reading(self, *, snapshot: bool = True) -> Iterator[Conn]:
        """The open write transaction, else one REPEATABLE READ snapshot for several
        statements (`snapshot=False`: a single autocommit statement)."""
        conn = self._tx_conn()
        if conn is not None:
            with self._mapped():
                yield conn
            return
        conn = self._pool.acquire()
        try:
            with self._mapped():
                if not snapshot:
                    yield conn
                    return
                conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
                try:
                    yield conn
                finally:
                    if not conn.broken:
                        conn.execute("COMMIT")  # read-only: nothing to undo
        finally:
            self._release(conn)

    # --- lifecycle -------------------------------------------------------------------------

    def migrate(self) -> list[str]:
        with self._writing() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (ops.LOCK_MIGRATE,))
            self._enable_pgvector(conn)
            conn.execute(
                f"CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE} (seq BIGINT GENERATED ALWAYS "
                "AS IDENTITY, name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
            )
            try:
                return POSTGRES_MIGRATIONS.apply(conn, _Ledger(conn))
            except pg_errors.InsufficientPrivilege as exc:
                raise ConfigError(
                    f"user {conn.info.user!r} may not change the dctx schema in PostgreSQL at "
                    f"{self._where} ({_one_line(exc)}); ask the schema owner to run: "
                    "dctx migrate --db URL (with their user in the URL)"
                ) from exc

    def _enable_pgvector(self, conn: Conn) -> None:
        if conn.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'").fetchone():
            _register_vector(conn)
            return
        db = self._params.get("dbname") or "(default)"
        if not conn.execute(
            "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'"
        ).fetchone():
            raise ConfigError(
                f"the PostgreSQL server at {self._where} has no pgvector extension installed; "
                "install pgvector on the server (https://github.com/pgvector/pgvector, e.g. "
                "apt install postgresql-<version>-pgvector; on a managed service enable the "
                "'vector' extension), then run: dctx migrate --db URL"
            )
        try:
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except pg_errors.InsufficientPrivilege as exc:
            user = conn.info.user
            raise ConfigError(
                f"pgvector is installed on the server but not enabled in database {db}, and "
                f"user {user!r} may not enable it; ask the database owner or an administrator "
                f'to run  CREATE EXTENSION vector;  in database {db} (psql -d {db} -c "CREATE '
                'EXTENSION vector"), then run: dctx migrate --db URL'
            ) from exc
        _register_vector(conn)

    def _check_schema(self) -> None:
        """Opened without migrating: refuse an old schema now, with the command that fixes it
        (an empty database is fine: `migrate()` may be called next)."""
        with self._reading() as conn:
            row = conn.execute("SELECT to_regclass(%s)", (MIGRATIONS_TABLE,)).fetchone()
            if row is None or row[0] is None:
                return
            pending = POSTGRES_MIGRATIONS.pending(_Ledger(conn).applied())
        if pending:
            raise ConfigError(
                f"the dctx schema in PostgreSQL at {self._where} is out of date (pending "
                f"migrations: {', '.join(m.name for m in pending)}); upgrade it with: "
                "dctx migrate --db URL"
            )

    def pending_migrations(self) -> list[str]:
        """Names of schema steps this database still lacks."""
        with self._reading() as conn:
            row = conn.execute("SELECT to_regclass(%s)", (MIGRATIONS_TABLE,)).fetchone()
            applied = _Ledger(conn).applied() if row and row[0] else []
        return [m.name for m in POSTGRES_MIGRATIONS.pending(applied)]

    def close(self) -> None:
        self._pool.close()

    # --- embedder identity -----------------------------------------------------------------

    def embedder_id(self) -> str | None:
        with self._reading(snapshot=False) as conn:
            return ops.meta(conn, "embedder_id")

    def set_embedder_id(self, embedder_id: str, *, force: bool = False) -> None:
        if self._tx_conn() is None and self.embedder_id() == embedder_id:
            return  # already recorded: opening a memory to read takes no write lock
        with self._writing() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s, 1)", (ops.LOCK_MIGRATE,))
            stored = ops.meta(conn, "embedder_id")
            if stored == embedder_id:
                return
            if stored is not None and not force:
                raise EmbedderMismatchError(stored, embedder_id)
            ops.set_meta(conn, "embedder_id", embedder_id)
            if stored is not None:  # a forced switch: re-embed rewrites every vector
                conn.execute("DELETE FROM meta WHERE key = 'vector_dim'")

    # --- writes ------------------------------------------------------------------------------

    def write(self, batch: CaptureBatch) -> None:
        try:
            vectors = _vector_rows(batch.node_vectors, ("node", "accum"))
            vectors += _vector_rows(batch.rule_vectors, ("rule_text", "rule_trigger"))
            rules = [rule_to_row(r) for r in batch.rules]
            namespaces = {s.namespace for s in batch.sessions} | {n.namespace for n in batch.nodes}
            namespaces |= {e.namespace for e in batch.evidence}
            namespaces |= {r.scope.namespace for r in batch.rules}
            with self._writing() as conn:
                ops.lock_namespaces(conn, namespaces)
                ops.write_graph(conn, batch)
                rule_ids = [*(r.id for r in batch.rules), *batch.rule_vectors]
                touched = ops.namespaces_of(conn, "rules", rule_ids)  # a rule may move
                if rules:
                    conn.cursor().executemany(ops.RULE_UPSERT, rules)
                ops.check_owners(conn, "nodes", batch.node_vectors)
                ops.check_owners(conn, "rules", batch.rule_vectors)
                ops.write_vectors(conn, vectors)
                ops.bump_generations(conn, touched | ops.namespaces_of(conn, "rules", rule_ids))
        except (TypeError, ValueError) as exc:  # a bad enum value, a non-JSON history entry
            raise StoreError(f"cannot store this batch: {exc}") from exc

    def _locked_rule(self, conn: Conn, rule_id: str) -> Rule:
        namespaces = ops.namespaces_of(conn, "rules", [rule_id])
        if not namespaces:
            raise NotFoundError(f"no rule with id {rule_id!r}")
        ops.lock_namespaces(conn, namespaces)
        return ops.load_rule(conn, rule_id)  # read again under the lock

    def set_rule_status(self, rule_id: str, status: RuleStatus, *, note: str = "") -> Rule:
        new = RuleStatus(status)
        with self._writing() as conn:
            rule = self._locked_rule(conn, rule_id)
            rule.updated_at = utcnow()
            rule.history.append(
                {"at": rule.updated_at, "event": "status", "from": rule.status.value,
                 "to": new.value, "note": note}
            )  # fmt: skip
            rule.status = new
            conn.execute(ops.RULE_UPSERT, rule_to_row(rule))
            ops.bump_generations(conn, [rule.scope.namespace])
            return rule

    def delete_rule(self, rule_id: str) -> None:
        with self._writing() as conn:
            rule = self._locked_rule(conn, rule_id)
            conn.execute("DELETE FROM rules WHERE id = %s", (rule_id,))
            conn.execute("DELETE FROM vectors WHERE owner = %s", (rule_id,))
            conn.execute("DELETE FROM edges WHERE src = %s OR dst = %s", (rule_id, rule_id))
            conn.execute("DELETE FROM rule_events WHERE rule_id = %s", (rule_id,))
            _scrub.scrub_events(conn, ops.SQL, rule.scope.namespace, {rule_id})
            ops.bump_generations(conn, [rule.scope.namespace])

    def forget_actor(self, namespace: str, actor: str) -> dict[str, int]:
        with self._writing() as conn:
            ops.lock_namespaces(conn, [namespace])
            return ops.forget(conn, namespace, actor)

    def drop_namespace(self, namespace: str) -> dict[str, int]:
        with self._writing() as conn:
            ops.lock_namespaces(conn, [namespace])
            counts = ops.forget(conn, namespace, None)
            counts["role_policies"] = conn.execute(
                "DELETE FROM meta WHERE key LIKE %s", (policies.namespace_prefix(namespace) + "%",)
            ).rowcount
            return counts

    # --- reads -------------------------------------------------------------------------------

    def get_rule(self, rule_id: str) -> Rule:
        with self._reading(snapshot=False) as conn:
            return ops.load_rule(conn, rule_id)

    def list_rules(
        self,
        *,
        namespace: str | None = None,
        actor: str | None = None,
        skill: str | None = None,
        statuses: Sequence[RuleStatus] | None = None,
    ) -> list[Rule]:
        clauses: list[str] = []
        params: list[Any] = []
        for column, value in (("namespace", namespace), ("actor", actor), ("skill", skill)):
            if value is not None:
                clauses.append(f"r.{column} = %s")
                params.append(value)
        if statuses is not None:
            clauses.append(f"r.status {ops.ANY}")
            params.append([RuleStatus(s).value for s in statuses])
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        with self._reading(snapshot=False) as conn:
            rows = conn.execute(
                f"SELECT {ops.RULE_SELECT} FROM rules r {where} ORDER BY r.created_at, r.seq",
                params,
            ).fetchall()
        return rules_from_rows(rows) if rows else []

    def get_evidence(self, ids: Sequence[str]) -> list[Evidence]:
        with self._reading(snapshot=False) as conn:
            rows = ops.by_id(conn, "evidence", ops.EVIDENCE_FIELDS, ids)
        fields = ops.EVIDENCE_FIELDS
        return [
            Evidence(**{**dict(zip(fields, r, strict=True)), "kind": EvidenceKind(r[1])})
            for r in rows
        ]

    def get_sessions(self, namespace: str, conversation_ids: Sequence[str]) -> list[Session]:
        if not conversation_ids:
            return []
        with self._reading(snapshot=False) as conn:
            rows = conn.execute(
                f"SELECT {SESSION_SELECT} FROM sessions WHERE namespace = %s "
                "AND conversation_id = ANY(%s) ORDER BY conversation_id",
                (namespace, list(conversation_ids)),
            ).fetchall()
        return [session_from_row(r) for r in rows]

    def get_nodes(self, ids: Sequence[str]) -> list[DecisionNode]:
        with self._reading(snapshot=False) as conn:
            return [DecisionNode(*r) for r in ops.by_id(conn, "nodes", ops.NODE_FIELDS, ids)]

    def edges(self, *, src: str | None = None, dst: str | None = None) -> list[Edge]:
        filters = [(c, v) for c, v in (("src", src), ("dst", dst)) if v is not None]
        where = " AND ".join(f"{c} = %s" for c, _ in filters) or "TRUE"
        with self._reading(snapshot=False) as conn:
            rows = conn.execute(
                f"SELECT src, type, dst FROM edges WHERE {where} ORDER BY seq",
                [v for _, v in filters],
            ).fetchall()
        return [Edge(s, EdgeType(t), d) for s, t, d in rows]

    def search_text(
        self, namespace: str, query: str, limit: int = 50, *, skill: str | None = None
    ) -> list[tuple[str, float]]:
        match = ts_query(query)
        if match is None or limit <= 0:
            return []
        with self._reading(snapshot=False) as conn:
            rows = conn.execute(
                "SELECT r.id, ts_rank(r.search, q, 1) AS score "
                "FROM rules r, to_tsquery('dctx_english', %s) q "
                "WHERE r.namespace = %s AND r.search @@ q "
                "AND (%s::text IS NULL OR r.skill IS NULL OR r.skill = %s) "
                "ORDER BY score DESC, r.seq LIMIT %s",
                (match, namespace, skill, skill, limit),
            ).fetchall()
        return [(rule_id, float(score)) for rule_id, score in rows]

    def search_nodes(
        self, namespace: str, vector: Vector, limit: int = 20
    ) -> list[tuple[DecisionNode, float]]:
        query = np.asarray(vector, dtype=np.float32).ravel()
        if limit <= 0:
            return []

        def sim(alias: str) -> str:  # cosine; a missing or zero vector counts 0, as on SQLite
            return f"coalesce(nullif(1 - ({alias}.embedding <=> %(q)s), 'NaN'::float8), 0)"

        with self._reading() as conn:
            ops.check_dim(conn, query.size)
            rows = conn.execute(
                f"SELECT n.id, 0.7 * {sim('vn')} + 0.3 * {sim('va')} AS score FROM nodes n "
                "LEFT JOIN vectors vn ON vn.owner = n.id AND vn.kind = 'node' "
                "LEFT JOIN vectors va ON va.owner = n.id AND va.kind = 'accum' "
                "WHERE n.namespace = %(ns)s AND (vn.owner IS NOT NULL OR va.owner IS NOT NULL) "
                "ORDER BY score DESC, n.seq LIMIT %(limit)s",
                {"q": query, "ns": namespace, "limit": limit},
            ).fetchall()
            nodes = ops.by_id(conn, "nodes", ops.NODE_FIELDS, [r[0] for r in rows])
        return [(DecisionNode(*n), float(r[1])) for n, r in zip(nodes, rows, strict=True)]

    def rule_index(
        self,
        namespace: str,
        statuses: Sequence[RuleStatus],
        *,
        dtype: npt.DTypeLike = np.float32,
        packed: bool = False,
    ) -> RuleIndex:
        with gc_paused(), self._reading() as conn:  # generation and rules: one snapshot
            if self._tx_conn() is not None:  # read to write back: hold the namespace
                ops.lock_namespaces(conn, [namespace])
            return self._index(conn, namespace, statuses, None, dtype, packed)

    def rule_changes(
        self,
        namespace: str,
        statuses: Sequence[RuleStatus],
        cursor: int,
        *,
        dtype: npt.DTypeLike = np.float32,
        packed: bool = False,
    ) -> RuleChanges | None:
        with gc_paused(), self._reading() as conn:
            if cursor < 0 or cursor < ops.oldest_cursor(conn):
                return None
            changed = ops.changed_rules(conn, namespace, cursor)
            index = self._index(conn, namespace, statuses, changed, dtype, packed)
            return RuleChanges(changed, index)

    def _index(
        self,
        conn: Conn,
        namespace: str,
        statuses: Sequence[RuleStatus],
        seqs: list[int] | None,
        dtype: npt.DTypeLike,
        packed: bool = False,
    ) -> RuleIndex:
        """The namespace's rules with these statuses (only the rows `seqs`, if given): the
        rules first (packed: streamed into columns, oldest first), then their vectors streamed
        into place."""
        wanted = [RuleStatus(s).value for s in statuses]
        generation = ops.generation(conn, namespace)
        # inside a write transaction the index may hold rows that are rolled back: no cursor
        cursor = -1 if self._tx_conn() is not None else ops.changes_cursor(conn)
        dim = int(ops.meta(conn, "vector_dim") or 0)
        where = f"WHERE r.namespace = %s AND r.status {ops.ANY}"
        params: tuple[Any, ...] = (namespace, wanted)
        if seqs is not None:
            where += " AND r.seq = ANY(%s::bigint[])"
            params += (seqs,)
        select = f"SELECT {ops.RULE_SELECT}, r.seq FROM rules r {where}"
        pack: PackedRules | None = None
        rules: list[Rule] = []
        if packed:
            with conn.cursor(name="dctx_rule_rows") as cur:  # server-side: streamed
                cur.itersize = 2000
                # COLLATE "C": byte order, the order of Python's string sort
                cur.execute(f'{select} ORDER BY r.created_at COLLATE "C", r.seq', params)
                pack = PackedRules.from_rows(cur)
            keys = pack.seq.tolist()
        else:
            keys, rules = oldest_first(conn.execute(select, params).fetchall())
        with conn.cursor(name="dctx_rule_vectors") as cur:  # server-side: streamed
            cur.execute(
                f"SELECT r.seq, {_VEC_BYTES.format('vt.embedding')}, "
                f"{_VEC_BYTES.format('vg.embedding')} FROM rules r "
                "LEFT JOIN vectors vt ON vt.owner = r.id AND vt.kind = 'rule_text' "
                f"LEFT JOIN vectors vg ON vg.owner = r.id AND vg.kind = 'rule_trigger' {where}",
                params,
            )
            return assemble(
                generation, cursor, keys, rules, pack, cur, dim, dtype=dtype, wire=">f4"
            )

    def generation(self, namespace: str) -> int:
        with self._reading(snapshot=False) as conn:
            return ops.generation(conn, namespace)

    def count_rows(self) -> dict[str, int]:
        with self._reading() as conn:
            return {
                t: int(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0])  # type: ignore[index]
                for t in ops.TABLES
            }

    # --- transcript files --------------------------------------------------------------------

    def transcript_files(
        self, namespace: str, client: str, *, path: str | None = None
    ) -> dict[str, TranscriptFile]:
        sql, params = transcripts.select("%s", namespace, client, path)
        with self._reading(snapshot=False) as conn:
            rows = conn.execute(sql, params).fetchall()
        records = [transcripts.transcript_from_row(r) for r in rows]
        return {r.path: r for r in records}

    def put_transcript_file(self, record: TranscriptFile) -> None:
        with self._writing() as conn:
            conn.execute(transcripts.upsert_sql("%s"), transcripts.transcript_row(record))

    # --- role policies -----------------------------------------------------------------------

    def role_policies(self, namespace: str) -> dict[str | None, dict[str, Any]]:
        prefix = policies.namespace_prefix(namespace)
        with self._reading(snapshot=False) as conn:
            rows = conn.execute(
                "SELECT value FROM meta WHERE key LIKE %s ORDER BY key", (prefix + "%",)
            ).fetchall()
        return policies.parse(list(rows))

    def put_role_policy(
        self, namespace: str, skill: str | None, policy: dict[str, Any] | None
    ) -> None:
        key = policies.key(namespace, skill)
        with self._writing() as conn:
            if policy is None:
                conn.execute("DELETE FROM meta WHERE key = %s", (key,))
            else:
                ops.set_meta(conn, key, policies.value(namespace, skill, policy))

    # --- rule events ---------------------------------------------------------------------------

    def add_rule_events(self, records: Sequence[RuleEvent]) -> None:
        if not records:
            return
        rows = [events.event_row(e) for e in records]
        with self._writing() as conn:
            if self._local.depth:  # inside a caller's transaction (a capture): hold the tenant
                ops.lock_namespaces(conn, {e.namespace for e in records})
            conn.cursor().executemany(events.insert_sql("%s"), rows)

    def rule_events(
        self,
        namespace: str,
        *,
        rule_ids: Sequence[str] | None = None,
        runs: Sequence[str] | None = None,
        kinds: Sequence[RuleEventKind] | None = None,
    ) -> list[RuleEvent]:
        sql, params = events.select_sql(
            "%s", ops.ANY, namespace, rule_ids=rule_ids, runs=runs, kinds=kinds, as_list=list
        )
        with self._reading(snapshot=False) as conn:
            rows = conn.execute(sql, params).fetchall()
        return [events.event_from_row(r) for r in rows]

    def rule_event_tally(self, namespace: str) -> dict[str, dict[RuleEventKind, tuple[int, str]]]:
        with self._reading(snapshot=False) as conn:
            rows = conn.execute(events.summary_sql("%s"), (namespace,)).fetchall()
        return events.tally(rows)

    # --- caches ------------------------------------------------------------------------------

    def cache_get(self, key: str) -> str | None:
        with self._reading(snapshot=False) as conn:
            row = conn.execute("SELECT value FROM cache WHERE key = %s", (key,)).fetchone()
        return None if row is None else str(row[0])

    def cache_put(self, key: str, value: str, *, namespace: str, actor: str | None) -> None:
        with self._writing() as conn:
            if self._local.depth:  # inside a caller's transaction (a capture): hold the tenant
                ops.lock_namespaces(conn, [namespace])
            conn.execute(
                "INSERT INTO cache (key, value, namespace, actor, created) "
                "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (key) DO UPDATE SET "
                "value = excluded.value, namespace = excluded.namespace, "
                "actor = excluded.actor, created = excluded.created",
                (key, value, namespace, actor, utcnow()),
            )

    # --- copying (dctx copy; see store/copy.py) -----------------------------------------------

    def export_rows(self, table: str) -> Iterator[tuple[Any, ...]]:
        columns = ", ".join(
            _VEC_BYTES.format("embedding") if c == "vector" else c for c in COPY_COLUMNS[table]
        )
        order = "seq" if table in ("nodes", "edges", "rules", "rule_events") else "1"
        with self._reading() as conn, conn.cursor(name=f"dctx_export_{table}") as cur:
            cur.execute(f"SELECT {columns} FROM {table} ORDER BY {order}")  # server-side cursor
            for row in cur:
                if table == "vectors":
                    yield (*row[:3], np.frombuffer(row[3], dtype=">f4").astype(np.float32))
                else:
                    yield tuple(row)

    def import_rows(self, tables: Iterable[tuple[str, Iterable[tuple[Any, ...]]]]) -> None:
        with self._writing() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s, 1)", (ops.LOCK_MIGRATE,))
            cur = conn.cursor()
            for table, rows in tables:
                fields = COPY_COLUMNS[table]
                columns = ", ".join("embedding" if c == "vector" else c for c in fields)
                if table == "meta":
                    cur.executemany(
                        "INSERT INTO meta (key, value) VALUES (%s, %s) "
                        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                        list(rows),
                    )
                    continue
                with cur.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
            namespaces = ops.ids(conn, "SELECT DISTINCT namespace FROM rules", ())
            ops.bump_generations(conn, namespaces)

    # --- diagnostics (PostgreSQL only) ---------------------------------------------------------

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """A raw statement for backend-specific tests and checks; not part of `Store`."""
        with self._reading(snapshot=False) as conn:
            cur = conn.execute(sql, params)
            return [tuple(r) for r in cur.fetchall()] if cur.description else []


__all__ = ["PostgresStore", "normalize_url", "ts_query"]
