"""Recurring tool failures across captures.

Self-assessment finds failures that recur within one capture; users usually capture one session
at a time, so every unrecovered failure is also counted in the store (keyed by namespace,
skill, tool and failing argument) and a finding is raised once the same failure has been seen
in two or more conversations.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from dctx.capture.base import SessionContext, ToolPattern, ToolPatternSignal
from dctx.capture.tool_errors import ErrorClass, result_status
from dctx.compile.tool_rules import SOURCE_KEY as _SOURCE_KEY
from dctx.models import Session
from dctx.store.base import Store

MIN_CONVERSATIONS = 2
_NOT_LESSONS = {ErrorClass.RATE_LIMIT, ErrorClass.TRANSIENT, ErrorClass.NOT_FOUND}


def _failures(session: Session) -> list[tuple[str, str, Any, str, int]]:
    """(tool, arg key, arg value, error text, message index) for unrecovered failures."""
    calls: list[tuple[str, dict[str, Any], bool, str, int, ErrorClass | None]] = []
    by_id = {}
    for msg in session.messages:
        for call in msg.tool_calls:
            by_id[call.id] = call
        if msg.role == "tool" and msg.tool_call_id in by_id:
            call = by_id[msg.tool_call_id]
            status = result_status(msg.content, flagged=msg.is_error)
            calls.append(
                (
                    call.name,
                    call.arguments,
                    status.is_error,
                    msg.content,
                    msg.index,
                    status.error_class,
                )
            )
    out = []
    for i, (tool, args, failed, text, index, eclass) in enumerate(calls):
        if not failed or eclass in _NOT_LESSONS:
            continue
        if any(t == tool and not f for t, _, f, _, _, _ in calls[i + 1 :]):
            continue  # recovered later in the session: retry patterns cover it
        for key, value in args.items():
            if not _SOURCE_KEY.search(key):
                continue
            if isinstance(value, str | int | float | bool) and len(str(value)) <= 80:
                out.append((tool, key, value, text[:200], index))
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
    for session in sessions:
        for tool, key, value, error, index in _failures(session):
            cache_key = "toolfail:" + json.dumps(
                [session.namespace, session.skill, tool, key, value], sort_keys=True
            )
            seen: list[str] = json.loads(store.cache_get(cache_key) or "[]")
            if session.conversation_id in seen:
                continue
            seen.append(session.conversation_id)
            store.cache_put(cache_key, json.dumps(seen), namespace=session.namespace, actor=None)
            failed = {key: value}
            if len(seen) < MIN_CONVERSATIONS:
                continue
            if (tool, json.dumps(failed, sort_keys=True)) in already:
                continue
            already.add((tool, json.dumps(failed, sort_keys=True)))
            signals.append(
                ToolPatternSignal(
                    ctx=SessionContext(
                        namespace=session.namespace,
                        conversation_id=session.conversation_id,
                        actor=session.actor,
                        skill=session.skill,
                        timestamp=session.timestamp,
                        source=session.source,
                    ),
                    pattern=ToolPattern.RECURRING_FAILURE,
                    tool=tool,
                    failed_args=failed,
                    error=error,
                    message_indexes=[index],
                    occurrences=len(seen),
                    conversation_ids=list(seen),
                )
            )
    return signals
