"""OpenAI chat-completions traces -> Session, and the errors a malformed one raises."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from dctx.capture.parse import detect_format, parse_messages
from dctx.errors import TraceFormatError


def _call(cid: str, name: str, args: Any) -> dict[str, Any]:
    raw = args if isinstance(args, str) else json.dumps(args)
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": cid, "type": "function", "function": {"name": name, "arguments": raw}}
        ],
    }


TRACE: list[dict[str, Any]] = [
    {"role": "system", "content": "You are an analyst."},
    {"role": "user", "content": "Summarize Acme Corp's growth."},
    _call("c1", "get_financials", {"company": "Acme"}),
    {"role": "tool", "tool_call_id": "c1", "content": '{"revenue": [10, 12]}'},
    {"role": "assistant", "content": "Acme grew 20%."},
    {"role": "user", "content": "Use USD next to amounts.", "regenerated": True},
]


def test_roles_calls_and_results_are_normalized() -> None:
    s = parse_messages(TRACE, conversation_id="s1", actor="alice", skill="fin", source="f.json")
    assert [m.role for m in s.messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    assert [m.index for m in s.messages] == list(range(6))
    call = s.messages[2].tool_calls[0]
    assert (call.id, call.name, call.arguments) == ("c1", "get_financials", {"company": "Acme"})
    assert s.messages[2].content == ""
    tool = s.messages[3]
    assert tool.tool_call_id == "c1" and tool.tool_name == "get_financials" and not tool.is_error
    assert s.messages[5].regenerated and not s.messages[4].regenerated
    assert (s.conversation_id, s.actor, s.skill, s.source) == ("s1", "alice", "fin", "f.json")


def test_content_parts_are_joined_and_non_text_parts_skipped() -> None:
    msgs = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Look at this chart."},
                {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}},
                {"type": "text", "text": "Then summarize."},
            ],
        }
    ]
    s = parse_messages(msgs, conversation_id="p")
    assert s.messages[0].content == "Look at this chart.\nThen summarize."


def test_is_error_hint_and_error_text_both_mark_a_failed_result() -> None:
    msgs = [
        _call("a", "fetch", {"q": 1}),
        {"role": "tool", "tool_call_id": "a", "content": "partial data", "is_error": True},
        _call("b", "fetch", {"q": 2}),
        {"role": "tool", "tool_call_id": "b", "content": "Error: quota gone"},
        _call("c", "fetch", {"q": 3}),
        {"role": "tool", "tool_call_id": "c", "content": "[]"},
    ]
    flags = [
        m.is_error for m in parse_messages(msgs, conversation_id="e").messages if m.role == "tool"
    ]
    assert flags == [True, True, False]


def test_reused_call_ids_resolve_to_the_latest_call() -> None:
    # tau-bench reuses tool-call ids across turns; each result answers the latest call
    msgs = [
        _call("x", "search_direct_flight", {"origin": "JFK"}),
        {"role": "tool", "tool_call_id": "x", "content": "[]"},
        _call("x", "search_onestop_flight", {"origin": "JFK"}),
        {"role": "tool", "tool_call_id": "x", "content": "[[1]]"},
    ]
    names = [
        m.tool_name for m in parse_messages(msgs, conversation_id="r").messages if m.role == "tool"
    ]
    assert names == ["search_direct_flight", "search_onestop_flight"]


def test_legacy_function_role_and_function_call() -> None:
    msgs = [
        {"role": "user", "content": "weather?"},
        {
            "role": "assistant",
            "content": None,
            "function_call": {"name": "weather", "arguments": '{"city": "Oslo"}'},
        },
        {"role": "function", "name": "weather", "content": "cold"},
    ]
    s = parse_messages(msgs, conversation_id="legacy")
    assert s.messages[1].tool_calls[0].arguments == {"city": "Oslo"}
    assert s.messages[2].role == "tool" and s.messages[2].tool_name == "weather"
    assert s.messages[2].tool_call_id == s.messages[1].tool_calls[0].id


def test_non_english_empty_and_very_long_texts_are_kept() -> None:
    long = "数据 " * 50_000
    msgs = [
        {"role": "user", "content": "Résumé de la croissance d'Acme, s'il vous plaît — 谢谢"},
        {"role": "assistant", "content": ""},
        {"role": "user", "content": long},
    ]
    s = parse_messages(msgs, conversation_id="i18n")
    assert s.messages[0].content.endswith("谢谢")
    assert s.messages[1].content == ""
    assert s.messages[2].content == long


def test_sdk_pydantic_messages_are_accepted() -> None:
    chat = pytest.importorskip("openai.types.chat")
    assistant = chat.ChatCompletionMessage.model_validate(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "t1",
                    "type": "function",
                    "function": {"name": "lookup", "arguments": '{"id": 7}'},
                }
            ],
        }
    )
    msgs = [
        {"role": "user", "content": "find 7"},
        assistant,
        {"role": "tool", "tool_call_id": "t1", "content": "ok"},
    ]
    s = parse_messages(msgs, conversation_id="sdk")
    assert s.messages[1].tool_calls[0].arguments == {"id": 7}
    assert s.messages[2].tool_name == "lookup"
    assert detect_format(msgs) == "openai"


def test_generators_and_tuples_are_accepted() -> None:
    s = parse_messages((m for m in TRACE[:2]), conversation_id="g")
    assert len(s.messages) == 2


@pytest.mark.parametrize(
    ("messages", "index", "field"),
    [
        ([{"role": "robot", "content": "hi"}], 0, "role"),
        ([{"content": "no role"}], 0, "role"),
        ([{"role": "user"}], 0, "content"),
        ([{"role": "user", "content": None}], 0, "content"),
        ([{"role": "user", "content": 42}], 0, "content"),
        ([{"role": "assistant", "content": None}], 0, "content"),
        ([{"role": "user", "content": "x"}, "not a message"], 1, None),
        (
            [
                {"role": "user", "content": "x"},
                {"role": "tool", "tool_call_id": "nope", "content": "r"},
            ],
            1,
            "tool_call_id",
        ),
        ([{"role": "tool", "content": "r"}], 0, "tool_call_id"),
        ([_call("c", "f", "{not json")], 0, "tool_calls[0].function.arguments"),
        ([_call("c", "f", "[1, 2]")], 0, "tool_calls[0].function.arguments"),
        ([_call("c", "", {})], 0, "tool_calls[0].function.name"),
        ([{"role": "assistant", "content": None, "tool_calls": "f()"}], 0, "tool_calls"),
        (
            [
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [{"type": "function", "function": {"name": "f"}}],
                }
            ],
            0,
            "tool_calls[0].id",
        ),
        ([{"role": "user", "content": [{"text": "no type"}]}], 0, "content[0]"),
        ([{"role": "user", "content": [{"type": "text", "text": 3}]}], 0, "content[0].text"),
        ([{"role": "user", "content": "x", "regenerated": "yes"}], 0, "regenerated"),
        ([{"role": "function", "name": "f", "content": "r"}], 0, "name"),
    ],
)
def test_malformed_messages_name_session_index_and_field(
    messages: list[Any], index: int, field: str | None
) -> None:
    with pytest.raises(TraceFormatError) as info:
        parse_messages(messages, conversation_id="bad", source="trace.jsonl")
    err = info.value
    assert (err.session, err.index, err.field, err.file) == ("bad", index, field, "trace.jsonl")
    assert "trace.jsonl" in str(err) and f"message {index}" in str(err)


def test_a_tool_result_before_its_call_is_rejected() -> None:
    msgs = [{"role": "tool", "tool_call_id": "c1", "content": "early"}, _call("c1", "f", {})]
    with pytest.raises(TraceFormatError, match="answers no earlier tool call"):
        parse_messages(msgs, conversation_id="order")


def test_messages_must_be_a_list() -> None:
    with pytest.raises(TraceFormatError) as info:
        parse_messages({"role": "user", "content": "x"}, conversation_id="d")  # type: ignore[arg-type]
    assert info.value.field == "messages"


def test_timestamps_default_and_datetime_values() -> None:
    s = parse_messages(TRACE[:2], timestamp=datetime(2026, 3, 2, 10, 0, tzinfo=UTC))
    assert s.timestamp == "2026-03-02T10:00:00Z"
    assert s.conversation_id.startswith("conv_")
    assert parse_messages(TRACE[:2]).timestamp.endswith("Z")
