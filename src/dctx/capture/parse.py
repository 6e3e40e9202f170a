"""Traces in -> `Session` records out: format detection, parsing, result linking.

`parse_messages` takes one message list in the OpenAI or Anthropic wire format (plain dicts or
SDK objects) and returns a validated `Session`; `load_sessions` does the same for every session
in a trace file. Every malformed message raises `TraceFormatError` naming file, session,
message index and field.

Linking is shared by both formats: each tool result must answer an earlier call (ids may be
reused, as in tau-bench, so the latest call with that id wins); the result gets the call's
`tool_name`, and `is_error` is set from the explicit flag or from the result text
(`tool_errors.is_error`).

dctx's own stage-1 pair (dctx/injected.py), when a transcript still carries it, is left out:
it is dctx speaking, never the person, so it is neither a correction nor support. The other
messages keep their original indexes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path
from typing import Any, Literal

from dctx.capture.parse_anthropic import parse_anthropic_messages
from dctx.capture.parse_jsonl import read_raw_sessions
from dctx.capture.parse_openai import parse_openai_messages, to_plain
from dctx.capture.roles import speaker_role as _speaker_role
from dctx.capture.tool_errors import is_error
from dctx.errors import RolePolicyError, TraceFormatError
from dctx.injected import is_stage1_pair
from dctx.models import (
    DEFAULT_NAMESPACE,
    Message,
    Session,
    SpeakerRole,
    ToolCall,
    new_id,
    utcnow,
)
from dctx.validation import DEFAULT_LIMITS, Limits, check_count, check_messages

WireFormat = Literal["openai", "anthropic"]

_OPENAI_ROLES = {"tool", "function", "developer"}
_OPENAI_KEYS = ("tool_calls", "function_call", "tool_call_id")
_OPENAI_PARTS = {"image_url", "input_audio", "refusal", "file", "input_text"}
_ANTHROPIC_BLOCKS = {
    "tool_use",
    "tool_result",
    "thinking",
    "redacted_thinking",
    "document",
    "image",
}


def _markers(msg: Any) -> tuple[bool, bool]:
    """(looks OpenAI, looks Anthropic) for one plain message."""
    if not isinstance(msg, dict):
        return False, False
    openai = msg.get("role") in _OPENAI_ROLES or any(msg.get(k) is not None for k in _OPENAI_KEYS)
    anthropic = False
    content = msg.get("content")
    if isinstance(content, list):
        for part in content:
            kind = part.get("type") if isinstance(part, dict) else None
            if kind in _OPENAI_PARTS:
                openai = True
            elif kind in _ANTHROPIC_BLOCKS and (kind != "image" or "source" in part):
                anthropic = True
    return openai, anthropic


def detect_format(messages: Sequence[Any], *, session: str | None = None) -> WireFormat:
    """OpenAI or Anthropic, from markers only one of them has; plain text reads the same in
    both, so a list with no markers is read as OpenAI."""
    seen_openai: int | None = None
    seen_anthropic: int | None = None
    for i, item in enumerate(messages):
        openai, anthropic = _markers(to_plain(item, session=session, index=i))
        if openai and seen_openai is None:
            seen_openai = i
        if anthropic and seen_anthropic is None:
            seen_anthropic = i
    if seen_openai is not None and seen_anthropic is not None:
        raise TraceFormatError(
            f"mixes OpenAI (message {seen_openai}) and Anthropic (message {seen_anthropic}) "
            "formats",
            session=session,
            index=max(seen_openai, seen_anthropic),
            field="content",
        )
    return "anthropic" if seen_anthropic is not None else "openai"


def _link_results(messages: list[Message], *, session: str, id_field: str) -> None:
    calls: dict[str, ToolCall] = {}
    for msg in messages:
        if msg.role == "assistant":
            calls.update((call.id, call) for call in msg.tool_calls)
        elif msg.role == "tool":
            call = calls.get(msg.tool_call_id or "")
            if call is None:
                raise TraceFormatError(
                    f"{msg.tool_call_id!r} answers no earlier tool call",
                    session=session,
                    index=msg.index,
                    field=id_field,
                )
            msg.tool_name = call.name
            msg.is_error = is_error(msg.content, flagged=msg.is_error)


def _without_injections(messages: list[Message]) -> list[Message]:
    """The messages without any stage-1 pair dctx injected (a user turn and the assistant's
    acknowledgement right after it, in their exact injected form)."""
    drop: set[int] = set()
    for i, (user, answer) in enumerate(pairwise(messages)):
        if (
            user.role == "user"
            and answer.role == "assistant"
            and not answer.tool_calls
            and is_stage1_pair(user.content, answer.content)
        ):
            drop.update((i, i + 1))
    return [m for i, m in enumerate(messages) if i not in drop]


def _stamp_roles(
    parsed: list[Message], raw: list[Any], default: str | SpeakerRole | None, *, session: str
) -> None:
    """Record on each user turn who spoke it: its own `speaker_role` key, else the session's."""
    fallback = None if default is None else _speaker_role(default)
    for msg in parsed:
        if msg.role != "user":
            continue
        item = raw[msg.index] if 0 <= msg.index < len(raw) else None
        own = item.get("speaker_role") if isinstance(item, dict) else None
        msg.speaker_role = fallback if own is None else _role(own, session=session, index=msg.index)


def _role(value: Any, *, session: str, index: int | None) -> SpeakerRole:
    try:
        return _speaker_role(value)
    except RolePolicyError as exc:
        raise TraceFormatError(
            exc.reason, session=session, index=index, field="speaker_role"
        ) from None


def _timestamp(value: Any, *, session: str) -> str:
    if value is None:
        return utcnow()
    if isinstance(value, datetime):  # YAML reads unquoted timestamps as datetimes
        aware = value if value.tzinfo else value.replace(tzinfo=UTC)
        return aware.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    if isinstance(value, str) and value.strip():
        return str(value)
    raise TraceFormatError("must be an ISO-8601 string", session=session, field="timestamp")


def parse_messages(
    messages: Iterable[Any],
    *,
    conversation_id: str | None = None,
    actor: str = "anonymous",
    skill: str = "default",
    namespace: str = DEFAULT_NAMESPACE,
    timestamp: str | datetime | None = None,
    source: str | None = None,
    wire_format: WireFormat | None = None,
    limits: Limits = DEFAULT_LIMITS,
    speaker_role: str | SpeakerRole | None = None,
) -> Session:
    """One message list (OpenAI or Anthropic; detected unless `wire_format` says) -> Session.

    The messages are checked against `limits` (count, size, nesting, encoding) before results
    are linked, so oversized or unstorable input fails here, before any work on it.
    `speaker_role` says who the user turns are from (capture/roles.py); a user message's own
    `speaker_role` key wins over it; neither: the role policy's default."""
    conv = conversation_id or new_id("conv")
    try:
        if isinstance(messages, str | bytes | dict) or not isinstance(messages, Iterable):
            raise TraceFormatError(
                f"messages must be a list, got {type(messages).__name__}",
                session=conv,
                field="messages",
            )
        messages = list(messages)
        check_count(len(messages), session=conv, limits=limits)  # before parsing any
        try:
            fmt = wire_format or detect_format(messages, session=conv)
            if fmt == "anthropic":
                parsed = parse_anthropic_messages(messages, session=conv)
            else:
                parsed = parse_openai_messages(messages, session=conv)
        except RecursionError:
            raise TraceFormatError(
                f"a message is nested deeper than {limits.nesting_depth} levels (the limit)",
                session=conv,
                field="messages",
            ) from None
        check_messages(parsed, session=conv, limits=limits)
        _stamp_roles(parsed, messages, speaker_role, session=conv)
        _link_results(
            parsed, session=conv, id_field="tool_use_id" if fmt == "anthropic" else "tool_call_id"
        )
        return Session(
            conversation_id=conv,
            messages=_without_injections(parsed),
            actor=actor,
            skill=skill,
            namespace=namespace,
            timestamp=_timestamp(timestamp, session=conv),
            source=source,
        )
    except TraceFormatError as exc:
        raise exc.located(file=source, session=conv) from exc.__cause__


def build_session(
    messages: list[Message],
    *,
    conversation_id: str,
    actor: str = "anonymous",
    skill: str = "default",
    namespace: str = DEFAULT_NAMESPACE,
    timestamp: str | datetime | None = None,
    source: str | None = None,
) -> Session:
    """Already-normalized messages (from a transcript reader) -> a linked, validated Session.

    The same linking as `parse_messages`: each tool result must answer an earlier call, gets
    the call's tool name, and `is_error` from its flag or its text.
    """
    try:
        _link_results(messages, session=conversation_id, id_field="tool_call_id")
        return Session(
            conversation_id=conversation_id,
            messages=messages,
            actor=actor,
            skill=skill,
            namespace=namespace,
            timestamp=_timestamp(timestamp, session=conversation_id),
            source=source,
        )
    except TraceFormatError as exc:
        raise exc.located(file=source, session=conversation_id) from exc.__cause__


def load_sessions(
    path: str | Path,
    *,
    actor: str | None = None,
    skill: str | None = None,
    namespace: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
    speaker_role: str | SpeakerRole | None = None,
) -> list[Session]:
    """Every session in a trace file (JSONL, JSON, YAML seed, tau-bench), in file order.

    `actor`, `skill`, `namespace` and `speaker_role` fill in for records that do not name
    their own (tau-bench records are end users: their users are simulated customers).
    """
    source = str(path)
    sessions = []
    for raw in read_raw_sessions(path):
        sessions.append(
            parse_messages(
                raw.messages,
                conversation_id=raw.conversation_id,
                actor=raw.actor or actor or "anonymous",
                skill=raw.skill or skill or "default",
                namespace=raw.namespace or namespace or DEFAULT_NAMESPACE,
                timestamp=raw.timestamp,
                source=source,
                limits=limits,
                speaker_role=raw.speaker_role or speaker_role,
            )
        )
    return sessions


__all__ = ["WireFormat", "build_session", "detect_format", "load_sessions", "parse_messages"]
