"""`in_session`: the raw seed conversations kept in the agent's context.

The paper's in-session test: no memory at all, the previous conversations simply stay in the
message history. One user-channel unit per seed session, at DP0.
"""

from __future__ import annotations

from collections.abc import Sequence

from dctx.bench.approaches._trace import transcript
from dctx.bench.approaches.base import ApproachContext, NullApproach
from dctx.bench.schema import SeedSession
from dctx.models import Unit


class InSession(NullApproach):
    def __init__(self, ctx: ApproachContext) -> None:
        self.ctx = ctx
        self._units: list[Unit] = []

    def capture(self, seed: Sequence[SeedSession]) -> None:
        self._units = [
            Unit(text=f"Earlier conversation:\n{transcript(s.messages)}", channel="user")
            for s in seed
        ]

    def start(self, actor: str, skill: str, query: str, tools: Sequence[str]) -> list[Unit]:
        return list(self._units)
