"""Programmatic checks of a live run (DCBENCH.md); any failing check forces the score to 0."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from dctx.bench.schema import (
    Check,
    OutputContains,
    SourceNotCalled,
    ToolCallMax,
    ToolParamCheck,
)

Call = tuple[str, dict[str, Any]]


def check_passes(check: Check, calls: Sequence[Call], answer: str) -> bool:
    if isinstance(check, ToolCallMax):
        return sum(1 for name, _ in calls if name == check.tool) <= check.max
    if isinstance(check, SourceNotCalled):
        return not any(
            name == check.tool
            and all(k in args and args[k] == v for k, v in check.arguments.items())
            for name, args in calls
        )
    if isinstance(check, OutputContains):
        return check.text.lower() in answer.lower()
    if isinstance(check, ToolParamCheck):
        return all(
            args.get(check.param) == check.equals for name, args in calls if name == check.tool
        )
    raise TypeError(f"unknown check {check!r}")


def failed_checks(checks: Sequence[Check], calls: Sequence[Call], answer: str) -> list[str]:
    """Descriptions of the checks the run failed (empty: all passed)."""
    return [
        c.model_dump_json(exclude_none=True) for c in checks if not check_passes(c, calls, answer)
    ]
