"""The LangGraph hook in a real `create_react_agent` graph with a langchain-core fake model."""

from __future__ import annotations

import importlib
import json
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.outputs import ChatResult
from langchain_core.tools import tool
from langgraph.prebuilt import create_react_agent
from pydantic import Field

from dctx.integrations import AgentLoopError
from dctx.integrations.langgraph_hook import DctxHook
from dctx.memory import Memory

PE_RULE = "flag the stock as expensive"
TABLE_RULE = "put the numbers in a table"
QUERY = "Where is Globex (GLBX) trading, and is it expensive?"


class ToolModel(GenericFakeChatModel):
    """GenericFakeChatModel answers from a script; this one also accepts tools and records
    every list of messages it was called with."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ToolModel:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


def model(*replies: AIMessage) -> ToolModel:
    return ToolModel(messages=iter(replies))


def call(call_id: str, name: str, **args: Any) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"id": call_id, "name": name, "args": args}])


ran: list[dict[str, Any]] = []


@tool
def get_price(ticker: str, source: str = "polygon") -> str:
    """Quote for a ticker."""
    ran.append({"ticker": ticker, "source": source})
    return json.dumps({"ticker": ticker, "source": source, "price": 40.2, "pe_ratio": 35})


@tool
def list_tickers() -> str:
    """All tickers."""
    return '["GLBX"]'


@pytest.fixture(autouse=True)
def _reset() -> Iterator[None]:
    ran.clear()
    yield


def text(messages: list[BaseMessage]) -> str:
    return "\n".join(str(m.content) for m in messages)


def test_hook_injects_by_stage_guards_and_captures(seeded: Memory) -> None:
    llm = model(call("c1", "get_price", ticker="GLBX", source="yahoo_legacy"), AIMessage("done"))
    hook = DctxHook(seeded, actor="ana", skill="analyst")
    agent = create_react_agent(llm, hook.wrap_tools([get_price]), pre_model_hook=hook)
    state = agent.invoke({"messages": [("user", QUERY)]})

    first, second = llm.seen
    assert TABLE_RULE in text(first) and PE_RULE not in text(first)
    assert not isinstance(first[0], SystemMessage)  # nothing for the system channel yet
    assert isinstance(second[0], SystemMessage) and PE_RULE in str(second[0].content)
    assert ran == [{"ticker": "GLBX", "source": "polygon"}]  # corrected before it ran
    # the graph state holds no injection
    assert all(TABLE_RULE not in str(m.content) for m in state["messages"])
    report = hook.capture(state["messages"])
    assert report.sessions == 1 and report.messages == 4
    assert hook.session is not None and hook.session.outcomes[0].status == "corrected"


def test_rejected_call_is_handed_back_and_left_out_of_capture(seeded: Memory) -> None:
    rule = next(r for r in seeded.rules() if r.trigger.tool == "get_price")
    seeded.edit(rule.id, "Call list_tickers before calling get_price.")
    llm = model(
        call("c1", "get_price", ticker="GLBX"),
        call("c2", "list_tickers"),
        call("c3", "get_price", ticker="GLBX"),
        AIMessage("GLBX is at 40.2"),
    )
    hook = DctxHook(seeded, actor="ana", skill="analyst")
    agent = create_react_agent(llm, hook.wrap_tools([get_price, list_tickers]), pre_model_hook=hook)
    state = agent.invoke({"messages": [("user", QUERY)]})
    blocked = state["messages"][2]
    assert blocked.tool_call_id == "c1" and "dctx guard blocked" in str(blocked.content)
    assert len(ran) == 1  # only the call after list_tickers ran
    assert hook.capture(state["messages"]).messages == 6  # c1 and its rejection left out


def test_hook_without_user_message_is_a_typed_error(seeded: Memory) -> None:
    hook = DctxHook(seeded, actor="ana", skill="analyst")
    with pytest.raises(AgentLoopError, match="user message"):
        hook({"messages": [AIMessage("hi")]})
    with pytest.raises(AgentLoopError, match="invoke the graph first"):
        hook.capture([])


def test_example_runs_with_a_chat_model(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Any,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("DCTX_DB", str(tmp_path / "ex.db"))
    monkeypatch.setenv("DCTX_EMBEDDER", "hashing")
    example = importlib.import_module("langgraph_hook")
    llm = model(call("c1", "get_price", ticker="GLBX", source="yahoo_legacy"), AIMessage("ok"))
    example.main(llm)
    out = capsys.readouterr().out
    assert "answer: ok" in out and '"source": "polygon"} -> corrected' in out
    assert PE_RULE in text(llm.seen[1])
