"""The OpenAI helper, through the real openai SDK, against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
from typing import Any

import openai
import pytest
from _demo import OPENAI_TOOLS, QUERY, get_price

from dctx.integrations import AgentLoopError, MaxTurnsError, run_openai_loop
from dctx.memory import Memory
from providers.wire_server import CHAT, WireServer, openai_chat, openai_error, openai_tool_calls

PE_RULE = "flag the stock as expensive"
TABLE_RULE = "put the numbers in a table"
SOURCE_RULE = 'use `source`="polygon"'


def client(srv: WireServer) -> openai.OpenAI:
    return openai.OpenAI(api_key="sk-test", base_url=srv.openai_url, max_retries=0)


def run(srv: WireServer, mem: Memory, messages: list[dict[str, Any]], **kw: Any) -> Any:
    return run_openai_loop(
        client(srv),
        mem,
        model="test-model",
        messages=messages,
        tools=OPENAI_TOOLS,
        functions={"get_price": get_price, **kw.pop("functions", {})},
        actor="ana",
        skill="analyst",
        **kw,
    )


def texts(body: dict[str, Any], role: str) -> str:
    return "\n".join(str(m.get("content") or "") for m in body["messages"] if m["role"] == role)


def learned(mem: Memory) -> dict[str, int]:
    """Rows per table, except the record of what runs were given (a delivery happened even
    when the loop failed later; a retry under the same conversation id is matched to it)."""
    return {k: v for k, v in mem.store.count_rows().items() if k != "rule_events"}


def test_stage1_first_stage2_after_trigger_guard_corrects_and_capture(
    srv: WireServer, seeded: Memory
) -> None:
    srv.script(
        CHAT,
        openai_tool_calls(("call_1", "get_price", {"ticker": "GLBX", "source": "yahoo_legacy"})),
        openai_chat("| GLBX | 40.2 |\nExpensive: P/E 35."),
    )
    rows = seeded.store.count_rows()
    result = run(srv, seeded, [{"role": "user", "content": QUERY}])

    first, second = (r.json for r in srv.to(CHAT))
    # stage 1: up-front rules in the first request, through the user channel
    assert TABLE_RULE in texts(first, "user") and SOURCE_RULE in texts(first, "user")
    assert PE_RULE not in json.dumps(first)  # stage 2 not before its trigger
    assert first["tools"][0]["function"]["name"] == "get_price"
    # stage 2: the P/E rule arrives in the system prompt after the tool result that triggers it
    assert PE_RULE in texts(second, "system")
    assert TABLE_RULE in texts(second, "user")  # stage 1 stays in context
    tool_msg = next(m for m in second["messages"] if m["role"] == "tool")
    assert tool_msg["tool_call_id"] == "call_1" and '"pe_ratio": 35' in tool_msg["content"]
    # the guard corrected the forbidden source before the call ran
    (outcome,) = result.outcomes
    assert outcome.status == "corrected" and outcome.arguments["source"] == "polygon"
    call = next(m for m in second["messages"] if m.get("tool_calls"))["tool_calls"][0]
    assert json.loads(call["function"]["arguments"])["source"] == "polygon"
    assert result.text.startswith("| GLBX")
    # the finished session is in memory, without dctx's own injected messages
    assert result.capture is not None and result.capture.sessions == 1
    assert result.capture.messages == len(result.messages) == 4  # user, call, result, answer
    assert all("Before you start" not in str(m.get("content")) for m in result.messages)
    assert all(m["role"] != "system" for m in result.messages)
    assert seeded.store.count_rows()["sessions"] == rows["sessions"] + 1


def test_rejected_call_goes_back_to_model_and_is_not_captured(
    srv: WireServer, seeded: Memory
) -> None:
    tool_rule = next(r for r in seeded.rules() if r.trigger.tool == "get_price")
    seeded.edit(tool_rule.id, "Call list_tickers before calling get_price.")
    listed: list[str] = []

    def list_tickers() -> list[str]:
        listed.append("x")
        return ["GLBX"]

    srv.script(
        CHAT,
        openai_tool_calls(("call_1", "get_price", {"ticker": "GLBX"})),
        openai_tool_calls(("call_2", "list_tickers", {})),
        openai_tool_calls(("call_3", "get_price", {"ticker": "GLBX"})),
        openai_chat("GLBX is at 40.2."),
    )
    tools = [*OPENAI_TOOLS, {"type": "function", "function": {"name": "list_tickers"}}]
    result = run_openai_loop(
        client(srv),
        seeded,
        model="test-model",
        messages=[{"role": "user", "content": QUERY}],
        tools=tools,
        functions={"get_price": get_price, "list_tickers": list_tickers},
        actor="ana",
        skill="analyst",
    )
    assert [o.status for o in result.outcomes] == ["rejected", "ok", "ok"]
    second = srv.to(CHAT)[1].json
    rejection = next(m for m in second["messages"] if m["role"] == "tool")
    assert "dctx guard blocked" in rejection["content"] and "list_tickers" in rejection["content"]
    assert listed == ["x"]
    kept = [c["id"] for m in result.messages for c in m.get("tool_calls", [])]
    assert kept == ["call_2", "call_3"]  # the rejected call never ran and is not learned from
    assert result.capture is not None


def test_guards_off_lets_the_call_through(srv: WireServer, seeded: Memory) -> None:
    srv.script(
        CHAT,
        openai_tool_calls(("c1", "get_price", {"ticker": "GLBX", "source": "yahoo_legacy"})),
        openai_chat("The feed is down."),
    )
    result = run(srv, seeded, [{"role": "user", "content": QUERY}], guards=False, capture=False)
    assert result.outcomes[0].status == "ok" and "retired" in result.outcomes[0].result
    assert result.capture is None


def test_correction_in_the_conversation_becomes_a_rule(srv: WireServer, seeded: Memory) -> None:
    srv.script(CHAT, openai_chat("GLBX is at 40.2 USD."))
    messages = [
        {"role": "user", "content": "Where is GLBX trading?"},
        {"role": "assistant", "content": "GLBX is at 40.2."},
        {"role": "user", "content": "Always state the currency next to every price."},
    ]
    run(srv, seeded, messages)
    assert any("currency" in r.text.lower() for r in seeded.rules(actor="ana"))


def test_failed_loop_writes_nothing(srv: WireServer, seeded: Memory) -> None:
    rows = seeded.store.count_rows()
    srv.script(
        CHAT,
        openai_tool_calls(("c1", "get_price", {"ticker": "GLBX"})),
        openai_error(500, "upstream down"),
    )
    messages = [
        {"role": "user", "content": "Where is GLBX?"},
        {"role": "assistant", "content": "At 40."},
        {"role": "user", "content": "Always state the currency next to every price."},
    ]
    with pytest.raises(openai.InternalServerError):
        run(srv, seeded, messages)
    assert learned(seeded) == {k: v for k, v in rows.items() if k != "rule_events"}


def test_max_turns_raises_and_writes_nothing(srv: WireServer, seeded: Memory) -> None:
    rows = seeded.store.count_rows()
    srv.script(
        CHAT, *(openai_tool_calls((f"c{i}", "get_price", {"ticker": "X"})) for i in range(2))
    )
    with pytest.raises(MaxTurnsError, match="max_turns"):
        run(srv, seeded, [{"role": "user", "content": QUERY}], max_turns=2)
    assert learned(seeded) == {k: v for k, v in rows.items() if k != "rule_events"}


def test_malformed_arguments_go_back_to_the_model(srv: WireServer, seeded: Memory) -> None:
    srv.script(CHAT, openai_tool_calls(("c1", "get_price", "{not json")), openai_chat("Sorry."))
    result = run(srv, seeded, [{"role": "user", "content": QUERY}], capture=False)
    assert result.outcomes[0].status == "error"
    assert "not valid JSON" in srv.to(CHAT)[1].json["messages"][-1]["content"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"messages": []}, "non-empty list"),
        ({"messages": [{"content": "hi"}]}, "role"),
        ({"messages": [{"role": "assistant", "content": "hi"}]}, "user message"),
        ({"tools": [{"name": "x"}]}, r"tools\[0\]"),
        ({"functions": {}}, "no function given for tool"),
        ({"max_turns": 0}, "max_turns"),
    ],
)
def test_bad_input_is_a_typed_error_and_sends_nothing(
    srv: WireServer, seeded: Memory, kwargs: dict[str, Any], match: str
) -> None:
    args: dict[str, Any] = {
        "model": "test-model",
        "messages": [{"role": "user", "content": QUERY}],
        "tools": OPENAI_TOOLS,
        "functions": {"get_price": get_price},
        **kwargs,
    }
    with pytest.raises(AgentLoopError, match=match):
        run_openai_loop(client(srv), seeded, **args)
    assert srv.to(CHAT) == []


def test_sdk_message_objects_are_accepted(srv: WireServer, seeded: Memory) -> None:
    srv.script(CHAT, openai_chat("first"), openai_chat("second"))
    first = client(srv).chat.completions.create(
        model="test-model", messages=[{"role": "user", "content": "hi"}]
    )
    messages: list[Any] = [
        {"role": "user", "content": "hi"},
        first.choices[0].message,  # the SDK's own reply object, passed back as history
        {"role": "user", "content": QUERY},
    ]
    result = run(srv, seeded, messages, capture=False)
    assert result.text == "second"
    assert srv.to(CHAT)[1].json["messages"][-2] == {"role": "assistant", "content": "first"}
