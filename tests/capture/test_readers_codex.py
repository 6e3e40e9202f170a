"""The Codex CLI reader on rollout files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from capture.transcript_fixtures import CODEX, write_lines
from dctx.capture.readers import get_reader
from dctx.capture.readers.codex import TURN_ABORTED
from dctx.errors import TraceFormatError
from dctx.models import Session

READER = get_reader("codex")


def _read(path: Path) -> Session:
    sessions = READER.read(path, actor="ana", skill="codex", namespace="default")
    assert len(sessions) == 1
    return sessions[0]


def _one(name: str) -> Path:
    (path,) = [p for p in READER.find(CODEX) if name in p.name]
    return path


def test_find_walks_the_dated_folders() -> None:
    assert [p.parent.relative_to(CODEX).as_posix() for p in READER.find(CODEX)] == [
        "2025/12/05", "2025/12/28", "2026/01/02", "2026/06/05",
    ]  # fmt: skip


def test_injected_context_is_system_and_typed_text_is_the_user_turn() -> None:
    s = _read(_one("019b64e5"))
    assert s.conversation_id == "019b64e5-57fa-7463-b644-fba7e456f905"
    assert s.timestamp == "2025-12-28T12:18:30.522Z"
    assert [m.role for m in s.messages] == ["system", "system", "user"]
    assert s.messages[0].content.startswith("# AGENTS.md instructions")
    assert s.messages[1].content.startswith("<environment_context>")
    assert s.messages[2].content.startswith("can you analyse the MD files")


def test_developer_items_are_system() -> None:
    s = _read(_one("019e9625"))
    assert [(m.role, m.content) for m in s.messages if m.role != "system"] == [
        ("user", "[REDACTED_PROMPT]"),
        ("assistant", "[REDACTED_ASSISTANT_TEXT]"),
    ]
    assert s.messages[0].content == "[REDACTED_DEVELOPER_CONTEXT]"


def test_calls_pair_with_outputs_and_an_aborted_turn_stays_a_signal() -> None:
    s = _read(_one("rejection-codex-001"))
    calls = [c for m in s.messages if m.role == "assistant" for c in m.tool_calls]
    assert [c.id for c in calls] == ["call_esc_001", "call_esc_002", "call_esc_003", "call_esc_004"]
    assert calls[0].arguments == {"command": "echo 'Hello World' > test.txt"}
    # the first reply's text and its call are one assistant message
    first = next(m for m in s.messages if m.role == "assistant")
    assert first.content == "I'll create a test file for you." and first.tool_calls == [calls[0]]
    results = {m.tool_call_id: m for m in s.messages if m.role == "tool"}
    assert sorted(results) == ["call_esc_001", "call_esc_003", "call_esc_004"]
    assert results["call_esc_003"].content == "Hello World"
    assert not results["call_esc_003"].is_error
    stopped = results["call_esc_004"]
    assert stopped.is_error and stopped.content == TURN_ABORTED.format(reason="user_cancelled")
    assert stopped.tool_name == "shell"
    # the escalation the user talked the agent out of never ran: no result is invented for it
    assert "call_esc_002" not in results


def test_custom_tools_and_unknown_records() -> None:
    s = _read(_one("11111111"))
    calls = {c.name: c for m in s.messages for c in m.tool_calls}
    assert calls["apply_patch"].arguments == {
        "input": "*** Begin Patch\n*** Add File: gamma.txt\n+synthetic\n*** End Patch"
    }
    assert calls["exec_command"].arguments == {"cmd": "find . -maxdepth 1 -type f"}
    outputs = [m.content for m in s.messages if m.role == "tool"]
    assert outputs == ["./alpha.txt\n./beta.txt", "Done!", '{"status":"ok"}']
    assert "SYNTHETIC_ENCRYPTED" not in "\n".join(m.content for m in s.messages)


def _rollout(output: Any) -> list[dict[str, Any]]:
    item = {"type": "response_item", "payload": {}}
    return [
        {"type": "session_meta", "payload": {"id": "r1", "timestamp": "2026-01-01T00:00:00Z"}},
        {**item, "payload": {"type": "message", "role": "user",
                             "content": [{"type": "input_text", "text": "run the tests"}]}},
        {**item, "payload": {"type": "function_call", "name": "shell", "call_id": "c1",
                             "arguments": json.dumps({"command": ["pytest"]})}},
        {**item, "payload": {"type": "function_call_output", "call_id": "c1", "output": output}},
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("output", "text", "failed"),
    [
        (json.dumps({"output": "2 failed", "metadata": {"exit_code": 1}}), "2 failed", True),
        (json.dumps({"output": "ok", "metadata": {"exit_code": 0}}), "ok", False),
        ("Exit code: 2\nWall time: 0.4 seconds\nOutput:\nE   boom", None, True),
        ("Exit code: 0\nWall time: 0.4 seconds\nOutput:\n3 passed", None, False),
        ({"content": "denied", "success": False}, "denied", True),
    ],
)
def test_the_exit_code_the_client_kept_sets_is_error(
    tmp_path: Path, output: Any, text: str | None, failed: bool
) -> None:
    s = _read(write_lines(tmp_path / "rollout-x.jsonl", _rollout(output)))
    result = s.messages[-1]
    assert result.role == "tool" and result.is_error is failed
    assert result.content == (text if text is not None else output)


def test_malformed_line_names_file_and_line(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "rollout-x.jsonl", _rollout("ok"))
    lines = path.read_text().splitlines()
    lines.insert(2, "[1, 2]")
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(TraceFormatError, match="must be a JSON object") as info:
        _read(path)
    assert (info.value.file, info.value.line) == (str(path), 3)


def test_output_without_its_call_names_the_line(tmp_path: Path) -> None:
    records = _rollout("ok")
    del records[2]
    with pytest.raises(TraceFormatError, match="answers no earlier call") as info:
        _read(write_lines(tmp_path / "rollout-x.jsonl", records))
    assert info.value.line == 3 and info.value.field == "payload.call_id"
