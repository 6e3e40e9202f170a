"""Checks on message content before any work is done with it: size, count, nesting, encoding.

Each check walks iteratively (a hostile 100,000-level nesting cannot raise RecursionError here)
and fails with a `TraceFormatError` naming the session, message index and field. Text must be
valid Unicode (no lone surrogates, which no database can store) and hold no NUL character
(PostgreSQL text cannot hold one; SQLite refuses it too so both backends agree).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from dctx.errors import TraceFormatError
from dctx.models import Message, Session
from dctx.validation.identifiers import identifier
from dctx.validation.limits import DEFAULT_LIMITS, Limits


def text_problem(text: str) -> str | None:
    """Why `text` cannot be stored, or None."""
    if "\x00" in text:
        return f"contains a NUL character (U+0000) at position {text.index(chr(0))}; remove it"
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            return (
                f"contains a lone surrogate (U+{ord(text[exc.start]):04X}) at position "
                f"{exc.start}, which is not valid Unicode; decode the text correctly"
            )
    return None


def check_value(
    value: Any,
    *,
    field: str,
    limits: Limits = DEFAULT_LIMITS,
    session: str | None = None,
    index: int | None = None,
) -> int:
    """Check a JSON-like value (text, lists, dicts): nesting depth, encoding of every string
    (keys too). Returns the number of characters in its strings."""
    chars = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            problem = text_problem(item)
            if problem is not None:
                raise TraceFormatError(problem, session=session, index=index, field=field)
            chars += len(item)
            continue
        if not isinstance(item, dict | list | tuple):
            continue
        if depth >= limits.nesting_depth:
            raise TraceFormatError(
                f"is nested deeper than {limits.nesting_depth} levels (the limit); flatten it",
                session=session,
                index=index,
                field=field,
            )
        if isinstance(item, dict):
            stack.extend((k, depth + 1) for k in item if isinstance(k, str))
            stack.extend((v, depth + 1) for v in item.values())
        else:
            stack.extend((v, depth + 1) for v in item)
    return chars


def check_text(text: object, *, field: str, limits: Limits = DEFAULT_LIMITS) -> str:
    """A caller's free text (a query, a rule's new text): a storable string within
    `message_chars`."""
    if not isinstance(text, str):
        raise TraceFormatError(f"must be a string, got {type(text).__name__}", field=field)
    problem = text_problem(text)
    if problem is None and len(text) > limits.message_chars:
        problem = f"holds {len(text)} characters; the limit is {limits.message_chars}"
    if problem is not None:
        raise TraceFormatError(problem, field=field)
    return text


def check_json_text(
    text: str,
    *,
    field: str,
    limits: Limits = DEFAULT_LIMITS,
    session: str | None = None,
    index: int | None = None,
) -> None:
    """A text that may be JSON (a tool result): if it is, its nesting is within the limit."""
    if text.lstrip()[:1] not in ("[", "{"):
        return
    try:
        data = json.loads(text)
    except ValueError:
        return  # not JSON: plain text
    except RecursionError:  # deeper than the parser's stack: far beyond any limit
        raise TraceFormatError(
            f"is JSON nested deeper than {limits.nesting_depth} levels (the limit); flatten it",
            session=session,
            index=index,
            field=field,
        ) from None
    check_value(data, field=field, limits=limits, session=session, index=index)


def check_count(count: int, *, session: str | None, limits: Limits = DEFAULT_LIMITS) -> None:
    """A session holds 1 to `messages_per_session` messages."""
    if count == 0:
        raise TraceFormatError(
            "has no messages; send at least one", session=session, field="messages"
        )
    if count > limits.messages_per_session:
        raise TraceFormatError(
            f"has {count} messages; the limit is {limits.messages_per_session} per "
            "session, so split it into several sessions",
            session=session,
            field="messages",
        )


def check_messages(
    messages: Sequence[Message], *, session: str | None, limits: Limits = DEFAULT_LIMITS
) -> None:
    """A session's parsed messages: at least one, at most `messages_per_session`, each within
    `message_chars` and `nesting_depth`, all text storable."""
    check_count(len(messages), session=session, limits=limits)
    for msg in messages:
        _check_message(msg, session=session, limits=limits)


def _check_message(msg: Message, *, session: str | None, limits: Limits) -> None:
    def check(value: Any, field: str) -> int:
        return check_value(value, field=field, limits=limits, session=session, index=msg.index)

    chars = check(msg.content, "content")
    if msg.role == "tool":
        check_json_text(
            msg.content, field="content", limits=limits, session=session, index=msg.index
        )
    for i, call in enumerate(msg.tool_calls):
        chars += check(call.name, f"tool_calls[{i}].name") + check(call.id, f"tool_calls[{i}].id")
        chars += check(call.arguments, f"tool_calls[{i}].arguments")
    for name in ("tool_call_id", "tool_name"):
        value = getattr(msg, name)
        if value is not None:
            chars += check(value, name)
    if chars > limits.message_chars:
        raise TraceFormatError(
            f"holds {chars} characters; the limit is {limits.message_chars} per message",
            session=session,
            index=msg.index,
            field="content",
        )


def check_session(session: Session, *, limits: Limits = DEFAULT_LIMITS) -> None:
    """Normalize a session's identifiers in place and check its messages."""
    session.conversation_id = identifier(session.conversation_id, "conversation_id", limits=limits)
    session.actor = identifier(session.actor, "actor", limits=limits)
    session.skill = identifier(session.skill, "skill", limits=limits)
    session.namespace = identifier(session.namespace, "namespace", limits=limits)
    check_messages(session.messages, session=session.conversation_id, limits=limits)


__all__ = [
    "check_count",
    "check_json_text",
    "check_messages",
    "check_session",
    "check_text",
    "check_value",
    "text_problem",
]
