"""What a run has seen so far, in forms that make trigger checks cheap.

Stems of everything seen (query, call names and arguments, results) for DATA keyword triggers,
numeric fields of JSON results for threshold triggers, and the tools called so far.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from dctx.models import NumericCondition, Trigger
from dctx.text import content_stems, flatten_json_text, numeric_fields, stem


@dataclass(slots=True)
class RunContext:
    query: str
    stems: set[str] = field(default_factory=set)
    numbers: list[tuple[set[str], float]] = field(default_factory=list)
    tools_called: list[str] = field(default_factory=list)
    steps: list[str] = field(default_factory=list)

    @classmethod
    def start(cls, query: str) -> RunContext:
        ctx = cls(query=query)
        ctx.stems.update(content_stems(query))
        return ctx

    def add_step(self, tool: str, arguments: dict[str, Any], result: str) -> str:
        """Record one tool call and its result; return the step's text."""
        args = json.dumps(arguments, ensure_ascii=False, sort_keys=True, default=str)
        flat = flatten_json_text(result)
        self.stems.update(content_stems(f"{tool} {flatten_json_text(args)} {flat}"))
        for path, value in numeric_fields(result):
            self.numbers.append(({stem(w) for w in path}, value))
        self.tools_called.append(tool)
        step = f"call {tool}({args}) -> {result[:1500]}"
        self.steps.append(step)
        return step


def data_condition_met(trigger: Trigger, ctx: RunContext) -> bool:
    """A DATA trigger fires when its numeric threshold holds on some field, or when at least
    a third (and at least one) of its keyword stems appear in what the run has seen."""
    if trigger.numeric is not None:
        return _numeric_met(trigger.numeric, ctx)
    if not trigger.keywords:
        return False
    hits = sum(1 for k in trigger.keywords if k in ctx.stems)
    return hits >= 1 and hits * 3 >= len(trigger.keywords)


def _numeric_met(cond: NumericCondition, ctx: RunContext) -> bool:
    terms = set(cond.terms)
    for path, value in ctx.numbers:
        if not terms & path:
            continue
        if (
            (cond.op == "<" and value < cond.value)
            or (cond.op == "<=" and value <= cond.value)
            or (cond.op == ">" and value > cond.value)
            or (cond.op == ">=" and value >= cond.value)
        ):
            return True
    return False
