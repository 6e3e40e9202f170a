"""The PostgreSQL schema, as ordered named migration steps (append new steps; never edit old ones).

The same logical tables as SQLite (`sqlite_migrations.py`), so `count_rows` and `dctx copy`
compare like with like. Differences: vectors are pgvector `vector` values (dimension set by the
embedder, so the column is unsized); the full-text side is a generated `tsvector` column with a
GIN index, built with an English snowball stemmer that keeps stop words (FTS5's porter
tokenizer keeps them too, so "the" still finds rules); row order comes from identity columns.
The `vector` extension itself is enabled by the store before these steps run (it needs rights
the steps should not assume).
"""

from __future__ import annotations

from typing import Any

from dctx.models import utcnow
from dctx.store import legacy_ledgers
from dctx.store.migrations import Migrations

POSTGRES_MIGRATIONS: Migrations[Any] = Migrations("postgresql")


def _run(conn: Any, script: str) -> None:
    for statement in script.split(";\n"):
        if statement.strip():
            conn.execute(statement)


@POSTGRES_MIGRATIONS.step
def m001_initial(conn: Any) -> None:
    _run(
        conn,
        """
        CREATE TABLE meta (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        CREATE SEQUENCE generation_seq;
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
            seq BIGINT GENERATED ALWAYS AS IDENTITY,
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
            seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            src TEXT NOT NULL,
            type TEXT NOT NULL,
            dst TEXT NOT NULL,
            namespace TEXT,
            UNIQUE (src, type, dst)
        );
        CREATE INDEX edges_dst ON edges (dst);
        CREATE INDEX edges_namespace ON edges (namespace);
        CREATE TABLE rules (
            seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
            embedding vector NOT NULL,
            UNIQUE (owner, kind)
        );
        CREATE TABLE cache (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL,
            namespace TEXT NOT NULL,
            actor TEXT,
            created TEXT NOT NULL
        );
        CREATE INDEX cache_actor ON cache (namespace, actor)
        """,
    )


@POSTGRES_MIGRATIONS.step
def m002_full_text(conn: Any) -> None:
    _run(
        conn,
        """
        CREATE TEXT SEARCH DICTIONARY dctx_english_stem (TEMPLATE = snowball, LANGUAGE = english);
        CREATE TEXT SEARCH CONFIGURATION dctx_english (COPY = english);
        ALTER TEXT SEARCH CONFIGURATION dctx_english
            ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
            WITH dctx_english_stem;
        ALTER TABLE rules ADD COLUMN search tsvector GENERATED ALWAYS AS (
            to_tsvector('dctx_english'::regconfig, text || ' ' || trigger_text)
        ) STORED;
        CREATE INDEX rules_search ON rules USING gin (search)
        """,
    )


@POSTGRES_MIGRATIONS.step
def m003_transcript_files(conn: Any) -> None:
    """Per-file state of `dctx capture --from CLIENT`, so a re-run captures only what is new."""
    _run(
        conn,
        """
        CREATE TABLE transcript_files (
            namespace TEXT NOT NULL,
            client TEXT NOT NULL,
            path TEXT NOT NULL,
            actor TEXT NOT NULL,
            size BIGINT NOT NULL,
            mtime_ns BIGINT NOT NULL,
            sha256 TEXT NOT NULL,
            sessions TEXT NOT NULL,
            captured_at TEXT NOT NULL,
            PRIMARY KEY (namespace, client, path)
        );
        CREATE INDEX transcript_files_actor ON transcript_files (namespace, actor)
        """,
    )


@POSTGRES_MIGRATIONS.step
def m004_rule_events(conn: Any) -> None:
    """Per-rule outcome tracking: deliveries, how they went, status changes with evidence
    (one delivery and one outcome of each kind per rule and run: `rule_events_once`)."""
    _run(
        conn,
        """
        CREATE TABLE rule_events (
            seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
            AND kind IN ('delivered', 'recurred', 'contradicted', 'quiet')
        """,
    )


@POSTGRES_MIGRATIONS.step
def m005_rule_changes(conn: Any) -> None:
    """A log of rule changes, filled by triggers: every insert, update and delete of a rule or
    of its vectors as (namespace, seq, xid), no text, so a forget leaves nothing readable.
    A process holding a rule snapshot applies the rows logged by transactions it could not
    see (xid at or after its snapshot's xmin) instead of reloading every rule."""
    conn.execute(
        """
        CREATE TABLE rule_changes (
            id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            namespace TEXT NOT NULL,
            seq BIGINT NOT NULL,
            xid xid8 NOT NULL DEFAULT pg_current_xact_id()
        )
        """
    )
    conn.execute("CREATE INDEX rule_changes_namespace ON rule_changes (namespace, xid)")
    conn.execute(
        """
        CREATE FUNCTION dctx_log_rule_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_TABLE_NAME = 'vectors' THEN
                IF NEW.kind IN ('rule_text', 'rule_trigger') THEN
                    INSERT INTO rule_changes (namespace, seq)
                    SELECT namespace, seq FROM rules WHERE id = NEW.owner;
                END IF;
                RETURN NULL;
            END IF;
            IF TG_OP IN ('INSERT', 'UPDATE') THEN
                INSERT INTO rule_changes (namespace, seq) VALUES (NEW.namespace, NEW.seq);
            END IF;
            IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND OLD.namespace <> NEW.namespace) THEN
                INSERT INTO rule_changes (namespace, seq) VALUES (OLD.namespace, OLD.seq);
            END IF;
            RETURN NULL;
        END
        $$
        """
    )
    conn.execute(
        "CREATE TRIGGER rule_changes_log AFTER INSERT OR UPDATE OR DELETE ON rules "
        "FOR EACH ROW EXECUTE FUNCTION dctx_log_rule_change()"
    )
    conn.execute(
        "CREATE TRIGGER rule_changes_vectors AFTER INSERT OR UPDATE ON vectors "
        "FOR EACH ROW EXECUTE FUNCTION dctx_log_rule_change()"
    )


@POSTGRES_MIGRATIONS.step
def m006_conversation_ledgers(conn: Any) -> None:
    """Cross-conversation counts as ledgers with one entry per conversation, so a forget can
    take a conversation out of them (store/legacy_ledgers.py)."""
    patterns = [p + "%" for p in legacy_ledgers.PREFIXES]
    rows = conn.execute(
        "SELECT key, value, namespace FROM cache WHERE key LIKE ANY(%s::text[])", (patterns,)
    )
    put, gone = legacy_ledgers.convert(rows.fetchall())
    conn.execute("DELETE FROM cache WHERE key = ANY(%s::text[])", (gone,))
    if put:
        conn.cursor().executemany(
            "INSERT INTO cache (key, value, namespace, actor, created) "
            "VALUES (%s, %s, %s, NULL, %s)",
            [(*row, utcnow()) for row in put],
        )


__all__ = ["POSTGRES_MIGRATIONS"]
