"""Anthropic Messages traces -> Session: tool_result blocks become tool messages."""

from __future__ import annotations

from typing import Any

import pytest

from dctx.capture.parse import detect_format, parse_messages
from dctx.errors import TraceFormatError

TRACE: list[dict[str, Any]] = [
    {"role": "user", "content": "Pull the Q3 logs for Acme."},
    {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "need logs", "signature": "x"},
            {"type": "text", "text": "Fetching logs."},
            {"type": "tool_use", "id": "tu1", "name": "get_logs", "input": {"source": "vpc-0old"}},
        ],
    },
    {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "tu1",
                "content": [{"type": "text", "text": "source deprecated"}],
                "is_error": True,
            },
        ],
    },
    {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": "tu2", "name": "get_logs", "input": {"source": "vpc-new"}}
        ],
    },
    {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "tu2", "content": "42 lines"},
            {"type": "text", "text": "Also, always cite the source."},
        ],
    },
]


def test_blocks_are_normalized_and_keep_the_original_index() -> None:
    assert detect_format(TRACE) == "anthropic"
    s = parse_messages(TRACE, conversation_id="a1", actor="bob")
    assert [(m.index, m.role) for m in s.messages] == [
        (0, "user"),
        (1, "assistant"),
        (2, "tool"),
        (3, "assistant"),
        (4, "tool"),
        (4, "user"),
    ]
    assert s.messages[1].content == "Fetching logs."
    assert s.messages[1].tool_calls[0].arguments == {"source": "vpc-0old"}
    failed, ok = s.messages[2], s.messages[4]
    assert (
        failed.is_error and failed.content == "source deprecated" and failed.tool_name == "get_logs"
    )
    assert not ok.is_error and ok.content == "42 lines" and ok.tool_call_id == "tu2"
    assert s.messages[5].content == "Also, always cite the source."


def test_a_user_message_of_only_tool_results_adds_no_user_turn() -> None:
    s = parse_messages(TRACE[:3], conversation_id="a2")
    assert [m.role for m in s.messages] == ["user", "assistant", "tool"]


def test_sdk_objects_are_accepted() -> None:
    types = pytest.importorskip("anthropic.types")
    reply = types.Message.model_validate(
        {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude",
            "content": [
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "tu9", "name": "lookup", "input": {"id": 9}},
            ],
            "stop_reason": "tool_use",
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        }
    )
    result = {
        "role": "user",
        "content": [
            types.ToolResultBlockParam(type="tool_result", tool_use_id="tu9", content="found")
        ],
    }
    s = parse_messages(
        [{"role": "user", "content": "find 9"}, reply, result], conversation_id="sdk"
    )
    assert s.messages[1].tool_calls[0].name == "lookup"
    assert s.messages[2].tool_name == "lookup" and s.messages[2].content == "found"


def test_missing_result_content_is_an_empty_result() -> None:
    msgs = [
        TRACE[0],
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t", "name": "ping", "input": {}}],
        },
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]},
    ]
    tool = parse_messages(msgs, conversation_id="e").messages[2]
    assert tool.content == "" and not tool.is_error


@pytest.mark.parametrize(
    ("messages", "index", "field"),
    [
        (
            [
                TRACE[0],
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "zz", "content": "x"}],
                },
            ],
            1,
            "tool_use_id",
        ),
        (
            [
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t", "name": "f", "input": "x"}],
                }
            ],
            0,
            "content[0].input",
        ),
        (
            [{"role": "assistant", "content": [{"type": "tool_use", "name": "f", "input": {}}]}],
            0,
            "content[0].id",
        ),
        (
            [
                {
                    "role": "user",
                    "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}],
                }
            ],
            0,
            "content[0]",
        ),
        (
            [
                {"role": "user", "content": [{"type": "text"}], "x": 1},
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}],
                },
            ],
            0,
            "content[0].text",
        ),
        (
            [
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t", "is_error": "no"}],
                },
            ],
            1,
            "is_error",
        ),
        (
            [
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}],
                },
                {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t", "content": 5}],
                },
            ],
            1,
            "content[0].content",
        ),
        (
            [
                {
                    "role": "assistant",
                    "content": [{"type": "tool_use", "id": "t", "name": "f", "input": {}}, "text"],
                }
            ],
            0,
            "content[1]",
        ),
    ],
)
def test_malformed_anthropic_messages(messages: list[Any], index: int, field: str) -> None:
    with pytest.raises(TraceFormatError) as info:
        parse_messages(messages, conversation_id="bad", wire_format="anthropic")
    assert (info.value.session, info.value.index, info.value.field) == ("bad", index, field)


def test_mixed_formats_are_rejected() -> None:
    msgs = [
        {"role": "tool", "tool_call_id": "c", "content": "x"},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "x"}]},
    ]
    with pytest.raises(TraceFormatError, match="mixes OpenAI"):
        parse_messages(msgs, conversation_id="mix")


def test_plain_text_reads_the_same_in_both_formats() -> None:
    msgs = [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        {"role": "assistant", "content": "hello"},
    ]
    a = parse_messages(
        msgs, conversation_id="t", wire_format="anthropic", timestamp="2026-01-01T00:00:00Z"
    )
    o = parse_messages(
        msgs, conversation_id="t", wire_format="openai", timestamp="2026-01-01T00:00:00Z"
    )
    assert a == o
