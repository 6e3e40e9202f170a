"""What forgetting an actor rewrites instead of deleting, shared by both backends (only the
SQL placeholders differ): the namespace's shared ledgers (store/ledgers.py) lose the
actor's conversations, and the outcome events that stay lose the ids of the actor's runs,
conversations and evidence (store/_events.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dctx.store import _events as events
from dctx.store import ledgers


@dataclass(frozen=True, slots=True)
class Dialect:
    ph: str  # one parameter: "?" or "%s"
    in_list: str  # "IN one list parameter", e.g. "IN (SELECT value FROM json_each(?))"
    as_list: Callable[[Sequence[str]], Any]  # a sequence as that parameter


def scrub_ledgers(conn: Any, sql: Dialect, namespace: str, conversations: Sequence[str]) -> int:
    """Take `conversations` out of the namespace's ledgers; an emptied one is deleted.
    Returns how many ledgers were rewritten or deleted."""
    found = conn.execute(
        f"SELECT key, value FROM cache WHERE namespace = {sql.ph} AND key LIKE {sql.ph}",
        (namespace, ledgers.LIKE),
    ).fetchall()
    rewrite, empty = ledgers.scrub_rows(found, conversations)
    if rewrite:
        conn.cursor().executemany(
            f"UPDATE cache SET value = {sql.ph} WHERE key = {sql.ph}", rewrite
        )
    conn.execute(f"DELETE FROM cache WHERE key {sql.in_list}", (sql.as_list(empty),))
    return len(rewrite) + len(empty)


def scrub_events(conn: Any, sql: Dialect, namespace: str, dead: set[str]) -> int:
    """Take `dead` ids out of the lists of the namespace's remaining events; how many."""
    listing = conn.execute(
        f"SELECT id, detail FROM rule_events WHERE namespace = {sql.ph} AND kind {sql.in_list}",
        (namespace, sql.as_list(events.LISTING)),
    ).fetchall()
    rewritten = events.scrub_details(listing, dead)
    if rewritten:
        conn.cursor().executemany(
            f"UPDATE rule_events SET detail = {sql.ph} WHERE id = {sql.ph}", rewritten
        )
    return len(rewritten)


__all__ = ["Dialect", "scrub_events", "scrub_ledgers"]
