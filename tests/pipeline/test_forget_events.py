"""Outcome events that stay after a forget name none of the forgotten actor's runs: a flag
raised in bob's run listed the run of xenia's where the mistake recurred first."""

from __future__ import annotations

import json

from dctx.memory import Memory
from dctx.models import RuleEventKind
from pipeline.test_rule_outcomes import delivered_then_captured, seed

ARR = "Company policy for everyone: always report revenue growth as ARR."
AGAIN = "Company policy for everyone: please always report revenue growth as ARR."


def test_a_flag_in_another_run_forgets_their_run(backend_mem: Memory) -> None:
    mem = backend_mem
    rule_id = seed(mem, ARR)
    theirs = delivered_then_captured(mem, "s2", ARR, actor="xenia")
    kept = delivered_then_captured(mem, "s3", AGAIN, actor="bob")
    [flag] = [e for e in mem.outcomes_of(rule_id) if e.kind is RuleEventKind.FLAGGED]
    assert flag.actor == "bob" and set(flag.detail["runs"]) == {theirs, kept}

    mem.forget_actor("xenia")

    [flag] = [e for e in mem.outcomes_of(rule_id) if e.kind is RuleEventKind.FLAGGED]
    assert flag.detail["runs"] == [kept]
    assert theirs not in json.dumps([e.detail for e in mem.outcomes_of(rule_id)])
