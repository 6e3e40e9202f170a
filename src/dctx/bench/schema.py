"""Pydantic models of one DC-Bench scenario, exactly as docs/DCBENCH.md fixes it.

Strict on the contract's fields (types, allowed values, 3-8 rubric items, weights 1-3, regexes
that compile), tolerant of what the contract allows to grow: unknown extra keys anywhere are
kept and ignored, and a rubric item may carry `examples: {good: [...], bad: [...]}`.
"""

from __future__ import annotations

import json
import re
from datetime import date, datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

DIMENSIONS: tuple[str, ...] = (
    "behavioral_change",
    "conditional_activation",
    "exception",
    "generalization",
    "implicit_learning",
    "persistence",
    "recall",
    "scope_precision",
    "temporal_coherence",
)

Dimension = Literal[
    "behavioral_change",
    "conditional_activation",
    "exception",
    "generalization",
    "implicit_learning",
    "persistence",
    "recall",
    "scope_precision",
    "temporal_coherence",
]

ROLES = ("system", "user", "assistant", "tool")


class _Model(BaseModel):
    """Base: unknown keys are accepted (and kept) so extensions never break loading."""

    model_config = ConfigDict(extra="allow", frozen=False)


class Tool(_Model):
    """One tool the agent may call. Accepts the flat form of the contract and the OpenAI
    `{type: function, function: {...}}` wrapper."""

    name: str = Field(min_length=1)
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})

    @model_validator(mode="before")
    @classmethod
    def _unwrap(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("function"), dict):
            return dict(data["function"])
        return data

    def openai_schema(self) -> dict[str, Any]:
        """The tool as an OpenAI chat-completions `tools` entry."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


def _timestamp(value: Any) -> Any:
    # YAML turns an unquoted timestamp into a datetime; keep the text form the contract shows.
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, date):
        return value.isoformat()
    return value


class SeedSession(_Model):
    """One seed conversation (OpenAI chat messages), captured before the test."""

    conversation_id: str = Field(min_length=1)
    actor: str = Field(min_length=1)
    skill: str = Field(min_length=1)
    timestamp: str
    messages: list[dict[str, Any]] = Field(min_length=1)

    @field_validator("timestamp", mode="before")
    @classmethod
    def _ts(cls, value: Any) -> Any:
        return _timestamp(value)

    @field_validator("conversation_id", "actor", "skill", mode="before")
    @classmethod
    def _scalar_text(cls, value: Any) -> Any:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)
        return value

    @field_validator("messages")
    @classmethod
    def _check_messages(cls, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for i, msg in enumerate(messages):
            _check_message(i, msg)
        return messages


def _check_message(i: int, msg: dict[str, Any]) -> None:
    role = msg.get("role")
    if role not in ROLES:
        raise ValueError(f"message {i}: role must be one of {', '.join(ROLES)}, got {role!r}")
    content = msg.get("content")
    if content is not None and not isinstance(content, str | list):
        raise ValueError(f"message {i}: content must be a string")
    if role == "tool" and not isinstance(msg.get("tool_call_id"), str):
        raise ValueError(f"message {i}: a tool message needs a string tool_call_id")
    calls = msg.get("tool_calls")
    if calls is None:
        return
    if role != "assistant" or not isinstance(calls, list):
        raise ValueError(f"message {i}: tool_calls must be a list on an assistant message")
    for j, call in enumerate(calls):
        fn = call.get("function") if isinstance(call, dict) else None
        if not isinstance(fn, dict) or not isinstance(fn.get("name"), str):
            raise ValueError(f"message {i}: tool_calls[{j}] needs function.name")
        if not isinstance(fn.get("arguments", "{}"), str | dict):
            raise ValueError(f"message {i}: tool_calls[{j}].function.arguments must be JSON text")


class Call(_Model):
    """A tool call of the reference run: name and decoded arguments."""

    name: str = Field(min_length=1)
    arguments: dict[str, Any] = Field(default_factory=dict)

    @field_validator("arguments", mode="before")
    @classmethod
    def _decode(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return json.loads(value) if value.strip() else {}
            except json.JSONDecodeError as exc:
                raise ValueError(f"arguments are not valid JSON: {exc.msg}") from None
        return {} if value is None else value


class Step(_Model):
    call: Call
    result: str


class Mock(_Model):
    """An answer for a call the reference run never made (live mode only). Absent
    `arguments` match any call of the tool; given ones must all be equal."""

    call: Call
    result: str


class Test(_Model):
    __test__ = False  # not a pytest test class

    actor: str = Field(min_length=1)
    skill: str = Field(min_length=1)
    query: str = Field(min_length=1)
    steps: list[Step] = Field(default_factory=list)
    mocks: list[Mock] = Field(default_factory=list)


class Pattern(_Model):
    """`match` / `forbid`: case-insensitive regexes; all must, any of, none may match."""

    all: list[str] = Field(default_factory=list)
    any: list[str] = Field(default_factory=list)
    none: list[str] = Field(default_factory=list)

    @field_validator("all", "any", "none", mode="before")
    @classmethod
    def _listify(cls, value: Any) -> Any:
        if value is None:
            return []
        return [value] if isinstance(value, str) else value

    @field_validator("all", "any", "none")
    @classmethod
    def _compile(cls, patterns: list[str]) -> list[str]:
        for p in patterns:
            try:
                re.compile(p, re.IGNORECASE)
            except re.error as exc:
                raise ValueError(f"regex {p!r} does not compile: {exc}") from None
        return patterns


class BeforeCall(_Model):
    before_call: int = Field(ge=1)


By = Literal["start", "final"] | BeforeCall


class Examples(_Model):
    """Extension: unit texts that must / must not satisfy the item (validation tests)."""

    good: list[str] = Field(default_factory=list)
    bad: list[str] = Field(default_factory=list)


class Item(_Model):
    """One rubric item. Positive items carry `match`, negative items `forbid`."""

    id: str = Field(min_length=1)
    mode: Literal["positive", "negative"]
    weight: int = Field(ge=1, le=3, strict=True)
    text: str = Field(min_length=1)
    by: By = "final"
    match: Pattern | None = None
    forbid: Pattern | None = None
    examples: Examples | None = None

    @field_validator("id", mode="before")
    @classmethod
    def _scalar_id(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @model_validator(mode="after")
    def _pattern_for_mode(self) -> Item:
        if self.mode == "positive" and self.match is None:
            raise ValueError("a positive item needs `match`")
        if self.mode == "negative" and self.forbid is None:
            raise ValueError("a negative item needs `forbid`")
        return self

    @property
    def pattern(self) -> Pattern:
        """The item's regex set: `match` for positive, `forbid` for negative items."""
        pat = self.match if self.mode == "positive" else self.forbid
        assert pat is not None  # guaranteed by _pattern_for_mode
        return pat


class ToolCallMax(_Model):
    type: Literal["tool_call_max"]
    tool: str
    max: int = Field(ge=0)


class SourceNotCalled(_Model):
    type: Literal["source_not_called"]
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class OutputContains(_Model):
    type: Literal["output_contains"]
    text: str


class ToolParamCheck(_Model):
    type: Literal["tool_param_check"]
    tool: str
    param: str
    equals: Any


Check = Annotated[
    ToolCallMax | SourceNotCalled | OutputContains | ToolParamCheck,
    Field(discriminator="type"),
]


class Scenario(_Model):
    """One DC-Bench scenario file."""

    id: str = Field(min_length=1)
    dimension: Dimension
    domain: str = Field(min_length=1)
    description: str = ""
    tools: list[Tool] = Field(default_factory=list)
    seed: list[SeedSession] = Field(default_factory=list)
    test: Test
    expect: list[Item] = Field(min_length=3, max_length=8)
    checks: list[Check] = Field(default_factory=list)

    @model_validator(mode="after")
    def _unique_item_ids(self) -> Scenario:
        seen: set[str] = set()
        for item in self.expect:
            if item.id in seen:
                raise ValueError(f"duplicate rubric item id {item.id!r}")
            seen.add(item.id)
        return self

    @property
    def name(self) -> str:
        """The short name (last dotted part of the id), as Table 5 lists it."""
        return self.id.rsplit(".", 1)[-1]

    def tool_names(self) -> list[str]:
        return [t.name for t in self.tools]
