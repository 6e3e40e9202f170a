"""Reading seed traces (OpenAI chat messages) as text: turns, transcripts, chunks.

Shared by the baseline approaches; deliberately simple and deterministic.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from dctx.tokens import count_tokens


@dataclass(slots=True)
class Turn:
    """One message, flattened: text plus the calls it made or the tool it answers."""

    index: int
    role: str
    text: str
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    tool_name: str | None = None
    is_error: bool = False


def content_text(content: Any) -> str:
    """Message content as plain text (string, or a list of `{type: text, text}` parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text", "") for p in content if isinstance(p, dict)]
        return "\n".join(x for x in parts if isinstance(x, str))
    return str(content)


def decode_arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str) and raw.strip():
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            return {"_raw": raw}
        return value if isinstance(value, dict) else {"_value": value}
    return {}


def result_failed(text: str, flagged: bool = False) -> bool:
    """A tool result reads as a failure: flagged, a JSON object with an `error` key, or text
    that opens with an error word."""
    if flagged:
        return True
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict):
            return bool(data.get("error")) or data.get("status") in ("error", "failed")
    return stripped.lower().startswith(("error", "exception", "traceback"))


def turns(messages: Sequence[dict[str, Any]]) -> list[Turn]:
    names: dict[str, str] = {}
    out: list[Turn] = []
    for i, msg in enumerate(messages):
        role = str(msg.get("role", ""))
        text = content_text(msg.get("content"))
        calls: list[tuple[str, dict[str, Any]]] = []
        for call in msg.get("tool_calls") or []:
            fn = call.get("function", {})
            name = str(fn.get("name", ""))
            names[str(call.get("id", ""))] = name
            calls.append((name, decode_arguments(fn.get("arguments"))))
        tool_name = None
        failed = False
        if role == "tool":
            tool_name = msg.get("name") or names.get(str(msg.get("tool_call_id", "")), "tool")
            failed = result_failed(text, bool(msg.get("is_error")))
        out.append(Turn(i, role, text, calls, tool_name, failed))
    return out


def render(turn: Turn) -> str:
    """One turn as a transcript line (or lines)."""
    if turn.role == "tool":
        verb = "failed" if turn.is_error else "returned"
        return f"Tool {turn.tool_name} {verb}: {turn.text}"
    label = {"user": "User", "assistant": "Assistant", "system": "System"}.get(turn.role, "?")
    lines = [f"{label}: {turn.text}"] if turn.text.strip() else []
    lines += [
        f"{label} called {name}({json.dumps(args, ensure_ascii=False, sort_keys=True)})"
        for name, args in turn.calls
    ]
    return "\n".join(lines)


def transcript(messages: Sequence[dict[str, Any]]) -> str:
    return "\n".join(r for r in (render(t) for t in turns(messages)) if r)


def segments(ts: Sequence[Turn]) -> list[list[Turn]]:
    """Split a session at tool-call boundaries: a new segment opens at every assistant turn
    that makes a call."""
    out: list[list[Turn]] = []
    for t in ts:
        if not out or (t.role == "assistant" and t.calls):
            out.append([])
        out[-1].append(t)
    return [seg for seg in out if seg]


def chunk(ts: Sequence[Turn], max_tokens: int = 320) -> list[list[Turn]]:
    """Tool-call-bounded segments, each cut further at message boundaries so a chunk stays
    under about `max_tokens` (a single longer message is its own chunk)."""
    out: list[list[Turn]] = []
    for seg in segments(ts):
        cur: list[Turn] = []
        size = 0
        for t in seg:
            n = count_tokens(render(t))
            if cur and size + n > max_tokens:
                out.append(cur)
                cur, size = [], 0
            cur.append(t)
            size += n
        if cur:
            out.append(cur)
    return out
