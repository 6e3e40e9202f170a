"""Conversation ledgers: what capture counts across conversations, kept per conversation so
that forgetting one takes exactly its part out.

A lesson that needs several conversations (a tool replaced in two of them, a failure that
recurs, a value a tool worked with) is counted in a ledger: one shared cache entry (actor
NULL; the key begins with `PREFIX` and names the namespace) whose value is JSON
`{item: [[conversation_id, payload], ...]}`, entries in capture order, one per conversation
and item. `Store.forget_actor` runs `scrub` over the namespace's ledgers: the forgotten
conversations' entries go, and an item or a whole ledger left empty goes with them (its key
may hold values of those conversations). What was decided from the counts is recomputed by
the caller (`Memory.forget_actor`).

Bounded, so a ledger never grows with every conversation: an item keeps its `MAX_ENTRIES`
latest entries and a ledger its `MAX_ITEMS` most recently written items; older ones are
dropped when the ledger is written (a window of recent conversations, not a history).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from dctx.store.base import Store

PREFIX = "ledger:"
MAX_ENTRIES = 64  # per item: far above any threshold a lesson counts to
MAX_ITEMS = 64  # per ledger: e.g. the source values of one tool
LIKE = PREFIX + "%"  # the SQL pattern of every ledger key (no LIKE wildcard in PREFIX)

Entries = list[list[Any]]  # [[conversation_id, payload], ...]
Ledger = dict[str, Entries]


def ledger_key(kind: str, namespace: str, *parts: Any) -> str:
    """The cache key of one ledger: its kind, namespace and what it counts (e.g. a tool)."""
    return f"{PREFIX}{kind}:{_dump([namespace, *parts])}"


def decode(raw: str | None) -> Ledger:
    return dict(json.loads(raw)) if raw else {}


def encode(ledger: Ledger) -> str:
    """The stored form, bounded: the latest entries of the latest items."""
    items = list(ledger.items())[-MAX_ITEMS:]  # in write order, not sorted
    bounded = {item: entries[-MAX_ENTRIES:] for item, entries in items if entries}
    return json.dumps(bounded, ensure_ascii=False, default=str)


def scrub(raw: str, conversations: Iterable[str]) -> str | None:
    """`raw` without the entries of `conversations`; None when nothing is left."""
    gone = set(conversations)
    ledger = decode(raw)
    kept = {i: [e for e in es if e[0] not in gone] for i, es in ledger.items()}
    kept = {i: es for i, es in kept.items() if es}
    return encode(kept) if kept else None


def scrub_rows(
    rows: Iterable[tuple[str, str]], conversations: Iterable[str]
) -> tuple[list[tuple[str, str]], list[str]]:
    """For a namespace's ledger rows (key, value), after `conversations` were forgotten: the
    rows to rewrite as (value, key), and the keys of those left empty (to delete)."""
    gone = set(conversations)
    rewrite: list[tuple[str, str]] = []
    empty: list[str] = []
    for key, raw in rows:
        kept = scrub(raw, gone)
        if kept is None:
            empty.append(key)
        elif kept != raw:
            rewrite.append((kept, key))
    return rewrite, empty


class Ledgers:
    """Ledgers read once and written back once (`flush`) per capture."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._data: dict[str, tuple[str, Ledger]] = {}  # key -> namespace, ledger
        self._dirty: set[str] = set()

    def get(self, key: str, namespace: str) -> Ledger:
        if key not in self._data:
            self._data[key] = (namespace, decode(self.store.cache_get(key)))
        return self._data[key][1]

    def add(self, key: str, namespace: str, item: str, conversation: str, payload: Any) -> bool:
        """Record what `conversation` said about `item`, once; False when it was recorded."""
        ledger = self.get(key, namespace)
        entries = ledger.pop(item, [])
        ledger[item] = entries  # most recently written last: the bound drops the oldest
        if any(e[0] == conversation for e in entries):
            return False
        entries.append([conversation, payload])
        del entries[:-MAX_ENTRIES]
        self._dirty.add(key)
        return True

    def touched(self, key: str) -> None:
        """The ledger changed in place (entries removed): write it back."""
        self._dirty.add(key)

    def flush(self) -> None:
        for key in sorted(self._dirty):
            namespace, ledger = self._data[key]
            self.store.cache_put(key, encode(ledger), namespace=namespace, actor=None)
        self._dirty.clear()


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


__all__ = [
    "LIKE",
    "MAX_ENTRIES",
    "MAX_ITEMS",
    "PREFIX",
    "Ledger",
    "Ledgers",
    "decode",
    "encode",
    "ledger_key",
    "scrub",
    "scrub_rows",
]
