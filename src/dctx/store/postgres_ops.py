"""PostgreSQL statements run on one connection inside an open transaction or read snapshot.

`postgres.py` owns connections, transactions and locks; this module owns what is done with
them (the same operations as `sqlite_ops.py`, in PostgreSQL's dialect). Lists of ids travel as
one `text[]` parameter (`= ANY(%s::text[])`), which has no count limit.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from psycopg import Connection

from dctx.errors import EmbedderMismatchError, NotFoundError, StoreError
from dctx.models import EdgeType, EvidenceKind, Rule, to_dict
from dctx.store import _scrub, ledgers
from dctx.store._rows import (
    RULE_COLUMNS,
    generation_key,
    orphaned,
    rule_from_row,
    rule_to_row,
    scrub_actor,
)
from dctx.store.base import CaptureBatch
from dctx.store.sqlite_ops import EVIDENCE_FIELDS, NODE_FIELDS, TABLES, values

Conn = Connection[Any]
ANY = "= ANY(%s::text[])"
SQL = _scrub.Dialect("%s", ANY, list)  # for the rewrites shared with SQLite
NOT_ANY = "<> ALL(%s::text[])"
RULE_SELECT = ", ".join(f"r.{c}" for c in RULE_COLUMNS)
RULE_UPSERT = (
    f"INSERT INTO rules ({', '.join(RULE_COLUMNS)}) "
    f"VALUES ({', '.join(['%s'] * len(RULE_COLUMNS))}) ON CONFLICT (id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in RULE_COLUMNS if c != "id")
)
VectorRow = tuple[str, str, int, np.ndarray]  # owner, kind, dim, float32 vector
# pg_advisory_xact_lock(class, key) classes: one per purpose, so keys never collide.
LOCK_MIGRATE = 0x44C7_0001
LOCK_NAMESPACE = 0x44C7_0002
LOCK_PRUNE = 0x44C7_0003


def ids(conn: Conn, sql: str, params: Sequence[Any]) -> list[str]:
    return [r[0] for r in conn.execute(sql, params).fetchall()]


def by_id(
    conn: Conn, table: str, fields: Sequence[str], keys: Sequence[str]
) -> list[tuple[Any, ...]]:
    """Rows in the order of `keys` (a repeated key once; unknown keys skipped)."""
    rows = conn.execute(
        f"SELECT {', '.join(fields)} FROM {table} WHERE id {ANY}", (list(keys),)
    ).fetchall()
    found = {r[0]: tuple(r) for r in rows}
    return [found[k] for k in dict.fromkeys(keys) if k in found]


def lock_namespaces(conn: Conn, namespaces: Iterable[str]) -> None:
    """Serialize writers per namespace until commit (in sorted order: no lock cycles), so a
    capture's read-compile-write of one namespace never interleaves with another's."""
    for namespace in sorted(set(namespaces)):
        conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (LOCK_NAMESPACE, namespace))


# --- meta and generations -----------------------------------------------------------------


def meta(conn: Conn, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = %s", (key,)).fetchone()
    return None if row is None else str(row[0])


def set_meta(conn: Conn, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (%s, %s) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def generation(conn: Conn, namespace: str) -> int:
    value = meta(conn, generation_key(namespace))
    return int(value) if value is not None else 0


def bump_generations(conn: Conn, namespaces: Iterable[str]) -> None:
    """A fresh value of one store-wide sequence per namespace: a sequence never repeats (not
    even across rollbacks or drop_namespace), and the row lock of the update orders writers
    of one namespace without serializing different namespaces."""
    wanted = sorted(set(namespaces))
    if not wanted:
        return
    conn.cursor().executemany(
        "INSERT INTO meta (key, value) VALUES (%s, nextval('generation_seq')::text) "
        "ON CONFLICT (key) DO UPDATE SET value = nextval('generation_seq')::text",
        [(generation_key(ns),) for ns in wanted],
    )
    prune_changes(conn)


# --- the rule change log (filled by triggers, migration m005) --------------------------------

CHANGES_KEPT = 200_000  # log rows kept; a snapshot older than that reloads in full


def changes_cursor(conn: Conn) -> int:
    """The xmin of this transaction's snapshot: every transaction it cannot see has an xid
    at or above it (ids from a sequence would not do: they commit out of order)."""
    row = conn.execute("SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint").fetchone()
    return int(row[0])  # type: ignore[index]


def changes_floor(conn: Conn) -> int:
    """The highest xid whose log rows may have been pruned (cursors at or below it reload)."""
    return int(meta(conn, "rule_changes_floor") or 0)


def oldest_cursor(conn: Conn) -> int:
    """The oldest cursor the log still answers: a cursor (a snapshot's xmin) asks for the
    xids at or above it, and rows of the floor's own xid may be gone, so one above it. (A
    reader whose xmin is a drop's xid could not see the drop, and the log no longer holds
    what it removed: it must reload.)"""
    return changes_floor(conn) + 1


def changed_rules(conn: Conn, namespace: str, cursor: int) -> list[int]:
    rows = conn.execute(
        "SELECT DISTINCT seq FROM rule_changes WHERE namespace = %s AND xid >= %s::text::xid8",
        (namespace, str(cursor)),
    ).fetchall()
    return [int(r[0]) for r in rows]


def drop_changes(conn: Conn, namespace: str) -> None:
    """A dropped namespace leaves no row naming it; every snapshot that cannot see this
    transaction reloads in full once (the log can no longer tell it what the drop removed)."""
    conn.execute("DELETE FROM rule_changes WHERE namespace = %s", (namespace,))
    xid = conn.execute("SELECT pg_current_xact_id()::text::bigint").fetchone()[0]  # type: ignore[index]
    set_meta(conn, "rule_changes_floor", str(max(int(xid), changes_floor(conn))))


def prune_changes(conn: Conn) -> None:
    """Keep the log bounded: drop all but the last CHANGES_KEPT rows, in large steps, one
    pruning writer at a time (the others skip)."""
    low, high = conn.execute("SELECT min(id), max(id) FROM rule_changes").fetchone()  # type: ignore[misc]
    if low is None or high - low < 2 * CHANGES_KEPT:
        return
    if not conn.execute("SELECT pg_try_advisory_xact_lock(%s, 0)", (LOCK_PRUNE,)).fetchone()[0]:  # type: ignore[index]
        return
    row = conn.execute(
        "WITH gone AS (DELETE FROM rule_changes WHERE id <= %s RETURNING xid) "
        "SELECT max(xid::text::bigint) FROM gone",
        (high - CHANGES_KEPT,),
    ).fetchone()
    if row is not None and row[0] is not None:
        set_meta(conn, "rule_changes_floor", str(max(int(row[0]), changes_floor(conn))))


# --- rules ----------------------------------------------------------------------------------


def load_rule(conn: Conn, rule_id: str) -> Rule:
    row = conn.execute(f"SELECT {RULE_SELECT} FROM rules r WHERE r.id = %s", (rule_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"no rule with id {rule_id!r}")
    return rule_from_row(row)


def namespaces_of(conn: Conn, table: str, keys: Iterable[str]) -> set[str]:
    rows = conn.execute(f"SELECT DISTINCT namespace FROM {table} WHERE id {ANY}", (list(keys),))
    return {r[0] for r in rows.fetchall()}


# --- capture batches ------------------------------------------------------------------------


def write_graph(conn: Conn, batch: CaptureBatch) -> None:
    """Actors, subjects, sessions, nodes, evidence and edges of a batch (upserts)."""
    actors = {(s.namespace, s.actor) for s in batch.sessions}
    actors |= {(n.namespace, n.actor) for n in batch.nodes}
    actors |= {(e.namespace, e.actor) for e in batch.evidence if e.actor is not None}
    for r in batch.rules:
        authors = [r.actor] if r.actor is not None else []
        actors |= {(r.scope.namespace, a) for a in authors + r.supporters}
    subjects = {(n.namespace, n.subject) for n in batch.nodes if n.subject}
    subjects |= {(r.scope.namespace, r.scope.subject) for r in batch.rules if r.scope.subject}
    cur = conn.cursor()
    for table, rows in (("actors", actors), ("subjects", subjects)):
        if rows:
            cur.executemany(
                f"INSERT INTO {table} (namespace, name) VALUES (%s, %s) ON CONFLICT DO NOTHING",
                sorted(rows),
            )
    if batch.sessions:
        cur.executemany(
            "INSERT INTO sessions (namespace, conversation_id, actor, skill, timestamp, source, "
            "messages) VALUES (%s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (namespace, conversation_id) DO UPDATE SET actor = excluded.actor, "
            "skill = excluded.skill, timestamp = excluded.timestamp, source = excluded.source, "
            "messages = excluded.messages",
            [
                (*values(s, ("namespace", "conversation_id", "actor", "skill", "timestamp")),
                 s.source, json.dumps(to_dict(s.messages), ensure_ascii=False))
                for s in batch.sessions
            ],
        )  # fmt: skip
    for e in batch.evidence:
        EvidenceKind(e.kind)  # ValueError (mapped by the caller) on an unknown kind
    for table, fields, records in (
        ("nodes", NODE_FIELDS, batch.nodes),
        ("evidence", EVIDENCE_FIELDS, batch.evidence),
    ):
        if records:
            cur.executemany(
                f"INSERT INTO {table} ({', '.join(fields)}) "
                f"VALUES ({', '.join(['%s'] * len(fields))}) ON CONFLICT (id) DO UPDATE SET "
                + ", ".join(f"{f} = excluded.{f}" for f in fields if f != "id"),
                [values(x, fields) for x in records],
            )
    write_edges(conn, batch)


def write_edges(conn: Conn, batch: CaptureBatch) -> None:
    """Edges carry the namespace of an end they touch (see sqlite_ops.write_edges)."""
    if not batch.edges:
        return
    where: dict[str, str] = {s.conversation_id: s.namespace for s in batch.sessions}
    where |= {n.id: n.namespace for n in batch.nodes}
    where |= {e.id: e.namespace for e in batch.evidence}
    where |= {r.id: r.scope.namespace for r in batch.rules}
    unknown = sorted({x for e in batch.edges for x in (e.src, e.dst)} - where.keys())
    for table in ("nodes", "evidence", "rules"):
        rows = conn.execute(f"SELECT id, namespace FROM {table} WHERE id {ANY}", (unknown,))
        where |= {r[0]: r[1] for r in rows.fetchall()}
    namespaces = set(where.values())
    fallback = next(iter(namespaces)) if len(namespaces) == 1 else None
    conn.cursor().executemany(
        "INSERT INTO edges (src, type, dst, namespace) VALUES (%s, %s, %s, %s) "
        "ON CONFLICT (src, type, dst) DO UPDATE SET "
        "namespace = coalesce(edges.namespace, excluded.namespace)",
        [
            (e.src, EdgeType(e.type).value, e.dst, where.get(e.src, where.get(e.dst, fallback)))
            for e in batch.edges
        ],
    )


def check_owners(conn: Conn, table: str, owners: Iterable[str]) -> None:
    wanted = set(owners)
    if not wanted:
        return
    rows = conn.execute(f"SELECT id FROM {table} WHERE id {ANY}", (sorted(wanted),)).fetchall()
    missing = wanted - {r[0] for r in rows}
    if missing:
        raise NotFoundError(f"vectors given for unknown {table}: {', '.join(sorted(missing))}")


def write_vectors(conn: Conn, rows: list[VectorRow]) -> None:
    """Upsert vectors; all of one store share one dimension (the embedder's)."""
    if not rows:
        return
    dims = {dim for _, _, dim, _ in rows}
    stored = meta(conn, "vector_dim")
    expected = int(stored) if stored is not None else None
    if len(dims) > 1 or (expected is not None and dims != {expected}):
        have = f"{expected}-dim vectors" if expected is not None else "no vectors"
        got = "/".join(map(str, sorted(dims)))
        raise EmbedderMismatchError(
            f"{meta(conn, 'embedder_id') or 'unknown'} ({have})", f"an embedder of {got} dims"
        )
    if expected is None:
        set_meta(conn, "vector_dim", str(dims.pop()))
    conn.cursor().executemany(
        "INSERT INTO vectors (owner, kind, dim, embedding) VALUES (%s, %s, %s, %b) "
        "ON CONFLICT (owner, kind) DO UPDATE SET dim = excluded.dim, "
        "embedding = excluded.embedding",
        rows,
    )


def check_dim(conn: Conn, dim: int) -> None:
    stored = meta(conn, "vector_dim")
    if stored is not None and int(stored) != dim:
        raise StoreError(f"query vector has {dim} dims; this store holds {stored}-dim vectors")


# --- forgetting -----------------------------------------------------------------------------


def forget(conn: Conn, namespace: str, actor: str | None) -> dict[str, int]:
    """Delete what an actor (or, with actor None, a whole namespace) left; counts per table.
    The same rows as `sqlite_ops.forget` (see there for what belongs to an actor)."""
    if actor is None:
        sel = "WHERE namespace = %s"
        conversations = ids(conn, f"SELECT conversation_id FROM sessions {sel}", (namespace,))
        nodes = ids(conn, f"SELECT id FROM nodes {sel}", (namespace,))
        evidence = ids(conn, f"SELECT id FROM evidence {sel}", (namespace,))
        rules = ids(conn, f"SELECT id FROM rules {sel}", (namespace,))
    else:
        who = (namespace, actor)
        sel = "WHERE namespace = %s AND (actor = %s"
        conversations = ids(conn, f"SELECT conversation_id FROM sessions {sel})", who)
        nodes = ids(
            conn, f"SELECT id FROM nodes {sel} OR conversation_id {ANY})", (*who, conversations)
        )
        quoted = [json.dumps(c, ensure_ascii=False) for c in conversations]
        evidence = ids(  # also evidence pooled across conversations that lists theirs
            conn,
            f"SELECT id FROM evidence {sel} OR conversation_id {ANY} OR node_id {ANY} "
            "OR EXISTS (SELECT 1 FROM unnest(%s::text[]) AS q WHERE strpos(evidence.text, q) > 0))",
            (*who, conversations, nodes, quoted),
        )
        rules = ids(conn, f"SELECT id FROM rules {sel} OR scope_actor = %s)", (*who, actor))
        # rules they only agreed with lose their traces; a rule left with no evidence at
        # all (a tool lesson seen only in their sessions) goes with them
        updated, orphans = scrub_rules(
            conn, namespace, actor, rules, evidence, nodes, conversations
        )
        rules += orphans
    owned = [*nodes, *evidence, *rules]  # globally unique ids
    names = [*conversations, *([actor] if actor is not None else [])]
    counts: dict[str, int] = {}

    def delete(table: str, where: str, *params: Any) -> None:
        cursor = conn.execute(f"DELETE FROM {table} WHERE {where}", params)
        counts[table] = counts.get(table, 0) + max(cursor.rowcount, 0)

    touching = f"src {ANY} OR dst {ANY}"
    if actor is None:
        delete("edges", f"namespace = %s OR {touching}", namespace, owned, owned)
    else:
        local = f"(namespace = %s OR namespace IS NULL) AND ({touching})"
        delete("edges", f"{touching} OR ({local})", owned, owned, namespace, names, names)
        counts["rules_updated"] = updated
    delete("vectors", f"owner {ANY}", owned)
    delete("rules", f"id {ANY}", rules)
    delete("evidence", f"id {ANY}", evidence)
    delete("nodes", f"id {ANY}", nodes)
    if actor is None:
        for table in ("sessions", "cache", "transcript_files", "rule_events", "actors", "subjects"):
            delete(table, "namespace = %s", namespace)
    else:
        # what their runs were given and how it went, and every event of a deleted rule
        theirs = (
            f"namespace = %s AND (actor = %s OR conversation_id {ANY} OR run_id {ANY} "
            f"OR rule_id {ANY})"
        )
        params = (namespace, actor, names, names, rules)
        mine = conn.execute(f"SELECT id, run_id FROM rule_events WHERE {theirs}", params)
        dead = {
            actor,
            *conversations,
            *evidence,
            *nodes,
            *rules,
            *(i for row in mine.fetchall() for i in row if i),
        }
        delete("rule_events", theirs, *params)
        # the events that stay (a flag listing the runs it recurred in) forget their ids too
        counts["rule_events_scrubbed"] = _scrub.scrub_events(conn, SQL, namespace, dead)
        delete("sessions", f"namespace = %s AND conversation_id {ANY}", namespace, names)
        delete("transcript_files", "namespace = %s AND actor = %s", namespace, actor)
        # shared counts across conversations (store/ledgers.py): their entries go, exactly
        counts["ledgers_scrubbed"] = _scrub.scrub_ledgers(conn, SQL, namespace, conversations)
        # their entries, and other shared ones that remember their conversations or name
        delete(
            "cache",
            "namespace = %s AND (actor = %s OR (key NOT LIKE %s AND EXISTS (SELECT 1 FROM "
            "unnest(%s::text[]) AS n WHERE strpos(cache.value, n) > 0)))",
            namespace, actor, ledgers.LIKE, names,
        )  # fmt: skip
        delete("actors", "namespace = %s AND name = %s", namespace, actor)
        used = "SELECT subject FROM {} WHERE namespace = %s AND subject IS NOT NULL"
        delete(
            "subjects",
            f"namespace = %s AND name NOT IN ({used.format('nodes')} UNION {used.format('rules')})",
            namespace, namespace, namespace,
        )  # fmt: skip
    bump_generations(conn, [namespace])
    if actor is None:
        drop_changes(conn, namespace)
    return counts


def scrub_rules(
    conn: Conn,
    namespace: str,
    actor: str,
    deleted_rules: list[str],
    evidence: list[str],
    nodes: list[str],
    conversations: list[str],
) -> tuple[int, list[str]]:
    """Rewrite the other rules of the namespace that mention the actor (as a supporter, in
    history) or point at deleted records; returns how many changed, and the ids of rules all
    of whose evidence is deleted (to delete with it)."""
    escaped = json.dumps(actor, ensure_ascii=False)[1:-1]
    rows = conn.execute(
        f"SELECT {RULE_SELECT} FROM rules r WHERE r.namespace = %s AND r.id {NOT_ANY} AND ("
        f"strpos(r.body, %s) > 0 OR strpos(r.body, %s) > 0 OR r.conversation_id {ANY} "
        "OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(r.body::jsonb -> 'evidence_ids') v "
        f"WHERE v {ANY}) OR (r.body::jsonb -> 'trigger' ->> 'node_id') {ANY})",
        (namespace, deleted_rules, actor, escaped, conversations, evidence, nodes),
    ).fetchall()
    changed = []
    orphans: list[str] = []
    for row in rows:
        rule = rule_from_row(row)
        if orphaned(rule, evidence):
            orphans.append(rule.id)
        elif scrub_actor(
            rule, actor, evidence_ids=evidence, node_ids=nodes, conversation_ids=conversations
        ):
            changed.append(rule_to_row(rule))
    if changed:
        conn.cursor().executemany(RULE_UPSERT, changed)
    return len(changed), orphans


__all__ = [
    "EVIDENCE_FIELDS",
    "NODE_FIELDS",
    "RULE_SELECT",
    "RULE_UPSERT",
    "TABLES",
    "forget",
    "lock_namespaces",
]
