"""The items of JSON tool results, for predicate triggers (compile/predicates.py).

An item is a JSON object: its own fields are those reached through nested objects (not lists),
and each element of a list is an item of its own. An item is described by its own string
values (lower-cased, for "field = value" tests), its own key stems, and the stems of its
context: the keys leading to it, its ancestors' fields, and the call that produced it (a pod
listed by `get_pods` is about pods even when no key says so).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Any

from dctx.models import Predicate
from dctx.text import content_stems, key_stems

MAX_ITEMS = 2000  # per result: a huge listing is sampled, not walked whole
_MAX_VALUE_CHARS = 200  # longer strings are prose, not field values


@dataclass(frozen=True, slots=True)
class Item:
    values: frozenset[str]  # own string values, lower-cased
    keys: frozenset[str]  # stems of own keys
    about: frozenset[str]  # stems of own keys and values and of the item's context
    record: bool  # a list element or a root without lists: a record, not a container


def result_items(data: Any, context: frozenset[str]) -> list[Item]:
    """The items of one decoded JSON result; `context` names the call that produced it."""
    listed = isinstance(data, list)
    roots = data[:MAX_ITEMS] if listed else [data]
    walks = (item for root in roots for item in _walk(root, context, listed))
    return list(islice(walks, MAX_ITEMS))


def _walk(node: Any, context: frozenset[str], record: bool) -> Iterator[Item]:
    if not isinstance(node, dict):
        return
    values: set[str] = set()
    keys: set[str] = set()
    stems: set[str] = set()
    lists: list[tuple[str, list[Any]]] = []
    stack = [node]
    while stack:
        obj = stack.pop()
        for key, value in obj.items():
            keys.update(key_stems(str(key)))
            if isinstance(value, dict):
                stack.append(value)
            elif isinstance(value, list):
                lists.append((str(key), value))
            elif isinstance(value, str) and len(value) <= _MAX_VALUE_CHARS:
                values.add(value.strip().lower())
                stems.update(content_stems(value))
    about = context | keys | stems
    yield Item(frozenset(values), frozenset(keys), frozenset(about), record or not lists)
    for key, elements in lists:
        inner = about | set(key_stems(key))
        for element in elements[:MAX_ITEMS]:
            yield from _walk(element, frozenset(inner), True)


def predicate_met(pred: Predicate, items: list[Item], query_stems: set[str]) -> bool:
    """Some item meets the predicate, or the query itself states it (every term and value)."""
    if pred.values:
        wanted = {v.lower() for v in pred.values}
        value_stems = {s for v in pred.values for s in content_stems(v)}
        if set(pred.terms) | value_stems <= query_stems:
            return True
        terms = set(pred.terms)
        return any(it.values & wanted and terms <= it.about for it in items)
    terms = set(pred.terms)
    absent = set(pred.absent)
    return any(
        it.record and it.values and terms <= it.about and not absent & it.keys for it in items
    )
