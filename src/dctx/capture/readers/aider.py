"""aider chat histories: `.aider.chat.history.md` in each project aider ran in.

The file is markdown that aider appends to. "# aider chat started at <time>" starts a
session; within one:
- `#### ` lines are what the user typed (consecutive ones are one multi-line turn; a slash
  command stays as typed);
- `> ` lines are aider's own output: edits applied, commits, lint and test results,
  "^C KeyboardInterrupt". Output after an assistant reply is that reply's tool result (one
  call named "aider" on the reply, so the result stays linked to what caused it); output
  before any reply (the start-up banner, a command's echo) is not part of the conversation;
- every other line is the assistant's reply.
These are the rules aider's own history reader follows; a reply line that itself starts with
`#### ` or `> ` (a markdown heading or quote) cannot be told apart and is read the same way.

Times in the header are the machine's local time and are kept as written (ISO form, no zone).
Lines before the first header (a history trimmed at the top) form one more session.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from dctx.capture.parse import build_session
from dctx.capture.readers._lines import read_text
from dctx.models import Message, Session, ToolCall

HISTORY_FILE = ".aider.chat.history.md"
TOOL = "aider"

_HEADER = re.compile(r"^# aider chat started at (\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)\s*$")
_SKIP_DIRS = {"node_modules", "__pycache__", "venv"}


class AiderReader:
    name = "aider"
    summary = "aider chat histories, .aider.chat.history.md (searched under PATH)"

    def default_root(self) -> Path:
        return Path.cwd()

    def find(self, root: Path) -> list[Path]:
        if root.is_file():
            return [root]
        found = []
        for here, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS]
            if HISTORY_FILE in files:
                found.append(Path(here) / HISTORY_FILE)
        return sorted(found)

    def read(self, path: Path, *, actor: str, skill: str, namespace: str) -> list[Session]:
        tag = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:8]
        chunks: list[tuple[str | None, list[tuple[int, str]]]] = [(None, [])]
        for n, raw in enumerate(read_text(path).splitlines(), start=1):
            header = _HEADER.match(raw)
            if header:
                chunks.append((f"{header.group(1)}T{header.group(2)}", []))
            else:
                chunks[-1][1].append((n, raw))
        first_time = chunks[1][0] if len(chunks) > 1 else None
        sessions = []
        for k, (started, lines) in enumerate(chunks):
            messages = _messages(lines)
            if not any(m.role == "user" for m in messages):
                continue
            stamp = (started or "").replace("-", "").replace(":", "")
            sessions.append(
                build_session(
                    messages,
                    conversation_id=f"aider-{tag}-{stamp or 'start'}-{k}",
                    actor=actor,
                    skill=skill,
                    namespace=namespace,
                    timestamp=started or first_time,
                    source=str(path),
                )
            )
        return sessions


def _kind(line: str) -> str:
    if line.startswith("####") and (len(line) == 4 or line[4] == " "):
        return "user"
    if line.startswith(">") and (len(line) == 1 or line[1] == " "):
        return "tool"
    return "blank" if not line.strip() else "text"


def _messages(lines: list[tuple[int, str]]) -> list[Message]:
    """One session's lines -> messages (see the module docstring for the rules)."""
    blocks: list[tuple[str, int, list[str]]] = []  # kind, first line, lines
    for n, line in lines:
        kind = _kind(line)
        open_kind = blocks[-1][0] if blocks else None
        if kind == "blank":
            if open_kind == "text":
                blocks[-1][2].append("")
            elif open_kind == "user":
                blocks.append(("gap", n, []))  # a blank line ends a typed turn
            continue
        body = line[5:] if kind == "user" else line[2:] if kind == "tool" else line
        body = body.rstrip() if kind != "text" else body.rstrip("\n")
        if kind == open_kind:
            blocks[-1][2].append(body)
        else:
            blocks.append((kind, n, [body]))
    out: list[Message] = []
    for kind, n, body_lines in blocks:
        text = "\n".join(body_lines).strip("\n")
        if kind == "user":
            out.append(Message(index=n, role="user", content=text))
        elif kind == "text" and text.strip():
            out.append(Message(index=n, role="assistant", content=text))
        elif kind == "tool" and out and out[-1].role in ("assistant", "tool"):
            last = out[-1]
            if last.role == "tool":  # more of aider's output for the same reply
                last.content = f"{last.content}\n{text}"
                continue
            call = ToolCall(id=f"aider-{last.index}", name=TOOL, arguments={})
            last.tool_calls.append(call)
            out.append(Message(index=n, role="tool", content=text, tool_call_id=call.id))
    return out


READER = AiderReader()

__all__ = ["HISTORY_FILE", "READER", "TOOL", "AiderReader"]
