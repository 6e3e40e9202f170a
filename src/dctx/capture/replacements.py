"""Replacement lessons across conversations: "use B instead of A".

A tool (or a source argument of one) that did not serve the agent - an error other than a rate
limit or an auth failure, an empty result, or a call it abandoned without a result - and was
replaced in the same conversation by another of the same purpose that worked, is one sighting
of a replacement. A timeout or an outage once is a blip to retry, and a retry that works makes
it none; a tool that never served in a conversation that used another in its place is one
sighting. Sightings are counted per (namespace, skill, A) in the store, in the order
conversations are captured, so each conversation counts once however often it is captured. A
later conversation in which A itself worked counts against every replacement of A seen before
it; successes of A before its first replacement are history (a service that worked for years
and was then retired).

The lesson is admitted when its net support (replacing conversations minus later ones where A
worked) reaches `MIN_REPLACEMENT_SESSIONS`; below that it is a CANDIDATE: stored with its
evidence, never injected. When A works again after the lesson was admitted, the lesson is
demoted (net support below the threshold) or flagged for review (`Reversal`, applied by
compile/tool_reversals.py).

The counts are a store ledger (store/ledgers.py) with one entry per conversation, so
`forget_actor` takes a forgotten conversation's part out; a stored lesson the kept
conversations no longer admit is then demoted (`standing`, compile/tool_reversals.py). The
ledger is bounded, never one entry per conversation A ever worked in: per A only its latest
`MAX_ENTRIES` conversations from its first remaining replacement on, per tool its
`MAX_ITEMS` most recently seen A's; an A whose replacements all fell out of that window (A
worked in that many conversations since) is dropped.

Only what the agent did counts: the tools it called and what they returned (error, empty, data).
A result that names a replacement ("use X instead") creates nothing unless the agent called X
and X worked, and even then the lesson is untrusted (capture/provenance.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from dctx.capture.base import ToolPattern, ToolPatternSignal, session_context
from dctx.capture.provenance import mark_untrusted, scalars
from dctx.capture.self_assess import (
    MAX_GAP,
    CallOutcome,
    _same_purpose,
    source_like,
    tool_calls,
)
from dctx.capture.tool_errors import ErrorClass
from dctx.models import Session
from dctx.store.base import Store
from dctx.store.ledgers import Ledgers, ledger_key

MIN_REPLACEMENT_SESSIONS = 2
KIND = "replacements"  # the store ledger kind (store/ledgers.py)
_NOT_FAILURES = (ErrorClass.RATE_LIMIT, ErrorClass.AUTH)

# (tool, source arguments): None for the tool itself, whatever its arguments
_Source = tuple[str, dict[str, Any] | None]


@dataclass(slots=True)
class Reversal:
    """A replacement lesson whose old tool worked again, last in `conversation_id`; the
    counts are those after the whole capture."""

    lesson: ToolPatternSignal  # the lesson as a signal (compiles to the stored rule's text)
    conversation_id: str
    events: list[list[Any]]  # the ledger of A: [conversation, B or None], in capture order
    new: str  # B, canonical

    @property
    def support(self) -> int:
        """Conversations where A was replaced by B."""
        return len(_counts(self.events, self.new)[0])

    @property
    def against(self) -> int:
        """Conversations after the first replacement where A worked."""
        return _counts(self.events, self.new)[1]

    @property
    def net(self) -> int:
        return self.support - self.against


def _served(call: CallOutcome) -> bool:
    return call.ok and call.status is not None and not call.status.is_empty


def _unserved(call: CallOutcome) -> bool:
    if call.status is None:
        return True  # called and abandoned: no result in the trace
    if call.failed:
        return call.error_class not in _NOT_FAILURES
    return call.status.is_empty


def _down(call: CallOutcome) -> bool:
    """The tool could not run at all: it timed out, was unavailable or is gone."""
    return call.failed and call.error_class in (ErrorClass.TRANSIENT, ErrorClass.UNAVAILABLE)


def _substitute(failed: CallOutcome, other: CallOutcome) -> bool:
    """Did the agent use `other` in place of `failed`? A tool of the same purpose and family
    (get_prices / get_prices_v2); or, where the failed tool was down, the next call that
    carries its input on ("top_pods(namespace='analytics')" down, then a metrics query over
    namespace "analytics") or whose result answers for all of it (status of rooms "704" and
    "706" asked, down; a room listing that holds both rooms): with nothing run, nothing else
    explains the switch."""
    if _same_purpose(failed, other) and _one_family(failed.name, other.name):
        return True
    return _down(failed) and (
        _carries(failed.args, other.args) or _answers_for(failed.args, other.fields)
    )


def _answers_for(given: dict[str, Any], result: dict[str, str]) -> bool:
    """Does a result (its values, `CallOutcome.fields`) hold every value of three characters
    or more that the call asked about (a list's every item)?"""
    asked = {v.lower() for v in scalars(given) if len(v) >= 3}
    held = {str(json.loads(v)).strip().lower() for v in result}
    return bool(asked) and asked <= held


def _carries(given: dict[str, Any], then: dict[str, Any]) -> bool:
    """Does every argument of the first call recur in the second: under its own name with the
    same value, or as a word of one of its text values?"""
    if not given:
        return False
    later = [w.lower() for w in scalars(then)]
    for key, value in given.items():
        if key in then and _canon(then[key]) == _canon(value):
            continue
        said = [v.lower() for v in scalars(value) if len(v) >= 3]
        if not said or not all(
            any(v == w or re.search(rf"(?<![\w-]){re.escape(v)}(?![\w-])", w) for w in later)
            for v in said
        ):
            return False
    return True


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _changed(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    return sorted(k for k in a.keys() | b.keys() if _canon(a.get(k)) != _canon(b.get(k)))


def sources(signal: ToolPatternSignal) -> tuple[_Source, _Source]:
    """What was replaced (A) and by what (B): tools, or a tool's changed arguments."""
    return _sources(signal.tool, signal.other_tool, signal.failed_args, signal.success_args)


def _sources(
    tool: str, other: str | None, failed: dict[str, Any], success: dict[str, Any]
) -> tuple[_Source, _Source]:
    if other and other != tool:
        return (tool, None), (other, None)
    keys = _changed(failed, success)
    # a switch of source is the lesson; another argument fixed on the way (a mistyped id) is
    # this conversation's, and would make each conversation's switch a lesson of its own
    keys = [k for k in keys if source_like(k)] or keys
    old = {k: failed[k] for k in keys if k in failed}
    new = {k: success[k] for k in keys if k in success}
    return (tool, old), (tool, new)


def standing(store: Store, namespace: str, skill: str, record: dict[str, Any]) -> int:
    """The net support the ledger gives a stored lesson now (after a forget, only what the
    kept conversations say), from its evidence record (compile/tool_rules.py: tool,
    failed_args, success_args, other_tool)."""
    old, to = _sources(
        str(record["tool"]),
        record.get("other_tool"),
        dict(record.get("failed_args") or {}),
        dict(record.get("success_args") or {}),
    )
    events = _Ledger(store).get((namespace, skill, old[0])).get(_canon(old), [])
    support, against = _counts(events, _canon(to))
    return len(support) - against


def _swaps(session: Session, calls: list[CallOutcome]) -> list[ToolPatternSignal]:
    """Tools that did not serve the agent and were replaced by a different tool of the same
    purpose that did, never served later in the conversation (that is a retry, not a swap)."""
    out: dict[tuple[str, str], ToolPatternSignal] = {}
    served = {c.name for c in calls if _served(c)}
    for first in calls:
        if not _unserved(first) or first.name in served:
            continue
        for other in calls[first.pos + 1 : first.pos + 1 + MAX_GAP]:
            if other.name == first.name or not _served(other):
                continue
            if not _substitute(first, other):
                continue
            out.setdefault(
                (first.name, other.name),
                ToolPatternSignal(
                    ctx=session_context(session),
                    pattern=ToolPattern.DEAD_SOURCE,
                    tool=first.name,
                    failed_args=dict(first.args),
                    success_args=dict(other.args),
                    other_tool=other.name,
                    error=first.error or ("no result" if first.status is None else "empty"),
                    message_indexes=sorted(
                        i
                        for c in (first, other)
                        for i in (c.call_index, c.result_index)
                        if i is not None
                    ),
                    conversation_ids=[session.conversation_id],
                ),
            )
            break
    return list(out.values())


def _source(key: str) -> _Source:
    tool, args = json.loads(key)
    return str(tool), None if args is None else dict(args)


def _name_parts(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()
    return [t for t in re.split(r"[^a-z0-9]+", spaced) if t]


def _one_family(a: str, b: str) -> bool:
    """Two variants of one tool (zoning_county_lookup / zoning_state_lookup, get_prices /
    get_prices_v2): their names begin or end alike. Two actions on one entity
    (update_reservation_flights / cancel_reservation) are not a replacement."""
    pa, pb = _name_parts(a), _name_parts(b)
    return bool(pa and pb) and (pa[0] == pb[0] or pa[-1] == pb[-1])


def _worked(source: _Source, calls: Iterable[CallOutcome]) -> bool:
    """A served call of A among `calls`. A same-tool lesson that only added an argument
    names no value of A to recognise: nothing counts as A working."""
    tool, args = source
    if args is not None and not args:
        return False
    return any(
        _served(c)
        and c.name == tool
        and all(_canon(c.args.get(k)) == _canon(v) for k, v in (args or {}).items())
        for c in calls
    )


class _Ledger:
    """Per (namespace, skill, tool) a store ledger (store/ledgers.py): {A: [[conversation, B
    or None (A worked)], ...]}, read once and written back once per capture. Entries before
    A's first remaining replacement count for nothing and are dropped, and so is an A left
    without one: a window of A's recent conversations, never all of them."""

    def __init__(self, store: Store) -> None:
        self.ledgers = Ledgers(store)

    @staticmethod
    def _key(where: tuple[str, str, str]) -> str:
        return ledger_key(KIND, *where)

    def get(self, where: tuple[str, str, str]) -> dict[str, list[list[Any]]]:
        return self.ledgers.get(self._key(where), where[0])

    def add(
        self, where: tuple[str, str, str], old: str, conversation: str, new: str | None
    ) -> None:
        if self.ledgers.add(self._key(where), where[0], old, conversation, new):
            ledger = self.get(where)
            if trimmed(ledger, old):
                self.ledgers.touched(self._key(where))

    def flush(self) -> None:
        self.ledgers.flush()


def trimmed(ledger: dict[str, list[list[Any]]], old: str) -> bool:
    """Drop what of A's entries counts for nothing (A working before its first remaining
    replacement), and A itself when no replacement is left; True when anything went."""
    events = ledger.get(old, [])
    first = next((i for i, (_, to) in enumerate(events) if to is not None), len(events))
    if not first:
        return False
    del events[:first]
    if not events:
        ledger.pop(old, None)
    return True


def _counts(events: list[list[Any]], new: str) -> tuple[list[str], int]:
    """Conversations where A was replaced by `new`, and later ones where A worked."""
    support = [conv for conv, to in events if to == new]
    if not support:
        return [], 0
    first = next(i for i, (_, to) in enumerate(events) if to == new)
    return support, sum(1 for _, to in events[first + 1 :] if to is None)


def replacement_lessons(
    store: Store, sessions: Sequence[Session], found: Sequence[ToolPatternSignal]
) -> tuple[list[ToolPatternSignal], list[Reversal]]:
    """`found` with every replacement (DEAD_SOURCE) signal counted across conversations (a
    CANDIDATE below the threshold), the swaps self-assessment did not see added, and an empty
    fallback dropped where the unconditional lesson holds; plus the reversals of stored
    lessons whose old tool worked in these conversations."""
    ledger = _Ledger(store)
    by_session: dict[tuple[str, str], list[ToolPatternSignal]] = {}
    for signal in found:
        if signal.pattern is ToolPattern.DEAD_SOURCE:
            where = (signal.ctx.namespace, signal.ctx.conversation_id)
            by_session.setdefault(where, []).append(signal)
    added: list[ToolPatternSignal] = []
    reversals: dict[tuple[str, ...], Reversal] = {}
    admitted: set[tuple[str, str, str, str | None]] = set()
    for session in sorted(sessions, key=lambda s: s.timestamp):
        calls = tool_calls(session)
        known = by_session.get((session.namespace, session.conversation_id), [])
        pairs = {(s.tool, s.other_tool) for s in known if s.other_tool}
        new = [s for s in _swaps(session, calls) if (s.tool, s.other_tool) not in pairs]
        added.extend(mark_untrusted(new, [session]))
        swaps = [*known, *new]
        for signal in swaps:
            signal.after_tool = None  # "use B, not A" holds before any call of A
            old, to = sources(signal)
            ledger.add(_where(session, old), _canon(old), session.conversation_id, _canon(to))
        reversals.update(_worked_again(ledger, session, calls, swaps))
        for signal in swaps:
            if _count(ledger, session, signal):
                admitted.add((session.namespace, session.skill, signal.tool, signal.other_tool))
    ledger.flush()
    kept = [
        s
        for s in found
        if not (
            s.pattern is ToolPattern.EMPTY_FALLBACK
            and (s.ctx.namespace, s.ctx.skill, s.tool, s.other_tool) in admitted
        )
    ]
    return [*kept, *added], list(reversals.values())


def _where(session: Session, source: _Source) -> tuple[str, str, str]:
    return (session.namespace, session.skill, source[0])


def _worked_again(
    ledger: _Ledger, session: Session, calls: list[CallOutcome], swaps: list[ToolPatternSignal]
) -> dict[tuple[str, ...], Reversal]:
    """Record the replaced sources that worked in this conversation; their reversals."""
    replaced = {_canon(sources(s)[0]) for s in swaps}
    out: dict[tuple[str, ...], Reversal] = {}
    for tool in {c.name for c in calls if _served(c)}:
        where = (session.namespace, session.skill, tool)
        for key, events in list(ledger.get(where).items()):
            if key in replaced or not _worked(_source(key), calls):
                continue
            ledger.add(where, key, session.conversation_id, None)
            for reversal in _reversals(session, key, events):
                out[(*where, key, reversal.new)] = reversal
    return out


def _count(ledger: _Ledger, session: Session, signal: ToolPatternSignal) -> bool:
    """Give the signal its cross-conversation counts; True when the lesson is admitted."""
    old, to = sources(signal)
    events = ledger.get(_where(session, old))[_canon(old)]
    support, against = _counts(events, _canon(to))
    signal.conversation_ids = support  # provenance: every supporting conversation
    signal.occurrences = 1  # support grows by one per conversation as rules merge
    signal.candidate = len(support) - against < MIN_REPLACEMENT_SESSIONS
    return not signal.candidate and signal.other_tool is not None


def _reversals(session: Session, old: str, events: list[list[Any]]) -> list[Reversal]:
    """One reversal per replacement of `old` seen before this conversation."""
    tool, args = _source(old)
    out: list[Reversal] = []
    for new in dict.fromkeys(to for _, to in events if to is not None):
        other, new_args = _source(new)
        lesson = ToolPatternSignal(
            ctx=session_context(session),
            pattern=ToolPattern.DEAD_SOURCE,
            tool=tool,
            failed_args=dict(args or {}),
            success_args=dict(new_args or {}),
            other_tool=other if other != tool else None,
        )
        out.append(Reversal(lesson, session.conversation_id, events, new))
    return out


__all__ = [
    "KIND",
    "MIN_REPLACEMENT_SESSIONS",
    "Reversal",
    "replacement_lessons",
    "sources",
    "standing",
]
