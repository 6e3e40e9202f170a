"""Anthropic Messages -> `Message` records (syntax only).

`tool_result` blocks inside a user message become role "tool" messages, in order, before the
user's own text (if any); all keep `index` = the position of the original message, so errors
and provenance point at what the user sees. A top-level `system` prompt is not a message and is
never passed here. Block types that carry no text or calls (images, documents, thinking, server
tools) are skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dctx.capture.parse_openai import fail, optional_bool, to_plain
from dctx.models import Message, ToolCall

_ROLES = ("user", "assistant", "system")


def _blocks(content: Any, *, session: str | None, index: int) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        fail(
            f"must be a string or a list of content blocks, got {type(content).__name__}",
            session=session,
            index=index,
            field="content",
        )
    blocks: list[dict[str, Any]] = []
    for k, raw in enumerate(content):
        block = to_plain(raw, session=session, index=index)
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            fail(
                "a content block must be an object with a 'type'",
                session=session,
                index=index,
                field=f"content[{k}]",
            )
        blocks.append(block)
    return blocks


def _text(block: dict[str, Any], *, session: str | None, index: int, field: str) -> str:
    text = block.get("text")
    if isinstance(text, str):
        return text
    fail("must be a string", session=session, index=index, field=f"{field}.text")


def _result_text(content: Any, *, session: str | None, index: int, field: str) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        fail("must be a string or a list of blocks", session=session, index=index, field=field)
    texts = []
    for k, raw in enumerate(content):
        block = to_plain(raw, session=session, index=index)
        if not isinstance(block, dict):
            fail("must be an object", session=session, index=index, field=f"{field}[{k}]")
        if block.get("type") == "text":
            texts.append(_text(block, session=session, index=index, field=f"{field}[{k}]"))
    return "\n".join(texts)


def _tool_result(block: dict[str, Any], *, session: str | None, index: int, field: str) -> Message:
    use_id = block.get("tool_use_id")
    if not isinstance(use_id, str) or not use_id:
        fail("missing or not a string", session=session, index=index, field=f"{field}.tool_use_id")
    return Message(
        index=index,
        role="tool",
        content=_result_text(
            block.get("content"), session=session, index=index, field=f"{field}.content"
        ),
        tool_call_id=use_id,
        is_error=optional_bool(block, "is_error", session=session, index=index),
    )


def _tool_use(block: dict[str, Any], *, session: str | None, index: int, field: str) -> ToolCall:
    use_id, name, args = block.get("id"), block.get("name"), block.get("input", {})
    if not isinstance(use_id, str) or not use_id:
        fail("missing or not a string", session=session, index=index, field=f"{field}.id")
    if not isinstance(name, str) or not name:
        fail("missing or not a string", session=session, index=index, field=f"{field}.name")
    if args is None:
        args = {}
    if not isinstance(args, dict):
        fail("must be an object", session=session, index=index, field=f"{field}.input")
    return ToolCall(id=use_id, name=name, arguments=args)


def parse_anthropic_messages(raw: Sequence[Any], *, session: str | None = None) -> list[Message]:
    """Normalize one Anthropic message list; raises `TraceFormatError` naming index and field."""
    out: list[Message] = []
    for i, item in enumerate(raw):
        msg = to_plain(item, session=session, index=i)
        if not isinstance(msg, dict):
            fail(
                f"a message must be an object, got {type(msg).__name__}",
                session=session,
                index=i,
                field=None,
            )
        role = msg.get("role")
        if role not in _ROLES:
            fail(f"unknown role {role!r}", session=session, index=i, field="role")
        if msg.get("content") is None:
            fail("missing content", session=session, index=i, field="content")
        regenerated = optional_bool(msg, "regenerated", session=session, index=i)
        texts: list[str] = []
        calls: list[ToolCall] = []
        results: list[Message] = []
        for k, block in enumerate(_blocks(msg["content"], session=session, index=i)):
            kind, where = block["type"], f"content[{k}]"
            if kind == "text":
                texts.append(_text(block, session=session, index=i, field=where))
            elif kind == "tool_use" and role == "assistant":
                calls.append(_tool_use(block, session=session, index=i, field=where))
            elif kind == "tool_result" and role == "user":
                results.append(_tool_result(block, session=session, index=i, field=where))
            elif kind in ("tool_use", "tool_result"):
                fail(
                    f"a {kind} block cannot appear in a {role} message",
                    session=session,
                    index=i,
                    field=where,
                )
        out.extend(results)
        if role == "assistant":
            out.append(
                Message(
                    index=i,
                    role="assistant",
                    content="\n".join(texts),
                    tool_calls=calls,
                    regenerated=regenerated,
                )
            )
        elif texts or not results:
            out.append(
                Message(index=i, role=role, content="\n".join(texts), regenerated=regenerated)
            )
    return out


__all__ = ["parse_anthropic_messages"]
