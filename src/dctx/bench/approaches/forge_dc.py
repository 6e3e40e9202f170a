"""`forge_dc`: the full dctx pipeline through the `Memory` facade.

A fresh SQLite file in the scenario's scratch folder; each seed session is captured with its
actor, skill, conversation id and timestamp; DP0 units come from `Memory.start`, later ones
from `run.observe` after every tool result.

Decision-node vectors (node + accumulated embeddings) are skipped by default
(`embed_nodes=False`): rule retrieval does not read them, so the delivered units are the same
(tests/bench/test_approaches.py checks this) while the run is ~40x cheaper. Set
`ctx.options["embed_nodes"] = True` to embed them anyway.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from typing import Any

from dctx.bench.approaches.base import ApproachContext
from dctx.bench.schema import SeedSession
from dctx.errors import ConfigError
from dctx.guards import Guard, compile_guards
from dctx.models import Unit


class ForgeDC:
    def __init__(self, ctx: ApproachContext) -> None:
        try:
            from dctx.memory import Memory
        except ImportError as exc:
            raise ConfigError(f"forge_dc needs dctx.memory.Memory: {exc}") from None
        params = inspect.signature(Memory).parameters
        kwargs: dict[str, Any] = {"embedder": ctx.embedder}
        if "embed_nodes" in params:
            kwargs["embed_nodes"] = bool(ctx.options.get("embed_nodes", False))
        if ctx.llm is not None and "llm" in params:
            kwargs["llm"] = ctx.llm
        self.mem = Memory(str(ctx.workdir / "memory.db"), **kwargs)
        self.run: Any = None
        self.tools: list[str] | None = None

    def capture(self, seed: Sequence[SeedSession]) -> None:
        for s in seed:
            self.mem.capture(
                [dict(m) for m in s.messages],
                actor=s.actor,
                skill=s.skill,
                conversation_id=s.conversation_id,
                timestamp=s.timestamp,
            )

    def start(self, actor: str, skill: str, query: str, tools: Sequence[str]) -> list[Unit]:
        self.tools = list(tools)
        self.run = self.mem.start(  # probes are never captured: nothing to record
            actor=actor, skill=skill, query=query, tools=self.tools, record=False
        )
        return list(self.run.units)

    def observe(self, call: dict[str, Any], result: str) -> list[Unit]:
        if self.run is None:
            return []
        return list(self.run.observe(call, result))

    def guards(self) -> list[Guard]:
        """The guards compiled from the rules delivered in this run (dctx.guards): what the
        SDK helpers would enforce on the agent's tool calls."""
        if self.run is None:
            return []
        return compile_guards(self.run.rules, tools=self.tools)

    def close(self) -> None:
        self.mem.close()
