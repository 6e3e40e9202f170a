"""The OpenAI adapter, through the real openai SDK, against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import openai
import pytest

from dctx.capture.reading.llm import AFTERMATH
from dctx.errors import ProviderError
from dctx.providers.llm import parse_llm_spec
from dctx.providers.openai_llm import OpenAILLM
from dctx.providers.retry import RetryPolicy
from providers.wire_server import (
    CHAT,
    Reply,
    WireServer,
    openai_chat,
    openai_error,
)

FAST = RetryPolicy(max_retries=2, initial_delay=0.01, multiplier=2, jitter=0)
SCHEMA = AFTERMATH.schema


@pytest.fixture
def srv() -> Iterator[WireServer]:
    with WireServer() as server:
        yield server


def make(
    srv: WireServer, *, json_mode: str = "auto", **kw: object
) -> tuple[OpenAILLM, list[float]]:
    waits: list[float] = []
    cfg = parse_llm_spec(
        f"openai-compatible:test-model@{srv.openai_url}",
        api_key="sk-test",
        retry=kw.pop("retry", FAST),  # type: ignore[arg-type]
        timeout=kw.pop("timeout", 5.0),  # type: ignore[arg-type]
        json_mode=json_mode,  # type: ignore[arg-type]
        env={},
        **kw,  # type: ignore[arg-type]
    )
    return OpenAILLM(cfg, sleep=waits.append), waits


def test_plain_completion_sends_system_user_and_key(srv: WireServer) -> None:
    llm, _ = make(srv, temperature=0.0, max_tokens=50)
    srv.script(CHAT, openai_chat("hello there", prompt_tokens=21, completion_tokens=3))
    text, usage = llm.complete("be brief", "say hello")
    assert text == "hello there"
    assert (usage.input_tokens, usage.output_tokens) == (21, 3)
    (req,) = srv.to(CHAT)
    body = req.json
    assert body["model"] == "test-model"
    assert body["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "say hello"},
    ]
    assert body["temperature"] == 0.0
    assert body["max_tokens"] == 50  # compatible servers get max_tokens
    assert "response_format" not in body
    assert req.headers["authorization"] == "Bearer sk-test"


def test_schema_uses_json_schema_response_format(srv: WireServer) -> None:
    llm, _ = make(srv)
    srv.script(CHAT, openai_chat('{"aftermath": "acceptance"}'))
    text, _ = llm.complete("sys", "user", schema=SCHEMA)
    assert text == '{"aftermath": "acceptance"}'
    fmt = srv.to(CHAT)[0].json["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"]["schema"] == SCHEMA
    assert fmt["json_schema"]["strict"] is True
    assert fmt["json_schema"]["name"] == "AftermathOutput"
    # With the schema enforced by the server it is not repeated in the prompt.
    assert "JSON schema" not in srv.to(CHAT)[0].json["messages"][0]["content"]


def test_refused_json_schema_steps_down_and_remembers(srv: WireServer) -> None:
    llm, _ = make(srv)
    srv.script(
        CHAT,
        openai_error(400, "response_format json_schema is not supported"),
        openai_chat('{"aftermath": "correction"}'),
        openai_chat('{"aftermath": "one_off"}'),
    )
    assert llm.complete("sys", "u1", schema=SCHEMA)[0] == '{"aftermath": "correction"}'
    assert llm.json_mode == "json_object_schema"
    assert llm.complete("sys", "u2", schema=SCHEMA)[0] == '{"aftermath": "one_off"}'
    formats = [r.json.get("response_format", {}).get("type") for r in srv.to(CHAT)]
    assert formats == ["json_schema", "json_object", "json_object"]
    second = srv.to(CHAT)[1].json
    assert second["response_format"]["schema"] == SCHEMA  # llama.cpp grammar from the schema
    assert "JSON schema" in second["messages"][0]["content"]  # and the schema in the prompt
    assert second["messages"][0]["content"].startswith("sys")


def test_ladder_ends_in_prompt_only_then_fails(srv: WireServer) -> None:
    llm, _ = make(srv)
    srv.script(CHAT, *[openai_error(422, "unknown field")] * 4)
    with pytest.raises(ProviderError, match="HTTP 422"):
        llm.complete("sys", "u", schema=SCHEMA)
    formats = [r.json.get("response_format", {}).get("type") for r in srv.to(CHAT)]
    assert formats == ["json_schema", "json_object", "json_object", None]


def test_fixed_json_object_mode(srv: WireServer) -> None:
    llm, _ = make(srv, json_mode="json_object")
    srv.script(CHAT, openai_chat("{}"))
    llm.complete("", "u", schema=SCHEMA)
    body = srv.to(CHAT)[0].json
    assert body["response_format"] == {"type": "json_object"}
    assert body["messages"][0]["role"] == "system"  # the schema instruction alone


def test_429_then_success_is_retried_with_backoff(srv: WireServer) -> None:
    llm, waits = make(srv)
    srv.script(CHAT, openai_error(429, "slow down"), openai_error(503), openai_chat("ok"))
    assert llm.complete("s", "u")[0] == "ok"
    assert len(srv.to(CHAT)) == 3
    assert waits == [0.01, 0.02]  # exponential, from the policy
    assert [r.headers["x-stainless-retry-count"] for r in srv.to(CHAT)] == ["0", "0", "0"]


def test_retry_after_header_is_honored(srv: WireServer) -> None:
    llm, waits = make(srv)
    srv.script(CHAT, openai_error(429, retry_after="0.05"), openai_chat("ok"))
    assert llm.complete("s", "u")[0] == "ok"
    assert waits == [0.05]


def test_persistent_500_gives_up_with_provider_error(srv: WireServer) -> None:
    llm, waits = make(srv)
    srv.script(CHAT, *[openai_error(500, "internal")] * 5)
    with pytest.raises(ProviderError, match=r"HTTP 500.*after 2 retries") as info:
        llm.complete("s", "u")
    assert isinstance(info.value.__cause__, openai.InternalServerError)
    assert len(srv.to(CHAT)) == 3
    assert len(waits) == 2


def test_client_errors_are_not_retried(srv: WireServer) -> None:
    llm, waits = make(srv)
    srv.script(CHAT, openai_error(404, "model not found"))
    with pytest.raises(ProviderError, match="model not found"):
        llm.complete("s", "u")
    assert len(srv.to(CHAT)) == 1 and waits == []


def test_rejected_key_names_the_fix(srv: WireServer) -> None:
    cfg = parse_llm_spec("openai:gpt-x", api_key="bad", base_url=srv.openai_url, env={})
    llm = OpenAILLM(cfg)
    srv.script(CHAT, openai_error(401, "Incorrect API key"))
    with pytest.raises(ProviderError, match=r"refused \(HTTP 401\); check OPENAI_API_KEY"):
        llm.complete("s", "u")


def test_timeout_is_retried_then_reported(srv: WireServer) -> None:
    policy = RetryPolicy(max_retries=1, initial_delay=0.01, jitter=0)
    llm, waits = make(srv, timeout=0.3, retry=policy)
    srv.script(CHAT, *[Reply(body=openai_chat("late").body, delay=1.5)] * 2)
    with pytest.raises(ProviderError, match=r"within 0.3s \(after 1 retries\)") as info:
        llm.complete("s", "u")
    assert isinstance(info.value.__cause__, openai.APITimeoutError)
    assert len(srv.to(CHAT)) == 2 and waits == [0.01]


def test_slow_then_fast_recovers(srv: WireServer) -> None:
    llm, _ = make(srv, timeout=0.3)
    srv.script(CHAT, Reply(body=openai_chat("late").body, delay=1.0), openai_chat("fast"))
    assert llm.complete("s", "u")[0] == "fast"


def test_malformed_json_body_is_a_provider_error(srv: WireServer) -> None:
    llm, _ = make(srv)
    srv.script(CHAT, Reply(body='{"choices": [ {"message": '))
    with pytest.raises(ProviderError, match="unusable response"):
        llm.complete("s", "u")
    assert len(srv.to(CHAT)) == 1


def test_connection_refused_is_a_provider_error() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again when the block ends: nobody listens
    cfg = parse_llm_spec(
        f"openai-compatible:m@http://127.0.0.1:{port}/v1",
        retry=RetryPolicy(max_retries=1, initial_delay=0.0, jitter=0),
        env={},
    )
    with pytest.raises(ProviderError, match=r"could not reach .* \(after 1 retries\)"):
        OpenAILLM(cfg).complete("s", "u")


def test_missing_usage_is_estimated(srv: WireServer) -> None:
    llm, _ = make(srv)
    srv.script(CHAT, openai_chat("three little words", prompt_tokens=None))
    _, usage = llm.complete("one two", "three four five")
    assert (usage.input_tokens, usage.output_tokens) == (5, 3)


def test_refusal_and_empty_choices(srv: WireServer) -> None:
    llm, _ = make(srv)
    srv.script(CHAT, openai_chat(None, refusal="I cannot help"))
    with pytest.raises(ProviderError, match="refused: I cannot help"):
        llm.complete("s", "u")
    body = openai_chat("x").body
    body["choices"] = []
    srv.script(CHAT, Reply(body=body))
    with pytest.raises(ProviderError, match="no choices"):
        llm.complete("s", "u")


def test_official_endpoint_uses_max_completion_tokens(srv: WireServer) -> None:
    # The official endpoint is recognized by its default URL; here the server stands in for
    # it through the SDK's own base_url, which the config leaves unset.
    cfg = parse_llm_spec("openai:gpt-x", api_key="sk", max_tokens=9, env={})
    llm = OpenAILLM(cfg, client=openai.OpenAI(api_key="sk", base_url=srv.openai_url))
    srv.script(CHAT, openai_chat("ok"))
    llm.complete("s", "u")
    body = srv.to(CHAT)[0].json
    assert body["max_completion_tokens"] == 9 and "max_tokens" not in body


def test_unreasonable_retry_after_is_not_waited_for(srv: WireServer) -> None:
    llm, waits = make(srv)  # max_retry_after defaults to 60 s
    srv.script(CHAT, openai_error(429, "quota", retry_after="3600"), openai_chat("never"))
    with pytest.raises(ProviderError, match="HTTP 429"):
        llm.complete("s", "u")
    assert waits == [] and len(srv.to(CHAT)) == 1
