"""Registry of benchmarked approaches: data, not an if/elif chain.

Each entry names a factory by "module:callable"; `build()` imports it on first use. Register
your own with `register(ApproachSpec(...))`.
"""

from __future__ import annotations

import importlib

from dctx.bench.approaches.base import (
    Approach,
    ApproachContext,
    ApproachFactory,
    ApproachSpec,
    NullApproach,
)
from dctx.errors import ConfigError

_PKG = "dctx.bench.approaches"

REGISTRY: dict[str, ApproachSpec] = {
    spec.name: spec
    for spec in (
        ApproachSpec("ctrl", f"{_PKG}.ctrl:Ctrl", "no injection (control)"),
        ApproachSpec(
            "in_session",
            f"{_PKG}.in_session:InSession",
            "raw seed conversations kept in context",
        ),
        ApproachSpec(
            "doc_naive",
            f"{_PKG}.doc_naive:DocNaive",
            "naive RAG: tool-call-bounded chunks, BM25+cosine RRF top-5",
        ),
        ApproachSpec(
            "doc_chunk",
            f"{_PKG}.doc_chunk:DocChunk",
            "annotated chunks + correction-rate readout + precedents",
        ),
        ApproachSpec("expel", f"{_PKG}.expel:ExpeL", "ExpeL insight pool (ADD/AGREE/EDIT/REMOVE)"),
        ApproachSpec(
            "hybrid_raw",
            f"{_PKG}.hybrid_raw:HybridRaw",
            "typed graph + raw human corrections, readout + INFORMED_BY per tool call",
        ),
        ApproachSpec(
            "lucid_dc",
            f"{_PKG}.lucid_dc:LucidDC",
            "hybrid_raw + self-assessment directives (MANDATORY TOOL-CALLING RULES)",
        ),
        ApproachSpec("forge_dc", f"{_PKG}.forge_dc:ForgeDC", "dctx Memory: compiled rules"),
    )
}


def register(spec: ApproachSpec) -> None:
    """Add or replace an approach."""
    REGISTRY[spec.name] = spec


def names() -> list[str]:
    return list(REGISTRY)


def resolve(target: str) -> ApproachFactory:
    """Import the factory a "module:callable" target names."""
    module_name, _, attr = target.partition(":")
    try:
        module = importlib.import_module(module_name)
        factory: ApproachFactory = getattr(module, attr)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"cannot load approach factory {target!r}: {exc}") from None
    return factory


def spec(name: str) -> ApproachSpec:
    try:
        return REGISTRY[name]
    except KeyError:
        raise ConfigError(f"unknown approach {name!r}; choose from {', '.join(REGISTRY)}") from None


def build(name_or_target: str, ctx: ApproachContext) -> Approach:
    """A fresh approach instance for one scenario run."""
    if ":" in name_or_target and name_or_target not in REGISTRY:
        target = name_or_target
    else:
        target = spec(name_or_target).target
    return resolve(target)(ctx)


__all__ = [
    "REGISTRY",
    "Approach",
    "ApproachContext",
    "ApproachFactory",
    "ApproachSpec",
    "NullApproach",
    "build",
    "names",
    "register",
    "resolve",
    "spec",
]
