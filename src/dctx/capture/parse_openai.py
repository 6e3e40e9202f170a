"""OpenAI chat-completions messages -> `Message` records (syntax only).

Accepts plain dicts and the openai SDK's pydantic messages (anything with `model_dump()`),
roles system/developer/user/assistant/tool and the legacy `function` role, `tool_calls` with
JSON-string arguments, and content as a string or a list of content parts. DC-Bench hints
`regenerated` and `is_error` are kept. Linking results to calls happens in `parse.py`, once for
every wire format.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, NoReturn

from dctx.errors import TraceFormatError
from dctx.models import Message, Role, ToolCall

_ROLES: dict[str, Role] = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
    "function": "tool",
}
_TEXT_PART_KEYS = {
    "text": "text",
    "input_text": "text",
    "output_text": "text",
    "refusal": "refusal",
}


def to_plain(obj: Any, *, session: str | None = None, index: int | None = None) -> Any:
    """An SDK object (pydantic: anything with `model_dump()`) as plain dicts; others unchanged."""
    dump = getattr(obj, "model_dump", None)
    if dump is None or isinstance(obj, type) or not callable(dump):
        return obj
    try:
        return dump()
    except Exception as exc:  # a foreign object's failure must not escape
        raise TraceFormatError(
            f"could not read the message object ({type(obj).__name__}): {exc}",
            session=session,
            index=index,
        ) from exc


def fail(reason: str, *, session: str | None, index: int, field: str | None) -> NoReturn:
    raise TraceFormatError(reason, session=session, index=index, field=field)


def optional_bool(msg: dict[str, Any], key: str, *, session: str | None, index: int) -> bool:
    value = msg.get(key)
    if value is None:
        return False
    if not isinstance(value, bool):
        fail(f"must be true or false, got {value!r}", session=session, index=index, field=key)
    return value


def decode_arguments(raw: Any, *, session: str | None, index: int, field: str) -> dict[str, Any]:
    """Tool-call arguments: a JSON object as text (the wire format) or an already decoded dict."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    if isinstance(raw, dict):
        return raw
    if not isinstance(raw, str):
        fail(
            f"must be a JSON string, got {type(raw).__name__}",
            session=session,
            index=index,
            field=field,
        )
    try:
        value = json.loads(raw)
    except ValueError as exc:
        fail(
            f"not valid JSON ({exc.args[0]}): {raw[:80]!r}",
            session=session,
            index=index,
            field=field,
        )
    except RecursionError:
        fail("is JSON nested too deeply to be arguments", session=session, index=index, field=field)
    if not isinstance(value, dict):
        fail("must be a JSON object", session=session, index=index, field=field)
    return value


def _content_text(content: Any, *, session: str | None, index: int) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        fail(
            f"must be a string or a list of content parts, got {type(content).__name__}",
            session=session,
            index=index,
            field="content",
        )
    texts: list[str] = []
    for k, part in enumerate(content):
        part = to_plain(part, session=session, index=index)
        where = f"content[{k}]"
        if not isinstance(part, dict) or not isinstance(part.get("type"), str):
            fail(
                "a content part must be an object with a 'type'",
                session=session,
                index=index,
                field=where,
            )
        key = _TEXT_PART_KEYS.get(part["type"])
        if key is None:
            continue  # images, audio, files: not text
        text = part.get(key)
        if not isinstance(text, str):
            fail("must be a string", session=session, index=index, field=f"{where}.{key}")
        texts.append(text)
    return "\n".join(texts)


def _tool_call(raw: Any, *, session: str | None, index: int, k: int) -> ToolCall:
    call = to_plain(raw, session=session, index=index)
    where = f"tool_calls[{k}]"
    if not isinstance(call, dict):
        fail("must be an object", session=session, index=index, field=where)
    call_id = call.get("id")
    if not isinstance(call_id, str) or not call_id:
        fail("missing or not a string", session=session, index=index, field=f"{where}.id")
    if call.get("type", "function") == "custom" and isinstance(call.get("custom"), dict):
        custom = call["custom"]
        name, args = custom.get("name"), {"input": custom.get("input", "")}
    else:
        function = call.get("function")
        if not isinstance(function, dict):
            fail(
                "missing or not an object", session=session, index=index, field=f"{where}.function"
            )
        name = function.get("name")
        args = decode_arguments(
            function.get("arguments"),
            session=session,
            index=index,
            field=f"{where}.function.arguments",
        )
    if not isinstance(name, str) or not name:
        fail(
            "missing or not a string", session=session, index=index, field=f"{where}.function.name"
        )
    return ToolCall(id=call_id, name=name, arguments=args)


def parse_openai_messages(raw: Sequence[Any], *, session: str | None = None) -> list[Message]:
    """Normalize one OpenAI message list; raises `TraceFormatError` naming index and field."""
    out: list[Message] = []
    legacy_calls: dict[str, str] = {}  # function name -> id of its latest legacy function_call
    for i, item in enumerate(raw):
        msg = to_plain(item, session=session, index=i)
        if not isinstance(msg, dict):
            fail(
                f"a message must be an object, got {type(msg).__name__}",
                session=session,
                index=i,
                field=None,
            )
        role_name = msg.get("role")
        if not isinstance(role_name, str) or role_name not in _ROLES:
            fail(f"unknown role {role_name!r}", session=session, index=i, field="role")
        role = _ROLES[role_name]
        regenerated = optional_bool(msg, "regenerated", session=session, index=i)
        content = msg.get("content")
        if role == "assistant":
            calls_raw = msg.get("tool_calls")
            if calls_raw is not None and not isinstance(calls_raw, list):
                fail("must be a list", session=session, index=i, field="tool_calls")
            calls = [
                _tool_call(c, session=session, index=i, k=k) for k, c in enumerate(calls_raw or [])
            ]
            legacy = msg.get("function_call")
            if legacy is not None:
                call = _tool_call(
                    {"id": f"legacy_call_{i}", "function": to_plain(legacy)},
                    session=session,
                    index=i,
                    k=0,
                )
                legacy_calls[call.name] = call.id
                calls.append(call)
            if content is None and isinstance(msg.get("refusal"), str):
                content = msg["refusal"]
            if content is None and not calls:
                fail(
                    "an assistant message needs content or tool_calls",
                    session=session,
                    index=i,
                    field="content",
                )
            text = "" if content is None else _content_text(content, session=session, index=i)
            out.append(
                Message(index=i, role=role, content=text, tool_calls=calls, regenerated=regenerated)
            )
            continue
        if content is None:
            fail("missing content", session=session, index=i, field="content")
        text = _content_text(content, session=session, index=i)
        if role != "tool":
            out.append(Message(index=i, role=role, content=text, regenerated=regenerated))
            continue
        name = msg.get("name")
        if role_name == "function":
            if not isinstance(name, str) or name not in legacy_calls:
                fail(
                    f"no earlier function_call named {name!r}",
                    session=session,
                    index=i,
                    field="name",
                )
            call_id: Any = legacy_calls[name]
        else:
            call_id = msg.get("tool_call_id")
            if not isinstance(call_id, str) or not call_id:
                fail("missing or not a string", session=session, index=i, field="tool_call_id")
        out.append(
            Message(
                index=i,
                role="tool",
                content=text,
                tool_call_id=call_id,
                tool_name=name if isinstance(name, str) else None,
                is_error=optional_bool(msg, "is_error", session=session, index=i),
                regenerated=regenerated,
            )
        )
    return out


__all__ = ["decode_arguments", "fail", "optional_bool", "parse_openai_messages", "to_plain"]
