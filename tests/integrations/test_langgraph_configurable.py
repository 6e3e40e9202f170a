"""One compiled graph, many users: the actor comes from `config["configurable"]` per call,
on LangGraph's `create_react_agent` hook and on LangChain's `create_agent` middleware."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from langchain_core.tools import tool
from langgraph.prebuilt import create_react_agent
from pydantic import Field

from dctx.integrations import AgentLoopError
from dctx.integrations.langchain_middleware import DctxMiddleware
from dctx.integrations.langgraph_hook import DctxHook
from dctx.memory import Memory

QUERY = "Where is Globex (GLBX) trading, and is it expensive?"
ANA_RULE = "put the numbers in a table"  # learned from ana (examples/_demo.py)
BO_CORRECTION = [
    {"role": "user", "content": "Where is GLBX trading?"},
    {"role": "assistant", "content": "GLBX is at 40.2."},
    {"role": "user", "content": "Always state the currency next to every price."},
]


class ScriptedModel(GenericFakeChatModel):
    """Answers from a script, accepts tools, and records what each call was shown."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedModel:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.seen.append(list(messages))
        return super()._generate(messages, *args, **kwargs)


@tool
def get_price(ticker: str, source: str = "polygon") -> str:
    """Quote for a ticker."""
    return json.dumps({"ticker": ticker, "source": source, "price": 40.2, "pe_ratio": 12})


def _config(actor: str) -> dict[str, Any]:
    return {"configurable": {"actor": actor, "skill": "analyst", "thread_id": f"t-{actor}"}}


def _shown(model: ScriptedModel) -> str:
    return "\n".join(str(m.content) for m in model.seen[0])


@pytest.fixture
def two_users(seeded: Memory) -> Memory:
    seeded.capture(BO_CORRECTION, actor="bo", skill="analyst", conversation_id="bo-1")
    currency = [r for r in seeded.rules(actor="bo") if "currency" in r.text.lower()]
    assert currency and not any(ANA_RULE in r.text for r in seeded.rules(actor="bo"))
    return seeded


def test_one_react_graph_serves_two_actors_each_with_their_own_rules(two_users: Memory) -> None:
    hook = DctxHook(two_users)  # no actor: every call names its own
    sessions = two_users.store.count_rows()["sessions"]
    seen: dict[str, str] = {}
    for actor in ("ana", "bo"):
        model = ScriptedModel(messages=iter([AIMessage("done")]))
        graph = create_react_agent(model, hook.wrap_tools([get_price]), pre_model_hook=hook)
        state = graph.invoke({"messages": [("user", QUERY)]}, _config(actor))
        seen[actor] = _shown(model)
        report = hook.capture(state["messages"], _config(actor))
        assert report.sessions == 1
    assert ANA_RULE in seen["ana"] and "currency" not in seen["ana"].lower()
    assert "currency" in seen["bo"].lower() and ANA_RULE not in seen["bo"]
    assert two_users.store.count_rows()["sessions"] == sessions + 2


def test_one_compiled_agent_with_the_middleware_serves_two_actors(two_users: Memory) -> None:
    dctx = DctxMiddleware(two_users)
    model = ScriptedModel(messages=iter([AIMessage("a"), AIMessage("b")]))
    agent = create_agent(model, [get_price], system_prompt="Be brief.", middleware=[dctx])
    shown = []
    for actor in ("ana", "bo"):
        before = len(model.seen)
        state = agent.invoke({"messages": [("user", QUERY)]}, _config(actor))
        shown.append("\n".join(str(m.content) for m in model.seen[before]))
        assert dctx.capture(state["messages"], _config(actor)).sessions == 1
        assert all(ANA_RULE not in str(m.content) for m in state["messages"])  # state is clean
    ana, bo = shown
    assert ana.startswith("Be brief.") and ANA_RULE in ana and "currency" not in ana.lower()
    assert "currency" in bo.lower() and ANA_RULE not in bo


def test_middleware_guards_tool_calls_per_actor(two_users: Memory) -> None:
    dctx = DctxMiddleware(two_users)
    args = {"ticker": "GLBX", "source": "yahoo_legacy"}
    call = AIMessage(content="", tool_calls=[{"id": "c1", "name": "get_price", "args": args}])
    model = ScriptedModel(messages=iter([call, AIMessage("done")]))
    agent = create_agent(model, [get_price], middleware=[dctx])
    state = agent.invoke({"messages": [("user", QUERY)]}, _config("ana"))
    result = next(m for m in state["messages"] if getattr(m, "tool_call_id", None) == "c1")
    assert json.loads(str(result.content))["source"] == "polygon"  # corrected before it ran
    assert dctx.hook.session is not None
    assert dctx.hook.session.outcomes[0].status == "corrected"


def test_a_call_without_actor_is_a_typed_error(two_users: Memory) -> None:
    hook = DctxHook(two_users)
    graph = create_react_agent(
        ScriptedModel(messages=iter([AIMessage("x")])), [get_price], pre_model_hook=hook
    )
    with pytest.raises(AgentLoopError, match="configurable"):
        graph.invoke({"messages": [("user", QUERY)]}, {"configurable": {"skill": "analyst"}})


def test_middleware_injects_and_guards_in_an_async_agent(two_users: Memory) -> None:
    import asyncio

    dctx = DctxMiddleware(two_users)
    args = {"ticker": "GLBX", "source": "yahoo_legacy"}
    call = AIMessage(content="", tool_calls=[{"id": "c1", "name": "get_price", "args": args}])
    model = ScriptedModel(messages=iter([call, AIMessage("done")]))
    agent = create_agent(model, [get_price], middleware=[dctx])
    state = asyncio.run(agent.ainvoke({"messages": [("user", QUERY)]}, _config("ana")))
    assert ANA_RULE in _shown(model)
    result = next(m for m in state["messages"] if getattr(m, "tool_call_id", None) == "c1")
    assert json.loads(str(result.content))["source"] == "polygon"
