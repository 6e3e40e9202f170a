"""Embedder for OpenAI-compatible /v1/embeddings endpoints (OpenAI, vLLM, Ollama, llama.cpp...).

Needs the `openai` extra. Specs follow the LLM specs of llm.py, e.g.
"openai:text-embedding-3-small", "ollama:nomic-embed-text",
"openai-compatible:bge-small@http://127.0.0.1:8080/v1"; a trailing "[N]" asks a model that
supports it (text-embedding-3-*) for N dimensions. The embedder's `id` is the resolved spec,
so a store's recorded id resolves back to the same embedder. Rows come back L2-normalized,
whatever the server does. Tokens the server reports are recorded in the active usage meters.

Environment: DCTX_EMBED_BASE_URL and DCTX_EMBED_API_KEY take the place of the DCTX_LLM_*
variables, so an LLM pointed at a local server does not drag the embedder along.
"""

from __future__ import annotations

import base64
import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from dctx.errors import ConfigError, ProviderError
from dctx.providers.base import Vector
from dctx.providers.llm import ProviderConfig, parse_llm_spec, require_sdk
from dctx.providers.retry import RetryPolicy, provider_error, with_retries
from dctx.providers.usage import record_embedding
from dctx.tokens import count_tokens

__all__ = ["KNOWN_DIMS", "OpenAIEmbedder", "resolve_openai_embedder"]

#: Output sizes of well-known models, so no probe request is needed for them.
KNOWN_DIMS: dict[str, int] = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}

_DIMENSIONS = re.compile(r"\[(\d+)\]\s*$")


class OpenAIEmbedder:
    """`embed(texts)` over /v1/embeddings, batched, retried, normalized."""

    def __init__(
        self,
        config: ProviderConfig,
        *,
        dimensions: int | None = None,
        dim: int | None = None,
        batch_size: int = 256,
        client: Any = None,
        sleep: Callable[[float], Any] = time.sleep,
    ) -> None:
        """`dimensions` is sent to the server; `dim` only states the size to expect. Without
        either, a known model's size is used, else one probe request finds it."""
        require_sdk("openai", f"the embedder '{config.id}'")
        if config.api != "openai":
            raise ConfigError(f"{config.provider} has no embeddings endpoint; use an OpenAI one")
        if batch_size < 1:
            raise ConfigError("batch_size must be at least 1")
        from dctx.providers.openai_llm import openai_client

        self.config = config
        self.dimensions = dimensions
        self.batch_size = batch_size
        self.id = config.id + (f"[{dimensions}]" if dimensions else "")
        self.client = client if client is not None else openai_client(config)
        self._sleep = sleep
        known = dim or dimensions or KNOWN_DIMS.get(config.model)
        self.dim: int = known if known else self._request(["dimension probe"]).shape[1]

    def embed(self, texts: Sequence[str]) -> Vector:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [
            self._request(list(texts[i : i + self.batch_size]))
            for i in range(0, len(texts), self.batch_size)
        ]
        out = np.vstack(parts) if len(parts) > 1 else parts[0]
        if out.shape[1] != self.dim:
            raise ProviderError(
                f"{self.id} returned {out.shape[1]}-dimensional vectors, expected {self.dim}"
            )
        return out

    def _request(self, batch: list[str]) -> Vector:
        inputs = [t if t.strip() else " " for t in batch]  # servers reject empty strings
        request: dict[str, Any] = {
            "model": self.config.model,
            "input": inputs,
            "encoding_format": "float",
        }
        if self.dimensions:
            request["dimensions"] = self.dimensions
        import openai

        try:
            response = with_retries(
                lambda: self.client.embeddings.create(**request),
                policy=self.config.retry,
                transient=(openai.APIConnectionError,),
                what=self.id,
                sleep=self._sleep,
            )
            rows = sorted(response.data, key=lambda d: d.index)
            matrix = np.asarray([_vector(r.embedding) for r in rows], dtype=np.float32)
        except ProviderError:
            raise
        except Exception as exc:
            raise provider_error(
                exc,
                who=self.id,
                timeout=self.config.timeout,
                base_url=self.config.base_url,
                key_env=self.config.key_env,
                timeouts=(openai.APITimeoutError,),
                transient=(openai.APIConnectionError,),
            ) from exc
        if matrix.ndim != 2 or matrix.shape[0] != len(inputs):
            raise ProviderError(f"{self.id}: asked for {len(inputs)} vectors, got {len(rows)}")
        usage = getattr(response, "usage", None)
        tokens = getattr(usage, "prompt_tokens", None)
        if tokens is None:
            tokens = sum(count_tokens(t) for t in inputs)
        record_embedding(int(tokens))
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return (matrix / np.where(norms == 0, 1.0, norms)).astype(np.float32)


def _vector(raw: Any) -> Any:
    """A row as floats; some servers answer base64 of little-endian float32 regardless."""
    if isinstance(raw, str):
        return np.frombuffer(base64.b64decode(raw), dtype="<f4")
    return raw


def resolve_openai_embedder(
    spec: str,
    *,
    api_key: str | None = None,
    base_url: str | None = None,
    dim: int | None = None,
    batch_size: int = 256,
    timeout: float | None = None,
    retry: RetryPolicy | None = None,
    env: Mapping[str, str] | None = None,
) -> OpenAIEmbedder:
    """Build an OpenAIEmbedder from a spec (or from an id a store recorded)."""
    env = os.environ if env is None else env
    dimensions: int | None = None
    match = _DIMENSIONS.search(spec)
    if match:
        dimensions = int(match.group(1))
        spec = spec[: match.start()]
    embed_env = {
        **{k: v for k, v in env.items() if not k.startswith("DCTX_LLM_")},
        "DCTX_LLM_BASE_URL": env.get("DCTX_EMBED_BASE_URL", ""),
        "DCTX_LLM_API_KEY": env.get("DCTX_EMBED_API_KEY", ""),
        "DCTX_LLM_TIMEOUT": env.get("DCTX_EMBED_TIMEOUT", ""),
    }
    config = parse_llm_spec(
        spec, api_key=api_key, base_url=base_url, timeout=timeout, retry=retry, env=embed_env
    )
    return OpenAIEmbedder(config, dimensions=dimensions, dim=dim, batch_size=batch_size)
