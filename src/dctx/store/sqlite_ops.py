"""SQLite statements run on one connection inside an open transaction or read snapshot.

`sqlite.py` owns connections and transactions; this module owns what is done with them, so
each stays small. Lists of ids travel as one JSON parameter (`IN (SELECT value FROM
json_each(?))`), which has no variable-count limit.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

from dctx.errors import EmbedderMismatchError, NotFoundError, StoreError
from dctx.models import DecisionNode, EdgeType, Evidence, EvidenceKind, Rule, to_dict
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

# Tables reported by count_rows (the logical schema, the same for every backend).
TABLES = (
    "actors",
    "subjects",
    "sessions",
    "nodes",
    "evidence",
    "edges",
    "rules",
    "vectors",
    "meta",
    "cache",
    "transcript_files",
    "rule_events",
)
IN = "IN (SELECT value FROM json_each(?))"  # one parameter for any number of values
NODE_FIELDS = tuple(f.name for f in dataclasses.fields(DecisionNode))  # = table columns
EVIDENCE_FIELDS = tuple(f.name for f in dataclasses.fields(Evidence))
RULE_SELECT = ", ".join(f"r.{c}" for c in RULE_COLUMNS)
RULE_UPSERT = (
    f"INSERT INTO rules ({', '.join(RULE_COLUMNS)}) VALUES ({', '.join('?' * len(RULE_COLUMNS))}) "
    "ON CONFLICT (id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in RULE_COLUMNS if c != "id")
)
VectorRow = tuple[str, str, int, bytes]  # owner, kind, dim, float32 bytes


def json_list(values: Iterable[str]) -> str:
    return json.dumps(list(values))


def values(obj: Any, fields: Sequence[str]) -> tuple[Any, ...]:
    return tuple(getattr(obj, f) for f in fields)


SQL = _scrub.Dialect("?", IN, json_list)  # for the rewrites shared with PostgreSQL


def ids(conn: sqlite3.Connection, sql: str, params: Sequence[Any]) -> list[str]:
    return [r[0] for r in conn.execute(sql, params)]


def by_id(
    conn: sqlite3.Connection, table: str, fields: Sequence[str], keys: Sequence[str]
) -> list[tuple[Any, ...]]:
    """Rows in the order of `keys` (a repeated key once; unknown keys skipped)."""
    rows = conn.execute(
        f"SELECT {', '.join(fields)} FROM {table} WHERE id {IN}", (json_list(keys),)
    ).fetchall()
    found = {r[0]: tuple(r) for r in rows}
    return [found[k] for k in dict.fromkeys(keys) if k in found]


# --- meta and generations -----------------------------------------------------------------


def meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def generation(conn: sqlite3.Connection, namespace: str) -> int:
    value = meta(conn, generation_key(namespace))
    return int(value) if value is not None else 0


def bump_generations(conn: sqlite3.Connection, namespaces: Iterable[str]) -> None:
    """Give each namespace a fresh value of one store-wide counter, so a generation never
    repeats (not even after drop_namespace) and a stale cached index can never match."""
    for namespace in sorted(set(namespaces)):
        counter = int(meta(conn, "generation_counter") or 0) + 1
        set_meta(conn, "generation_counter", str(counter))
        set_meta(conn, generation_key(namespace), str(counter))
    prune_changes(conn)


# --- the rule change log (filled by triggers, migration m004) --------------------------------

CHANGES_KEPT = 200_000  # log rows kept; a snapshot older than that reloads in full


def changes_cursor(conn: sqlite3.Connection) -> int:
    """The last change logged (ids never repeat: AUTOINCREMENT; writers are serialized)."""
    row = conn.execute("SELECT seq FROM sqlite_sequence WHERE name = 'rule_changes'").fetchone()
    return int(row[0]) if row is not None else 0


def changes_floor(conn: sqlite3.Connection) -> int:
    """Cursors below this may have lost changes to pruning."""
    return int(meta(conn, "rule_changes_floor") or 0)


def oldest_cursor(conn: sqlite3.Connection) -> int:
    """The oldest cursor the log still answers: a cursor asks for the ids after it, and
    pruning (or a drop) removed ids up to the floor only, so the floor itself still works."""
    return changes_floor(conn)


def changed_rules(conn: sqlite3.Connection, namespace: str, cursor: int) -> list[int]:
    rows = conn.execute(
        "SELECT DISTINCT seq FROM rule_changes WHERE namespace = ? AND id > ?", (namespace, cursor)
    )
    return [int(r[0]) for r in rows]


def drop_changes(conn: sqlite3.Connection, namespace: str) -> None:
    """A dropped namespace leaves no row naming it; every snapshot older than now reloads
    in full once (it can no longer learn from the log what the drop removed)."""
    conn.execute("DELETE FROM rule_changes WHERE namespace = ?", (namespace,))
    set_meta(conn, "rule_changes_floor", str(changes_cursor(conn)))


def prune_changes(conn: sqlite3.Connection) -> None:
    """Keep the log bounded: drop all but the last CHANGES_KEPT rows, in large steps."""
    top = changes_cursor(conn)
    floor = changes_floor(conn)
    if top - floor > 2 * CHANGES_KEPT:
        conn.execute("DELETE FROM rule_changes WHERE id <= ?", (top - CHANGES_KEPT,))
        set_meta(conn, "rule_changes_floor", str(top - CHANGES_KEPT))


# --- rules ----------------------------------------------------------------------------------


def load_rule(conn: sqlite3.Connection, rule_id: str) -> Rule:
    row = conn.execute(f"SELECT {RULE_SELECT} FROM rules r WHERE r.id = ?", (rule_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"no rule with id {rule_id!r}")
    return rule_from_row(row)


def namespaces_of(conn: sqlite3.Connection, table: str, keys: Iterable[str]) -> set[str]:
    rows = conn.execute(f"SELECT DISTINCT namespace FROM {table} WHERE id {IN}", (json_list(keys),))
    return {r[0] for r in rows}


# --- capture batches ------------------------------------------------------------------------


def write_graph(conn: sqlite3.Connection, batch: CaptureBatch) -> None:
    """Actors, subjects, sessions, nodes, evidence and edges of a batch (upserts)."""
    actors = {(s.namespace, s.actor) for s in batch.sessions}
    actors |= {(n.namespace, n.actor) for n in batch.nodes}
    actors |= {(e.namespace, e.actor) for e in batch.evidence if e.actor is not None}
    for r in batch.rules:
        authors = [r.actor] if r.actor is not None else []
        actors |= {(r.scope.namespace, a) for a in authors + r.supporters}
    subjects = {(n.namespace, n.subject) for n in batch.nodes if n.subject}
    subjects |= {(r.scope.namespace, r.scope.subject) for r in batch.rules if r.scope.subject}
    for table, rows in (("actors", actors), ("subjects", subjects)):
        conn.executemany(
            f"INSERT INTO {table} (namespace, name) VALUES (?, ?) ON CONFLICT DO NOTHING",
            sorted(rows),
        )
    conn.executemany(
        "INSERT INTO sessions (namespace, conversation_id, actor, skill, timestamp, source, "
        "messages) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (namespace, conversation_id) "
        "DO UPDATE SET actor = excluded.actor, skill = excluded.skill, "
        "timestamp = excluded.timestamp, source = excluded.source, messages = excluded.messages",
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
        conn.executemany(
            f"INSERT OR REPLACE INTO {table} ({', '.join(fields)}) "
            f"VALUES ({', '.join('?' * len(fields))})",
            [values(x, fields) for x in records],
        )
    write_edges(conn, batch)


def write_edges(conn: sqlite3.Connection, batch: CaptureBatch) -> None:
    """Edges carry the namespace of an end they touch, so deletions can find them even when
    an end is a name (actor, conversation id) that other namespaces use too."""
    if not batch.edges:
        return
    where: dict[str, str] = {s.conversation_id: s.namespace for s in batch.sessions}
    where |= {n.id: n.namespace for n in batch.nodes}
    where |= {e.id: e.namespace for e in batch.evidence}
    where |= {r.id: r.scope.namespace for r in batch.rules}
    unknown = json_list({x for e in batch.edges for x in (e.src, e.dst)} - where.keys())
    for table in ("nodes", "evidence", "rules"):
        rows = conn.execute(f"SELECT id, namespace FROM {table} WHERE id {IN}", (unknown,))
        where |= {r[0]: r[1] for r in rows}
    namespaces = set(where.values())
    fallback = next(iter(namespaces)) if len(namespaces) == 1 else None
    conn.executemany(
        "INSERT INTO edges (src, type, dst, namespace) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (src, type, dst) DO UPDATE SET "
        "namespace = coalesce(edges.namespace, excluded.namespace)",
        [
            (e.src, EdgeType(e.type).value, e.dst, where.get(e.src, where.get(e.dst, fallback)))
            for e in batch.edges
        ],
    )


def check_owners(conn: sqlite3.Connection, table: str, owners: Iterable[str]) -> None:
    wanted = set(owners)
    if not wanted:
        return
    rows = conn.execute(f"SELECT id FROM {table} WHERE id {IN}", (json_list(wanted),))
    missing = wanted - {r[0] for r in rows}
    if missing:
        raise NotFoundError(f"vectors given for unknown {table}: {', '.join(sorted(missing))}")


def write_vectors(conn: sqlite3.Connection, rows: list[VectorRow]) -> None:
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
    conn.executemany(
        "INSERT INTO vectors (owner, kind, dim, data) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (owner, kind) DO UPDATE SET dim = excluded.dim, data = excluded.data",
        rows,
    )


# --- forgetting -----------------------------------------------------------------------------


def purge_fts(conn: sqlite3.Connection) -> None:
    """Merge the full-text index into one segment: FTS5 keeps a deleted row's terms in older
    segments until a merge, and SQLite 3.40 has no FTS5 secure-delete (~0.2 s at 100,000
    rules, so only forget and delete pay it)."""
    conn.execute("INSERT INTO rules_fts (rules_fts) VALUES ('optimize')")


def forget(conn: sqlite3.Connection, namespace: str, actor: str | None) -> dict[str, int]:
    """Delete what an actor (or, with actor None, a whole namespace) left; counts per table.

    An actor's data: their sessions and everything recorded in them (nodes, evidence, also
    when the actor field is empty, e.g. a tool failure), rules they authored or that are
    scoped to them, rules whose every evidence is theirs, those rows' vectors and edges,
    their cache entries, and their conversations' entries in the shared ledgers
    (store/ledgers.py; an entry left empty goes). (`Memory.forget_actor` first hands a team
    rule that others agreed with over to them, so it is not "authored" by the actor any
    more, and afterwards demotes what the ledgers no longer admit.)
    """
    if actor is None:
        sel = "WHERE namespace = ?"
        conversations = ids(conn, f"SELECT conversation_id FROM sessions {sel}", (namespace,))
        nodes = ids(conn, f"SELECT id FROM nodes {sel}", (namespace,))
        evidence = ids(conn, f"SELECT id FROM evidence {sel}", (namespace,))
        rules = ids(conn, f"SELECT id FROM rules {sel}", (namespace,))
    else:
        who = (namespace, actor)
        sel = "WHERE namespace = ? AND (actor = ?"
        conversations = ids(conn, f"SELECT conversation_id FROM sessions {sel})", who)
        convs = json_list(conversations)
        nodes = ids(conn, f"SELECT id FROM nodes {sel} OR conversation_id {IN})", (*who, convs))
        quoted = json_list(json.dumps(c, ensure_ascii=False) for c in conversations)
        evidence = ids(  # also evidence pooled across conversations that lists theirs
            conn,
            f"SELECT id FROM evidence {sel} OR conversation_id {IN} OR node_id {IN} "
            "OR EXISTS (SELECT 1 FROM json_each(?) AS q WHERE instr(evidence.text, q.value) > 0))",
            (*who, convs, json_list(nodes), quoted),
        )
        rules = ids(conn, f"SELECT id FROM rules {sel} OR scope_actor = ?)", (*who, actor))
        # rules they only agreed with lose their traces; a rule left with no evidence at
        # all (a tool lesson seen only in their sessions) goes with them
        updated, orphans = scrub_rules(
            conn, namespace, actor, rules, evidence, nodes, conversations
        )
        rules += orphans
    owned = json_list([*nodes, *evidence, *rules])  # globally unique ids
    names = json_list([*conversations, *([actor] if actor is not None else [])])
    counts: dict[str, int] = {}

    def delete(table: str, where: str, *params: Any) -> None:
        cursor = conn.execute(f"DELETE FROM {table} WHERE {where}", params)
        counts[table] = counts.get(table, 0) + cursor.rowcount

    touching = f"src {IN} OR dst {IN}"
    if actor is None:
        delete("edges", f"namespace = ? OR {touching}", namespace, owned, owned)
    else:
        local = f"(namespace = ? OR namespace IS NULL) AND ({touching})"
        delete("edges", f"{touching} OR ({local})", owned, owned, namespace, names, names)
        counts["rules_updated"] = updated
    delete("vectors", f"owner {IN}", owned)
    delete("rules", f"id {IN}", json_list(rules))
    delete("evidence", f"id {IN}", json_list(evidence))
    delete("nodes", f"id {IN}", json_list(nodes))
    if actor is None:
        for table in ("sessions", "cache", "transcript_files", "rule_events", "actors", "subjects"):
            delete(table, "namespace = ?", namespace)
    else:
        # what their runs were given and how it went, and every event of a deleted rule
        theirs = (
            f"namespace = ? AND (actor = ? OR conversation_id {IN} OR run_id {IN} OR rule_id {IN})"
        )
        params = (namespace, actor, names, names, json_list(rules))
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
        delete("sessions", f"namespace = ? AND conversation_id {IN}", namespace, names)
        delete("transcript_files", "namespace = ? AND actor = ?", namespace, actor)
        # shared counts across conversations (store/ledgers.py): their entries go, exactly
        counts["ledgers_scrubbed"] = _scrub.scrub_ledgers(conn, SQL, namespace, conversations)
        # their entries, and other shared ones that remember their conversations or name
        delete(
            "cache",
            "namespace = ? AND (actor = ? OR (key NOT LIKE ? AND EXISTS (SELECT 1 FROM "
            "json_each(?) AS n WHERE instr(cache.value, n.value) > 0)))",
            namespace, actor, ledgers.LIKE, names,
        )  # fmt: skip
        delete("actors", "namespace = ? AND name = ?", namespace, actor)
        used = "SELECT subject FROM {} WHERE namespace = ? AND subject IS NOT NULL"
        delete(
            "subjects",
            f"namespace = ? AND name NOT IN ({used.format('nodes')} UNION {used.format('rules')})",
            namespace, namespace, namespace,
        )  # fmt: skip
    # purge old terms: of deleted rules, and of rules rewritten without the actor's words
    # (Memory.forget_actor hands a shared rule over just before)
    purge_fts(conn)
    bump_generations(conn, [namespace])
    if actor is None:
        drop_changes(conn, namespace)
    return counts


def scrub_rules(
    conn: sqlite3.Connection,
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
        f"SELECT {RULE_SELECT} FROM rules r WHERE r.namespace = ? AND r.id NOT {IN} AND ("
        f"instr(r.body, ?) > 0 OR instr(r.body, ?) > 0 OR r.conversation_id {IN} "
        f"OR EXISTS (SELECT 1 FROM json_each(r.body, '$.evidence_ids') WHERE value {IN}) "
        f"OR json_extract(r.body, '$.trigger.node_id') {IN})",
        (namespace, json_list(deleted_rules), actor, escaped, json_list(conversations),
         json_list(evidence), json_list(nodes)),
    ).fetchall()  # fmt: skip
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
    conn.executemany(RULE_UPSERT, changed)
    return len(changed), orphans


def check_dim(conn: sqlite3.Connection, dim: int) -> None:
    stored = meta(conn, "vector_dim")
    if stored is not None and int(stored) != dim:
        raise StoreError(f"query vector has {dim} dims; this store holds {stored}-dim vectors")
