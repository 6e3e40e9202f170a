"""Resolve an embedder spec ("minilm", "hashing", "auto", or an instance) to an Embedder.

The registry is data: a name maps to a factory. Names are matched case-insensitively and
also accept the embedder ids stored with vectors ("minilm-l6-v2-int8", "hashing-384"), so a
store's recorded id can be turned back into the embedder that made it.

    "minilm"  the default; all-MiniLM-L6-v2 int8 (raises MissingDependencyError when its
              packages are absent)
    "hashing" pure-numpy feature hashing (always available, lexical only)
    "auto"    minilm when its packages are installed, else hashing with a logged warning
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
            "which matches words, not meaning. Install it with: pip install 'dctx[minilm]'",
            ", ".join(missing),
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
    if factory is None:
        names = ", ".join(sorted(EMBEDDERS))
        raise ConfigError(f"unknown embedder {spec!r}; choose one of: {names}")
    return factory()
