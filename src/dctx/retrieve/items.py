"""The items of JSON tool results, for predicate triggers (compile/predicates.py).

An item is a JSON object: its own fields are those reached through nested objects (not lists),
and each element of a list is an item of its own. An item is described by its own string
values (lower-cased, for "field = value" tests), its own key stems, and the stems of its
context: the keys leading to it, its ancestors' fields, and the call that produced it (a pod
listed by `get_pods` is about pods even when no key says so). Its string and true/false
fields are also kept with their keys, for soft predicates that name the field they test, and
its numbers, for thresholds whose field no key names (retrieve/context.py).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import islice
from typing import Any

from dctx.models import Predicate
from dctx.text import content_stems, key_stems, number_in
from dctx.units import seconds_in

MAX_ITEMS = 2000  # per result: a huge listing is sampled, not walked whole
_MAX_VALUE_CHARS = 200  # longer strings are prose, not field values


@dataclass(frozen=True, slots=True)
class Field:
    """One own field of an item: its key as written, the key's stems, its value."""

    key: str
    stems: tuple[str, ...]
    value: str | bool  # a string lower-cased, or a true/false value


@dataclass(frozen=True, slots=True)
class Item:
    values: frozenset[str]  # own string values, lower-cased
    keys: frozenset[str]  # stems of own keys
    about: frozenset[str]  # stems of own keys and values and of the item's context
    record: bool  # a list element or a root without lists: a record, not a container
    fields: tuple[Field, ...] = ()  # own short string and true/false fields
    numbers: tuple[tuple[tuple[str, ...], float], ...] = ()  # own numeric fields: key stems, value


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
    fields: list[Field] = []
    numbers: list[tuple[tuple[str, ...], float]] = []
    lists: list[tuple[str, list[Any]]] = []
    stack = [node]
    while stack:
        obj = stack.pop()
        for key, value in obj.items():
            own = key_stems(str(key))
            keys.update(own)
            if isinstance(value, dict):
                stack.append(value)
                continue
            if isinstance(value, bool):
                fields.append(Field(str(key), key_parts(own), value))
                continue
            if isinstance(value, int | float):
                number = measured(own, float(value))
                if number is not None:
                    numbers.append((own, number))
                continue
            if isinstance(value, list):
                lists.append((str(key), value))
                fields.append(Field(str(key), key_parts(own), bool(value)))
            # a string value, or each string a list holds: a value of this key
            for text in value[:MAX_ITEMS] if isinstance(value, list) else [value]:
                if isinstance(text, str) and len(text) <= _MAX_VALUE_CHARS:
                    written = measured(own, text) if text is value else None
                    if written is not None:  # "plan": "Fast 200"
                        numbers.append((own, written))
                    values.add(text.strip().lower())
                    stems.update(content_stems(text))
                    fields.append(Field(str(key), key_parts(own), text.strip().lower()))
    about = context | keys | stems
    yield Item(
        frozenset(values),
        frozenset(keys),
        frozenset(about),
        record or not lists,
        tuple(fields),
        tuple(numbers),
    )
    for key, elements in lists:
        inner = about | set(key_stems(key))
        for element in elements[:MAX_ITEMS]:
            yield from _walk(element, frozenset(inner), True)


def measured(stems: Collection[str], value: str | float) -> float | None:
    """The measure a field with these key stems holds: its number, or the one number of a
    short string of words ("plan": "Fast 200"); None for an identifier ("supplier_id":
    88231), which measures nothing, and for any other string."""
    if "id" in stems:
        return None
    return value if isinstance(value, float) else number_in(value)


def key_parts(stems: tuple[str, ...]) -> tuple[str, ...]:
    """A key's word stems without the whole identifier ("requires_sponsorship" is two words)."""
    return tuple(s for s in stems if "_" not in s and "-" not in s) or stems


def field_keys(items: list[Item]) -> set[str]:
    """Stems of the keys of the items' string and true/false fields: a soft predicate naming
    none of them cannot be tested on these items (a cheap test before `judge`)."""
    return {s for it in items for f in it.fields for s in f.stems}


def predicate_met(pred: Predicate, items: list[Item], query_stems: set[str]) -> bool:
    """Some item meets the predicate, or the query itself states it (every term and value).
    A soft predicate is met only by an item with the field it names (`judge`)."""
    if pred.soft:
        return judge(pred, items).met
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


@dataclass(frozen=True, slots=True)
class Judgement:
    """A soft predicate on some items: could it be tested (an item has the field it names),
    was it met, and the fields that decided it ("requires_sponsorship=true")."""

    testable: bool
    met: bool
    evidence: tuple[str, ...] = ()


def judge(pred: Predicate, items: list[Item], now: datetime | None = None) -> Judgement:
    """Test a soft predicate on the fields that name what it tests; untestable when no item
    has one (then free text judges the condition, never "met"). A date window is measured
    from `now` (the current time when not given)."""
    if pred.unit:
        return _judge_window(pred, items, now or datetime.now(UTC))
    tested: list[tuple[Field, bool]] = []
    terms = set(pred.terms)
    for it in items:
        if not terms <= it.about:
            continue
        for f in _named_fields(pred, it):
            tested.append((f, _holds(pred, f)))
    if pred.flag is not None and not tested:
        tested = _state_fields(pred, items)
    shown = tuple(f"{f.key}={_show(f.value)}" for f, _ in tested[:6])
    return Judgement(bool(tested), any(ok for _, ok in tested), shown)


# keys of a field that holds an item's state in words: `status: "overdue"`, `state: "on_hold"`
_STATE_KEYS = frozenset(s for k in ("status", "state") for s in key_stems(k))


def may_name_a_field(terms: Iterable[str], keys: set[str]) -> bool:
    """Could a soft predicate with these key stems be tested on items with these field keys:
    it names one of them, or the items have a status field its state may be a value of?"""
    return bool(_STATE_KEYS & keys) or any(t in keys for t in terms)


def _state_fields(pred: Predicate, items: list[Item]) -> list[tuple[Field, bool]]:
    """A state said in words ("an invoice is overdue", "the job is regulated medical
    content") that no true/false field names is tested on the string fields the condition
    names (`content_type: "medical_device_ifu"`): it holds where the value says one of the
    condition's other words; where it names none, on the items' status fields: it holds where
    the status says only what the condition says (`status: "overdue"`), not where it says
    another state (`status: "draft"`)."""
    key = set(pred.key)
    fields = [f for it in items if set(pred.terms) <= it.about for f in it.fields]
    named = _named_words(key, fields)
    if named:
        return [(f, _says_state(f, key) is pred.flag) for f in named]
    tested: list[tuple[Field, bool]] = []
    for f in fields:
        if not isinstance(f.value, str) or not _STATE_KEYS & set(f.stems):
            continue
        said = set(content_stems(_norm(f.value)))
        if said:
            tested.append((f, (said <= key) is pred.flag))
    return tested


def _says_state(f: Field, key: set[str]) -> bool:
    """Does the field's value say the state: one of the condition's words beyond the field's
    name (`content_type: "medical_device_ifu"` for "regulated medical content"), or, where
    the field's name is all the condition says (`interpreter_needed` for "an interpreter is
    needed"), any value that is no "no"?"""
    other = key - set(f.stems)
    value = _norm(str(f.value))
    return bool(set(content_stems(value)) & other) if other else value not in _NO_VALUES


# the values that say a named state does not hold: a closed class
_NO_VALUES = frozenset({"", "no", "none", "false", "n/a", "na", "null", "not needed"})


def _named_words(key: set[str], fields: list[Field]) -> list[Field]:
    """The string fields in words (no status, no identifier such as "J-31044") that the
    condition names best."""
    return _best_named(
        key,
        [
            f
            for f in fields
            if isinstance(f.value, str)
            and f.value.strip()
            and not _STATE_KEYS & set(f.stems)
            and not any(c.isdigit() for c in f.value)
        ],
    )


def judge_differ(pred: Predicate, items: list[Item]) -> Judgement:
    """A "differ" predicate ("in different currencies"): testable where a string field named
    by its key is seen, met when such fields carry two or more values."""
    fields = [
        f
        for it in items
        for f in it.fields
        if isinstance(f.value, str) and names_key(pred.key, f.stems)
    ]
    values = {_norm(str(f.value)) for f in fields}
    shown = tuple(dict.fromkeys(f"{f.key}={_show(f.value)}" for f in fields))[:6]
    return Judgement(bool(fields), len(values) >= 2, shown)


def as_date(value: str | bool) -> datetime | None:
    """An ISO 8601 date or time ("2026-03-02", "2026-03-02T09:00:00Z"), as UTC; else None."""
    if not isinstance(value, str) or len(value) < 10 or value[4:5] != "-":
        return None
    try:
        when = datetime.fromisoformat(value.upper())
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def date_keys(items: list[Item]) -> set[str]:
    """Stems of the keys of the items' date fields (a date window names one of them)."""
    return {s for it in items for f in it.fields if as_date(f.value) for s in f.stems}


def names_key(key: Iterable[str], stems: Iterable[str]) -> bool:
    """Does a predicate's key (a date window's, a change's metric) name a field with these
    key stems? Stems of one word match, or one the other's start (4+ letters): "departs"
    (depart) names `departure` (departur), "signup" names `signups_total`."""
    return any(
        k == s or (min(len(k), len(s)) >= 4 and (k.startswith(s) or s.startswith(k)))
        for k in key
        for s in stems
    )


def _judge_window(pred: Predicate, items: list[Item], now: datetime) -> Judgement:
    tested: list[tuple[Field, bool]] = []
    for it in items:
        for f in it.fields:
            when = as_date(f.value)
            if when is None or not names_key(pred.key, f.stems):
                continue
            span = abs((now - when).total_seconds()) / seconds_in(pred.unit)
            tested.append((f, compare(span, pred.op, pred.number or 0.0)))
    shown = tuple(f"{f.key}={f.value}" for f, _ in tested[:6])
    return Judgement(bool(tested), any(ok for _, ok in tested), shown)


def compare(value: float, op: str, bound: float) -> bool:
    """Does `value op bound` hold ("<", "<=", ">", ">=")?"""
    return {
        "<": value < bound,
        "<=": value <= bound,
        ">": value > bound,
        ">=": value >= bound,
    }.get(op, False)


def _named_fields(pred: Predicate, item: Item) -> list[Field]:
    """The item's fields of the predicate's kind whose key names what it tests; for a state,
    the best named true/false fields only (`on_hold` before `sponsorship_hold` for "on hold"),
    and only keys at least half of whose stems the condition says."""
    if pred.flag is not None:
        return _best_named(set(pred.key), [f for f in item.fields if isinstance(f.value, bool)])
    key = set(pred.key)
    return [
        f
        for f in item.fields
        if isinstance(f.value, str) and f.stems and any(s in key for s in f.stems)
    ]


def _best_named(key: set[str], fields: list[Field]) -> list[Field]:
    """The fields whose key the condition names best, at least half of its stems."""
    scored: list[tuple[float, Field]] = []
    for f in fields:
        shared = sum(1 for s in f.stems if s in key)
        if f.stems and shared and shared * 2 >= len(f.stems):
            scored.append((shared / len(f.stems), f))
    best = max((score for score, _ in scored), default=0.0)
    return [f for score, f in scored if score == best]


def _holds(pred: Predicate, f: Field) -> bool:
    if pred.flag is not None:
        return f.value is pred.flag
    return isinstance(f.value, str) and _norm(f.value) in {_norm(v) for v in pred.values}


def _norm(value: str) -> str:
    """'ON_HOLD', 'on-hold' and 'On hold' are one value."""
    return " ".join(value.lower().replace("_", " ").replace("-", " ").split())


def _show(value: str | bool) -> str:
    return str(value).lower() if isinstance(value, bool) else repr(value)
