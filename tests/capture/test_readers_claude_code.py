"""The Claude Code reader on real session files (and on the client's markers)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from capture.transcript_fixtures import CLAUDE, write_lines
from dctx.capture.readers import READERS, get_reader
from dctx.capture.readers.base import TranscriptReader
from dctx.capture.readers.claude_code import INTERRUPTED, INTERRUPTED_FOR_TOOL
from dctx.errors import ConfigError, TraceFormatError
from dctx.models import Session

READER = get_reader("claude-code")


def _read(path: Path) -> Session:
    sessions = READER.read(path, actor="ana", skill="claude-code", namespace="default")
    assert len(sessions) == 1
    return sessions[0]


def test_registry_is_data_and_names_the_known_clients() -> None:
    assert set(READERS) == {"claude-code", "codex", "aider"}
    assert all(isinstance(r, TranscriptReader) and r.name == n for n, r in READERS.items())
    with pytest.raises(ConfigError, match="known clients: aider, claude-code, codex"):
        get_reader("cursor")


def test_find_lists_sessions_and_never_subagent_files(tmp_path: Path) -> None:
    project = tmp_path / "-home-ana-app"
    for name in ("s1.jsonl", "agent-1234.jsonl", "s1/subagents/agent-9.jsonl"):
        write_lines(project / name, [])
    assert [p.name for p in READER.find(tmp_path)] == ["s1.jsonl"]
    assert READER.find(project / "s1.jsonl") == [project / "s1.jsonl"]
    assert [p.relative_to(CLAUDE).parts[0] for p in READER.find(CLAUDE)] == [
        "cctrace-interrupt.jsonl", "cctrace-manual-testing.jsonl",
        "claude-code-viewer-init-command.jsonl", "home-user-Demo", "home-user-fork-project",
        "home-user-rejection-project", "home-user-workspace",
    ]  # fmt: skip


def test_real_session_keeps_the_main_thread_only() -> None:
    path = CLAUDE / "home-user-Demo" / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
    s = _read(path)
    assert s.conversation_id == path.stem and s.source == str(path)
    assert s.timestamp == "2025-09-03T00:52:31.217Z"
    assert [m.role for m in s.messages] == [
        "user", "assistant", "tool", "tool", "assistant", "tool", "assistant",
    ]  # fmt: skip
    # the slash command's tags stay as written; its expansion (isMeta) and the subagent's
    # sidechain records are not part of the conversation
    assert s.messages[0].content.startswith("<command-message>orchestrator is running…")
    assert "<command-name>/orchestrator</command-name>" in s.messages[0].content
    text = "\n".join(m.content for m in s.messages)
    assert "Split complex tasks" not in text
    assert "I'll create React components" not in text
    # one reply streamed as three records is one assistant message with both calls
    reply = s.messages[1]
    assert [c.name for c in reply.tool_calls] == ["Glob", "Glob"]
    assert reply.content.startswith("I'll help you create a TODO app")
    # results are paired to their calls, and point at their lines in the file
    assert [(m.tool_call_id, m.tool_name, m.index) for m in s.messages[2:4]] == [
        ("toolu_019okXfjnUzJkV2VZbndx6ik", "Glob", 7),
        ("toolu_01Gbs41yRWc2W5JEW6w87PNA", "Glob", 8),
    ]
    assert [c.name for c in s.messages[-1].tool_calls] == ["Task", "Task", "Task"]
    assert s.messages[0].index == 2  # line 1 is the summary record


def test_rewound_branch_is_left_out() -> None:
    s = _read(CLAUDE / "home-user-fork-project" / "fork-session-001.jsonl")
    users = [m.content for m in s.messages if m.role == "user"]
    assert users == [
        "Help me implement a sorting algorithm",
        "Actually, let's try MergeSort instead - I need stable sorting",
        "Can you add type hints?",
    ]
    assert all(c.name != "Write" or "quicksort" not in str(c.arguments)
               for m in s.messages for c in m.tool_calls)  # fmt: skip


def test_rejected_tool_calls_keep_the_client_error_flag() -> None:
    s = _read(CLAUDE / "home-user-rejection-project" / "rejection-claude-001.jsonl")
    results = {m.tool_call_id: m for m in s.messages if m.role == "tool"}
    assert {k: m.is_error for k, m in results.items()} == {
        "toolu_r001": False, "toolu_r002": True, "toolu_r003": False, "toolu_r004": True,
    }  # fmt: skip
    assert results["toolu_r002"].content.startswith("The user doesn't want to proceed")
    assert results["toolu_r004"].tool_name == "Bash"


def test_a_real_interrupt_starts_the_user_turn_that_follows_it() -> None:
    s = _read(CLAUDE / "cctrace-interrupt.jsonl")
    (turn,) = [m for m in s.messages if m.content.startswith(INTERRUPTED)]
    assert turn.role == "user" and turn.index == 17
    follow_up = turn.content.split("\n", 1)[1]
    assert follow_up.startswith("sorry to interrupt. Ill tell you what I have observed.")
    # the reply it cut short: four Bash calls, each with its result before the interrupt
    reply = s.messages[s.messages.index(turn) - 5]
    assert [c.name for c in reply.tool_calls] == ["Bash"] * 4
    assert [m.tool_call_id for m in s.messages[s.messages.index(turn) - 4 :][:4]] == [
        c.id for c in reply.tool_calls
    ]


def test_real_failures_keep_the_client_flag() -> None:
    manual = _read(CLAUDE / "cctrace-manual-testing.jsonl")
    failed = [m for m in manual.messages if m.role == "tool" and m.is_error]
    assert [(m.index, m.content.splitlines()[0]) for m in failed] == [(37, "Exit code 1")]
    init = _read(CLAUDE / "claude-code-viewer-init-command.jsonl")
    (denied,) = [m for m in init.messages if m.is_error]
    assert denied.tool_name == "Write"
    assert denied.content.startswith("Claude requested permissions to write")
    assert init.messages[0].content.startswith("<command-message>init is analyzing")
    assert 2 not in {m.index for m in init.messages}  # the /init expansion (isMeta)


def test_newer_client_records_are_skipped() -> None:
    s = _read(CLAUDE / "home-user-workspace" / "06090cb1-3e64-433a-bc7e-a621c0f596d2.jsonl")
    assert [(m.role, m.content) for m in s.messages] == [
        ("user", "[REDACTED_PROMPT]"),
        ("assistant", "[REDACTED_ASSISTANT_TEXT]"),
    ]


# The client's markers, in records of the shape Claude Code writes (no permissively licensed
# real transcript with them was found; see tests/fixtures/transcripts/SOURCES.md).
def _rec(n: int, kind: str, content: Any, **extra: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        message["id"] = f"msg_{n}"
    return {"type": kind, "uuid": f"u{n}", "parentUuid": f"u{n - 1}" if n > 1 else None,
            "isSidechain": False, "sessionId": "s", "timestamp": f"2026-01-01T00:00:0{n}Z",
            "message": message, **extra}  # fmt: skip


def _call(n: int) -> dict[str, Any]:
    return _rec(n, "assistant", [{"type": "tool_use", "id": "t1", "name": "Bash",
                                  "input": {"command": "psql prod"}}])  # fmt: skip


def _result(n: int, **extra: Any) -> dict[str, Any]:
    return _rec(n, "user", [{"type": "tool_result", "tool_use_id": "t1", "content": "..."}],
                **extra)  # fmt: skip


def test_interrupt_for_tool_use_marks_the_result_rejected(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [
        _rec(1, "user", "Run the migration"), _call(2), _result(3),
        _rec(4, "user", [{"type": "text", "text": INTERRUPTED_FOR_TOOL}]),
        _rec(5, "user", "no, use the staging database"),
    ])  # fmt: skip
    s = _read(path)
    assert [m.role for m in s.messages] == ["user", "assistant", "tool", "user"]
    assert s.messages[2].is_error  # the client did not flag it; its marker says so
    assert s.messages[3].content == f"{INTERRUPTED_FOR_TOOL}\nno, use the staging database"


def test_interrupt_marker_starts_the_user_turn(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [
        _rec(1, "user", "Summarize the logs"),
        _rec(2, "assistant", [{"type": "text", "text": "Reading every log file..."}]),
        _rec(3, "user", [{"type": "text", "text": INTERRUPTED}]),
        _rec(4, "user", [{"type": "text", "text": "only today's"},
                         {"type": "image", "source": {"type": "base64", "data": "..."}}]),
    ])  # fmt: skip
    s = _read(path)
    assert s.messages[-1].content == f"{INTERRUPTED}\nonly today's\n[image]"
    assert s.messages[-1].index == 3


def test_rejected_tool_use_result_field_sets_the_error(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [
        _rec(1, "user", "Deploy"), _call(2), _result(3, toolUseResult="User rejected tool use"),
    ])  # fmt: skip
    assert _read(path).messages[2].is_error


def test_malformed_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"type":"user","message":{"role":"user","content":"hi"}}\n{oops\n{}\n')
    with pytest.raises(TraceFormatError) as info:
        _read(path)
    assert (info.value.file, info.value.line) == (str(path), 2)
    assert f"file {path}, line 2" in str(info.value)


def test_result_without_its_call_names_the_line_and_field(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [_rec(1, "user", "hi"), _result(2)])
    with pytest.raises(TraceFormatError, match="answers no earlier tool call") as info:
        _read(path)
    assert info.value.line == 2
    assert info.value.field == "message.content[0].tool_use_id"


def test_a_half_written_last_line_waits_for_the_next_run(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [_rec(1, "user", "hi")])
    path.write_text(path.read_text() + '{"type":"assistant","mess')
    assert [m.content for m in _read(path).messages] == ["hi"]
