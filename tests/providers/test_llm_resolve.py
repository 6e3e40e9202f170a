"""Resolving "provider:model" specs: precedence, keys, URLs, missing extras, retry policy."""

from __future__ import annotations

import sys

import pytest

from dctx.errors import ConfigError, MissingDependencyError
from dctx.providers.base import LLM
from dctx.providers.fakes import ScriptedLLM
from dctx.providers.llm import PROVIDERS, parse_llm_spec, resolve_llm
from dctx.providers.retry import RetryPolicy, retry_after_seconds


def test_openai_key_from_env_and_official_endpoint() -> None:
    cfg = parse_llm_spec("openai:gpt-4o-mini", env={"OPENAI_API_KEY": "sk-env"})
    assert (cfg.provider, cfg.api, cfg.model) == ("openai", "openai", "gpt-4o-mini")
    assert cfg.api_key == "sk-env"
    assert cfg.base_url is None
    assert cfg.id == "openai:gpt-4o-mini"
    assert "sk-env" not in repr(cfg)  # keys never show up in logs / reprs


def test_argument_beats_environment() -> None:
    env = {"OPENAI_API_KEY": "sk-env", "DCTX_LLM_BASE_URL": "http://10.0.0.1:1/v1"}
    cfg = parse_llm_spec("openai:m", api_key="sk-arg", base_url="http://127.0.0.1:9/v1/", env=env)
    assert cfg.api_key == "sk-arg"
    assert cfg.base_url == "http://127.0.0.1:9/v1"  # trailing slash removed
    assert cfg.id == "openai:m@http://127.0.0.1:9/v1"


def test_base_url_env_order_for_openai() -> None:
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:2/v1", "DCTX_LLM_BASE_URL": "http://127.0.0.1:1/v1"}
    assert parse_llm_spec("openai:m", env=env).base_url == "http://127.0.0.1:1/v1"
    env.pop("DCTX_LLM_BASE_URL")
    assert parse_llm_spec("openai:m", env=env).base_url == "http://127.0.0.1:2/v1"


def test_missing_key_names_the_env_var() -> None:
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        parse_llm_spec("openai:gpt-4o", env={})
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        parse_llm_spec("anthropic:claude-sonnet-4-5", env={})
    with pytest.raises(ConfigError, match="OPENROUTER_API_KEY"):
        parse_llm_spec("openrouter:meta/llama", env={})


def test_local_servers_need_no_key() -> None:
    cfg = parse_llm_spec("openai-compatible:qwen2.5:7b@http://127.0.0.1:8000/v1", env={})
    assert cfg.model == "qwen2.5:7b"  # colons inside the model name survive
    assert cfg.base_url == "http://127.0.0.1:8000/v1"
    assert cfg.api_key == "not-needed"
    # A key in the environment is still sent (vLLM --api-key).
    cfg = parse_llm_spec("vllm:m", env={"DCTX_LLM_API_KEY": "local"})
    assert (cfg.base_url, cfg.api_key) == ("http://127.0.0.1:8000/v1", "local")
    assert cfg.id == "vllm:m"  # the preset's usual URL is not repeated in the id
    # openai:MODEL pointed elsewhere does not need the OpenAI key either.
    cfg = parse_llm_spec("openai:m", env={"OPENAI_BASE_URL": "http://127.0.0.1:5/v1"})
    assert cfg.api_key == "not-needed"


def test_presets_are_data() -> None:
    assert {"openai", "anthropic", "openai-compatible", "ollama", "llamacpp"} <= set(PROVIDERS)
    assert parse_llm_spec("ollama:llama3.2", env={}).base_url == "http://127.0.0.1:11434/v1"
    assert parse_llm_spec("OLLAMA:x", env={}).provider == "ollama"


@pytest.mark.parametrize(
    ("spec", "needle"),
    [
        ("gpt-4o", "provider:model"),
        ("openai:", "provider:model"),
        ("nope:model", "unknown LLM provider"),
        ("openai-compatible:m", "DCTX_LLM_BASE_URL"),
        ("openai:@http://127.0.0.1:1/v1", "names no model"),
    ],
)
def test_bad_specs_say_how_to_fix(spec: str, needle: str) -> None:
    with pytest.raises(ConfigError, match=needle):
        parse_llm_spec(spec, env={"OPENAI_API_KEY": "k"})


def test_bad_url_and_numbers() -> None:
    with pytest.raises(ConfigError, match="http"):
        parse_llm_spec("openai:m", base_url="ftp://x", env={})
    with pytest.raises(ConfigError, match="DCTX_LLM_TIMEOUT"):
        parse_llm_spec("ollama:m", env={"DCTX_LLM_TIMEOUT": "soon"})


def test_timeout_and_retries_from_env() -> None:
    env = {"DCTX_LLM_TIMEOUT": "2.5", "DCTX_LLM_MAX_RETRIES": "7"}
    cfg = parse_llm_spec("ollama:m", env=env)
    assert cfg.timeout == 2.5
    assert cfg.retry.max_retries == 7
    cfg = parse_llm_spec("ollama:m", timeout=9, retry=RetryPolicy(max_retries=1), env=env)
    assert (cfg.timeout, cfg.retry.max_retries) == (9, 1)


def test_missing_sdk_raises_missing_dependency(monkeypatch: pytest.MonkeyPatch) -> None:
    # A None entry in sys.modules is how Python marks a module as not importable.
    monkeypatch.setitem(sys.modules, "anthropic", None)
    with pytest.raises(MissingDependencyError, match=r"pip install 'dctx\[anthropic\]'"):
        resolve_llm("anthropic:claude-x", api_key="k", env={})
    monkeypatch.setitem(sys.modules, "openai", None)
    with pytest.raises(MissingDependencyError, match=r"dctx\[openai\]"):
        resolve_llm("ollama:m", env={})


def test_resolve_returns_instances_unchanged_and_adapters() -> None:
    fake = ScriptedLLM()
    assert resolve_llm(fake) is fake
    llm = resolve_llm("anthropic:claude-x", api_key="k", env={})
    assert isinstance(llm, LLM)
    assert llm.id == "anthropic:claude-x"
    assert type(llm).__name__ == "AnthropicLLM"
    assert type(resolve_llm("ollama:m", env={})).__name__ == "OpenAILLM"
    with pytest.raises(ConfigError):
        resolve_llm(42)  # type: ignore[arg-type]


def test_retry_policy_backoff_is_exponential_and_capped() -> None:
    policy = RetryPolicy(initial_delay=0.5, multiplier=2, max_delay=3, jitter=0)
    assert [policy.delay(n) for n in range(5)] == [0.5, 1.0, 2.0, 3.0, 3.0]
    assert policy.delay(0, retry_after=4.0) == 4.0  # the server's wish wins
    assert policy.delay(0, retry_after=600.0) == 0.5  # unless it is unreasonable
    jittered = RetryPolicy(initial_delay=1, jitter=0.2)
    assert all(0.8 <= jittered.delay(0) <= 1.2 for _ in range(50))
    assert [
        s for s in (400, 401, 404, 408, 409, 429, 500, 503, 529) if policy.retries_status(s)
    ] == [
        408,
        409,
        429,
        500,
        503,
        529,
    ]
    with pytest.raises(ValueError):
        RetryPolicy(jitter=1.5)


def test_retry_after_headers() -> None:
    assert retry_after_seconds({"retry-after": "3"}) == 3.0
    assert retry_after_seconds({"retry-after-ms": "250"}) == 0.25
    assert retry_after_seconds({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None
    assert retry_after_seconds(None) is None
