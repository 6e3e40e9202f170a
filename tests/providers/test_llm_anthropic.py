"""The Anthropic adapter, through the real anthropic SDK, against a real HTTP server."""

from __future__ import annotations

from collections.abc import Iterator

import anthropic
import pytest

from dctx.compile.compiler_llm import COMPILE
from dctx.errors import ProviderError
from dctx.providers.anthropic_llm import DEFAULT_MAX_TOKENS, AnthropicLLM
from dctx.providers.llm import parse_llm_spec
from dctx.providers.retry import RetryPolicy
from providers.wire_server import (
    MESSAGES,
    Reply,
    WireServer,
    anthropic_error,
    anthropic_message,
)

FAST = RetryPolicy(max_retries=2, initial_delay=0.01, multiplier=3, jitter=0)
SCHEMA = COMPILE.schema


@pytest.fixture
def srv() -> Iterator[WireServer]:
    with WireServer() as server:
        yield server


def make(
    srv: WireServer, *, timeout: float = 5.0, retry: RetryPolicy = FAST, **kw: object
) -> tuple[AnthropicLLM, list[float]]:
    waits: list[float] = []
    cfg = parse_llm_spec(
        "anthropic:claude-test",
        api_key="sk-ant-test",
        base_url=srv.url,
        timeout=timeout,
        retry=retry,
        env={},
        **kw,  # type: ignore[arg-type]
    )
    return AnthropicLLM(cfg, sleep=waits.append), waits


def test_message_request_and_usage(srv: WireServer) -> None:
    llm, _ = make(srv, temperature=0.2)
    srv.script(MESSAGES, anthropic_message("hi", input_tokens=30, output_tokens=4))
    text, usage = llm.complete("be terse", "greet me")
    assert text == "hi"
    assert (usage.input_tokens, usage.output_tokens) == (30, 4)
    (req,) = srv.to(MESSAGES)
    body = req.json
    assert body["model"] == "claude-test"
    assert body["system"] == "be terse"
    assert body["messages"] == [{"role": "user", "content": "greet me"}]
    assert body["max_tokens"] == DEFAULT_MAX_TOKENS
    assert body["temperature"] == 0.2
    assert "output_config" not in body
    assert "anthropic-version" in req.headers
    sent = req.headers.get("x-api-key") or req.headers.get("authorization", "")
    assert sent.endswith("sk-ant-test")


def test_cached_input_tokens_count_as_input(srv: WireServer) -> None:
    llm, _ = make(srv)
    srv.script(MESSAGES, anthropic_message("x", input_tokens=3, cache_read_input_tokens=100))
    assert llm.complete("s", "u")[1].input_tokens == 103


def test_schema_goes_to_structured_outputs(srv: WireServer) -> None:
    llm, _ = make(srv)
    srv.script(MESSAGES, anthropic_message('{"rules": []}'))
    assert llm.complete("sys", "u", schema=SCHEMA)[0] == '{"rules": []}'
    body = srv.to(MESSAGES)[0].json
    assert body["output_config"] == {"format": {"type": "json_schema", "schema": SCHEMA}}
    assert body["system"] == "sys"


def test_model_without_structured_outputs_gets_schema_in_prompt(srv: WireServer) -> None:
    llm, _ = make(srv)
    srv.script(
        MESSAGES,
        anthropic_error(400, "output_config.format: not supported for this model"),
        anthropic_message('{"rules": []}'),
        anthropic_message('{"rules": []}'),
    )
    llm.complete("sys", "u", schema=SCHEMA)
    assert llm.json_mode == "prompt"
    llm.complete("sys", "u2", schema=SCHEMA)
    bodies = [r.json for r in srv.to(MESSAGES)]
    assert ["output_config" in b for b in bodies] == [True, False, False]
    assert bodies[1]["system"].startswith("sys\n\n")
    assert '"additionalProperties":false' in bodies[1]["system"]


def test_overloaded_and_rate_limited_are_retried(srv: WireServer) -> None:
    llm, waits = make(srv)
    srv.script(MESSAGES, anthropic_error(529), anthropic_error(429), anthropic_message("ok"))
    assert llm.complete("s", "u")[0] == "ok"
    assert len(srv.to(MESSAGES)) == 3
    assert waits == [0.01, 0.03]


def test_persistent_500(srv: WireServer) -> None:
    llm, _ = make(srv)
    srv.script(MESSAGES, *[anthropic_error(500, "kaput")] * 3)
    with pytest.raises(ProviderError, match=r"HTTP 500.*after 2 retries.*kaput") as info:
        llm.complete("s", "u")
    assert isinstance(info.value.__cause__, anthropic.InternalServerError)
    assert len(srv.to(MESSAGES)) == 3


def test_rejected_key(srv: WireServer) -> None:
    llm, waits = make(srv)
    srv.script(MESSAGES, anthropic_error(401, "invalid x-api-key"))
    with pytest.raises(ProviderError, match="ANTHROPIC_API_KEY"):
        llm.complete("s", "u")
    assert waits == []


def test_timeout(srv: WireServer) -> None:
    llm, _ = make(srv, timeout=0.3, retry=RetryPolicy(max_retries=0))
    srv.script(MESSAGES, Reply(body=anthropic_message("late").body, delay=1.5))
    with pytest.raises(ProviderError, match=r"within 0\.3s") as info:
        llm.complete("s", "u")
    assert isinstance(info.value.__cause__, anthropic.APITimeoutError)


def test_malformed_body(srv: WireServer) -> None:
    llm, _ = make(srv)
    srv.script(MESSAGES, Reply(body="<html>gateway</html>{"))
    with pytest.raises(ProviderError):
        llm.complete("s", "u")


def test_refusal_and_empty_content(srv: WireServer) -> None:
    llm, _ = make(srv)
    srv.script(MESSAGES, anthropic_message("no", stop_reason="refusal"))
    with pytest.raises(ProviderError, match="refused"):
        llm.complete("s", "u")
    body = anthropic_message("x").body
    body["content"] = []
    srv.script(MESSAGES, Reply(body=body))
    with pytest.raises(ProviderError, match="no text"):
        llm.complete("s", "u")
