"""`LoopSession`: the SDK-free core, for wrapping a loop you already have."""

from __future__ import annotations

import json

import pytest

import dctx.integrations as integrations
from dctx.integrations import AgentLoopError, LoopSession, ToolCallRequest
from dctx.memory import Memory

QUERY = "Where is Globex (GLBX) trading, and is it expensive?"


def test_own_loop_gets_both_stages_guards_and_capture(seeded: Memory) -> None:
    session = LoopSession(seeded, actor="ana", skill="analyst", query=QUERY, tools=["get_price"])
    assert "put the numbers in a table" in session.stage1[0]["content"]
    assert session.system("base") == "base"  # nothing for the system channel before data
    verdict = session.check("get_price", {"ticker": "GLBX", "source": "yahoo_legacy"})
    assert verdict.action == "correct" and verdict.arguments["source"] == "polygon"

    units = session.observe("get_price", verdict.arguments, json.dumps({"pe_ratio": 35}))
    assert [u.channel for u in units] == ["system"]
    system = session.system("base")
    assert system is not None and system.startswith("base\n\n")
    assert "flag the stock as expensive" in system

    report = session.capture(
        [
            {"role": "user", "content": QUERY},
            {"role": "assistant", "content": "Expensive: P/E 35."},
            {"role": "user", "content": "Always add the ticker's exchange next to its name."},
        ]
    )
    assert report.sessions == 1
    assert any("exchange" in r.text for r in seeded.rules(actor="ana"))


def test_handle_runs_functions_and_reports_tool_errors(seeded: Memory) -> None:
    session = LoopSession(seeded, actor="ana", skill="analyst", query=QUERY, tools=["get_price"])

    def broken(**kwargs: object) -> str:
        raise RuntimeError("backend down")

    outcome = session.handle(
        ToolCallRequest("c1", "get_price", {"ticker": "X"}), {"get_price": broken}
    )
    assert outcome.status == "error" and "backend down" in outcome.result
    unknown = session.handle(ToolCallRequest("c2", "nope", {}), {})
    assert unknown.status == "error" and "unknown tool" in unknown.result


def test_guards_off_allows_everything(seeded: Memory) -> None:
    session = LoopSession(
        seeded, actor="ana", skill="analyst", query=QUERY, tools=["get_price"], guards=False
    )
    assert session.check("get_price", {"source": "yahoo_legacy"}).action == "allow"


def test_empty_query_is_a_typed_error(seeded: Memory) -> None:
    with pytest.raises(AgentLoopError, match="non-empty user query"):
        LoopSession(seeded, actor="ana", skill="analyst", query="  ")


def test_sdk_helpers_are_imported_lazily() -> None:
    assert integrations.run_openai_loop.__module__ == "dctx.integrations.openai_loop"
    assert integrations.DctxHook.__module__ == "dctx.integrations.langgraph_hook"
    with pytest.raises(AttributeError):
        integrations.nothing_here  # noqa: B018
