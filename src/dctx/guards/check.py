"""Check a proposed tool call against the active guards: allow it, correct it, or reject it.

A correction is made only when the fix is unambiguous (a forbidden value with a named
replacement, a required value); anything else is handed back to the model as the tool result,
so it can retry with the rule in view. The checker remembers the calls that ran, for order
guards ("call A before B").
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from dctx.guards.model import Guard, GuardKind, same_value


@dataclass(slots=True)
class Verdict:
    """What to do with one proposed call. `arguments` are the ones to execute (corrected)."""

    action: Literal["allow", "correct", "reject"]
    tool: str
    arguments: dict[str, Any]
    guards: list[Guard] = field(default_factory=list)  # the guards that fired
    notes: list[str] = field(default_factory=list)  # what was corrected / why it was rejected

    @property
    def message(self) -> str:
        """The text handed back to the model for a rejected call."""
        return (
            f"dctx guard blocked this call of {self.tool}: "
            + "; ".join(self.notes)
            + ". Change the call to follow the rule and try again."
        )


class GuardChecker:
    """Holds the active guards of one run and the calls executed so far."""

    def __init__(self, guards: Iterable[Guard] = ()) -> None:
        self.guards: list[Guard] = []
        self.called: list[str] = []
        self.add(guards)

    def add(self, guards: Iterable[Guard]) -> None:
        for g in guards:
            if g not in self.guards:
                self.guards.append(g)

    def check(self, tool: str, arguments: dict[str, Any]) -> Verdict:
        """Judge one proposed call; never mutates `arguments`."""
        args = copy.deepcopy(arguments)
        fired: list[Guard] = []
        notes: list[str] = []
        rejected = False
        for g in self.guards:
            if g.tool != tool:
                continue
            fix = _apply(g, args, self.called)
            if fix is None:
                continue
            fired.append(g)
            if fix == "reject":
                rejected = True
                notes.append(g.describe())
            else:
                notes.append(fix)
        if rejected:
            return Verdict("reject", tool, dict(arguments), fired, notes)
        return Verdict("correct" if fired else "allow", tool, args, fired, notes)

    def executed(self, tool: str) -> None:
        """Record that a call of `tool` ran (order guards look at this)."""
        self.called.append(tool)


def _apply(g: Guard, args: dict[str, Any], called: list[str]) -> str | None:
    """None when the call keeps the guard; else "reject", or a note after fixing `args`."""
    if g.kind is GuardKind.TOOL_FORBIDDEN:
        return "reject"
    if g.kind is GuardKind.CALL_BEFORE:
        return None if g.first in called else "reject"
    assert g.param is not None
    if g.kind is GuardKind.PARAM_REQUIRED:
        return None if g.param in args else "reject"
    if g.kind is GuardKind.PARAM_EQUALS:
        if g.param in args and same_value(args[g.param], g.value):
            return None
        old = args.get(g.param)
        args[g.param] = g.value
        return f"set {g.param} to {g.value!r} (was {old!r})"
    # PARAM_FORBIDDEN
    if g.param not in args or not same_value(args[g.param], g.value):
        return None
    if g.instead is None:
        return "reject"
    args[g.param] = g.instead
    return f"replaced {g.param}={g.value!r} with {g.instead!r}"
