"""What a run has seen so far, in forms that make trigger checks cheap.

Stems of everything seen (query, call names and arguments, results) for DATA keyword triggers,
numeric fields of JSON results for threshold triggers, and the tools called so far.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar

from dctx.models import NumericCondition, Predicate, Trigger
from dctx.retrieve.budget import PieceCounter, fit
from dctx.retrieve.items import (
    Item,
    Judgement,
    compare,
    date_keys,
    field_keys,
    judge,
    judge_differ,
    measured,
    predicate_met,
    result_items,
)
from dctx.retrieve.series import Move, change_met, period_moves, single_numbers, step_moves
from dctx.text import (
    NOT_JSON,
    content_stems,
    decode_json,
    flatten_json,
    json_fields,
    leaf_fields,
    stem,
)
from dctx.units import MONEY, MONEY_TERMS, PERCENT

T = TypeVar("T")


@dataclass(slots=True)
class _Grown:
    """A set derived from a list that only grows, brought up to date when asked, from the
    entries added since the last ask."""

    seen: set[str] = field(default_factory=set)
    upto: int = 0

    def of(self, entries: list[T], derive: Callable[[list[T]], set[str]]) -> set[str]:
        if self.upto < len(entries):
            self.seen |= derive(entries[self.upto :])
            self.upto = len(entries)
        return self.seen


def _path_stems(numbers: list[tuple[set[str], float]]) -> set[str]:
    return set().union(*(path for path, _ in numbers))


@dataclass(slots=True)
class RunContext:
    query: str
    stems: set[str] = field(default_factory=set)
    numbers: list[tuple[set[str], float]] = field(default_factory=list)
    strings: list[tuple[set[str], str]] = field(default_factory=list)  # short string fields
    tools_called: list[str] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)  # objects of JSON results (predicates)
    last_items: list[Item] = field(default_factory=list)  # those of the latest result alone
    _keys: _Grown = field(default_factory=_Grown)  # `field_keys`
    _dates: _Grown = field(default_factory=_Grown)  # `date_keys`
    _last_keys: set[str] | None = None  # `last_field_keys`, once asked for
    # decoded JSON results, by step (None: not JSON): change predicates read their numbers
    results: list[Any] = field(default_factory=list)
    _number_keys: _Grown = field(default_factory=_Grown)  # `number_keys`
    _moves: dict[tuple[int, tuple[str, ...]], list[Move]] = field(default_factory=dict)
    _singles: dict[tuple[int, tuple[str, ...]], dict[str, float]] = field(default_factory=dict)
    now: datetime | None = None  # what date windows are measured from (None: the clock)
    query_stems: set[str] = field(default_factory=set)
    last_structured: bool = False  # the latest result was JSON: predicates judge it, not cosine
    summaries: list[str] = field(default_factory=list)  # what is embedded of each step
    step_stems: set[str] = field(default_factory=set)  # stems of the latest step alone
    pieces: PieceCounter | None = None  # the embedder's word pieces, to budget summaries

    @classmethod
    def start(cls, query: str, pieces: PieceCounter | None = None) -> RunContext:
        ctx = cls(query=query, pieces=pieces)
        ctx.stems.update(content_stems(query))
        ctx.query_stems.update(ctx.stems)
        return ctx

    # The key stems below are read only when a rule in view has a soft predicate or a date
    # window; derived on first use (and then only from items added since), because walking
    # every field of every result at every step cost ~1 ms a step with no such rule in view.
    @property
    def field_keys(self) -> set[str]:
        """Stems of the keys of every result item's string and true/false fields so far."""
        return self._keys.of(self.items, field_keys)

    @property
    def last_field_keys(self) -> set[str]:
        """Those of the latest result alone."""
        if self._last_keys is None:
            self._last_keys = field_keys(self.last_items)
        return self._last_keys

    @property
    def date_keys(self) -> set[str]:
        """Stems of the keys of every result item's date fields so far."""
        return self._dates.of(self.items, date_keys)

    @property
    def number_keys(self) -> set[str]:
        """Stems of the key paths of every numeric field so far (change predicates)."""
        return self._number_keys.of(self.numbers, _path_stems)

    def moves(self, pred: Predicate, *, latest: bool = False) -> list[Move]:
        """The moves a change predicate compares: between periods of each result (of the
        latest alone when `latest`), or since an earlier result; computed on first ask."""
        key = tuple(pred.key)
        structured = [i for i, r in enumerate(self.results) if r is not None]
        if latest and (not structured or structured[-1] != len(self.results) - 1):
            return []  # the latest result is not JSON
        if pred.change == "step":
            singles = self._singles
            for i in structured:
                if (i, key) not in singles:
                    singles[(i, key)] = single_numbers(self.results[i], list(key))
            return step_moves([singles[(i, key)] for i in structured])
        picked = structured[-1:] if latest else structured
        out: list[Move] = []
        for i in picked:
            found = self._moves.get((i, key))
            if found is None:
                found = self._moves[(i, key)] = period_moves(self.results[i], list(key))
            out += found
        return out

    def add_step(self, tool: str, arguments: dict[str, Any], result: str) -> str:
        """Record one tool call and its result; return the step's text. Each text is decoded
        once and read every way from there (this runs at every decision point)."""
        args = json.dumps(arguments, ensure_ascii=False, sort_keys=True, default=str)
        arg_data = json.loads(args)
        data = decode_json(result)
        flat = result if data is NOT_JSON else flatten_json(data)
        called_text = f"{tool} {flatten_json(arg_data)}"
        self.step_stems = set(content_stems(f"{called_text} {flat}"))
        self.stems.update(self.step_stems)
        fields = [] if data is NOT_JSON else leaf_fields(data)
        for path, value in fields:
            if isinstance(value, str) and len(value) > 40:
                continue  # prose or payload, no value of a field
            terms = {stem(w) for w in path}
            if isinstance(value, str):
                self.strings.append((terms, value.strip()))
            number = measured(terms, value)  # "plan": "Fast 200" is a plan of 200
            if number is not None:
                self.numbers.append((terms, number))
        self.last_structured = isinstance(data, dict | list)
        self.results.append(data if self.last_structured else None)
        self.last_items = []
        if self.last_structured:
            called = frozenset(content_stems(called_text))
            self.last_items = result_items(data, called)
            self.items.extend(self.last_items)
        self._last_keys = None
        self.tools_called.append(tool)
        step = f"call {tool}({args}) -> {result[:1500]}"
        self.steps.append(step)
        summary = _summary(tool, leaf_fields(arg_data), fields, result, self.pieces)
        self.summaries.append(summary)
        return step


# Only resemblance reads the summary: keyword, threshold and predicate conditions read the
# whole result from `stems`, `numbers` and `items`. Its budget is in budget.py.
_SHORT = 120  # longer string values are prose or payload, not a salient value


def step_summary(tool: str, arguments: str, result: str, pieces: PieceCounter | None = None) -> str:
    """The compact form of a step that is embedded: the tool name as called (in words, as
    "get financials", it read closer to "a company reports segments" in the demo and
    delivered that rule a step early), then the words of each key not said before and
    each short string value, once, in order. Numbers are left out (they differ on every
    call, and thresholds read them from `numbers`), and so are string values
    without a letter (dates, amounts, numeric ids: nothing an embedder matches in words). A
    list's keys said once per item ("results date, results source, ...") would weigh its
    structure above its content; values stay whole, names included, as they read. Embedding
    this instead of the raw text costs a fraction of the forward pass and keeps what a
    situation is about; equal summaries share one cached vector. Non-JSON results contribute
    their first words. In that order, within the budget of `budget.fit`: SUMMARY_PIECES
    word pieces as `pieces` counts them, else SUMMARY_WORDS words."""
    return _summary(tool, json_fields(arguments), json_fields(result), result, pieces)


def _summary(
    tool: str,
    arg_fields: list[tuple[list[str], float | str]],
    result_fields: list[tuple[list[str], float | str]],
    result: str,
    pieces: PieceCounter | None,
) -> str:
    seen: dict[str, None] = {tool: None}
    key_words: set[str] = set()
    for path, value in arg_fields + result_fields:
        fresh = [w for w in " ".join(path[-2:]).split() if w.lower() not in key_words]
        key_words.update(w.lower() for w in fresh)
        if fresh:
            seen.setdefault(" ".join(fresh), None)
        if isinstance(value, str) and len(value) <= _SHORT and any(c.isalpha() for c in value):
            seen.setdefault(value.strip(), None)
    said = " ".join(seen).split()
    if not result_fields:
        said += result.split()
    return fit(said, pieces)


def data_condition_met(trigger: Trigger, ctx: RunContext) -> bool:
    """A DATA trigger fires when its numeric threshold holds on some field (or its date
    window on a date field), when its predicate
    holds on some result item, or, for a subject's name, when every stem of the name appears
    in what the run has seen: one word of several ("prod" of "payments prod") names other
    things too. Free-text conditions are not judged here: retrieval matches them by meaning
    and words (condition_match.py)."""
    if trigger.numeric is not None:
        window = trigger.predicate  # "older than 90 days" read off a date field too
        return _numeric_met(trigger.numeric, ctx) or (
            window is not None and judge(window, ctx.items, ctx.now).met
        )
    if trigger.excluded:
        return _other_value_seen(trigger, ctx)
    if trigger.predicate is not None and trigger.predicate.change:
        return judge_change(trigger.predicate, ctx).met
    if trigger.predicate is not None:
        return predicate_met(trigger.predicate, ctx.items, ctx.query_stems)
    if not trigger.keywords:
        return False
    return all(k in ctx.stems for k in trigger.keywords)


def judge_change(pred: Predicate, ctx: RunContext, *, latest: bool = False) -> Judgement:
    """A change predicate on the run's results (the latest alone when `latest`): testable
    when some move of the metric is read, met when one goes its way; the moves decide."""
    if pred.change == "differ":  # values of one field across the run's results
        if latest and not judge_differ(pred, ctx.last_items).testable:
            return Judgement(False, False)
        return judge_differ(pred, ctx.items)
    moves = ctx.moves(pred, latest=latest)
    met = [m for m in moves if change_met(pred, m)]
    shown = tuple(m.show() for m in (met or moves)[:4])
    return Judgement(bool(moves), bool(met), shown)


def judge_soft(pred: Predicate, ctx: RunContext, *, latest: bool = False) -> Judgement:
    """A soft predicate on the run's result items (the latest result's when `latest`)."""
    if pred.change:
        return judge_change(pred, ctx, latest=latest)
    return judge(pred, ctx.last_items if latest else ctx.items, ctx.now)


def _other_value_seen(trigger: Trigger, ctx: RunContext) -> bool:
    """A negated condition ("the currency isn't USD") holds when a field of the kind it names
    carries another value. The field is found by its key (shares a keyword), else by having
    carried an excluded value in this run, else by looking like one (same shape: 'EUR' for
    'USD'). With no such field seen, nothing is known yet and the condition does not hold."""
    excluded = {v.lower() for v in trigger.excluded}
    keys = set(trigger.keywords)
    fields = [(path, value) for path, value in ctx.strings if path & keys]
    if not fields:
        paths = [path for path, value in ctx.strings if value.lower() in excluded]
        fields = [(p, v) for p, v in ctx.strings if any(p == q for q in paths)]
    if not fields:
        shapes = [_shape(v) for v in trigger.excluded]
        fields = [(p, v) for p, v in ctx.strings if _shape(v) in shapes]
    return any(value.lower() not in excluded for _, value in fields)


def _shape(value: str) -> str:
    """'USD' -> 'AAA', 'eur' -> 'aaa', 'v2.1' -> 'a9.9': the form of a code, not its content."""
    out = []
    for ch in value:
        if ch.isdigit():
            out.append("9")
        elif ch.isalpha():
            out.append("A" if ch.isupper() else "a")
        else:
            out.append(ch)
    return "".join(out)


def threshold_fields(cond: NumericCondition, ctx: RunContext) -> list[tuple[set[str], float]]:
    """The numeric fields a threshold is read on: those whose key path its terms name; while
    the run has none, the numbers of the items its terms name (by the call that returned
    them, the keys leading to them, or their own keys and values), for an amount of money
    only those kept as money. "Any night ... forecast under 40" is read on the days
    `get_forecast` returned (`low_f`), and "every lender wants more than $15" on the
    `loan_fee` of the items that carry a `lender`."""
    terms = set(cond.terms)
    money = cond.unit == MONEY
    named = [(path, value) for path, value in ctx.numbers if terms & path]
    if named:
        return _most_named(named, terms, money=money)
    return [
        (set(keys), value)
        for item in ctx.items
        if terms & item.about
        for keys, value in item.numbers
        if not money or _kept_as_money(keys)
    ]


def _most_named(
    fields: list[tuple[set[str], float]], terms: set[str], *, money: bool
) -> list[tuple[set[str], float]]:
    """Of the fields a threshold's terms name, those that say what it measures: for an amount
    of money the money fields, when some are; then those whose key paths share the most of
    its terms. "a job's ink bill over $200" is read on `job.ink_bill`, not on `job.sheets`,
    which shares only "job"."""
    if money:
        fields = [f for f in fields if _kept_as_money(f[0])] or fields
    most = max(len(terms & path) for path, _ in fields)
    return [(path, value) for path, value in fields if len(terms & path) == most]


def _kept_as_money(keys: Collection[str]) -> bool:
    """Does a field with these key stems hold an amount of money (`units.MONEY_TERMS`)?"""
    return any(k in keys for k in MONEY_TERMS)


_PERCENT_KEYS = frozenset(content_stems("pct percent percentage"))


def threshold_met(cond: NumericCondition, keys: set[str], value: float) -> bool:
    """Does one field's value meet the threshold? A percentage of 1 or more is compared with
    a fraction as a fraction ("a 5xx rate over 1%" is met by `value: 0.023`), unless the
    field's key says it holds a percentage."""
    if cond.unit == PERCENT and cond.value >= 1 and 0 <= value <= 1 and not keys & _PERCENT_KEYS:
        value *= 100
    return compare(value, cond.op, cond.value)


def _numeric_met(cond: NumericCondition, ctx: RunContext) -> bool:
    return any(threshold_met(cond, keys, value) for keys, value in threshold_fields(cond, ctx))
