"""Compile the signals of a capture into rulebook changes (deterministic by default).

Corrections are processed in trace order so that later corrections supersede earlier ones and
withdrawals find what they withdraw; tool patterns follow. The rulebook holds the store's rules
of the namespace, so maintenance sees earlier captures too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from dctx.capture.base import Aftermath, CorrectionSignal, ToolPatternSignal
from dctx.compile.corrections import compile_correction
from dctx.compile.maintain import Maintenance, Rulebook
from dctx.compile.tool_rules import compile_tool_signal
from dctx.models import Evidence


@dataclass(slots=True)
class CompileResult:
    maintenance: Maintenance
    evidence: list[Evidence]
    withdrawn: list[str]


def compile_signals(
    rulebook: Rulebook,
    corrections: Sequence[CorrectionSignal],
    tool_signals: Sequence[ToolPatternSignal],
) -> CompileResult:
    evidence: list[Evidence] = []
    withdrawn: list[str] = []
    for signal in corrections:
        compiled = compile_correction(signal)
        evidence.extend(compiled.evidence)
        for text, ev in compiled.withdrawals:
            target = rulebook.withdraw(
                text,
                ev,
                actor=signal.ctx.actor,
                skill=signal.ctx.skill,
                previous_output=signal.previous_output,
            )
            if target is not None:
                withdrawn.append(target.id)
                continue
            # nothing to withdraw: "don't add the chart anymore" is then a plain correction
            again = compile_correction(dataclasses.replace(signal, aftermath=Aftermath.CORRECTION))
            for rule in again.rules:
                rule.evidence_ids = [ev.id]
                rulebook.add(rule, raw=signal.raw)
        for rule in compiled.rules:
            rulebook.add(rule, raw=signal.raw)
    for tool_signal in tool_signals:
        out = compile_tool_signal(tool_signal)
        if out is None:
            continue
        rule, ev = out
        evidence.append(ev)
        rulebook.add(rule)
    return CompileResult(rulebook.result, evidence, withdrawn)
