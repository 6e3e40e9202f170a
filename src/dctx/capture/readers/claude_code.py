"""Claude Code session transcripts: `~/.claude/projects/<project>/<session>.jsonl`.

One file is one session (its name is the session id, which becomes the conversation id).
Each line is one record; only `user` and `assistant` records are conversation, the rest
(`summary`, `system`, `file-history-snapshot`, `queue-operation`, ...) are skipped. Records
form a tree through `parentUuid` (`logicalParentUuid` across a compaction): the conversation is
the path from the last record back to the root, so branches the user rewound are left out.

Mapping:
- a user record's text -> a `user` message; consecutive user records with no assistant output
  in between (an interrupt marker, then what the user typed) are one user turn, in file order;
- `tool_result` blocks -> `tool` messages, `is_error` as the client flagged it;
- an assistant reply (the records of one `message.id`) -> one `assistant` message: its text
  blocks as content, its `tool_use` blocks as tool calls; `thinking` blocks are skipped;
- sidechain records (subagents) and meta records (a slash command's expanded prompt) are
  skipped; subagent files (`agent-*.jsonl`, `subagents/`) are never read;
- images become the placeholder "[image]".

The client's own signals stay signals: the markers "[Request interrupted by user]" and
"[Request interrupted by user for tool use]" stay at the start of the user turn exactly as
written, and a tool call the user rejected (the client's marker after its result, or its
`toolUseResult` "User rejected tool use") gets `is_error=True` on its result. Slash-command
tags, `<system-reminder>` blocks and the like stay in the text as the client wrote them: the
capture layer strips them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from dctx.capture.parse import build_session
from dctx.capture.readers._lines import bad, json_lines
from dctx.models import Message, Session, ToolCall

INTERRUPTED = "[Request interrupted by user]"
INTERRUPTED_FOR_TOOL = "[Request interrupted by user for tool use]"
REJECTED_TOOL_USE = "User rejected tool use"  # the client's `toolUseResult` for a rejection
IMAGE = "[image]"

_CONVERSATION = ("user", "assistant")


class ClaudeCodeReader:
    name = "claude-code"
    summary = "Claude Code sessions, ~/.claude/projects/<project>/<session>.jsonl"

    def default_root(self) -> Path:
        config = os.environ.get("CLAUDE_CONFIG_DIR")
        return (Path(config).expanduser() if config else Path.home() / ".claude") / "projects"

    def find(self, root: Path) -> list[Path]:
        if root.is_file():
            return [root]
        # <project>/<session>.jsonl only: subagent transcripts live in <session>/subagents/
        # (or, in older versions, agent-<id>.jsonl beside the session) and are not sessions.
        files = [*root.glob("*.jsonl"), *root.glob("*/*.jsonl")]
        return sorted(p for p in files if p.is_file() and not p.name.startswith("agent-"))

    def read(self, path: Path, *, actor: str, skill: str, namespace: str) -> list[Session]:
        records = list(json_lines(path))
        built = _Builder(path)
        timestamp: Any = None
        for line, rec in _active_path(records):
            if timestamp is None:
                timestamp = rec.get("timestamp")
            if rec["type"] == "assistant":
                built.assistant(rec, line)
            else:
                built.user(rec, line)
        messages = [m for m in built.out if m.role != "assistant" or m.content or m.tool_calls]
        if not messages:
            return []
        return [
            build_session(
                messages,
                conversation_id=path.stem,
                actor=actor,
                skill=skill,
                namespace=namespace,
                timestamp=timestamp if isinstance(timestamp, str) else None,
                source=str(path),
            )
        ]


def _active_path(records: list[tuple[int, dict[str, Any]]]) -> list[tuple[int, dict[str, Any]]]:
    """The conversation's records in file order: the path from the last record to the root.

    A record without a `parentUuid` key (older or hand-made files) hangs off the record before
    it; a compaction boundary (`parentUuid` null) continues through `logicalParentUuid`.
    """
    parent: dict[str, str | None] = {}
    previous: str | None = None
    leaf: str | None = None
    for _, rec in records:
        uuid = rec.get("uuid")
        if not isinstance(uuid, str):
            continue
        if "parentUuid" in rec:
            up = rec.get("parentUuid") or rec.get("logicalParentUuid")
            parent[uuid] = up if isinstance(up, str) else None
        else:
            parent[uuid] = previous
        previous = uuid
        if rec.get("type") in _CONVERSATION and not rec.get("isSidechain"):
            leaf = uuid
    on_path: set[str] = set()
    walk = leaf
    while walk is not None and walk not in on_path:
        on_path.add(walk)
        walk = parent.get(walk)
    return [
        (line, rec)
        for line, rec in records
        if rec.get("type") in _CONVERSATION
        and not rec.get("isSidechain")
        and not rec.get("isMeta")
        and (not isinstance(rec.get("uuid"), str) or rec["uuid"] in on_path)
    ]


def _content(rec: dict[str, Any], path: Path, line: int) -> list[dict[str, Any]]:
    msg = rec.get("message")
    if not isinstance(msg, dict):
        raise bad(f"a {rec['type']} record needs a 'message' object", path, line, "message")
    content = msg.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        raise bad("must be a string or a list of content blocks", path, line, "message.content")
    for k, block in enumerate(content):
        if not isinstance(block, dict) or not isinstance(block.get("type"), str):
            raise bad(
                "a content block must be an object with a 'type'",
                path,
                line,
                f"message.content[{k}]",
            )
    return content


def _text(block: dict[str, Any], path: Path, line: int, field: str) -> str:
    text = block.get("text")
    if not isinstance(text, str):
        raise bad("must be a string", path, line, f"{field}.text")
    return text


class _Builder:
    """Messages of one transcript as they are built, record by record."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.out: list[Message] = []
        self.reply_id: str | None = None  # message.id of the assistant message last in `out`

    def assistant(self, rec: dict[str, Any], line: int) -> None:
        path = self.path
        texts: list[str] = []
        calls: list[ToolCall] = []
        for k, block in enumerate(_content(rec, path, line)):
            kind, field = block["type"], f"message.content[{k}]"
            if kind == "text":
                texts.append(_text(block, path, line, field))
            elif kind == "image":
                texts.append(IMAGE)
            elif kind == "tool_use":
                calls.append(_tool_use(block, path, line, field))
        msg_id = rec["message"].get("id")
        msg_id = msg_id if isinstance(msg_id, str) and msg_id else None
        last = self.out[-1] if self.out else None
        if last is not None and last.role == "assistant" and msg_id and msg_id == self.reply_id:
            # one reply streamed as several records (text, then each tool_use) is one message
            last.content = "\n".join(t for t in (last.content, *texts) if t)
            last.tool_calls.extend(calls)
            return
        self.out.append(
            Message(index=line, role="assistant", content="\n".join(texts), tool_calls=calls)
        )
        self.reply_id = msg_id

    def user(self, rec: dict[str, Any], line: int) -> None:
        path = self.path
        texts: list[str] = []
        results: list[Message] = []
        rejected = rec.get("toolUseResult") == REJECTED_TOOL_USE
        for k, block in enumerate(_content(rec, path, line)):
            kind, field = block["type"], f"message.content[{k}]"
            if kind == "text":
                texts.append(_text(block, path, line, field))
            elif kind == "image":
                texts.append(IMAGE)
            elif kind == "tool_result":
                results.append(self._tool_result(block, line, field, rejected=rejected))
        self.out.extend(results)
        if not texts:
            return
        text = "\n".join(texts)
        if text.startswith(INTERRUPTED_FOR_TOOL):
            self._reject_pending()
        last = self.out[-1] if self.out else None
        if last is not None and last.role == "user":
            last.content = f"{last.content}\n{text}" if last.content else text
        else:
            self.out.append(Message(index=line, role="user", content=text))

    def _tool_result(
        self, block: dict[str, Any], line: int, field: str, *, rejected: bool
    ) -> Message:
        path = self.path
        use_id, flag = block.get("tool_use_id"), block.get("is_error", False)
        if not isinstance(use_id, str) or not use_id:
            raise bad("missing or not a string", path, line, f"{field}.tool_use_id")
        if flag is not None and not isinstance(flag, bool):
            raise bad("must be true or false", path, line, f"{field}.is_error")
        if not any(c.id == use_id for m in self.out if m.role == "assistant" for c in m.tool_calls):
            raise bad(
                f"{use_id!r} answers no earlier tool call", path, line, f"{field}.tool_use_id"
            )
        return Message(
            index=line,
            role="tool",
            content=_result_text(block.get("content"), path, line, f"{field}.content"),
            tool_call_id=use_id,
            is_error=bool(flag) or rejected,
        )

    def _reject_pending(self) -> None:
        """The user stopped the last reply's tool use: its results are the client's rejection."""
        for msg in reversed(self.out):
            if msg.role == "assistant":
                return
            if msg.role == "tool":
                msg.is_error = True


def _tool_use(block: dict[str, Any], path: Path, line: int, field: str) -> ToolCall:
    use_id, name, args = block.get("id"), block.get("name"), block.get("input") or {}
    if not isinstance(use_id, str) or not use_id:
        raise bad("missing or not a string", path, line, f"{field}.id")
    if not isinstance(name, str) or not name:
        raise bad("missing or not a string", path, line, f"{field}.name")
    if not isinstance(args, dict):
        raise bad("must be an object", path, line, f"{field}.input")
    return ToolCall(id=use_id, name=name, arguments=args)


def _result_text(content: Any, path: Path, line: int, field: str) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise bad("must be a string or a list of blocks", path, line, field)
    parts = []
    for k, block in enumerate(content):
        if not isinstance(block, dict):
            raise bad("must be an object", path, line, f"{field}[{k}]")
        if block.get("type") == "text":
            parts.append(_text(block, path, line, f"{field}[{k}]"))
        elif block.get("type") == "image":
            parts.append(IMAGE)
    return "\n".join(parts)


READER = ClaudeCodeReader()

__all__ = ["INTERRUPTED", "INTERRUPTED_FOR_TOOL", "READER", "ClaudeCodeReader"]
