"""A guard: one machine-checkable constraint on tool calls, compiled from one Rule.

Guards are plain JSON-able records (`to_dict` / `from_dict`), kept beside the rule they came
from (`rule_id`), so a rule that is disabled, withdrawn or superseded takes its guards with it.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from typing import Any


class GuardKind(enum.StrEnum):
    PARAM_EQUALS = "param_equals"  # every call of `tool` has `param` == `value`
    PARAM_FORBIDDEN = "param_forbidden"  # no call of `tool` has `param` == `value`
    PARAM_REQUIRED = "param_required"  # every call of `tool` passes `param`
    TOOL_FORBIDDEN = "tool_forbidden"  # `tool` is not called (`instead`: the tool to use)
    CALL_BEFORE = "call_before"  # `first` is called before `tool`


@dataclass(frozen=True, slots=True)
class Guard:
    """One constraint. `instead` is the replacement a violation is corrected to (a value for
    PARAM_FORBIDDEN, a tool name for TOOL_FORBIDDEN); None means hand the violation back."""

    kind: GuardKind
    tool: str
    rule_id: str
    param: str | None = None
    value: Any = None
    instead: Any = None
    first: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind.value, "tool": self.tool, "rule_id": self.rule_id}
        for key in ("param", "value", "instead", "first"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Guard:
        return cls(
            kind=GuardKind(data["kind"]),
            tool=str(data["tool"]),
            rule_id=str(data["rule_id"]),
            param=data.get("param"),
            value=data.get("value"),
            instead=data.get("instead"),
            first=data.get("first"),
        )

    def describe(self) -> str:
        """The constraint in words, as the model is told when it breaks it."""
        value = json.dumps(self.value, ensure_ascii=False)
        if self.kind is GuardKind.PARAM_EQUALS:
            return f"calls of {self.tool} must pass {self.param}={value}"
        if self.kind is GuardKind.PARAM_FORBIDDEN:
            hint = f" (use {json.dumps(self.instead)})" if self.instead is not None else ""
            return f"do not call {self.tool} with {self.param}={value}{hint}"
        if self.kind is GuardKind.PARAM_REQUIRED:
            return f"calls of {self.tool} must pass {self.param}"
        if self.kind is GuardKind.TOOL_FORBIDDEN:
            hint = f"; use {self.instead} instead" if self.instead else ""
            return f"do not call {self.tool}{hint}"
        return f"call {self.first} before calling {self.tool}"


def same_value(a: Any, b: Any) -> bool:
    """Loose equality for argument values: 2025 == "2025", "USD" == "usd"."""
    return _norm(a) == _norm(b)


def _norm(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        return value.strip().lower()
    return json.dumps(value, sort_keys=True).lower()
