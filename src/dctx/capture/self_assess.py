"""Self-assessment: behavioral lessons from the structure of tool calls alone (paper, 4.1).

Reads only tool-call names, arguments and whether each result is an error (and of which class,
`tool_errors`). The text of assistant messages is never read, and the person's only for one
thing: whether they typed both values of a changed retry (the value that failed before it,
the one that worked after it: their slip, no lesson), so their words can take a lesson away,
never make one; the text of results only decides error vs success and is kept, shortened, as
evidence. Tool-only input is deliberate: it keeps the analysis on observable patterns.

Within a session, each failing call of tool T starts a chain: later calls of T are retries,
calls of other tools in between are the "between" calls, until T succeeds or the session moves
on (more than `MAX_GAP` other calls since the last attempt). The chain is then judged:

- AUTH_REFRESH: an auth error, another tool succeeds in between, T succeeds.
- MISSING_PREREQUISITE: T is retried with the same arguments (or changed ones taken from the
  same entity as a new call U in between) and succeeds after U succeeded -> "call U before T";
  so is a retry whose new value an earlier call U had returned, unless a person spoke between
  the failure and the retry (only where a user turn lies is read, never its text).
- DEAD_SOURCE: a dead/not-found source: T succeeds with another source-like argument, or T never
  succeeds and a different tool for the same purpose does.
- RETRY_CHANGED_ARGS: T succeeds with different arguments, nothing else explains it (and the
  person did not type both the failed and the working value).
Across sessions, RECURRING_FAILURE: the same tool fails with the same argument value in two or
more sessions and never succeeds with it.

Not signals: rate limits and transient errors (retried or not), empty results, successful
narrowing, identical retries with nothing in between, failures never followed by anything.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dctx.capture.base import SelfAssessor, ToolPattern, ToolPatternSignal, session_context
from dctx.capture.provenance import mark_untrusted
from dctx.capture.tool_errors import ErrorClass, ResultStatus, result_status
from dctx.models import Session

MAX_GAP = 8  # other-tool calls after the last attempt before the session has moved on
_NOISE = (ErrorClass.RATE_LIMIT, ErrorClass.TRANSIENT)
_SOURCE_TOKENS = {
    "source", "sources", "provider", "endpoint", "url", "uri", "host", "hostname", "server",
    "api", "version", "region", "database", "db", "index", "feed", "vendor", "service", "bucket",
    "dataset", "repo", "repository", "registry", "mirror", "backend", "connector", "vpc", "cluster",
}  # fmt: skip
_GENERIC_TOKENS = {
    "get", "set", "list", "fetch", "query", "find", "search", "read", "load", "retrieve", "lookup",
    "create", "update", "delete", "do", "run", "call", "api", "tool", "data", "info", "details",
    "by", "of", "for", "the", "to", "a", "v1", "v2", "v3", "old", "new", "legacy", "all",
}  # fmt: skip
_REFRESH_NAME = re.compile(r"refresh|log_?in|sign_?in|auth|token|session|credential|connect")


@dataclass(frozen=True, slots=True)
class CallOutcome:
    """One tool call and what its result was (error class, empty), without the result text."""

    pos: int  # order among the session's tool calls
    name: str
    args: dict[str, Any]
    key: str  # canonical JSON of args
    call_index: int
    result_index: int | None
    status: ResultStatus | None  # None: no result in the trace
    error: str
    fields: dict[str, str] = field(default_factory=dict)  # a successful result's scalars

    @property
    def ok(self) -> bool:
        return self.status is not None and not self.status.is_error

    @property
    def failed(self) -> bool:
        return self.status is not None and self.status.is_error

    @property
    def error_class(self) -> ErrorClass | None:
        return self.status.error_class if self.status else None


def _canon(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _short(text: str, limit: int = 160) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def tool_calls(session: Session) -> list[CallOutcome]:
    """The session's tool calls in order, each with its result's status (tool-only view)."""
    pending: list[dict[str, Any]] = []
    by_id: dict[str, int] = {}
    for msg in session.messages:
        if msg.role == "assistant":
            for call in msg.tool_calls:
                by_id[call.id] = len(pending)
                pending.append({"call": call, "index": msg.index, "result": None})
        elif msg.role == "tool" and msg.tool_call_id in by_id:
            entry = pending[by_id[msg.tool_call_id]]
            if entry["result"] is None:
                entry["result"] = msg
    calls = []
    for pos, entry in enumerate(pending):
        res = entry["result"]
        status = result_status(res.content, flagged=res.is_error) if res is not None else None
        calls.append(
            CallOutcome(
                pos=pos,
                name=entry["call"].name,
                args=dict(entry["call"].arguments),
                key=_canon(entry["call"].arguments),
                call_index=entry["index"],
                result_index=res.index if res is not None else None,
                status=status,
                error=_short(res.content) if status is not None and status.is_error else "",
                fields=result_fields(res.content) if status and not status.is_error else {},
            )
        )
    return calls


def result_fields(content: str) -> dict[str, str]:
    """A JSON result's string and number values, each with the name of the field that holds
    it (the innermost key; a value two fields share is left out, the name would be a guess).
    Only names and values are kept, so a lesson can say which field a later call used."""
    try:
        data = json.loads(content)
    except ValueError:
        return {}
    found: dict[str, set[str]] = defaultdict(set)

    def walk(value: Any, key: str | None) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                walk(v, str(k))
        elif isinstance(value, list):
            for v in value:
                walk(v, key)
        elif (
            key is not None and isinstance(value, str | int | float) and not isinstance(value, bool)
        ):
            found[_canon(value)].add(key)

    walk(data, None)
    return {value: next(iter(keys)) for value, keys in found.items() if len(keys) == 1}


def _taken_from(
    helper: CallOutcome | None, failed: CallOutcome, worked: CallOutcome | None
) -> dict[str, str]:
    """The arguments of the call that worked whose value was new and came out of the
    prerequisite's result, each with the result field it came from ("pass the `key` it
    returns as `clause_key`")."""
    if helper is None or worked is None:
        return {}
    out: dict[str, str] = {}
    for arg, value in worked.args.items():
        if _canon(value) == _canon(failed.args.get(arg)):
            continue
        name = helper.fields.get(_canon(value))
        if name is not None:
            out[arg] = name
    return out


def _tokens(name: str) -> set[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower()
    return {t for t in re.split(r"[^a-z0-9]+", spaced) if t}


def _scalars(value: Any) -> Iterable[str]:
    if isinstance(value, str) and len(value.strip()) >= 3:
        yield value.strip().lower()
    elif isinstance(value, dict):
        for v in value.values():
            yield from _scalars(v)
    elif isinstance(value, list):
        for v in value:
            yield from _scalars(v)


def _shares_value(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return bool(set(_scalars(a)) & set(_scalars(b)))


def _same_task(failed: dict[str, Any], success: dict[str, Any]) -> bool:
    """A retry, not unrelated work: with several arguments, at least one is kept."""
    if len(failed) < 2 or len(success) < 2:
        return True
    return any(k in success and _canon(v) == _canon(success[k]) for k, v in failed.items())


def source_like(key: str) -> bool:
    """Does the argument name where a call goes ("source", "provider", "api_version")?"""
    return bool(_tokens(key) & _SOURCE_TOKENS)


def _source_changed(failed: dict[str, Any], success: dict[str, Any]) -> bool:
    changed = {
        k for k in failed.keys() | success.keys() if _canon(failed.get(k)) != _canon(success.get(k))
    }
    return any(source_like(k) for k in changed)


def _same_purpose(failed: CallOutcome, other: CallOutcome) -> bool:
    names = (_tokens(failed.name) - _GENERIC_TOKENS) & (_tokens(other.name) - _GENERIC_TOKENS)
    args = _shares_value(failed.args, other.args) or (
        bool(failed.args) and failed.args.keys() == other.args.keys()
    )
    if failed.error_class == ErrorClass.UNAVAILABLE:
        return bool(names) or args
    return bool(names) and (args or not failed.args or not other.args)


def _follow(
    calls: list[CallOutcome], first: CallOutcome
) -> tuple[list[CallOutcome], list[CallOutcome], CallOutcome | None]:
    """Retries of `first`'s tool, the other calls in between, and the success (if any)."""
    attempts: list[CallOutcome] = [first]
    between: list[CallOutcome] = []
    gap = 0
    for call in calls[first.pos + 1 :]:
        if call.name == first.name:
            if call.ok:
                return attempts, between, call
            if call.failed:
                attempts.append(call)
                gap = 0
            continue
        gap += 1
        if gap > MAX_GAP:
            break
        between.append(call)
    return attempts, between, None


def _new_helpers(
    calls: list[CallOutcome], first: CallOutcome, between: list[CallOutcome]
) -> list[CallOutcome]:
    """Successful calls of other tools in between that had not already been made before."""
    before = {(c.name, c.key) for c in calls[: first.pos] if c.ok}
    return [c for c in between if c.ok and c.name != first.name and (c.name, c.key) not in before]


def _judge(
    first: CallOutcome,
    between: list[CallOutcome],
    success: CallOutcome | None,
    helpers: list[CallOutcome],
    identical: bool,
    earlier: Sequence[CallOutcome] = (),
) -> tuple[ToolPattern, CallOutcome | None] | None:
    """The pattern a chain shows and the other tool involved, or None when it is no lesson.
    `earlier`: the calls that served before the chain began."""
    cls = first.error_class
    if success is None:
        if cls in (ErrorClass.UNAVAILABLE, ErrorClass.NOT_FOUND):
            for call in between:
                found = call.ok and call.status is not None and not call.status.is_empty
                if found and _same_purpose(first, call):
                    return ToolPattern.DEAD_SOURCE, call
        return None
    if cls == ErrorClass.AUTH:
        if helpers:
            named = [h for h in helpers if _REFRESH_NAME.search(h.name.lower())]
            return ToolPattern.AUTH_REFRESH, (named or helpers)[-1]
        return None if identical else (ToolPattern.RETRY_CHANGED_ARGS, None)
    if identical:
        if not helpers:
            return None  # a flaky call: nothing to learn
        full = [h for h in helpers if h.status is not None and not h.status.is_empty] or helpers
        linked = [h for h in full if _shares_value(h.args, first.args)]
        return ToolPattern.MISSING_PREREQUISITE, (linked or full)[-1]
    if cls == ErrorClass.UNAVAILABLE or (
        cls in (ErrorClass.NOT_FOUND, ErrorClass.TRANSIENT)
        and _source_changed(first.args, success.args)
    ):
        return ToolPattern.DEAD_SOURCE, None
    if not _same_task(first.args, success.args):
        return None
    linked = [
        h
        for h in helpers
        if h.status is not None
        and not h.status.is_empty
        and (_shares_value(h.args, first.args) or _shares_value(h.args, success.args))
    ]
    if linked:
        return ToolPattern.MISSING_PREREQUISITE, linked[-1]
    # the retry took its new value from what an earlier call returned ("find_property" gave
    # the uprn, the agent passed the address anyway): the same lesson as when that call came
    # only after the failure; the first call that returned it is where it comes from
    fed = [c for c in earlier if c.name != first.name and _taken_from(c, first, success)]
    if fed:
        return ToolPattern.MISSING_PREREQUISITE, fed[0]
    return ToolPattern.RETRY_CHANGED_ARGS, None


def _gave_up_on(first: CallOutcome, success: CallOutcome | None, identical: bool) -> bool:
    """A timeout is noise, retried and forgotten, unless the agent gave up on the source: the
    call that finally worked went to another source ("source": "nhtsa" after the default
    timed out). One such switch is a sighting; across conversations it becomes the lesson
    (capture/replacements.py), and a later conversation where the old source worked counts
    against it."""
    return (
        first.error_class is ErrorClass.TRANSIENT
        and success is not None
        and not identical
        and _source_changed(first.args, success.args)
    )


def _persons_values(session: Session, failed: CallOutcome, success: CallOutcome) -> bool:
    """Did the person type every changed value: the one that failed before the failed call,
    the one that worked between it and the call that worked?"""
    changed = [k for k in failed.args if _canon(failed.args[k]) != _canon(success.args.get(k))]
    if not changed or any(k not in success.args for k in changed):
        return False
    before = _user_words(session, 0, failed.call_index)
    between = _user_words(session, failed.call_index, success.call_index)
    return all(_typed(failed.args[k], before) and _typed(success.args[k], between) for k in changed)


def _user_words(session: Session, start: int, end: int) -> str:
    return " ".join(
        (m.content or "").lower()
        for m in session.messages
        if m.role == "user" and start <= m.index < end
    )


def _typed(value: Any, words: str) -> bool:
    """A string value of three characters or more said whole in the person's words."""
    if not isinstance(value, str) or len(value.strip()) < 3:
        return False
    return re.search(rf"(?<![\w-]){re.escape(value.strip().lower())}(?![\w-])", words) is not None


def _indexes(*calls: CallOutcome | None) -> list[int]:
    found = {i for c in calls if c for i in (c.call_index, c.result_index) if i is not None}
    return sorted(found)


def session_signals(
    session: Session, calls: list[CallOutcome] | None = None
) -> list[ToolPatternSignal]:
    """Within-session patterns (everything but RECURRING_FAILURE)."""
    calls = tool_calls(session) if calls is None else calls
    consumed: set[int] = set()
    seen: dict[str, ToolPatternSignal] = {}
    out: list[ToolPatternSignal] = []
    for first in calls:
        if not first.failed or first.pos in consumed:
            continue
        attempts, between, success = _follow(calls, first)
        identical = success is not None and success.key in {a.key for a in attempts}
        if first.error_class in _NOISE and not _gave_up_on(first, success, identical):
            continue
        consumed.update(a.pos for a in attempts)
        # a person spoke between the failure and the retry: the new value may be theirs (a lot
        # number they misread, then read again), so no earlier result is where it came from
        told = success is not None and any(
            m.role == "user" and first.call_index < m.index < success.call_index
            for m in session.messages
        )
        served = [] if told else [c for c in calls[: first.pos] if c.ok]
        helpers = _new_helpers(calls, first, between)
        verdict = _judge(first, between, success, helpers, identical, served)
        if verdict is None:
            continue
        pattern, other = verdict
        worked = other if pattern == ToolPattern.DEAD_SOURCE and success is None else success
        signal = ToolPatternSignal(
            ctx=session_context(session),
            pattern=pattern,
            tool=first.name,
            failed_args=dict(first.args),
            success_args=dict(worked.args) if worked else {},
            other_tool=other.name if other else None,
            error=first.error,
            result_fields=_taken_from(other, first, worked)
            if pattern == ToolPattern.MISSING_PREREQUISITE
            else {},
            after_tool=calls[first.pos - 1].name if first.pos > 0 else None,
            message_indexes=_indexes(*attempts, other, success),
            conversation_ids=[session.conversation_id],
            # the person typed the value that failed ("pods in anlytics") and then the one
            # that worked ("sorry, analytics"): their slip, not a lesson about the tool
            persons_slip=told
            and success is not None
            and pattern is ToolPattern.RETRY_CHANGED_ARGS
            and _persons_values(session, first, success),
        )
        key = _canon([pattern, signal.tool, signal.other_tool, first.key, signal.success_args])
        if key in seen:  # the same lesson again in this session: one signal, more evidence
            seen[key].occurrences += 1
            seen[key].message_indexes = sorted(
                {*seen[key].message_indexes, *signal.message_indexes}
            )
            continue
        seen[key] = signal
        out.append(signal)
    return out


def _fix_keys(signals: list[ToolPatternSignal]) -> dict[str, set[str]]:
    """Per tool, the argument names that a successful retry changed: where its failures lie."""
    keys: dict[str, set[str]] = defaultdict(set)
    for sig in signals:
        if sig.success_args and sig.other_tool is None:
            both = sig.failed_args.keys() | sig.success_args.keys()
            keys[sig.tool].update(
                k for k in both if _canon(sig.failed_args.get(k)) != _canon(sig.success_args.get(k))
            )
    return keys


def _values(args: dict[str, Any]) -> Iterable[tuple[str, str]]:
    """(argument, canonical value); a list argument counts item by item."""
    for key, value in args.items():
        for item in value if isinstance(value, list) else [value]:
            yield key, _canon(item)


def _merge_nested(
    clusters: dict[tuple[str, frozenset[tuple[str, int]]], dict[str, Any]],
) -> list[tuple[str, frozenset[tuple[str, int]], dict[str, Any]]]:
    """Clusters seen in >= 2 sessions; one whose failures all belong to a larger one of the
    same tool joins it (values that failed together are one finding)."""
    ranked = [(t, occ, a) for (t, occ), a in clusters.items() if len({c for c, _ in occ}) >= 2]
    kept: list[tuple[str, frozenset[tuple[str, int]], dict[str, Any]]] = []
    for tool, occ, args in sorted(ranked, key=lambda item: -len(item[1])):
        home = next((k for k in kept if k[0] == tool and occ <= k[1]), None)
        if home is None:
            kept.append((tool, occ, dict(args)))
            continue
        for key, value in args.items():
            have = home[2].setdefault(key, value)
            if isinstance(have, list) and have is not value:
                have.extend(v for v in value if v not in have)
    order = [occ for _, occ, _ in ranked]
    return sorted(kept, key=lambda k: order.index(k[1]))


def _recurring(
    group: list[tuple[Session, list[CallOutcome]]], fix_keys: dict[str, set[str]]
) -> list[ToolPatternSignal]:
    """Same tool, same argument value, failing in >= 2 sessions and never succeeding with it.

    Values of a list argument count one by one (`failed_args` then lists the items that never
    worked). Where retries have shown which arguments a tool's failures hinge on, only those
    count: an unchanged `user_id` is not why a call failed."""
    ok_tools = {c.name for _, calls in group for c in calls if c.ok}
    ok_values = {
        (c.name, *kv) for _, calls in group for c in calls if c.ok for kv in _values(c.args)
    }
    fails = [
        (s, c) for s, calls in group for c in calls if c.failed and c.error_class not in _NOISE
    ]
    clusters: dict[tuple[str, frozenset[tuple[str, int]]], dict[str, Any]] = {}
    for tool in dict.fromkeys(c.name for _, c in fails):
        tool_fails = [(s, c) for s, c in fails if c.name == tool]
        if tool not in ok_tools:  # never works at all: one finding for the tool
            common = set.intersection(
                *({(k, _canon(v)) for k, v in c.args.items()} for _, c in tool_fails)
            )
            occ = frozenset((s.conversation_id, c.pos) for s, c in tool_fails)
            first_args = tool_fails[0][1].args
            clusters[(tool, occ)] = {
                k: v for k, v in first_args.items() if (k, _canon(v)) in common
            }
            continue
        by_value: dict[tuple[str, str], set[tuple[str, int]]] = defaultdict(set)
        relevant = fix_keys.get(tool)
        for s, c in tool_fails:
            for key, value in _values(c.args):
                if (tool, key, value) not in ok_values and (not relevant or key in relevant):
                    by_value[(key, value)].add((s.conversation_id, c.pos))
        listed = {k for _, c in tool_fails for k, v in c.args.items() if isinstance(v, list)}
        for (key, value), where in by_value.items():
            args = clusters.setdefault((tool, frozenset(where)), {})
            if key in listed:
                args.setdefault(key, []).append(json.loads(value))
            else:
                args[key] = json.loads(value)
    out = []
    for tool, occ, args in _merge_nested(clusters):
        hits = [(s, c) for s, c in fails if c.name == tool and (s.conversation_id, c.pos) in occ]
        conv_ids = list(dict.fromkeys(s.conversation_id for s, _ in hits))
        session, first = hits[0]
        calls = next(calls for s, calls in group if s is session)
        out.append(
            ToolPatternSignal(
                ctx=session_context(session),
                pattern=ToolPattern.RECURRING_FAILURE,
                tool=tool,
                failed_args=args,
                error=first.error,
                after_tool=calls[first.pos - 1].name if first.pos > 0 else None,
                message_indexes=_indexes(*(c for s, c in hits if s is session)),
                occurrences=len(hits),
                conversation_ids=conv_ids,
            )
        )
    return out


def assess(
    sessions: list[Session], assessor: SelfAssessor | None = None
) -> list[ToolPatternSignal]:
    """All self-assessment signals: per-session patterns in session order, then recurring
    failures per (namespace, skill). An `assessor` (an LLM) answers first; when it gives up
    (None), the deterministic analysis below decides. Either way, each signal names what it
    took from tool output (`from_tool_output`, capture/provenance.py)."""
    if assessor is not None:
        decided = assessor.assess(sessions)
        if decided is not None:
            return mark_untrusted(decided, sessions)
    groups: dict[tuple[str, str], list[tuple[Session, list[CallOutcome]]]] = defaultdict(list)
    found: dict[tuple[str, str], list[ToolPatternSignal]] = defaultdict(list)
    out: list[ToolPatternSignal] = []
    for session in sessions:
        calls = tool_calls(session)
        where = (session.namespace, session.skill)
        groups[where].append((session, calls))
        signals = session_signals(session, calls)
        found[where].extend(signals)
        out.extend(signals)
    for where, group in groups.items():
        out.extend(_recurring(group, _fix_keys(found[where])))
    lessons = [s for s in drop_choices(out) if not s.persons_slip]
    return mark_untrusted(lessons, sessions)


def drop_choices(signals: list[ToolPatternSignal]) -> list[ToolPatternSignal]:
    """Retries that changed a value one way in one conversation and back in another
    (cabin economy -> business, then business -> economy) show a person choosing, not a tool
    rejecting a value: neither is a lesson."""

    def changes(s: ToolPatternSignal) -> set[tuple[str, str, str, str]]:
        if s.pattern is not ToolPattern.RETRY_CHANGED_ARGS:
            return set()
        return {
            (s.tool, k, _canon(v), _canon(s.success_args[k]))
            for k, v in s.failed_args.items()
            if k in s.success_args and s.success_args[k] != v and isinstance(v, str | int | float)
        }

    seen = set().union(*(changes(s) for s in signals)) if signals else set()
    reversed_ = {(t, k, o, n) for t, k, o, n in seen if (t, k, n, o) in seen}
    return [s for s in signals if not changes(s) & reversed_]


__all__ = ["MAX_GAP", "CallOutcome", "assess", "drop_choices", "session_signals", "tool_calls"]
