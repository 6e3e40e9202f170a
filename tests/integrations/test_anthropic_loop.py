"""The Anthropic helper, through the real anthropic SDK, against a real HTTP server."""

from __future__ import annotations

import json
from typing import Any

import anthropic
import pytest
from _demo import ANTHROPIC_TOOLS, QUERY, get_price

from dctx.integrations import AgentLoopError, run_anthropic_loop
from dctx.memory import Memory
from providers.wire_server import (
    MESSAGES,
    WireServer,
    anthropic_error,
    anthropic_message,
    anthropic_tool_use,
)

PE_RULE = "flag the stock as expensive"
TABLE_RULE = "put the numbers in a table"


def client(srv: WireServer) -> anthropic.Anthropic:
    return anthropic.Anthropic(api_key="sk-ant-test", base_url=srv.url, max_retries=0)


def run(srv: WireServer, mem: Memory, **kw: Any) -> Any:
    args: dict[str, Any] = {
        "model": "claude-test",
        "messages": [{"role": "user", "content": QUERY}],
        "tools": ANTHROPIC_TOOLS,
        "functions": {"get_price": get_price},
        "system": "Be brief.",
        "actor": "ana",
        "skill": "analyst",
        **kw,
    }
    return run_anthropic_loop(client(srv), mem, **args)


def learned(mem: Memory) -> dict[str, int]:
    """Rows per table, except the record of what runs were given (a delivery happened even
    when the loop failed later; a retry under the same conversation id is matched to it)."""
    return {k: v for k, v in mem.store.count_rows().items() if k != "rule_events"}


def test_progressive_injection_guard_and_capture(srv: WireServer, seeded: Memory) -> None:
    srv.script(
        MESSAGES,
        anthropic_tool_use(
            ("toolu_1", "get_price", {"ticker": "GLBX", "source": "yahoo_legacy"}),
            text="Let me look.",
        ),
        anthropic_message("| GLBX | 40.2 | expensive |"),
    )
    result = run(srv, seeded)
    first, second = (r.json for r in srv.to(MESSAGES))
    # stage 1: a user/assistant pair before the user's query; the conversation alternates
    assert [m["role"] for m in first["messages"]] == ["user", "assistant", "user"]
    assert TABLE_RULE in first["messages"][0]["content"]
    assert first["system"] == "Be brief."  # no stage-2 rule yet
    assert PE_RULE not in json.dumps(first)
    # stage 2 after the triggering tool result, in the system prompt
    assert second["system"].startswith("Be brief.") and PE_RULE in second["system"]
    assistant, results = second["messages"][-2:]
    use = next(b for b in assistant["content"] if b["type"] == "tool_use")
    assert use["input"]["source"] == "polygon"  # corrected by the guard before it ran
    (res,) = results["content"]
    assert res["type"] == "tool_result" and res["tool_use_id"] == "toolu_1"
    assert res["is_error"] is False and '"pe_ratio": 35' in res["content"]
    assert result.outcomes[0].status == "corrected"
    assert result.capture is not None and result.capture.sessions == 1
    assert result.text == "| GLBX | 40.2 | expensive |"


def test_rejection_is_an_error_tool_result_and_not_captured(
    srv: WireServer, seeded: Memory
) -> None:
    rule = next(r for r in seeded.rules() if r.trigger.tool == "get_price")
    seeded.edit(rule.id, "Avoid calling get_price; it keeps failing.")
    srv.script(
        MESSAGES,
        anthropic_tool_use(("toolu_1", "get_price", {"ticker": "GLBX"})),
        anthropic_message("I could not get a quote."),
    )
    result = run(srv, seeded)
    (res,) = srv.to(MESSAGES)[1].json["messages"][-1]["content"]
    assert res["is_error"] is True and "dctx guard blocked" in res["content"]
    assert result.outcomes[0].status == "rejected"
    assert not any(
        isinstance(m["content"], list) and any(b.get("type") == "tool_use" for b in m["content"])
        for m in result.messages
    )


def test_api_failure_writes_nothing(srv: WireServer, seeded: Memory) -> None:
    rows = seeded.store.count_rows()
    srv.script(
        MESSAGES,
        anthropic_tool_use(("toolu_1", "get_price", {"ticker": "GLBX"})),
        anthropic_error(529, "overloaded"),
    )
    with pytest.raises(anthropic.APIStatusError):
        run(srv, seeded)
    assert learned(seeded) == {k: v for k, v in rows.items() if k != "rule_events"}


def test_system_role_in_messages_is_rejected(srv: WireServer, seeded: Memory) -> None:
    with pytest.raises(AgentLoopError, match="system="):
        run(
            srv,
            seeded,
            messages=[{"role": "system", "content": "x"}, {"role": "user", "content": "q"}],
        )
    assert srv.to(MESSAGES) == []


def test_correction_in_the_conversation_becomes_a_rule(srv: WireServer, seeded: Memory) -> None:
    srv.script(MESSAGES, anthropic_message("GLBX is at 40.2 USD."))
    messages = [
        {"role": "user", "content": "Where is GLBX trading?"},
        {"role": "assistant", "content": [{"type": "text", "text": "GLBX is at 40.2."}]},
        {"role": "user", "content": "Always state the currency next to every price."},
    ]
    result = run(srv, seeded, messages=messages)
    assert result.capture is not None and result.capture.corrections >= 1
    assert any("currency" in r.text.lower() for r in seeded.rules(actor="ana"))
