"""The aider reader on a real chat history."""

from __future__ import annotations

from pathlib import Path

from capture.transcript_fixtures import AIDER
from dctx.capture.readers import get_reader
from dctx.capture.readers.aider import HISTORY_FILE, TOOL

READER = get_reader("aider")
HISTORY = AIDER / "home-user-aider" / HISTORY_FILE


def test_find_looks_below_the_path_and_skips_hidden_folders(tmp_path: Path) -> None:
    for folder in ("app", "app/lib", ".git", "node_modules/x"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / HISTORY_FILE).write_text("")
    assert [p.parent.relative_to(tmp_path).as_posix() for p in READER.find(tmp_path)] == [
        "app", "app/lib",
    ]  # fmt: skip
    assert READER.find(HISTORY) == [HISTORY]


def test_sessions_split_at_the_headers() -> None:
    sessions = READER.read(HISTORY, actor="ana", skill="aider", namespace="default")
    # the lines above the first header, then every session with something the user typed
    # (the 19:33:02 session is a start-up banner only)
    assert [s.timestamp for s in sessions] == [
        "2024-08-05T19:33:02", "2024-08-05T19:33:32", "2024-08-05T20:39:59",
    ]  # fmt: skip
    assert len({s.conversation_id for s in sessions}) == 3
    again = READER.read(HISTORY, actor="ana", skill="aider", namespace="default")
    assert [s.conversation_id for s in again] == [s.conversation_id for s in sessions]


def test_turns_replies_and_aider_output() -> None:
    session = READER.read(HISTORY, actor="ana", skill="aider", namespace="default")[1]
    assert [m.role for m in session.messages] == ["user", "assistant", "tool", "user", "user"]
    user, reply, output, diff, leave = session.messages
    assert user.content == "Use the Spinner instead of the inlined custom spinner"
    assert reply.content.startswith("Certainly! I'll modify the `run_install` function")
    assert "<<<<<<< SEARCH" in reply.content and reply.content.endswith("across the application.")
    # aider's own output after the reply is that reply's tool result
    assert [c.name for c in reply.tool_calls] == [TOOL]
    assert output.tool_call_id == reply.tool_calls[0].id and output.tool_name == TOOL
    assert output.content.splitlines()[1] == "Applied edit to aider/utils.py"
    assert (diff.content, leave.content) == ("/diff", "/ex")
    assert (user.index, reply.index) == (60, 62)


def test_a_multi_line_turn_is_one_message() -> None:
    first = READER.read(HISTORY, actor="ana", skill="aider", namespace="default")[0]
    typed = [m.content for m in first.messages if m.role == "user"]
    assert len(typed) == 1
    lines = typed[0].splitlines()
    assert lines[0] == "# Fix any errors below, if possible."
    assert lines[2] == "## Running: /home/user/aider/tmp.lint.sh aider/repomap.py"
    assert lines[-1] == "^"
