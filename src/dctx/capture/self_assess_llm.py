"""The LLM self-assessment: tool-call patterns found by a model from tool-only data.

The model sees tool names, arguments, success, and the short error of failed calls; never the
conversation (paper, section 4.1: with full traces the analyzer "produces rules about
everything"). Its findings come back as the ToolPatternSignals the deterministic
self-assessment (self_assess.py) produces, with the model's directive as their text.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import Field, field_validator

from dctx.capture.base import SessionContext, ToolPattern, ToolPatternSignal
from dctx.capture.self_assess import tool_calls
from dctx.models import Session
from dctx.providers.base import LLM
from dctx.providers.llm_step import LLMCache, run_step
from dctx.providers.prompts import (
    LenientOutput,
    PromptSpec,
    clip,
    none_to_list,
    strict_schema,
)

__all__ = [
    "SELF_ASSESSMENT",
    "ArgValue",
    "AssessedPattern",
    "PatternOutput",
    "SelfAssessmentOutput",
    "ToolStep",
    "llm_self_assess",
    "render_self_assessment",
    "tool_steps",
]


class ArgValue(LenientOutput):
    """One argument as name and value (a JSON text or a plain string)."""

    name: str
    value: str

    @field_validator("value", mode="before")
    @classmethod
    def _stringify(cls, v: Any) -> Any:
        return v if isinstance(v, str) else json.dumps(v)


class PatternOutput(LenientOutput):
    pattern: Literal[
        "retry_changed_args",
        "recurring_failure",
        "missing_prerequisite",
        "auth_refresh",
        "dead_source",
    ]
    tool: str = Field(description="the tool whose call failed")
    other_tool: str | None = Field(
        default=None, description="the prerequisite, refresh or replacement tool, or null"
    )
    after_tool: str | None = Field(
        default=None, description="the tool whose result came just before the failing call"
    )
    failed_args: list[ArgValue] = Field(default_factory=list)
    success_args: list[ArgValue] = Field(default_factory=list)
    error: str = Field(default="", description="the short error of the failing call")
    steps: list[int] = Field(default_factory=list, description="step numbers it rests on")
    directive: str = Field(description="one imperative sentence for next time, no reason")

    _lists = field_validator("failed_args", "success_args", "steps", mode="before")(none_to_list)


class SelfAssessmentOutput(LenientOutput):
    patterns: list[PatternOutput]

    _lists = field_validator("patterns", mode="before")(none_to_list)


@dataclass(frozen=True, slots=True)
class ToolStep:
    """One tool call in the tool-only view: no result text unless the call failed."""

    tool: str
    arguments: dict[str, Any]
    ok: bool
    error: str = ""  # short error text of a failed call
    error_class: str | None = None  # "rate_limit", "auth", ... when known
    conversation_id: str = ""
    message_index: int = -1  # the assistant message that made the call
    message_indexes: list[int] = field(default_factory=list)  # call and result messages


SELF_ASSESSMENT = PromptSpec(
    name="self_assessment",
    version=1,
    system="""\
You review the tool calls an AI agent made, to find what it should do differently next time.
You see only tool names, arguments, and whether each call succeeded, with the error of failed \
calls. You do not see the conversation; do not guess it.
Report a pattern only when the calls show it:
- retry_changed_args: a call fails, then the same tool succeeds with different arguments.
- recurring_failure: the same tool with the same arguments fails again and again.
- missing_prerequisite: a call fails for lack of something that another tool then supplies, \
after which the call succeeds.
- auth_refresh: a call fails on authentication, a refresh or login tool is called, and the \
retry succeeds.
- dead_source: a tool or source fails, and a different tool or source supplies the data \
instead.
Not every error is a mistake: rate limits, transient failures that pass on a plain retry, \
empty results and narrowing searches are not patterns. If nothing qualifies, return \
{"patterns": []}.
For each pattern give: tool (the one that failed, exactly as named); other_tool (the \
prerequisite, refresh or replacement tool, or null); after_tool (the tool whose result came \
just before the failing call, or null); the failing and the working argument values that \
matter; the short error; the step numbers it rests on; and directive: one imperative \
sentence the agent should follow next time, naming the tool and the argument values, with \
no justification.""",
    output=SelfAssessmentOutput,
    schema=strict_schema(SelfAssessmentOutput),
)


def _step_line(i: int, step: ToolStep) -> str:
    args = json.dumps(step.arguments, sort_keys=True, ensure_ascii=False, default=str)
    if step.ok:
        outcome = "ok"
    else:
        kind = f" ({step.error_class})" if step.error_class else ""
        outcome = f"FAILED{kind}: {clip(step.error, 200)}" if step.error else f"FAILED{kind}"
    return f"[{i}] {step.tool}({clip(args, 400)}) -> {outcome}"


def render_self_assessment(steps: Sequence[ToolStep]) -> str:
    """Tool calls grouped by session, numbered across all sessions."""
    lines: list[str] = ["Tool calls, in order (step number, tool, arguments, outcome):"]
    current: str | None = None
    for i, step in enumerate(steps):
        if step.conversation_id != current:
            current = step.conversation_id
            lines.append(f"Session {current or '?'}:")
        lines.append(_step_line(i, step))
    return "\n".join(lines)


def tool_patterns() -> list[str]:
    """The pattern names the self-assessment schema allows (kept equal to ToolPattern)."""
    return [p.value for p in ToolPattern]


def _arg_dict(values: Sequence[ArgValue]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in values:
        try:
            out[item.name] = json.loads(item.value)
        except ValueError:
            out[item.name] = item.value
    return out


@dataclass(slots=True)
class AssessedPattern:
    """A self-assessment finding from the LLM, tied back to the trace."""

    pattern: ToolPattern
    tool: str
    directive: str  # the imperative sentence the LLM proposes
    other_tool: str | None = None
    after_tool: str | None = None
    failed_args: dict[str, Any] = field(default_factory=dict)
    success_args: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    message_indexes: list[int] = field(default_factory=list)
    conversation_ids: list[str] = field(default_factory=list)

    def to_signal(self, ctx: SessionContext, *, node_id: str | None = None) -> ToolPatternSignal:
        """The ToolPatternSignal the deterministic self-assessment would have produced."""
        return ToolPatternSignal(
            ctx=ctx,
            pattern=self.pattern,
            tool=self.tool,
            failed_args=dict(self.failed_args),
            success_args=dict(self.success_args),
            other_tool=self.other_tool,
            error=self.error,
            after_tool=self.after_tool,
            message_indexes=list(self.message_indexes),
            occurrences=max(1, len(self.conversation_ids)),
            conversation_ids=list(self.conversation_ids),
            node_id=node_id,
        )


def _self_assess_validator(
    steps: Sequence[ToolStep],
) -> Callable[[dict[str, Any]], SelfAssessmentOutput]:
    tools = {s.tool for s in steps}

    def validate(data: dict[str, Any]) -> SelfAssessmentOutput:
        out = SelfAssessmentOutput.model_validate(data)
        for p in out.patterns:
            named = [p.tool, *([p.other_tool] if p.other_tool else [])]
            unknown = [t for t in named if t not in tools]
            if unknown:
                raise ValueError(f"unknown tool(s) {unknown}; the calls used: {sorted(tools)}")
            if not p.directive.strip():
                raise ValueError(f"pattern on {p.tool!r} has an empty directive")
        return out

    return validate


def llm_self_assess(
    llm: LLM, steps: Sequence[ToolStep], *, cache: LLMCache | None = None
) -> list[AssessedPattern] | None:
    """Patterns in tool-only data, or None when the LLM could not deliver.

    Without a failed call there is nothing to learn: [] is returned without any request.
    Step numbers the model cites outside the input are dropped; tool names it invents make
    the output invalid (retried once).
    """
    if not any(not s.ok for s in steps):
        return []
    out = run_step(
        llm,
        SELF_ASSESSMENT,
        render_self_assessment(steps),
        _self_assess_validator(steps),
        cache,
    )
    if out is None:
        return None
    found: list[AssessedPattern] = []
    for p in out.patterns:
        cited = [steps[i] for i in dict.fromkeys(p.steps) if 0 <= i < len(steps)]
        indexes = sorted({i for s in cited for i in (s.message_indexes or [s.message_index])})
        found.append(
            AssessedPattern(
                pattern=ToolPattern(p.pattern),
                tool=p.tool,
                directive=" ".join(p.directive.split()),
                other_tool=p.other_tool or None,
                after_tool=p.after_tool or None,
                failed_args=_arg_dict(p.failed_args),
                success_args=_arg_dict(p.success_args),
                error=p.error,
                message_indexes=[i for i in indexes if i >= 0],
                conversation_ids=list(dict.fromkeys(s.conversation_id for s in cited)),
            )
        )
    return found


def tool_steps(sessions: Sequence[Session]) -> list[ToolStep]:
    """The tool-only view of sessions: calls, arguments, success or short error. No user or
    assistant text and no successful result text ever enters it (paper, section 4.1)."""
    steps: list[ToolStep] = []
    for session in sessions:
        for call in tool_calls(session):
            indexes = [call.call_index] + (
                [call.result_index] if call.result_index is not None else []
            )
            cls = call.error_class
            steps.append(
                ToolStep(
                    tool=call.name,
                    arguments=dict(call.args),
                    ok=not call.failed,
                    error=call.error if call.failed else "",
                    error_class=cls.value if cls is not None else None,
                    conversation_id=session.conversation_id,
                    message_index=call.call_index,
                    message_indexes=indexes,
                )
            )
    return steps
