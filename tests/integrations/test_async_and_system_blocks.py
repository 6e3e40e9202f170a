"""Async SDK clients, wrong client kinds, and Anthropic's cached system blocks, through the
real openai / anthropic SDKs against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import asyncio
from typing import Any

import anthropic
import openai
import pytest
from _demo import ANTHROPIC_TOOLS, OPENAI_TOOLS, QUERY, get_price

from dctx.errors import AgentLoopError as TreeAgentLoopError
from dctx.integrations import (
    AgentLoopError,
    arun_anthropic_loop,
    arun_openai_loop,
    run_anthropic_loop,
    run_openai_loop,
)
from dctx.memory import Memory
from providers.wire_server import (
    CHAT,
    MESSAGES,
    WireServer,
    anthropic_message,
    anthropic_tool_use,
    openai_chat,
    openai_tool_calls,
)

PE_RULE = "flag the stock as expensive"
CACHED = [
    {"type": "text", "text": "You are a markets analyst."},
    {"type": "text", "text": "Long reference text.", "cache_control": {"type": "ephemeral"}},
]


def _anthropic_kw(**kw: Any) -> dict[str, Any]:
    return {
        "model": "claude-test",
        "messages": [{"role": "user", "content": QUERY}],
        "tools": ANTHROPIC_TOOLS,
        "functions": {"get_price": get_price},
        "actor": "ana",
        "skill": "analyst",
        **kw,
    }


def _script_anthropic(srv: WireServer) -> None:
    srv.script(
        MESSAGES,
        anthropic_tool_use(("toolu_1", "get_price", {"ticker": "GLBX", "source": "polygon"})),
        anthropic_message("| GLBX | 40.2 | expensive |"),
    )


def test_system_blocks_stay_blocks_and_the_cached_prefix_never_changes(
    srv: WireServer, seeded: Memory
) -> None:
    _script_anthropic(srv)
    client = anthropic.Anthropic(api_key="sk-ant-test", base_url=srv.url, max_retries=0)
    run_anthropic_loop(client, seeded, system=CACHED, **_anthropic_kw())
    first, second = (r.json["system"] for r in srv.to(MESSAGES))
    assert first == CACHED  # no stage-2 rule yet: exactly the user's blocks
    assert second[: len(CACHED)] == CACHED  # the cached prefix is byte-for-byte the same
    (extra,) = second[len(CACHED) :]
    assert extra["type"] == "text" and PE_RULE in extra["text"] and "cache_control" not in extra


def test_malformed_system_is_an_agent_loop_error(srv: WireServer, seeded: Memory) -> None:
    client = anthropic.Anthropic(api_key="sk-ant-test", base_url=srv.url, max_retries=0)
    with pytest.raises(AgentLoopError, match="content blocks"):
        run_anthropic_loop(client, seeded, system=[{"text": "no type"}], **_anthropic_kw())
    assert srv.to(MESSAGES) == []


def test_async_anthropic_loop_injects_guards_and_captures(srv: WireServer, seeded: Memory) -> None:
    _script_anthropic(srv)
    client = anthropic.AsyncAnthropic(api_key="sk-ant-test", base_url=srv.url, max_retries=0)

    async def aget_price(**args: Any) -> Any:
        await asyncio.sleep(0)
        return get_price(**args)

    kw = _anthropic_kw(functions={"get_price": aget_price})
    result = asyncio.run(arun_anthropic_loop(client, seeded, system=CACHED, **kw))
    assert result.text == "| GLBX | 40.2 | expensive |"
    assert result.outcomes[0].status == "ok" and '"pe_ratio": 35' in result.outcomes[0].result
    second = srv.to(MESSAGES)[1].json
    assert PE_RULE in second["system"][-1]["text"]
    assert result.capture is not None and result.capture.sessions == 1


def test_async_openai_loop_corrects_and_captures(srv: WireServer, seeded: Memory) -> None:
    srv.script(
        CHAT,
        openai_tool_calls(("call_1", "get_price", {"ticker": "GLBX", "source": "yahoo_legacy"})),
        openai_chat("| GLBX | 40.2 |"),
    )
    client = openai.AsyncOpenAI(api_key="sk-test", base_url=srv.openai_url, max_retries=0)
    result = asyncio.run(
        arun_openai_loop(
            client,
            seeded,
            model="test-model",
            messages=[{"role": "user", "content": QUERY}],
            tools=OPENAI_TOOLS,
            functions={"get_price": get_price},
            actor="ana",
            skill="analyst",
        )
    )
    (outcome,) = result.outcomes
    assert outcome.status == "corrected" and outcome.arguments["source"] == "polygon"
    assert len(srv.to(CHAT)) == 2
    assert result.capture is not None and result.capture.sessions == 1


def test_wrong_client_kind_is_a_typed_error_before_any_request(
    srv: WireServer, seeded: Memory
) -> None:
    aclient = openai.AsyncOpenAI(api_key="sk-test", base_url=srv.openai_url, max_retries=0)
    sclient = anthropic.Anthropic(api_key="sk-ant-test", base_url=srv.url, max_retries=0)
    oa_kw: dict[str, Any] = {
        "model": "m",
        "messages": [{"role": "user", "content": QUERY}],
        "actor": "ana",
        "skill": "analyst",
    }
    with pytest.raises(AgentLoopError, match="arun_openai_loop") as sync_on_async:
        run_openai_loop(aclient, seeded, **oa_kw)
    with pytest.raises(AgentLoopError, match="run_anthropic_loop"):
        asyncio.run(arun_anthropic_loop(sclient, seeded, **_anthropic_kw()))
    with pytest.raises(AgentLoopError, match=r"\.chat\.completions\.create"):
        run_openai_loop(sclient, seeded, **oa_kw)  # an Anthropic client in the OpenAI helper
    assert isinstance(sync_on_async.value, TreeAgentLoopError)
    assert srv.to(CHAT) == [] and srv.to(MESSAGES) == []
