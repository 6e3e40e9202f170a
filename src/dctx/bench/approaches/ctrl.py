"""`ctrl`: the control. Injects nothing, so it passes only negative rubric items."""

from __future__ import annotations

from dctx.bench.approaches.base import ApproachContext, NullApproach


class Ctrl(NullApproach):
    def __init__(self, ctx: ApproachContext) -> None:
        self.ctx = ctx
