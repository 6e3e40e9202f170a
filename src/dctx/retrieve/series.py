"""The moves of a numeric field, for change predicates (compile/changes.py).

A result carries a metric over periods in one of two shapes: a list of items each with a
period (`{"month": "2025-11", "signups": 410}`), or fields of one object whose keys differ by
a period (`deposits` beside `deposits_prior_q`, `revenue_q3` beside `revenue_q4`, `{"margin":
{"current": .., "prior_year": ..}}`). The latest two periods give one move. Across steps, the
same field in the latest result and in the latest earlier result that has it gives one.

A field is named by the predicate's key as soft predicates name theirs: by key stems, one
word of either the other's start ("signup" names `signups_total`). Periods are ordered by the
labels data carries (ISO dates, "2025-Q4", "FY2024", "q3", a year) or by the words that mark
an earlier value (`prior`, `previous`, `last`...) against a bare or `current` one; with
neither, no move is read (nothing is assumed about the order of the keys).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from dctx.models import Predicate
from dctx.retrieve.items import key_parts, names_key
from dctx.text import key_stems

__all__ = ["Move", "change_met", "period_moves", "single_numbers", "step_moves"]

MAX_NODES = 2000  # objects walked per result: a huge listing is sampled, not walked whole

# the key words that mark an earlier or the current value of a metric (`deposits_prior_q`,
# `margin_current`): a closed class of data-naming conventions
_EARLIER = frozenset(
    {"prior", "previous", "prev", "last", "earlier", "before", "old", "ago", "py", "ly"}
)
_CURRENT = frozenset({"current", "curr", "cur", "latest", "this", "now", "new", "today", "cy"})
_PERIOD_WORDS = frozenset(
    {"q", "qtr", "quarter", "month", "mo", "year", "yr", "fy", "week", "wk", "day", "period"}
)
_MONTH_NAMES = (
    "january february march april may june july august september october november december"
).split()
_MONTHS = {w: i for i, m in enumerate(_MONTH_NAMES, 1) for w in (m, m[:3], m[:4])}
_LABEL = re.compile(
    r"^(?:(?P<y1>(?:19|20)\d\d)(?:[-_/ ]?(?:(?P<q1>q[1-4])|(?P<h1>h[12])|(?P<m1>\d\d)"
    r"(?:[-_/]\d\d(?:[t ].*)?)?))?"
    r"|(?:(?P<q2>q[1-4])|(?P<h2>h[12])|(?P<mon>[a-z]{3,9})\.?)[-_ ]?(?P<y2>(?:19|20)?\d\d)?"
    r"|fy[-_ ]?(?P<fy>(?:19|20)?\d\d))$"
)


@dataclass(frozen=True, slots=True)
class Move:
    """A metric's earlier and later value, and where each was read."""

    before: float
    after: float
    was: str  # "deposits_prior_q", "monthly[2025-10].signups"
    now: str

    def show(self) -> str:
        pct = f" ({(self.after - self.before) / abs(self.before):+.1%})" if self.before else ""
        return f"{self.was}={self.before:g} -> {self.now}={self.after:g}{pct}"


def change_met(pred: Predicate, move: Move) -> bool:
    """The move goes the predicate's way, by more than its amount when it states one."""
    delta = move.after - move.before
    if pred.direction == "down":
        delta = -delta
    if delta <= 0:
        return False
    if pred.by is None:
        return True
    if pred.percent:
        return bool(move.before) and delta / abs(move.before) * 100 > pred.by
    return delta > pred.by


def _score(key: list[str], words: list[str]) -> tuple[int, int]:
    """How many of the metric's stems a field's key words name, then how late the last of
    them comes in the metric's words (the head of a compound comes last: "loan renewals")."""
    named = [i for i, k in enumerate(key) if names_key([k], words)]
    return len(named), (named[-1] + 1 if named else 0)


def _best(scored: list[tuple[tuple[int, int], Any]]) -> list[Any]:
    """Those that name the metric best ("loan renewals": `renewals`, not `new_loans`)."""
    top = max((score for score, _ in scored), default=(0, 0))
    return [x for score, x in scored if score == top and score[0]]


def period_moves(data: Any, key: list[str]) -> list[Move]:
    """The moves between the latest two periods of each series of the metric in a result."""
    moves: list[Move] = []
    for node in _objects(data):
        moves.extend(_sibling_moves(node, key))
        for name, value in node.items():
            if isinstance(value, list):
                moves.extend(_list_moves(str(name), value, key))
    if isinstance(data, list):
        moves.extend(_list_moves("", data, key))
    # an object's nested fields are read from it and from the nested object: one move each
    unique = {(m.before, m.after, m.now.rsplit(".", 1)[-1]): m for m in reversed(moves)}
    return list(reversed(unique.values()))


def step_moves(fields: list[dict[str, float]]) -> list[Move]:
    """The metric's fields in the latest result against the same field in the latest earlier
    result that has one; `fields` holds each result's `single_numbers`, oldest first."""
    if len(fields) < 2:
        return []
    moves: list[Move] = []
    for path, after in fields[-1].items():
        for earlier in reversed(fields[:-1]):
            before = earlier.get(path)
            if before is not None:
                moves.append(Move(before, after, f"earlier {path}", path))
                break
    return moves


def _objects(data: Any) -> Iterator[dict[str, Any]]:
    stack = [data]
    seen = 0
    while stack and seen < MAX_NODES:
        node = stack.pop()
        if isinstance(node, dict):
            seen += 1
            yield node
            stack.extend(v for v in node.values() if isinstance(v, dict | list))
        elif isinstance(node, list):
            stack.extend(v for v in node[:MAX_NODES] if isinstance(v, dict | list))


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


_DEPTH = 3  # key path length of a metric's field read in one object ("margin.prior.fy")


def _leaves(
    node: dict[str, Any], path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], float]]:
    """Numeric fields of an object, through nested objects (not lists) up to _DEPTH keys,
    with their key path."""
    for name, value in node.items():
        if isinstance(value, dict):
            if len(path) + 1 < _DEPTH:
                yield from _leaves(value, (*path, str(name)))
        elif (number := _number(value)) is not None:
            yield (*path, str(name)), number


def _words(path: tuple[str, ...]) -> list[str]:
    """The word stems of a key path, without the whole identifiers (`deposits_prior_q`)."""
    return [s for name in path for s in key_parts(key_stems(name))]


def _rank(rest: list[str]) -> tuple[int, int, int] | None:
    """Where a field's words other than the metric's put it in time: (labelled, year, part)
    for a period label, (0, 0, 0) for an earlier mark, (0, 0, 1) for none or a current
    mark; None for a qualifier that is no period ("deposits_insured")."""
    words = [w for w in rest if w not in _PERIOD_WORDS]
    if any(w in _EARLIER for w in words):
        return (0, 0, 0) if all(w in _EARLIER for w in words) else None
    if all(w in _CURRENT for w in words):
        return (0, 0, 1)
    label = _label("".join(words)) if len(words) <= 2 else None
    return None if label is None else (1, *label)


def _label(text: str) -> tuple[int, int] | None:
    """(year, month of the period's end) of a period label; 0 where it says none."""
    m = _LABEL.match(text.strip().lower())
    if m is None or not m.group(0):
        return None
    g = m.groupdict()
    year = g["y1"] or g["y2"] or g["fy"] or ""
    full = int(year) + (2000 if len(year) == 2 else 0) if year else 0
    part = 12
    if q := g["q1"] or g["q2"]:
        part = int(q[1]) * 3
    elif h := g["h1"] or g["h2"]:
        part = int(h[1]) * 6
    elif g["m1"]:
        part = int(g["m1"])
    elif g["mon"]:
        if g["mon"] not in _MONTHS:
            return None
        part = _MONTHS[g["mon"]]
    elif not year:
        return None
    return full, part


def _sibling_moves(node: dict[str, Any], key: list[str]) -> list[Move]:
    """`deposits` beside `deposits_prior_q`: the metric's fields of one object ordered by the
    periods their other key words name; the latest two give a move."""
    scored: list[tuple[tuple[int, int], tuple[tuple[int, int, int], str, float]]] = []
    for path, value in _leaves(node):
        words = _words(path)
        named = [w for w in words if names_key(key, [w])]
        if not named:
            continue
        rank = _rank([w for w in words if w not in named])
        others = [n for n in path if not names_key(key, _words((n,)))]
        if rank is None and others and len(others) < len(path):
            rank = _rank(_words(tuple(others)))  # {"cider_output": {"q3": ..}}: the period key
        if rank is not None:
            scored.append((_score(key, words), (rank, ".".join(path), value)))
    ranked: list[tuple[tuple[int, int, int], str, float]] = _best(scored)
    labelled = {r[0][0] for r in ranked}
    if len(ranked) < 2 or len(labelled) > 1:
        return []  # one value, or labels mixed with marks: no order to trust
    ranked.sort(key=lambda r: r[0])
    (was_rank, was, before), (now_rank, now, after) = ranked[-2], ranked[-1]
    if was_rank == now_rank:
        return []
    return [Move(before, after, was, now)]


def _list_moves(name: str, elements: list[Any], key: list[str]) -> list[Move]:
    """A list of items with a period label each: the metric's value in the latest two (the
    fields the metric names, else the one number of items of a list it names)."""
    rows: list[tuple[tuple[int, int], str, dict[str, float]]] = []
    for element in elements[:MAX_NODES]:
        if not isinstance(element, dict):
            return []
        label = next((v for v in element.values() if isinstance(v, str) and _label(v)), None)
        if label is None:
            return []
        rows.append((_label(label) or (0, 0), label, {".".join(p): v for p, v in _leaves(element)}))
    if len(rows) < 2:
        return []
    rows.sort(key=lambda r: r[0])
    (_, was, first), (_, now, second) = rows[-2], rows[-1]
    fields: list[str] = _best(
        [(_score(key, _words(tuple(f.split(".")))), f) for f in second if f in first]
    )
    if not fields and name and names_key(key, _words((name,))) and len(second) == 1:
        fields = [f for f in second if f in first]
    return [Move(first[f], second[f], f"{name}[{was}].{f}", f"{name}[{now}].{f}") for f in fields]


def single_numbers(data: Any, key: list[str]) -> dict[str, float]:
    """The metric's numeric fields met once in a result, by key path (list positions left
    out): a listing's many values are items, not one measurement to compare across steps."""
    found: dict[str, list[float]] = {}
    stack: list[tuple[Any, tuple[str, ...]]] = [(data, ())]
    seen = 0
    while stack and seen < MAX_NODES:
        node, path = stack.pop()
        seen += 1
        if isinstance(node, dict):
            for name, value in node.items():
                here = (*path, str(name))
                if (number := _number(value)) is not None:
                    if names_key(key, _words((str(name),))):
                        found.setdefault(".".join(here), []).append(number)
                elif isinstance(value, dict | list):
                    stack.append((value, here))
        elif isinstance(node, list):
            stack.extend((v, path) for v in node[:MAX_NODES] if isinstance(v, dict | list))
    return {path: values[0] for path, values in found.items() if len(values) == 1}
