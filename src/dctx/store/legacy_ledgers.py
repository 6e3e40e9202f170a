"""The cross-conversation counts stored before ledgers (store/ledgers.py), as ledgers.

Older stores kept them as cache entries of their own shapes: `replacements:` ({A: [[conversation,
B]]}), `toolfail:` and `emptyfallback:` (a list of conversations) and `fruitless:`
({conversation: request words}), each keyed by a JSON list beginning with the namespace. They
become the ledgers capture now reads, so no count is lost. `toolok:` entries (a value a tool
worked with) recorded no conversation: nothing could forget them, so they are dropped (the
next conversations where the value works record it again). A frozen snapshot of those shapes,
for the one migration step of each backend; capture never reads them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from dctx.store.ledgers import Ledger, encode, ledger_key

PREFIXES = ("replacements:", "toolfail:", "emptyfallback:", "fruitless:", "toolok:")
Row = tuple[str, str, str]  # key, value, namespace


def convert(rows: Iterable[Row]) -> tuple[list[Row], list[str]]:
    """Ledger rows to write for the legacy `rows`, and the legacy keys to delete (all)."""
    ledgers: dict[str, tuple[str, Ledger]] = {}
    gone: list[str] = []
    for key, raw, namespace in rows:
        gone.append(key)
        kind, _, rest = key.partition(":")
        try:
            parts, value = json.loads(rest), json.loads(raw)
            found = _entries(kind, parts, value)
        except (ValueError, TypeError, KeyError, IndexError):
            continue  # unreadable: dropped like any stale cache entry
        for (where, item), entries in found.items():
            ledger = ledgers.setdefault(where, (namespace, {}))[1]
            have = ledger.setdefault(item, [])
            have.extend(e for e in entries if all(h[0] != e[0] for h in have))
    return [(k, encode(ledger), ns) for k, (ns, ledger) in ledgers.items()], gone


def _entries(kind: str, parts: list[Any], value: Any) -> dict[tuple[str, str], list[list[Any]]]:
    """{(ledger key, item): entries} for one legacy entry."""
    namespace, skill, tool = str(parts[0]), str(parts[1]), str(parts[2])
    where = ledger_key(kind, namespace, skill, tool)
    if kind == "replacements":
        return {(where, str(a)): [[str(c), b] for c, b in events] for a, events in value.items()}
    if kind == "toolfail":
        item = json.dumps([parts[3], parts[4]], sort_keys=True, ensure_ascii=False)
        return {(where, item): [[str(c), None] for c in value]}
    if kind == "emptyfallback":
        return {(where, str(parts[3])): [[str(c), None] for c in value]}
    if kind == "fruitless":
        return {(where, ""): [[str(c), words] for c, words in value.items()]}
    return {}  # toolok: no conversation to forget it by


__all__ = ["PREFIXES", "convert"]
