"""The embedded store: one SQLite file in WAL mode, safe for several threads and processes.

Writes run in `BEGIN IMMEDIATE` transactions (one writer at a time, readers never blocked);
nested `transaction()` calls join the outer one through savepoints, so a failing inner block
undoes only itself and an exception reaching the outer block undoes everything. Connections
come from a small pool (`_pool.py`); an in-memory store is one shared connection. Full-text
search is FTS5 (BM25) over rule text + trigger text. Every sqlite3 error is mapped onto
`StoreError`; a path that cannot hold a database is a `ConfigError` naming it. The statements
themselves live in `sqlite_ops.py`, the schema in `sqlite_migrations.py`.
"""

from __future__ import annotations

import json
import logging
import os
import re
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from dctx.errors import ConfigError, EmbedderMismatchError, NotFoundError, StoreError
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
from dctx.store import sqlite_ops as ops
from dctx.store._index import assemble, oldest_first
from dctx.store._pool import ConnectionPool
from dctx.store._rows import (
    SESSION_SELECT,
    blobs_to_matrix,
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
from dctx.store.sqlite_migrations import SQLITE_MIGRATIONS

log = logging.getLogger("dctx.store")

_TOKEN = re.compile(r"\w+")
_MAX_QUERY_TOKENS = 64
_IN = ops.IN


def fts_query(text: str) -> str | None:
    """A safe FTS5 query for arbitrary user text: each word quoted, ORed (None if no words).

    Quoting turns every token into a string literal, so operators, quotes, colons or
    parentheses in the input can never cause an FTS5 syntax error.
    """
    tokens = list(dict.fromkeys(t.lower() for t in _TOKEN.findall(text)))[:_MAX_QUERY_TOKENS]
    return " OR ".join(f'"{t}"' for t in tokens) or None


@contextmanager
def _mapped(path: str) -> Iterator[None]:
    try:
        yield
    except sqlite3.Error as exc:
        raise StoreError(f"SQLite store {path}: {exc}") from exc


def _close_quietly(conn: sqlite3.Connection) -> None:
    with suppress(sqlite3.Error):
        conn.close()


def _rollback_quietly(conn: sqlite3.Connection, savepoint: str | None = None) -> None:
    # The original exception matters more than a failed rollback (SQLite has then already
    # rolled the transaction back itself).
    with suppress(sqlite3.Error):
        if savepoint is None:
            conn.execute("ROLLBACK")
        else:
            conn.execute(f"ROLLBACK TO {savepoint}")
            conn.execute(f"RELEASE {savepoint}")


def _checked_path(raw: str) -> str:
    path = Path(raw).expanduser().absolute()
    if path.is_dir():
        raise ConfigError(f"the dctx store path {path} is a directory; name a file in it")
    if not path.parent.is_dir():
        raise ConfigError(
            f"cannot create the dctx store {path}: directory {path.parent} does not exist"
        )
    if path.exists():
        if not os.access(path, os.R_OK | os.W_OK):
            raise ConfigError(f"the dctx store {path} is not readable and writable")
    elif not os.access(path.parent, os.W_OK | os.X_OK):
        raise ConfigError(
            f"cannot create the dctx store {path}: directory {path.parent} is not writable"
        )
    return str(path)


class _Ledger:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn

    def applied(self) -> list[str]:
        return ops.ids(self._conn, f"SELECT name FROM {MIGRATIONS_TABLE} ORDER BY rowid", ())

    def record(self, name: str) -> None:
        self._conn.execute(
            f"INSERT INTO {MIGRATIONS_TABLE} (name, applied_at) VALUES (?, ?)", (name, utcnow())
        )


def _vector_rows(
    pairs: dict[str, tuple[Vector, Vector]], kinds: tuple[str, str]
) -> list[ops.VectorRow]:
    rows = []
    for owner, pair in pairs.items():
        for kind, vector in zip(kinds, pair, strict=True):
            dim, blob = vector_to_blob(vector, owner=owner)
            rows.append((owner, kind, dim, blob))
    return rows


def _unit_rows(matrix: Vector) -> Vector:
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return np.asarray(matrix / np.where(norms == 0, 1.0, norms), dtype=np.float32)


class SQLiteStore:
    """`Store` on SQLite. `path` is a file (created if absent) or ":memory:"."""

    def __init__(
        self,
        path: str | os.PathLike[str] = ":memory:",
        *,
        migrate: bool = True,
        busy_timeout: float = 30.0,
    ) -> None:
        raw = os.fspath(path)
        self._memory = raw in ("", ":memory:")
        self.path = ":memory:" if self._memory else _checked_path(raw)
        self.url = f"sqlite:///{self.path}"
        self._busy_ms = int(busy_timeout * 1000)
        self._local = threading.local()
        self._pool: ConnectionPool[sqlite3.Connection] = ConnectionPool(
            self._connect, _close_quietly, max_size=1 if self._memory else None
        )
        self._pool.release(self._pool.acquire())  # a bad path fails here, not later
        self.applied_on_open = self.migrate() if migrate else []  # for `dctx migrate`

    def __repr__(self) -> str:
        return f"SQLiteStore({self.path!r})"

    # --- connections and transactions ----------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(
                self.path,
                timeout=self._busy_ms / 1000,
                isolation_level=None,  # we issue BEGIN / COMMIT ourselves
                check_same_thread=False,  # the pool hands it to one thread at a time
            )
        except sqlite3.Error as exc:
            raise ConfigError(f"cannot open the dctx store {self.path}: {exc}") from exc
        try:
            conn.execute(f"PRAGMA busy_timeout = {self._busy_ms}")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA secure_delete = ON")  # forgotten data is overwritten
            if not self._memory:
                self._enable_wal(conn)
                conn.execute("PRAGMA synchronous = NORMAL")  # in WAL mode: crash-safe
        except sqlite3.Error as exc:
            _close_quietly(conn)
            if getattr(exc, "sqlite_errorname", "") == "SQLITE_NOTADB":
                raise ConfigError(f"{self.path} is not a SQLite database") from exc
            raise StoreError(f"SQLite store {self.path}: {exc}") from exc
        return conn

    def _enable_wal(self, conn: sqlite3.Connection) -> None:
        """Switch a new file to WAL. The switch fails at once with SQLITE_BUSY (no busy
        handler) while another process opens the same new file, so retry until the timeout."""
        deadline, delay = time.monotonic() + self._busy_ms / 1000, 0.002
        while True:
            try:
                if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                    conn.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as exc:
                if exc.sqlite_errorname != "SQLITE_BUSY" or time.monotonic() > deadline:
                    raise
                time.sleep(delay)
                delay = min(delay * 2, 0.1)

    def _tx_conn(self) -> sqlite3.Connection | None:
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
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
            with _mapped(self.path):
                conn.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                _rollback_quietly(conn)
                raise
            try:
                conn.execute("COMMIT")
            except sqlite3.Error as exc:
                _rollback_quietly(conn)
                raise StoreError(f"SQLite store {self.path}: commit failed: {exc}") from exc
        finally:
            self._local.conn = None
            self._pool.release(conn)
            forgot, self._local.forgot = getattr(self._local, "forgot", False), False
        if forgot:  # committed: now no old page of what was forgotten may stay in the WAL
            self._checkpoint()

    def _savepoint(self, conn: sqlite3.Connection) -> Iterator[None]:
        self._local.depth += 1
        name = f"dctx_sp{self._local.depth}"
        try:
            with _mapped(self.path):
                conn.execute(f"SAVEPOINT {name}")
            try:
                yield
            except BaseException:
                _rollback_quietly(conn, name)
                raise
            with _mapped(self.path):
                conn.execute(f"RELEASE {name}")
        finally:
            self._local.depth -= 1

    @contextmanager
    def _writing(self) -> Iterator[sqlite3.Connection]:
        with self.transaction():
            conn = self._tx_conn()
            assert conn is not None
            with _mapped(self.path):
                yield conn

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        """One consistent snapshot for several statements (or the open write transaction)."""
        conn = self._tx_conn()
        if conn is not None:
            with _mapped(self.path):
                yield conn
            return
        conn = self._pool.acquire()
        try:
            with _mapped(self.path):
                conn.execute("BEGIN")
                try:
                    yield conn
                finally:
                    conn.execute("COMMIT")  # read-only: nothing to undo
        finally:
            self._pool.release(conn)

    # --- lifecycle -------------------------------------------------------------------------

    def migrate(self) -> list[str]:
        if self._tx_conn() is None and not self._pending_migrations():
            return []  # up to date: opening a store to read takes no write lock
        with self._writing() as conn:
            conn.execute(
                f"CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE} "
                "(name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
            )
            return SQLITE_MIGRATIONS.apply(conn, _Ledger(conn))

    def _pending_migrations(self) -> bool:
        with self._reading() as conn:
            exists = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                (MIGRATIONS_TABLE,),
            ).fetchone()
            return exists is None or bool(SQLITE_MIGRATIONS.pending(_Ledger(conn).applied()))

    def close(self) -> None:
        self._pool.close()

    # --- embedder identity -----------------------------------------------------------------

    def embedder_id(self) -> str | None:
        with self._reading() as conn:
            return ops.meta(conn, "embedder_id")

    def set_embedder_id(self, embedder_id: str, *, force: bool = False) -> None:
        if self._tx_conn() is None and self.embedder_id() == embedder_id:
            return  # already recorded: opening a memory to read takes no write lock
        with self._writing() as conn:
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
            with self._writing() as conn:
                ops.write_graph(conn, batch)
                rule_ids = [*(r.id for r in batch.rules), *batch.rule_vectors]
                touched = ops.namespaces_of(conn, "rules", rule_ids)  # a rule may move
                conn.executemany(ops.RULE_UPSERT, rules)
                ops.check_owners(conn, "nodes", batch.node_vectors)
                ops.check_owners(conn, "rules", batch.rule_vectors)
                ops.write_vectors(conn, vectors)
                ops.bump_generations(conn, touched | ops.namespaces_of(conn, "rules", rule_ids))
        except (TypeError, ValueError) as exc:  # a bad enum value, a non-JSON history entry
            raise StoreError(f"cannot store this batch: {exc}") from exc

    def set_rule_status(self, rule_id: str, status: RuleStatus, *, note: str = "") -> Rule:
        new = RuleStatus(status)
        with self._writing() as conn:
            rule = ops.load_rule(conn, rule_id)
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
            namespaces = ops.namespaces_of(conn, "rules", [rule_id])
            if not namespaces:
                raise NotFoundError(f"no rule with id {rule_id!r}")
            conn.execute("DELETE FROM rules WHERE id = ?", (rule_id,))
            conn.execute("DELETE FROM vectors WHERE owner = ?", (rule_id,))
            conn.execute("DELETE FROM edges WHERE src = ? OR dst = ?", (rule_id, rule_id))
            conn.execute("DELETE FROM rule_events WHERE rule_id = ?", (rule_id,))
            for namespace in namespaces:
                _scrub.scrub_events(conn, ops.SQL, namespace, {rule_id})
            ops.purge_fts(conn)
            ops.bump_generations(conn, namespaces)
        self._checkpoint()  # a deleted rule's text leaves the WAL as a forget's does

    def forget_actor(self, namespace: str, actor: str) -> dict[str, int]:
        with self._writing() as conn:
            counts = ops.forget(conn, namespace, actor)
        self._checkpoint()
        return counts

    def drop_namespace(self, namespace: str) -> dict[str, int]:
        with self._writing() as conn:
            counts = ops.forget(conn, namespace, None)
            counts["role_policies"] = conn.execute(
                "DELETE FROM meta WHERE key LIKE ?", (policies.namespace_prefix(namespace) + "%",)
            ).rowcount
        self._checkpoint()
        return counts

    def _checkpoint(self) -> None:
        """After a forget or a rule's deletion: copy every WAL frame into the main file (where
        secure_delete has zeroed the freed cells) and truncate the WAL, so no old page version
        holding the forgotten text or vectors stays on disk. Waits up to the busy timeout for
        readers; if one still holds an old snapshot, the WAL is truncated by a later checkpoint.
        Inside a caller's transaction (`Memory.forget_actor` demotes what lost its support
        in the same one) it runs when that transaction commits."""
        if self._memory:
            return
        if self._tx_conn() is not None:
            self._local.forgot = True
            return
        conn = self._pool.acquire()
        try:
            with suppress(sqlite3.Error):
                busy = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
                if busy:
                    log.warning(
                        "SQLite store %s: a reader kept the WAL from being truncated after a "
                        "forget; it still holds old pages until the next checkpoint",
                        self.path,
                    )
        finally:
            self._pool.release(conn)

    # --- reads -------------------------------------------------------------------------------

    def get_rule(self, rule_id: str) -> Rule:
        with self._reading() as conn:
            return ops.load_rule(conn, rule_id)

    def list_rules(
        self,
        *,
        namespace: str | None = None,
        actor: str | None = None,
        skill: str | None = None,
        statuses: Sequence[RuleStatus] | None = None,
    ) -> list[Rule]:
        clauses, params = [], []
        for column, value in (("namespace", namespace), ("actor", actor), ("skill", skill)):
            if value is not None:
                clauses.append(f"r.{column} = ?")
                params.append(value)
        if statuses is not None:
            clauses.append(f"r.status {_IN}")
            params.append(ops.json_list(RuleStatus(s).value for s in statuses))
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        with self._reading() as conn:
            rows = conn.execute(
                f"SELECT {ops.RULE_SELECT} FROM rules r {where} ORDER BY r.created_at, r.seq",
                params,
            ).fetchall()
        return rules_from_rows(rows)

    def get_evidence(self, ids: Sequence[str]) -> list[Evidence]:
        with self._reading() as conn:
            rows = ops.by_id(conn, "evidence", ops.EVIDENCE_FIELDS, ids)
        fields = ops.EVIDENCE_FIELDS
        return [
            Evidence(**{**dict(zip(fields, r, strict=True)), "kind": EvidenceKind(r[1])})
            for r in rows
        ]

    def get_sessions(self, namespace: str, conversation_ids: Sequence[str]) -> list[Session]:
        if not conversation_ids:
            return []
        with self._reading() as conn:
            rows = conn.execute(
                f"SELECT {SESSION_SELECT} FROM sessions WHERE namespace = ? "
                f"AND conversation_id {ops.IN} ORDER BY conversation_id",
                (namespace, ops.json_list(conversation_ids)),
            ).fetchall()
        return [session_from_row(r) for r in rows]

    def get_nodes(self, ids: Sequence[str]) -> list[DecisionNode]:
        with self._reading() as conn:
            return [DecisionNode(*r) for r in ops.by_id(conn, "nodes", ops.NODE_FIELDS, ids)]

    def edges(self, *, src: str | None = None, dst: str | None = None) -> list[Edge]:
        filters = [(c, v) for c, v in (("src", src), ("dst", dst)) if v is not None]
        where = " AND ".join(f"{c} = ?" for c, _ in filters) or "1"
        with self._reading() as conn:
            rows = conn.execute(
                f"SELECT src, type, dst FROM edges WHERE {where} ORDER BY rowid",
                [v for _, v in filters],
            ).fetchall()
        return [Edge(s, EdgeType(t), d) for s, t, d in rows]

    def search_text(
        self, namespace: str, query: str, limit: int = 50, *, skill: str | None = None
    ) -> list[tuple[str, float]]:
        words = fts_query(query)
        if words is None or limit <= 0:
            return []
        # the namespace token goes into the MATCH (migration m004), so FTS5 intersects with
        # the namespace's rows before ranking; the equality test below stays the exact check.
        # The skill is filtered by the join only: its tokens' row lists span every namespace,
        # and bm25 walks each phrase's whole list (measured: 1.6 -> 6 ms at 100,000 rules).
        scope = f'search_scope : "n{namespace.encode().hex()}"'
        with self._reading() as conn:
            rows = conn.execute(
                "SELECT r.id, -bm25(rules_fts, 1.0, 1.0, 0.0) AS score FROM rules_fts "
                "JOIN rules r ON r.seq = rules_fts.rowid "
                "WHERE rules_fts MATCH ? AND r.namespace = ? "
                "AND (? IS NULL OR r.skill IS NULL OR r.skill = ?) "
                "ORDER BY score DESC, r.seq LIMIT ?",
                (f"{scope} AND {{text trigger_text}} : ({words})", namespace, skill, skill, limit),
            ).fetchall()
        return [(rule_id, float(score)) for rule_id, score in rows]

    def search_nodes(
        self, namespace: str, vector: Vector, limit: int = 20
    ) -> list[tuple[DecisionNode, float]]:
        query = np.asarray(vector, dtype=np.float32).ravel()
        if limit <= 0:
            return []
        with gc_paused(), self._reading() as conn:
            ops.check_dim(conn, query.size)
            rows = conn.execute(  # vectors only; the few winners' text is read after
                "SELECT n.id, vn.data, va.data FROM nodes n "
                "LEFT JOIN vectors vn ON vn.owner = n.id AND vn.kind = 'node' "
                "LEFT JOIN vectors va ON va.owner = n.id AND va.kind = 'accum' "
                "WHERE n.namespace = ? AND (vn.data IS NOT NULL OR va.data IS NOT NULL) "
                "ORDER BY n.rowid",
                (namespace,),
            ).fetchall()
            if not rows:
                return []
            node_m = _unit_rows(blobs_to_matrix([r[1] for r in rows], query.size))
            accum_m = _unit_rows(blobs_to_matrix([r[2] for r in rows], query.size))
            query = query / (float(np.linalg.norm(query)) or 1.0)
            scores = 0.7 * (node_m @ query) + 0.3 * (accum_m @ query)
            best = np.argsort(-scores, kind="stable")[:limit]
            nodes = ops.by_id(conn, "nodes", ops.NODE_FIELDS, [rows[i][0] for i in best])
        return [(DecisionNode(*n), float(scores[i])) for n, i in zip(nodes, best, strict=True)]

    def rule_index(
        self,
        namespace: str,
        statuses: Sequence[RuleStatus],
        *,
        dtype: npt.DTypeLike = np.float32,
        packed: bool = False,
    ) -> RuleIndex:
        with gc_paused(), self._reading() as conn:  # generation and rules: one snapshot
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
        conn: sqlite3.Connection,
        namespace: str,
        statuses: Sequence[RuleStatus],
        seqs: list[int] | None,
        dtype: npt.DTypeLike,
        packed: bool = False,
    ) -> RuleIndex:
        """The namespace's rules with these statuses (only the rows `seqs`, if given): the
        rules first (packed: streamed into columns, oldest first), then their vectors streamed
        into place."""
        wanted = ops.json_list(RuleStatus(s).value for s in statuses)
        generation = ops.generation(conn, namespace)
        # inside a write transaction the index may hold rows that are rolled back: no cursor
        cursor = -1 if self._tx_conn() is not None else ops.changes_cursor(conn)
        dim = int(ops.meta(conn, "vector_dim") or 0)
        where = f"WHERE r.namespace = ? AND r.status {_IN}"
        params: tuple[Any, ...] = (namespace, wanted)
        if seqs is not None:  # a few changed rows: found by row key, not by a scan of the
            # namespace's index ("+" keeps the planner off it: 7 ms -> 0.02 at 20,000 rules)
            where = f"WHERE r.seq {_IN} AND +r.namespace = ? AND +r.status {_IN}"
            params = (json.dumps(seqs), namespace, wanted)
        select = f"SELECT {ops.RULE_SELECT}, r.seq FROM rules r {where}"
        pack: PackedRules | None = None
        rules: list[Rule] = []
        if packed:  # BINARY collation: the order of Python's string sort
            pack = PackedRules.from_rows(
                conn.execute(f"{select} ORDER BY r.created_at, r.seq", params)
            )
            keys = pack.seq.tolist()
        else:
            keys, rules = oldest_first(conn.execute(select, params).fetchall())
        vectors = conn.execute(
            "SELECT r.seq, vt.data, vg.data FROM rules r "
            "LEFT JOIN vectors vt ON vt.owner = r.id AND vt.kind = 'rule_text' "
            f"LEFT JOIN vectors vg ON vg.owner = r.id AND vg.kind = 'rule_trigger' {where}",
            params,
        )
        return assemble(generation, cursor, keys, rules, pack, vectors, dim, dtype=dtype)

    def generation(self, namespace: str) -> int:
        with self._reading() as conn:
            return ops.generation(conn, namespace)

    def count_rows(self) -> dict[str, int]:
        with self._reading() as conn:
            return {
                t: int(conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]) for t in ops.TABLES
            }

    # --- transcript files --------------------------------------------------------------------

    def transcript_files(
        self, namespace: str, client: str, *, path: str | None = None
    ) -> dict[str, TranscriptFile]:
        sql, params = transcripts.select("?", namespace, client, path)
        with self._reading() as conn:
            rows = conn.execute(sql, params).fetchall()
        records = [transcripts.transcript_from_row(r) for r in rows]
        return {r.path: r for r in records}

    def put_transcript_file(self, record: TranscriptFile) -> None:
        with self._writing() as conn:
            conn.execute(transcripts.upsert_sql("?"), transcripts.transcript_row(record))

    # --- role policies -----------------------------------------------------------------------

    def role_policies(self, namespace: str) -> dict[str | None, dict[str, Any]]:
        prefix = policies.namespace_prefix(namespace)
        with self._reading() as conn:
            rows = conn.execute(
                "SELECT value FROM meta WHERE key LIKE ? ORDER BY key", (prefix + "%",)
            ).fetchall()
        return policies.parse(list(rows))

    def put_role_policy(
        self, namespace: str, skill: str | None, policy: dict[str, Any] | None
    ) -> None:
        key = policies.key(namespace, skill)
        with self._writing() as conn:
            if policy is None:
                conn.execute("DELETE FROM meta WHERE key = ?", (key,))
            else:
                ops.set_meta(conn, key, policies.value(namespace, skill, policy))

    # --- rule events ---------------------------------------------------------------------------

    def add_rule_events(self, records: Sequence[RuleEvent]) -> None:
        if not records:
            return
        rows = [events.event_row(e) for e in records]
        with self._writing() as conn:
            conn.executemany(events.insert_sql("?"), rows)

    def rule_events(
        self,
        namespace: str,
        *,
        rule_ids: Sequence[str] | None = None,
        runs: Sequence[str] | None = None,
        kinds: Sequence[RuleEventKind] | None = None,
    ) -> list[RuleEvent]:
        sql, params = events.select_sql(
            "?", _IN, namespace, rule_ids=rule_ids, runs=runs, kinds=kinds, as_list=ops.json_list
        )
        with self._reading() as conn:
            rows = conn.execute(sql, params).fetchall()
        return [events.event_from_row(r) for r in rows]

    def rule_event_tally(self, namespace: str) -> dict[str, dict[RuleEventKind, tuple[int, str]]]:
        with self._reading() as conn:
            rows = conn.execute(events.summary_sql("?"), (namespace,)).fetchall()
        return events.tally(rows)

    # --- caches ------------------------------------------------------------------------------

    def cache_get(self, key: str) -> str | None:
        with self._reading() as conn:
            row = conn.execute("SELECT value FROM cache WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def cache_put(self, key: str, value: str, *, namespace: str, actor: str | None) -> None:
        with self._writing() as conn:
            conn.execute(
                "INSERT INTO cache (key, value, namespace, actor, created) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value, "
                "namespace = excluded.namespace, actor = excluded.actor, "
                "created = excluded.created",
                (key, value, namespace, actor, utcnow()),
            )

    # --- copying (dctx copy; see store/copy.py) -----------------------------------------------

    def export_rows(self, table: str) -> Iterator[tuple[Any, ...]]:
        columns = ", ".join("data" if c == "vector" else c for c in COPY_COLUMNS[table])
        with self._reading() as conn:
            for row in conn.execute(f"SELECT {columns} FROM {table} ORDER BY rowid"):
                if table == "vectors":
                    yield (*row[:3], np.frombuffer(row[3], dtype="<f4"))
                else:
                    yield tuple(row)

    def import_rows(self, tables: Iterable[tuple[str, Iterable[tuple[Any, ...]]]]) -> None:
        with self._writing() as conn:
            for table, rows in tables:
                fields = COPY_COLUMNS[table]
                columns = ", ".join("data" if c == "vector" else c for c in fields)
                sql = f"INSERT INTO {table} ({columns}) VALUES ({', '.join('?' * len(fields))})"
                if table == "meta":
                    sql += " ON CONFLICT (key) DO UPDATE SET value = excluded.value"
                if table == "vectors":
                    rows = ((*r[:3], np.asarray(r[3], dtype="<f4").tobytes()) for r in rows)
                conn.executemany(sql, rows)
            ops.bump_generations(conn, ops.ids(conn, "SELECT DISTINCT namespace FROM rules", ()))

    # --- diagnostics (SQLite only) -------------------------------------------------------------

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """A raw read for backend-specific tests and checks; not part of `Store`."""
        with self._reading() as conn:
            return [tuple(r) for r in conn.execute(sql, params).fetchall()]


__all__ = ["SQLiteStore", "fts_query"]
