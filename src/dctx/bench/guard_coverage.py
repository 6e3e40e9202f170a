"""Guard coverage: which scenarios' programmatic tool checks the guards compiled from an
approach's delivered rules would have enforced.

A check counts as enforced only when the guards imply it: every call sequence the guards let
through (after their corrections) passes the check. So a forbidden value covers a
`source_not_called` on that value, a required value covers a `tool_param_check` on it, a
forbidden tool covers any `tool_call_max` and `source_not_called` on it. `output_contains` is
about the answer, not a tool call, and is not counted. Nothing here reads scenario ids or
wording: the guards come from the rules alone (dctx.guards.compile).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dctx.bench.schema import Check, SourceNotCalled, ToolCallMax, ToolParamCheck
from dctx.guards import Guard, GuardChecker, GuardKind, same_value

TOOL_CHECKS = (ToolCallMax, SourceNotCalled, ToolParamCheck)


def enforces(guards: Sequence[Guard], check: Check) -> bool:
    """Whether the guards imply the check (see the module docstring)."""
    mine = [g for g in guards if g.tool == getattr(check, "tool", None)]
    if any(g.kind is GuardKind.TOOL_FORBIDDEN for g in mine):
        return isinstance(check, TOOL_CHECKS)
    if isinstance(check, ToolParamCheck):
        return any(
            g.kind is GuardKind.PARAM_EQUALS
            and g.param == check.param
            and same_value(g.value, check.equals)
            for g in mine
        )
    if isinstance(check, SourceNotCalled):
        for g in mine:
            if g.param is None or g.param not in check.arguments:
                continue
            wanted = check.arguments[g.param]
            if g.kind is GuardKind.PARAM_FORBIDDEN and same_value(g.value, wanted):
                # a correction must not land on another forbidden value
                return g.instead is None or not same_value(g.instead, wanted)
            if g.kind is GuardKind.PARAM_EQUALS and not same_value(g.value, wanted):
                return True
    return False


def coverage(
    checks: Sequence[Check],
    guards: Sequence[Guard],
    reference: Sequence[tuple[str, dict[str, Any]]] = (),
) -> dict[str, Any]:
    """{"checks": tool checks, "enforced": the enforced ones as JSON, "guards": how many,
    "reference_fires": calls of the reference run (`test.steps`, taken as correct) that the
    guards would have corrected or rejected: wrong fires}."""
    tool_checks = [c for c in checks if isinstance(c, TOOL_CHECKS)]
    checker = GuardChecker(guards)
    fires = 0
    for name, args in reference:
        if checker.check(name, args).action != "allow":
            fires += 1
        checker.executed(name)
    return {
        "checks": len(tool_checks),
        "enforced": [
            c.model_dump_json(exclude_none=True) for c in tool_checks if enforces(guards, c)
        ],
        "guards": len(guards),
        "reference_fires": fires,
    }
