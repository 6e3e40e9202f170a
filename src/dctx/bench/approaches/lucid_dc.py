"""`lucid_dc`: hybrid_raw plus autonomous self-assessment (paper, section 4.1).

After the hybrid_raw capture, a self-assessment pass reads tool-only data (call names,
arguments, error or success of results; capture/self_assess.py) and turns recurring failures,
retry-then-succeed sequences and missing prerequisites into behavioral directives
(compile/tool_rules.py phrases them). They are injected unconditionally at DP0, for the run's
skill, as one block under a "MANDATORY TOOL-CALLING RULES" header, alongside the hybrid_raw
readout, precedents and per-tool-call lookups. Human corrections stay raw.
"""

from __future__ import annotations

from collections.abc import Sequence

from dctx.bench.approaches.base import ApproachContext
from dctx.bench.approaches.hybrid_raw import HybridRaw
from dctx.bench.schema import SeedSession
from dctx.capture.self_assess import assess
from dctx.compile.tool_rules import compile_tool_signal
from dctx.models import Unit

HEADER = "MANDATORY TOOL-CALLING RULES:"


class LucidDC(HybridRaw):
    def __init__(self, ctx: ApproachContext) -> None:
        super().__init__(ctx)
        self.directives: dict[str, list[str]] = {}  # skill -> directives, first found first

    def capture(self, seed: Sequence[SeedSession]) -> None:
        super().capture(seed)
        for signal in assess(self.graph.sessions):
            compiled = compile_tool_signal(signal)
            if compiled is None:
                continue
            found = self.directives.setdefault(signal.ctx.skill, [])
            if compiled[0].text not in found:
                found.append(compiled[0].text)

    def start(self, actor: str, skill: str, query: str, tools: Sequence[str]) -> list[Unit]:
        units = super().start(actor, skill, query, tools)
        rules = self.directives.get(skill, [])
        if not rules:
            return units
        body = "\n".join(f"{i}. {text}" for i, text in enumerate(rules, 1))
        return [Unit(text=f"{HEADER}\n{body}", channel="system"), *units]
