"""Recurring tool failures across captures.

Self-assessment finds failures that recur within one capture; users usually capture one session
at a time, so every unrecovered failure is also counted in the store (keyed by namespace,
skill, tool and failing argument) and a finding is raised once the same failure has been seen
in two or more conversations.

A lookup that finds nothing (not found) is no lesson about the tool: another entity exists.
But when it finds nothing in several conversations whose requests share their words, and each
task was done without it, the lesson is about that kind of request ("new lead from the pricing
form": not a customer yet, skip the customer lookup). Likewise an empty search is no lesson,
but a search that came back empty while a source of the same kind had the answer, in two or
more conversations, is one ("when search_kb finds nothing, use search_release_notes").

Every count is a store ledger with one entry per conversation (store/ledgers.py), so
`forget_actor` takes a forgotten conversation out of it, and bounded to a window of recent
conversations (`MAX_ENTRIES` per failing value, `MAX_ITEMS` values per tool).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from dctx.capture.base import ToolPattern, ToolPatternSignal, session_context
from dctx.capture.self_assess import tool_calls
from dctx.capture.tool_errors import ErrorClass
from dctx.models import Session
from dctx.store.base import Store
from dctx.store.ledgers import Ledgers, ledger_key
from dctx.text import GENERIC_WORDS, SOURCE_KEY, STOPWORDS, stem, words

MIN_CONVERSATIONS = 2
_NOT_LESSONS = {ErrorClass.RATE_LIMIT, ErrorClass.TRANSIENT, ErrorClass.NOT_FOUND}


def _blamable(key: str, value: Any) -> bool:
    """An argument a failure may be blamed on: a source-like key with a short scalar value."""
    return bool(SOURCE_KEY.search(key)) and (
        isinstance(value, str | int | float | bool) and len(str(value)) <= 80
    )


def _ledger(kind: str, session: Session, tool: str) -> str:
    return ledger_key(kind, session.namespace, session.skill, tool)


def _arg_item(key: str, value: Any) -> str:
    return json.dumps([key, value], sort_keys=True, ensure_ascii=False)


def _record_successes(ledgers: Ledgers, sessions: Sequence[Session]) -> None:
    """Remember each source-like argument value a tool succeeded with: a failure that recurs
    with a value the tool also worked with is not that value's fault (book_reservation with
    flight_type="round_trip" fails when the payment does not add up, and works when it does)."""
    for session in sessions:
        for call in tool_calls(session):
            if not call.ok:
                continue
            for key, value in call.args.items():
                if _blamable(key, value):
                    where = _ledger("toolok", session, call.name)
                    ledgers.add(
                        where,
                        session.namespace,
                        _arg_item(key, value),
                        session.conversation_id,
                        None,
                    )


def _failures(session: Session) -> list[tuple[str, str, Any, str, int]]:
    """(tool, arg key, arg value, error text, message index) for unrecovered failures."""
    calls = tool_calls(session)
    out = []
    for i, call in enumerate(calls):
        if not call.failed or call.error_class in _NOT_LESSONS:
            continue
        if any(c.name == call.name and c.ok for c in calls[i + 1 :]):
            continue  # recovered later in the session: retry patterns cover it
        index = call.result_index if call.result_index is not None else call.call_index
        for key, value in call.args.items():
            if _blamable(key, value):
                out.append((call.name, key, value, call.error, index))
    return out


def recurring_failures(
    store: Store, sessions: Sequence[Session], found: Sequence[ToolPatternSignal]
) -> list[ToolPatternSignal]:
    already = {
        (s.tool, json.dumps(s.failed_args, sort_keys=True))
        for s in found
        if s.pattern is ToolPattern.RECURRING_FAILURE
    }
    signals: list[ToolPatternSignal] = []
    ledgers = Ledgers(store)
    _record_successes(ledgers, sessions)
    for session in sessions:
        for tool, key, value, error, index in _failures(session):
            item = _arg_item(key, value)
            where = _ledger("toolfail", session, tool)
            if not ledgers.add(where, session.namespace, item, session.conversation_id, None):
                continue
            seen = [conv for conv, _ in ledgers.get(where, session.namespace)[item]]
            failed = {key: value}
            if len(seen) < MIN_CONVERSATIONS:
                continue
            if ledgers.get(_ledger("toolok", session, tool), session.namespace).get(item):
                continue  # the tool also worked with this value: the failure lies elsewhere
            if (tool, json.dumps(failed, sort_keys=True)) in already:
                continue
            already.add((tool, json.dumps(failed, sort_keys=True)))
            signals.append(
                ToolPatternSignal(
                    ctx=session_context(session),
                    pattern=ToolPattern.RECURRING_FAILURE,
                    tool=tool,
                    failed_args=failed,
                    error=error,
                    message_indexes=[index],
                    occurrences=len(seen),
                    conversation_ids=seen,
                )
            )
    ledgers.flush()
    return signals


MIN_SHARED_WORDS = 2


def fruitless_lookups(store: Store, sessions: Sequence[Session]) -> list[ToolPatternSignal]:
    """FRUITLESS_LOOKUP findings: a tool that found nothing in two or more conversations whose
    requests share at least two content words, each finished with other tools."""
    signals: list[ToolPatternSignal] = []
    ledgers = Ledgers(store)
    for session in sessions:
        for tool, error, index, done_with in _unrecovered_not_found(session):
            where = _ledger("fruitless", session, tool)
            words = [list(p) for p in _request_words(session, tool)]
            if not ledgers.add(where, session.namespace, "", session.conversation_id, words):
                continue
            seen = ledgers.get(where, session.namespace)[""]
            if len(seen) < MIN_CONVERSATIONS:
                continue
            shared = _shared_words([said for _, said in seen])
            if len(shared) < MIN_SHARED_WORDS:
                continue
            signals.append(
                ToolPatternSignal(
                    ctx=session_context(session),
                    pattern=ToolPattern.FRUITLESS_LOOKUP,
                    tool=tool,
                    error=error,
                    message_indexes=[index],
                    occurrences=len(seen),
                    conversation_ids=[conv for conv, _ in seen],
                    situation=shared,
                    done_with=done_with,
                )
            )
    ledgers.flush()
    return signals


def _unrecovered_not_found(session: Session) -> list[tuple[str, str, int, list[str]]]:
    """(tool, error text, message index, tools that then did the task) of not-found results
    never followed by a success of the same tool, in a session that went on without it."""
    calls = tool_calls(session)
    found: dict[str, tuple[str, str, int, list[str]]] = {}
    for i, call in enumerate(calls):
        if call.error_class is not ErrorClass.NOT_FOUND or call.name in found:
            continue
        later = calls[i + 1 :]
        if any(c.name == call.name and c.ok for c in later):
            continue  # found it after all
        done_with = list(dict.fromkeys(c.name for c in later if c.name != call.name and c.ok))
        if not done_with:
            continue  # the task did not go on without it
        index = call.result_index if call.result_index is not None else call.call_index
        found[call.name] = (call.name, call.error, index, done_with[:3])
    return list(found.values())


def _request_words(session: Session, tool: str) -> list[tuple[str, str]]:
    """(word, stem) of the content words of the session's first request."""
    first = next((m.content or "" for m in session.messages if m.role == "user"), "")
    first = re.sub(r"\S+@\S+|https?://\S+", " ", first)  # an address names one entity
    skip = {stem(w) for w in words(tool)}
    out: dict[str, str] = {}
    for word in words(first):
        if len(word) < 3 or word in STOPWORDS or word in GENERIC_WORDS:
            continue
        if any(c.isdigit() for c in word):
            continue
        if "@" in word or "." in word:
            continue
        root = stem(word)
        if root not in skip:
            out.setdefault(root, word)
    return [(w, r) for r, w in out.items()]


def _shared_words(requests: list[list[list[str]]]) -> list[tuple[str, str]]:
    """Words (surface, stem) in at least two of the requests; at most eight, most shared first."""
    count: dict[str, int] = {}
    surface: dict[str, str] = {}
    for request in requests:
        for word, root in {(w, r) for w, r in request}:
            count[root] = count.get(root, 0) + 1
            surface.setdefault(root, word)
    shared = sorted((r for r, n in count.items() if n >= 2), key=lambda r: (-count[r], r))
    return [(surface[r], r) for r in shared[:8]]


def empty_fallbacks(store: Store, sessions: Sequence[Session]) -> list[ToolPatternSignal]:
    """EMPTY_FALLBACK findings: in two or more conversations a tool found nothing and then a
    tool of the same purpose found it. One such search is exploration, not a lesson."""
    signals: list[ToolPatternSignal] = []
    ledgers = Ledgers(store)
    for session in sessions:
        calls = tool_calls(session)
        pairs: dict[tuple[str, str], int] = {}
        for i, empty in enumerate(calls):
            if not (empty.ok and empty.status is not None and empty.status.is_empty):
                continue
            for other in calls[i + 1 :]:
                found = other.ok and other.status is not None and not other.status.is_empty
                if (
                    other.name != empty.name
                    and found
                    and _READS.search(other.name)
                    and _asks_the_same(empty.args, other.args)
                ):
                    pairs.setdefault((empty.name, other.name), empty.call_index)
                    break
        for (tool, fallback), index in pairs.items():
            where = _ledger("emptyfallback", session, tool)
            if not ledgers.add(where, session.namespace, fallback, session.conversation_id, None):
                continue
            seen = [conv for conv, _ in ledgers.get(where, session.namespace)[fallback]]
            if len(seen) < MIN_CONVERSATIONS:
                continue
            signals.append(
                ToolPatternSignal(
                    ctx=session_context(session),
                    pattern=ToolPattern.EMPTY_FALLBACK,
                    tool=tool,
                    other_tool=fallback,
                    message_indexes=[index],
                    occurrences=len(seen),
                    conversation_ids=seen,
                )
            )
    ledgers.flush()
    return signals


# a fallback source reads; a call that books, sends or changes something is the task going on
_READS = re.compile(r"(^|_)(search|find|get|lookup|list|query|fetch|read|check|look)(_|$)", re.I)


def _asks_the_same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Two searches for the same thing: an argument value in common ("Lumen Cam Mini")."""
    values = {json.dumps(v, sort_keys=True) for v in a.values() if v not in (None, "", [], {})}
    return any(json.dumps(v, sort_keys=True) in values for v in b.values())
