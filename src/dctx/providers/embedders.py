"""Resolve an embedder spec ("minilm", "hashing", "auto", or an instance) to an Embedder.

The registry is data: a name maps to a factory. Names are matched case-insensitively and
also accept the embedder ids stored with vectors ("minilm-l6-v2-int8", "hashing-384"), so a
store's recorded id can be turned back into the embedder that made it.

    "minilm"  the default; all-MiniLM-L6-v2 int8 (raises MissingDependencyError when its
              packages are absent)
    "hashing" pure-numpy feature hashing (always available, lexical only)
    "auto"    minilm when its packages are installed, else hashing with a logged warning
    "openai:text-embedding-3-small", "ollama:nomic-embed-text",
    "openai-compatible:MODEL@http://127.0.0.1:8080/v1", "openai:text-embedding-3-large[256]"
              an OpenAI-compatible /v1/embeddings endpoint (openai_embedder.py; needs the
              `openai` package). Spec forms, keys and base URLs are those of LLM specs
              (llm.py), with DCTX_EMBED_BASE_URL / DCTX_EMBED_API_KEY in place of DCTX_LLM_*.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from dctx.errors import ConfigError
from dctx.providers.base import Embedder
from dctx.providers.hashing import HashingEmbedder
from dctx.providers.minilm import (
    MODEL_ID,
    MiniLMEmbedder,
    _missing_error,
    missing_minilm_dependencies,
)

__all__ = ["DEFAULT_EMBEDDER", "EMBEDDERS", "get_embedder"]

logger = logging.getLogger(__name__)

DEFAULT_EMBEDDER = "minilm"


def _minilm() -> Embedder:
    missing = missing_minilm_dependencies()
    if missing:
        raise _missing_error(missing)
    return MiniLMEmbedder()


def _auto() -> Embedder:
    missing = missing_minilm_dependencies()
    if missing:
        logger.warning(
            "MiniLM embedder unavailable (missing %s); falling back to the hashing embedder, "
            "which matches words, not meaning. Install it with: pip install %s",
            ", ".join(missing),
            " ".join(missing),
        )
        return HashingEmbedder()
    return MiniLMEmbedder()


#: name -> factory. Add an entry to register another embedder.
EMBEDDERS: dict[str, Callable[[], Embedder]] = {
    "minilm": _minilm,
    MODEL_ID: _minilm,
    "hashing": HashingEmbedder,
    "hashing-384": HashingEmbedder,
    "auto": _auto,
}


def get_embedder(spec: str | Embedder | None = None) -> Embedder:
    """Return the embedder `spec` names (None means the default, "minilm").

    An object that already implements the Embedder protocol is returned unchanged.
    """
    if spec is None:
        spec = DEFAULT_EMBEDDER
    if not isinstance(spec, str):
        if isinstance(spec, Embedder):
            return spec
        raise ConfigError(
            f"embedder must be a name or an Embedder (with id, dim, embed()), got {spec!r}"
        )
    factory = EMBEDDERS.get(spec.strip().lower())
    if factory is None and _is_provider_spec(spec):
        from dctx.providers.openai_embedder import resolve_openai_embedder

        return resolve_openai_embedder(spec.strip())
    if factory is None:
        names = ", ".join(sorted(EMBEDDERS))
        raise ConfigError(
            f"unknown embedder {spec!r}; choose one of: {names}, or an OpenAI-compatible "
            "'provider:model' such as 'openai:text-embedding-3-small'"
        )
    return factory()


def _is_provider_spec(spec: str) -> bool:
    """Whether `spec` is "provider:model" for a provider of llm.py that speaks the OpenAI API
    (Anthropic has no embeddings endpoint, so it is not one)."""
    from dctx.providers.llm import PROVIDERS

    provider, sep, model = spec.strip().partition(":")
    preset = PROVIDERS.get(provider.strip().lower())
    return bool(sep and model.strip()) and preset is not None and preset.api == "openai"
