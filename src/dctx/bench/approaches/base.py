"""The interface every benchmarked approach implements, and what the runner hands it.

An approach is built fresh for every scenario (and every live run) from an
`ApproachContext`, so nothing can carry across scenarios. `capture` sees the seed sessions
only; `start` and `observe` see what an agent sees while it runs. None of them ever sees the
scenario's `test` block as a whole or its rubric.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from dctx.bench.schema import SeedSession
from dctx.models import Unit
from dctx.providers.base import LLM, Embedder


@runtime_checkable
class Approach(Protocol):
    """A behavioral-memory system under test."""

    def capture(self, seed: Sequence[SeedSession]) -> None:
        """Learn from the seed sessions (oldest first). Called once, before `start`."""
        ...

    def start(self, actor: str, skill: str, query: str, tools: Sequence[str]) -> list[Unit]:
        """Units for DP0: before the first model call."""
        ...

    def observe(self, call: dict[str, Any], result: str) -> list[Unit]:
        """Units newly delivered after a tool call (`{name, arguments}`) returned `result`."""
        ...

    def close(self) -> None:
        """Release stores and files."""
        ...


@dataclass(slots=True)
class ApproachContext:
    """Shared, per-process resources plus a private scratch folder for one scenario run.

    The embedder is built lazily and once per process (by the runner's factory), so
    approaches that never embed cost nothing.
    """

    workdir: Path
    embedder_factory: Callable[[], Embedder]
    llm: LLM | None = None
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def embedder(self) -> Embedder:
        return self.embedder_factory()


ApproachFactory = Callable[[ApproachContext], Approach]


@dataclass(frozen=True, slots=True)
class ApproachSpec:
    """A registry entry: `target` is "module:callable" taking an ApproachContext, imported
    lazily so listing approaches imports nothing heavy (and worker processes can resolve it)."""

    name: str
    target: str
    description: str


class NullApproach:
    """Base with no-op hooks; concrete approaches override what they need."""

    def capture(self, seed: Sequence[SeedSession]) -> None:
        return None

    def start(self, actor: str, skill: str, query: str, tools: Sequence[str]) -> list[Unit]:
        return []

    def observe(self, call: dict[str, Any], result: str) -> list[Unit]:
        return []

    def close(self) -> None:
        return None
