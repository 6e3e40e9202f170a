"""Resolve "provider:model" strings to LLMs, lazily: the SDK is imported on first use.

Spec forms (provider names are case-insensitive, the model is passed through unchanged):

    openai:gpt-4o-mini
    anthropic:claude-sonnet-4-5
    openai-compatible:MODEL@http://127.0.0.1:8000/v1      any OpenAI-compatible server
    ollama:llama3.2 / vllm:MODEL / llamacpp:MODEL / lmstudio:MODEL / openrouter:VENDOR/MODEL
                                                          presets with a default base URL

`@URL` may follow any model. Configuration is read here and only here, closest wins:
arguments > the spec's @URL > environment > preset defaults.

    API key    OPENAI_API_KEY (then DCTX_LLM_API_KEY) for the OpenAI family,
               ANTHROPIC_API_KEY for Anthropic, OPENROUTER_API_KEY for OpenRouter
    base URL   DCTX_LLM_BASE_URL, then OPENAI_BASE_URL (OpenAI family) / ANTHROPIC_BASE_URL
    timeout    DCTX_LLM_TIMEOUT (seconds per request, default 60)
    retries    DCTX_LLM_MAX_RETRIES (default 3)

A key is required only by the official endpoints; local servers get a placeholder.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from dctx.errors import ConfigError, MissingDependencyError
from dctx.providers.base import LLM
from dctx.providers.retry import RetryPolicy

__all__ = [
    "PROVIDERS",
    "JsonMode",
    "ProviderConfig",
    "ProviderPreset",
    "llm_from_config",
    "parse_llm_spec",
    "require_sdk",
    "resolve_llm",
]

Api = Literal["openai", "anthropic"]
#: How a schema is enforced. "auto" tries the strongest mode the server accepts, then steps
#: down on HTTP 400/422: json_schema -> json_object_schema -> json_object -> prompt.
JsonMode = Literal["auto", "json_schema", "json_object_schema", "json_object", "prompt"]
JSON_MODES: tuple[str, ...] = ("auto", "json_schema", "json_object_schema", "json_object", "prompt")

NO_KEY = "not-needed"  # sent to servers that ignore keys (the SDKs insist on one)
DEFAULT_TIMEOUT = 60.0


@dataclass(frozen=True, slots=True)
class ProviderPreset:
    """What a provider name means: its wire protocol, where its key and URL come from."""

    api: Api
    key_env: tuple[str, ...]
    base_url_env: tuple[str, ...]
    default_base_url: str | None = None
    needs_key: bool = True  # only for the default (official) endpoint
    label: str = ""


_OPENAI_URL_ENV = ("DCTX_LLM_BASE_URL", "OPENAI_BASE_URL")
_COMPAT_KEY_ENV = ("DCTX_LLM_API_KEY", "OPENAI_API_KEY")

#: provider name -> preset. Add an entry to support another OpenAI-compatible server.
PROVIDERS: dict[str, ProviderPreset] = {
    "openai": ProviderPreset("openai", ("OPENAI_API_KEY", "DCTX_LLM_API_KEY"), _OPENAI_URL_ENV),
    "anthropic": ProviderPreset(
        "anthropic", ("ANTHROPIC_API_KEY",), ("DCTX_LLM_BASE_URL", "ANTHROPIC_BASE_URL")
    ),
    "openai-compatible": ProviderPreset(
        "openai", _COMPAT_KEY_ENV, ("DCTX_LLM_BASE_URL",), needs_key=False
    ),
    "ollama": ProviderPreset(
        "openai", _COMPAT_KEY_ENV, ("DCTX_LLM_BASE_URL",), "http://127.0.0.1:11434/v1", False
    ),
    "vllm": ProviderPreset(
        "openai", _COMPAT_KEY_ENV, ("DCTX_LLM_BASE_URL",), "http://127.0.0.1:8000/v1", False
    ),
    "llamacpp": ProviderPreset(
        "openai", _COMPAT_KEY_ENV, ("DCTX_LLM_BASE_URL",), "http://127.0.0.1:8080/v1", False
    ),
    "lmstudio": ProviderPreset(
        "openai", _COMPAT_KEY_ENV, ("DCTX_LLM_BASE_URL",), "http://127.0.0.1:1234/v1", False
    ),
    "openrouter": ProviderPreset(
        "openai", ("OPENROUTER_API_KEY",), (), "https://openrouter.ai/api/v1", True
    ),
}

_EXAMPLES = (
    "'openai:gpt-4o-mini', 'anthropic:claude-sonnet-4-5' or "
    "'openai-compatible:MODEL@http://127.0.0.1:8000/v1'"
)


@dataclass(frozen=True, slots=True)
class ProviderConfig:
    """Everything needed to talk to one model: credentials and URL apart from the adapter."""

    provider: str
    api: Api
    model: str
    api_key: str = field(repr=False)
    base_url: str | None = None  # None: the SDK's official endpoint
    timeout: float = DEFAULT_TIMEOUT
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    json_mode: JsonMode = "auto"
    max_tokens: int | None = None  # None: the server default (Anthropic requires one: 4096)
    temperature: float | None = None  # None: the server default
    key_env: str = ""  # the env var that supplies the key, for error messages

    @property
    def id(self) -> str:
        """The LLM id: provider:model, plus @base_url when not the provider's usual endpoint."""
        preset = PROVIDERS.get(self.provider)
        usual = preset.default_base_url if preset else None
        if self.base_url is None or self.base_url == usual:
            return f"{self.provider}:{self.model}"
        return f"{self.provider}:{self.model}@{self.base_url}"


def _split_spec(spec: str) -> tuple[str, str, str | None]:
    text = spec.strip()
    provider, sep, rest = text.partition(":")
    if not sep or not provider.strip() or not rest.strip():
        raise ConfigError(f"LLM spec {spec!r} is not 'provider:model'; use e.g. {_EXAMPLES}")
    url: str | None = None
    for marker in ("@http://", "@https://"):
        at = rest.rfind(marker)
        if at >= 0:
            rest, url = rest[:at], rest[at + 1 :]
            break
    model = rest.strip()
    if not model:
        raise ConfigError(f"LLM spec {spec!r} names no model; use e.g. {_EXAMPLES}")
    return provider.strip().lower(), model, url


def _first_env(env: Mapping[str, str], names: tuple[str, ...]) -> tuple[str | None, str]:
    for name in names:
        value = env.get(name, "").strip()
        if value:
            return value, name
    return None, names[0] if names else ""


def _env_number(env: Mapping[str, str], name: str) -> float | None:
    raw = env.get(name, "").strip()
    if not raw:
        return None
    try:
        return float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a number") from None


def parse_llm_spec(
    spec: str,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    timeout: float | None = None,
    retry: RetryPolicy | None = None,
    json_mode: JsonMode = "auto",
    max_tokens: int | None = None,
    temperature: float | None = None,
    env: Mapping[str, str] | None = None,
) -> ProviderConfig:
    """Turn a spec and options into a ProviderConfig. Raises ConfigError naming the fix."""
    env = os.environ if env is None else env
    provider, model, spec_url = _split_spec(spec)
    preset = PROVIDERS.get(provider)
    if preset is None:
        names = ", ".join(sorted(PROVIDERS))
        raise ConfigError(f"unknown LLM provider {provider!r} in {spec!r}; choose one of: {names}")
    if json_mode not in JSON_MODES:
        raise ConfigError(f"json_mode must be one of {', '.join(JSON_MODES)}, got {json_mode!r}")

    env_url, _ = _first_env(env, preset.base_url_env)
    url = base_url or spec_url or env_url or preset.default_base_url
    if url is not None:
        url = url.strip().rstrip("/")
        if not url.startswith(("http://", "https://")):
            raise ConfigError(f"base URL {url!r} must start with http:// or https://")
    if url is None and provider == "openai-compatible":
        raise ConfigError(
            f"{spec!r} needs a server URL: write 'openai-compatible:{model}@http://HOST:PORT/v1' "
            "or set DCTX_LLM_BASE_URL"
        )

    env_key, key_env = _first_env(env, preset.key_env)
    key = api_key or env_key
    official = url is None or url == preset.default_base_url
    if not key:
        if preset.needs_key and official:
            raise ConfigError(
                f"{provider}:{model} needs an API key: set {key_env} in the environment "
                "or pass api_key=..."
            )
        key = NO_KEY

    env_timeout = _env_number(env, "DCTX_LLM_TIMEOUT")
    seconds = timeout if timeout is not None else env_timeout or DEFAULT_TIMEOUT
    if seconds <= 0:
        raise ConfigError(f"timeout must be positive, got {seconds}")
    policy = retry or RetryPolicy()
    env_retries = _env_number(env, "DCTX_LLM_MAX_RETRIES")
    if retry is None and env_retries is not None:
        policy = replace(policy, max_retries=max(0, int(env_retries)))

    return ProviderConfig(
        provider=provider,
        api=preset.api,
        model=model,
        api_key=key,
        base_url=url,
        timeout=seconds,
        retry=policy,
        json_mode=json_mode,
        max_tokens=max_tokens,
        temperature=temperature,
        key_env=key_env,
    )


def require_sdk(api: Api, feature: str) -> None:
    """Raise MissingDependencyError unless the SDK of `api` is importable."""
    if importlib.util.find_spec(api) is None:
        raise MissingDependencyError(feature, api)


def resolve_llm(
    spec: str | LLM,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    timeout: float | None = None,
    retry: RetryPolicy | None = None,
    json_mode: JsonMode = "auto",
    max_tokens: int | None = None,
    temperature: float | None = None,
    env: Mapping[str, str] | None = None,
) -> LLM:
    """Return the LLM a spec names (an LLM instance is returned unchanged).

    Fails fast: ConfigError for a bad spec or a missing key, MissingDependencyError when the
    provider's SDK extra is not installed. No request is made here.
    """
    if not isinstance(spec, str):
        if isinstance(spec, LLM):
            return spec
        raise ConfigError(f"llm must be a 'provider:model' string or an LLM, got {spec!r}")
    config = parse_llm_spec(
        spec,
        api_key=api_key,
        base_url=base_url,
        timeout=timeout,
        retry=retry,
        json_mode=json_mode,
        max_tokens=max_tokens,
        temperature=temperature,
        env=env,
    )
    return llm_from_config(config)


def llm_from_config(config: ProviderConfig) -> LLM:
    """Build the adapter for a resolved config, importing its SDK only now."""
    require_sdk(config.api, f"the LLM provider '{config.provider}'")
    if config.api == "anthropic":
        from dctx.providers.anthropic_llm import AnthropicLLM

        return AnthropicLLM(config)
    from dctx.providers.openai_llm import OpenAILLM

    return OpenAILLM(config)
