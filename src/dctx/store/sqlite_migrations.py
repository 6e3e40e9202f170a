"""The SQLite schema, as ordered named migration steps (append new steps; never edit old ones).

Tables mirror the typed graph of the paper: actors and subjects, sessions, decision nodes,
evidence and the nine edge types, plus compiled rules, their vectors, a BM25 index (FTS5) over
rule text + trigger text, store metadata and a cache of LLM results. Records are stored as
columns (for what is filtered or searched) and JSON text (for the rest); never pickle.
"""

from __future__ import annotations

import sqlite3

from dctx.models import utcnow
from dctx.store import legacy_ledgers
from dctx.store.migrations import Migrations

SQLITE_MIGRATIONS: Migrations[sqlite3.Connection] = Migrations("sqlite")


def _run(conn: sqlite3.Connection, script: str) -> None:
    # executescript() would COMMIT the caller's transaction: run statement by statement
    # (complete_statement keeps a trigger's BEGIN ... END body together).
    buffer = ""
    for line in script.splitlines(keepends=True):
        buffer += line
        if sqlite3.complete_statement(buffer):
            conn.execute(buffer)
            buffer = ""
    if buffer.strip():
        conn.execute(buffer)


@SQLITE_MIGRATIONS.step
def m001_initial(conn: sqlite3.Connection) -> None:
    _run(
        conn,
        """
        CREATE TABLE meta (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        CREATE TABLE actors (
            namespace TEXT NOT NULL,
            name TEXT NOT NULL,
            PRIMARY KEY (namespace, name)
        );
        CREATE TABLE subjects (
            namespace TEXT NOT NULL,
            name TEXT NOT NULL,
            PRIMARY KEY (namespace, name)
        );
        CREATE TABLE sessions (
            namespace TEXT NOT NULL,
            conversation_id TEXT NOT NULL,
            actor TEXT NOT NULL,
            skill TEXT NOT NULL,
            timestamp TEXT NOT NULL,
            source TEXT,
            messages TEXT NOT NULL,
            PRIMARY KEY (namespace, conversation_id),
            FOREIGN KEY (namespace, actor) REFERENCES actors (namespace, name) ON DELETE CASCADE
        );
        CREATE INDEX sessions_actor ON sessions (namespace, actor);
        CREATE TABLE nodes (
            id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            conversation_id TEXT NOT NULL,
            actor TEXT NOT NULL,
            skill TEXT NOT NULL,
            position INTEGER NOT NULL,
            kind TEXT NOT NULL,
            text TEXT NOT NULL,
            accumulated TEXT NOT NULL,
            message_index INTEGER NOT NULL,
            tool TEXT,
            subject TEXT,
            FOREIGN KEY (namespace, actor) REFERENCES actors (namespace, name) ON DELETE CASCADE
        );
        CREATE INDEX nodes_actor ON nodes (namespace, actor);
        CREATE INDEX nodes_conversation ON nodes (namespace, conversation_id, position);
        CREATE TABLE evidence (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            namespace TEXT NOT NULL,
            conversation_id TEXT NOT NULL,
            actor TEXT,
            message_index INTEGER NOT NULL,
            text TEXT NOT NULL,
            timestamp TEXT NOT NULL,
            source TEXT,
            node_id TEXT,
            FOREIGN KEY (namespace, actor) REFERENCES actors (namespace, name) ON DELETE CASCADE
        );
        CREATE INDEX evidence_actor ON evidence (namespace, actor);
        CREATE INDEX evidence_conversation ON evidence (namespace, conversation_id);
        CREATE TABLE edges (
            src TEXT NOT NULL,
            type TEXT NOT NULL,
            dst TEXT NOT NULL,
            namespace TEXT,
            UNIQUE (src, type, dst)
        );
        CREATE INDEX edges_dst ON edges (dst);
        CREATE INDEX edges_namespace ON edges (namespace);
        CREATE TABLE rules (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            namespace TEXT NOT NULL,
            skill TEXT,
            scope_actor TEXT,
            subject TEXT,
            actor TEXT,
            status TEXT NOT NULL,
            type TEXT NOT NULL,
            rule_group TEXT NOT NULL,
            source TEXT NOT NULL,
            support INTEGER NOT NULL,
            conversation_id TEXT,
            superseded_by TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            text TEXT NOT NULL,
            trigger_text TEXT NOT NULL,
            body TEXT NOT NULL,
            FOREIGN KEY (namespace, actor) REFERENCES actors (namespace, name) ON DELETE CASCADE
        );
        CREATE INDEX rules_status ON rules (namespace, status, created_at);
        CREATE INDEX rules_actor ON rules (namespace, actor);
        CREATE INDEX rules_scope_actor ON rules (namespace, scope_actor);
        CREATE INDEX rules_skill ON rules (namespace, skill);
        CREATE TABLE vectors (
            owner TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('node', 'accum', 'rule_text', 'rule_trigger')),
            dim INTEGER NOT NULL,
            data BLOB NOT NULL,
            UNIQUE (owner, kind)
        );
        CREATE TABLE cache (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL,
            namespace TEXT NOT NULL,
            actor TEXT,
            created TEXT NOT NULL
        );
        CREATE INDEX cache_actor ON cache (namespace, actor);
        CREATE VIRTUAL TABLE rules_fts USING fts5 (
            text, trigger_text,
            content = 'rules', content_rowid = 'seq',
            tokenize = 'porter unicode61 remove_diacritics 2'
        );
        CREATE TRIGGER rules_fts_insert AFTER INSERT ON rules BEGIN
            INSERT INTO rules_fts (rowid, text, trigger_text)
            VALUES (new.seq, new.text, new.trigger_text);
        END;
        CREATE TRIGGER rules_fts_delete AFTER DELETE ON rules BEGIN
            INSERT INTO rules_fts (rules_fts, rowid, text, trigger_text)
            VALUES ('delete', old.seq, old.text, old.trigger_text);
        END;
        CREATE TRIGGER rules_fts_update AFTER UPDATE OF text, trigger_text ON rules BEGIN
            INSERT INTO rules_fts (rules_fts, rowid, text, trigger_text)
            VALUES ('delete', old.seq, old.text, old.trigger_text);
            INSERT INTO rules_fts (rowid, text, trigger_text)
            VALUES (new.seq, new.text, new.trigger_text);
        END;
        """,
    )


@SQLITE_MIGRATIONS.step
def m002_transcript_files(conn: sqlite3.Connection) -> None:
    """Per-file state of `dctx capture --from CLIENT`, so a re-run captures only what is new."""
    _run(
        conn,
        """
        CREATE TABLE transcript_files (
            namespace TEXT NOT NULL,
            client TEXT NOT NULL,
            path TEXT NOT NULL,
            actor TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            sha256 TEXT NOT NULL,
            sessions TEXT NOT NULL,
            captured_at TEXT NOT NULL,
            PRIMARY KEY (namespace, client, path)
        );
        CREATE INDEX transcript_files_actor ON transcript_files (namespace, actor);
        """,
    )


@SQLITE_MIGRATIONS.step
def m003_rule_events(conn: sqlite3.Connection) -> None:
    """Per-rule outcome tracking: deliveries, how they went, status changes with evidence
    (one delivery and one outcome of each kind per rule and run: `rule_events_once`)."""
    _run(
        conn,
        """
        CREATE TABLE rule_events (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            namespace TEXT NOT NULL,
            rule_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            at TEXT NOT NULL,
            run_id TEXT,
            conversation_id TEXT,
            actor TEXT,
            decision_point INTEGER,
            detail TEXT NOT NULL
        );
        CREATE INDEX rule_events_rule ON rule_events (rule_id, at);
        CREATE INDEX rule_events_run ON rule_events (namespace, run_id);
        CREATE INDEX rule_events_conversation ON rule_events (namespace, conversation_id);
        CREATE INDEX rule_events_actor ON rule_events (namespace, actor);
        CREATE INDEX rule_events_kind ON rule_events (namespace, kind, at);
        CREATE UNIQUE INDEX rule_events_once ON rule_events (namespace, run_id, rule_id, kind)
            WHERE run_id IS NOT NULL
            AND kind IN ('delivered', 'recurred', 'contradicted', 'quiet');
        """,
    )


@SQLITE_MIGRATIONS.step
def m004_scoped_search_and_rule_changes(conn: sqlite3.Connection) -> None:
    """Full-text search scoped inside the index, and a log of rule changes.

    `search_scope` holds one token for the namespace and one for the scope skill (hex of the
    name, so any name is one token); `search_text` ANDs the namespace's into the MATCH, so
    FTS5 scores only the namespace's rows instead of every tenant's. `rule_changes` records,
    by trigger, every insert, update and delete of a rule or of its vectors as (namespace,
    seq): integers and the namespace only, no text, so a forget leaves nothing readable there.
    A process holding a rule snapshot applies the rows logged after it instead of reloading.
    """
    _run(
        conn,
        """
        ALTER TABLE rules ADD COLUMN search_scope TEXT GENERATED ALWAYS AS
            ('n' || hex(namespace) || ' s' || hex(coalesce(skill, ''))) VIRTUAL;
        DROP TRIGGER rules_fts_insert;
        DROP TRIGGER rules_fts_delete;
        DROP TRIGGER rules_fts_update;
        DROP TABLE rules_fts;
        CREATE VIRTUAL TABLE rules_fts USING fts5 (
            text, trigger_text, search_scope,
            content = 'rules', content_rowid = 'seq',
            tokenize = 'porter unicode61 remove_diacritics 2'
        );
        INSERT INTO rules_fts (rules_fts) VALUES ('rebuild');
        CREATE TRIGGER rules_fts_insert AFTER INSERT ON rules BEGIN
            INSERT INTO rules_fts (rowid, text, trigger_text, search_scope)
            VALUES (new.seq, new.text, new.trigger_text, new.search_scope);
        END;
        CREATE TRIGGER rules_fts_delete AFTER DELETE ON rules BEGIN
            INSERT INTO rules_fts (rules_fts, rowid, text, trigger_text, search_scope)
            VALUES ('delete', old.seq, old.text, old.trigger_text, old.search_scope);
        END;
        CREATE TRIGGER rules_fts_update
        AFTER UPDATE OF text, trigger_text, namespace, skill ON rules BEGIN
            INSERT INTO rules_fts (rules_fts, rowid, text, trigger_text, search_scope)
            VALUES ('delete', old.seq, old.text, old.trigger_text, old.search_scope);
            INSERT INTO rules_fts (rowid, text, trigger_text, search_scope)
            VALUES (new.seq, new.text, new.trigger_text, new.search_scope);
        END;
        CREATE TABLE rule_changes (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            namespace TEXT NOT NULL,
            seq INTEGER NOT NULL
        );
        CREATE INDEX rule_changes_namespace ON rule_changes (namespace, id);
        CREATE TRIGGER rule_changes_insert AFTER INSERT ON rules BEGIN
            INSERT INTO rule_changes (namespace, seq) VALUES (new.namespace, new.seq);
        END;
        CREATE TRIGGER rule_changes_update AFTER UPDATE ON rules BEGIN
            INSERT INTO rule_changes (namespace, seq) VALUES (new.namespace, new.seq);
            INSERT INTO rule_changes (namespace, seq) SELECT old.namespace, old.seq
            WHERE old.namespace IS NOT new.namespace OR old.seq IS NOT new.seq;
        END;
        CREATE TRIGGER rule_changes_delete AFTER DELETE ON rules BEGIN
            INSERT INTO rule_changes (namespace, seq) VALUES (old.namespace, old.seq);
        END;
        CREATE TRIGGER rule_changes_vector_insert AFTER INSERT ON vectors
        WHEN new.kind IN ('rule_text', 'rule_trigger') BEGIN
            INSERT INTO rule_changes (namespace, seq)
            SELECT namespace, seq FROM rules WHERE id = new.owner;
        END;
        CREATE TRIGGER rule_changes_vector_update AFTER UPDATE ON vectors
        WHEN new.kind IN ('rule_text', 'rule_trigger') BEGIN
            INSERT INTO rule_changes (namespace, seq)
            SELECT namespace, seq FROM rules WHERE id = new.owner;
        END;
        """,
    )


@SQLITE_MIGRATIONS.step
def m005_conversation_ledgers(conn: sqlite3.Connection) -> None:
    """Cross-conversation counts as ledgers with one entry per conversation, so a forget can
    take a conversation out of them (store/legacy_ledgers.py)."""
    where = " OR ".join("key LIKE ?" for _ in legacy_ledgers.PREFIXES)
    patterns = [p + "%" for p in legacy_ledgers.PREFIXES]
    rows = conn.execute(f"SELECT key, value, namespace FROM cache WHERE {where}", patterns)
    put, gone = legacy_ledgers.convert(rows.fetchall())
    conn.executemany("DELETE FROM cache WHERE key = ?", [(k,) for k in gone])
    conn.executemany(
        "INSERT INTO cache (key, value, namespace, actor, created) VALUES (?, ?, ?, NULL, ?)",
        [(*row, utcnow()) for row in put],
    )


__all__ = ["SQLITE_MIGRATIONS"]
