"""Codex CLI rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`.

One file is one session; `session_meta.payload.id` is its conversation id. Lines are
`{"timestamp", "type", "payload"}`: `response_item` payloads are the conversation (the OpenAI
Responses API item types), `event_msg` payloads are the client's events, `turn_context`,
`compacted` and unknown types are skipped. Rollouts of early versions (bare items, a first line
with the session id) are read too.

Mapping:
- `message` items: `user` -> a user turn when the client's `event_msg` `user_message` events
  show the user typed it; a user item the client injected (`<environment_context>`, AGENTS.md
  instructions) is a `system` message, as are `developer` items. A rollout without
  `user_message` events keeps every user item as a user turn (the capture layer cleans it);
- `function_call`, `custom_tool_call` and `local_shell_call` items -> tool calls of the
  assistant message they follow (consecutive assistant items are one message);
- `function_call_output` / `custom_tool_call_output` -> `tool` messages; the exit code the
  client records (`metadata.exit_code`, or an "Exit code: N" header) sets `is_error`;
- `reasoning` items are skipped; images become "[image]".

The client's signal for a stopped turn, `event_msg` `turn_aborted`, stays a signal: every call
of the turn still without output gets a tool result "[turn aborted: <reason>]" with
`is_error=True` (a call the user cancelled, or denied, never ran).
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from pathlib import Path
from typing import Any

from dctx.capture.parse import build_session
from dctx.capture.readers._lines import bad, json_lines
from dctx.models import Message, Role, Session, ToolCall

TURN_ABORTED = "[turn aborted: {reason}]"
IMAGE = "[image]"

_CALLS = ("function_call", "custom_tool_call", "local_shell_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output")
_ITEMS = ("message", "reasoning", *_CALLS, *_OUTPUTS)
_EXIT_HEADER = re.compile(r"\AExit code: (-?\d+)\b")  # the client's unified-exec output header


class CodexReader:
    name = "codex"
    summary = "Codex CLI rollouts, ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl"

    def default_root(self) -> Path:
        home = os.environ.get("CODEX_HOME")
        return (Path(home).expanduser() if home else Path.home() / ".codex") / "sessions"

    def find(self, root: Path) -> list[Path]:
        if root.is_file():
            return [root]
        return sorted(p for p in root.rglob("rollout-*.jsonl") if p.is_file())

    def read(self, path: Path, *, actor: str, skill: str, namespace: str) -> list[Session]:
        lines = list(json_lines(path))
        typed = Counter(
            _text_of(p.get("message"))
            for _, rec in lines
            if rec.get("type") == "event_msg"
            and isinstance(p := rec.get("payload"), dict)
            and p.get("type") == "user_message"
        )
        built = _Builder(path, typed if typed else None)
        conversation, timestamp = path.stem, None
        for line, rec in lines:
            kind, payload = rec.get("type"), rec.get("payload")
            if kind == "session_meta" and isinstance(payload, dict):
                conversation = str(payload.get("id") or conversation)
                timestamp = payload.get("timestamp") or rec.get("timestamp")
            elif kind == "response_item":
                if not isinstance(payload, dict):
                    raise bad("a response_item needs a 'payload' object", path, line, "payload")
                built.item(payload, line)
            elif kind == "event_msg" and isinstance(payload, dict):
                if payload.get("type") == "turn_aborted":
                    built.abort(str(payload.get("reason") or "unknown"), line)
            elif "payload" not in rec and kind in _ITEMS:  # early rollouts: bare items
                built.item(rec, line)
            elif kind is None and "id" in rec and "timestamp" in rec and line == 1:
                conversation, timestamp = str(rec["id"]), rec["timestamp"]
            if timestamp is None and isinstance(rec.get("timestamp"), str):
                timestamp = rec["timestamp"]
        messages = [m for m in built.out if m.role != "assistant" or m.content or m.tool_calls]
        if not any(m.role != "system" for m in messages):
            return []
        return [
            build_session(
                messages,
                conversation_id=conversation,
                actor=actor,
                skill=skill,
                namespace=namespace,
                timestamp=timestamp if isinstance(timestamp, str) else None,
                source=str(path),
            )
        ]


def _text_of(content: Any) -> str:
    """The text of a message's content (a string or a list of content parts)."""
    if isinstance(content, str):
        return content.strip()
    if not isinstance(content, list):
        return ""
    parts = []
    for part in content:
        if isinstance(part, dict):
            if isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif str(part.get("type", "")).endswith("image"):
                parts.append(IMAGE)
    return "\n".join(parts).strip()


class _Builder:
    """Messages of one rollout as they are built, item by item."""

    def __init__(self, path: Path, typed: Counter[str] | None) -> None:
        self.path = path
        self.typed = typed  # what the user typed (None: the rollout does not say)
        self.out: list[Message] = []
        self.answered: set[str] = set()

    def item(self, item: dict[str, Any], line: int) -> None:
        kind = item.get("type")
        if kind == "message":
            self._message(item, line)
        elif kind in _CALLS:
            self._call(item, line)
        elif kind in _OUTPUTS:
            self._output(item, line)

    def _message(self, item: dict[str, Any], line: int) -> None:
        role, text = item.get("role"), _text_of(item.get("content"))
        if role == "assistant":
            last = self._open_reply()
            if last is not None:
                last.content = f"{last.content}\n{text}" if last.content else text
            else:
                self.out.append(Message(index=line, role="assistant", content=text))
            return
        if role not in ("user", "developer", "system"):
            raise bad(f"unknown role {role!r}", self.path, line, "payload.role")
        as_role: Role = "system"
        if role == "user" and (self.typed is None or self.typed[text] > 0):
            as_role = "user"
            if self.typed is not None:
                self.typed[text] -= 1
        self.out.append(Message(index=line, role=as_role, content=text))

    def _open_reply(self) -> Message | None:
        """The assistant message still open for more items (nothing came after it yet)."""
        last = self.out[-1] if self.out else None
        return last if last is not None and last.role == "assistant" else None

    def _call(self, item: dict[str, Any], line: int) -> None:
        call_id = item.get("call_id") or item.get("id")
        if not isinstance(call_id, str) or not call_id:
            raise bad("missing or not a string", self.path, line, "payload.call_id")
        name: Any
        args: Any
        if item["type"] == "local_shell_call":
            name, args = "local_shell", item.get("action") or {}
        else:
            name = item.get("name")
            raw = item.get("arguments") if item["type"] == "function_call" else item.get("input")
            args = _arguments(raw, self.path, line)
        if not isinstance(name, str) or not name:
            raise bad("missing or not a string", self.path, line, "payload.name")
        if not isinstance(args, dict):
            raise bad("must be an object", self.path, line, "payload.action")
        call = ToolCall(id=call_id, name=name, arguments=args)
        last = self._open_reply()
        if last is not None:
            last.tool_calls.append(call)
        else:
            self.out.append(Message(index=line, role="assistant", tool_calls=[call]))

    def _output(self, item: dict[str, Any], line: int) -> None:
        call_id = item.get("call_id")
        if not isinstance(call_id, str) or not call_id:
            raise bad("missing or not a string", self.path, line, "payload.call_id")
        if not any(
            c.id == call_id for m in self.out if m.role == "assistant" for c in m.tool_calls
        ):
            raise bad(f"{call_id!r} answers no earlier call", self.path, line, "payload.call_id")
        text, failed = _output(item.get("output"))
        self.answered.add(call_id)
        self.out.append(
            Message(index=line, role="tool", content=text, tool_call_id=call_id, is_error=failed)
        )

    def abort(self, reason: str, line: int) -> None:
        """`turn_aborted`: the calls of the turn that never got an output were stopped."""
        pending: list[ToolCall] = []
        for msg in reversed(self.out):
            if msg.role == "user":
                break
            if msg.role == "assistant":
                pending[:0] = [c for c in msg.tool_calls if c.id not in self.answered]
        for call in pending:
            self.answered.add(call.id)
            self.out.append(
                Message(
                    index=line,
                    role="tool",
                    content=TURN_ABORTED.format(reason=reason),
                    tool_call_id=call.id,
                    is_error=True,
                )
            )


def _arguments(raw: Any, path: Path, line: int) -> dict[str, Any]:
    """A function call's arguments (a JSON object in a string); a custom tool's free-form
    input is kept whole as {"input": ...}."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, dict):
        return raw
    if not isinstance(raw, str):
        raise bad("must be a string", path, line, "payload.arguments")
    try:
        decoded = json.loads(raw)
    except ValueError:
        return {"input": raw}
    return decoded if isinstance(decoded, dict) else {"input": decoded}


def _output(raw: Any) -> tuple[str, bool]:
    """(text, failed) of a call's output, from the exit code or success flag the client kept."""
    if isinstance(raw, dict):
        text = raw.get("content")
        return _text_of(text) if not isinstance(text, str) else text, raw.get("success") is False
    if isinstance(raw, list):
        return _text_of(raw), False
    text = raw if isinstance(raw, str) else ("" if raw is None else json.dumps(raw))
    try:
        decoded = json.loads(text) if text.startswith("{") else None
    except ValueError:
        decoded = None
    if isinstance(decoded, dict) and isinstance(decoded.get("output"), str):
        meta = decoded.get("metadata")
        code = meta.get("exit_code") if isinstance(meta, dict) else None
        return decoded["output"], isinstance(code, int) and code != 0
    header = _EXIT_HEADER.match(text)
    return text, header is not None and int(header.group(1)) != 0


READER = CodexReader()

__all__ = ["READER", "TURN_ABORTED", "CodexReader"]
