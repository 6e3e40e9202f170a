"""The LLM compiler: one correction chain in, RULE / TYPE / TRIGGER / DROP / SKIP / GROUP out.

A `ChainCompiler` (compiler.py) may hand each chain to this step instead of the
deterministic compile; when the model gives up (None), the deterministic rules stand.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import Field, field_validator

from dctx.capture.base import Aftermath, CorrectionSignal
from dctx.models import NumericCondition, Trigger, TriggerKind
from dctx.providers.base import LLM
from dctx.providers.llm_step import LLMCache, run_step
from dctx.providers.prompts import (
    LenientOutput,
    PromptSpec,
    block,
    clip,
    none_to_list,
    strict_schema,
)

__all__ = [
    "COMPILE",
    "CompileOutput",
    "CompiledRule",
    "CompiledTrigger",
    "NumericOutput",
    "compile_validator",
    "llm_compile_chain",
    "render_compile",
]


class NumericOutput(LenientOutput):
    terms: list[str] = Field(description="words naming the field, e.g. ['runway', 'months']")
    op: Literal["<", "<=", ">", ">="]
    value: float


class CompiledTrigger(LenientOutput):
    kind: Literal["always", "query", "data", "tool"]
    text: str = ""
    keywords: list[str] = Field(default_factory=list)
    tool: str | None = None
    after_tool: str | None = None
    numeric: NumericOutput | None = None

    _lists = field_validator("keywords", mode="before")(none_to_list)

    def to_trigger(self, *, node_id: str | None = None) -> Trigger:
        """The models.Trigger this stands for (tool fields kept only for TOOL triggers)."""
        kind = TriggerKind(self.kind)
        numeric = (
            NumericCondition(
                terms=list(self.numeric.terms), op=self.numeric.op, value=self.numeric.value
            )
            if self.numeric is not None and kind is TriggerKind.DATA
            else None
        )
        is_tool = kind is TriggerKind.TOOL
        return Trigger(
            kind=kind,
            text=self.text.strip(),
            keywords=[k.strip() for k in self.keywords if k.strip()],
            numeric=numeric,
            tool=self.tool if is_tool else None,
            after_tool=self.after_tool if is_tool else None,
            node_id=node_id,
        )


class CompiledRule(LenientOutput):
    rule: str = Field(description="one imperative sentence, no justification")
    type: Literal["FORMAT", "CONTENT"]
    trigger: CompiledTrigger
    qualifiers: list[str] = Field(default_factory=list)
    group: str = Field(description="snake_case label of the behavior")
    subject: str | None = None
    drop: bool = False
    skip: bool = False

    _lists = field_validator("qualifiers", mode="before")(none_to_list)

    @property
    def keep(self) -> bool:
        """Neither noise (DROP) nor replaced later in its chain (SKIP)."""
        return not (self.drop or self.skip)

    def to_trigger(self, *, node_id: str | None = None) -> Trigger:
        return self.trigger.to_trigger(node_id=node_id)


class CompileOutput(LenientOutput):
    rules: list[CompiledRule]

    _lists = field_validator("rules", mode="before")(none_to_list)


COMPILE = PromptSpec(
    name="compile",
    version=1,
    system="""\
You turn a user's corrections of an AI agent into rules the agent will follow in future runs, \
on other subjects too. You get the task, what the agent did, and a chain of corrections from \
one user; when two corrections concern the same behavior, the later one wins.
Write one rule per distinct behavior:
- rule: one imperative sentence with no justification. Generalize past the subject at hand \
(write "the company", not its name) unless the user limited the rule to that subject. Keep \
every qualifier the user gave ("for enterprise clients", "when runway is under 12 months").
- type: FORMAT when it is about how the answer looks (units, symbols, number format, layout, \
length, order, tone); CONTENT when it is about what to fetch, call, compute, include or decide.
- trigger: when the rule must reach the agent.
  kind "always": every run; use it for FORMAT rules.
  kind "query": runs whose request resembles this task; text: a short description of such \
requests.
  kind "data": only once tool results show a condition; text: the condition; keywords: words \
that appear in such data; numeric: the threshold when the condition is a number (terms naming \
the field, op, value), else null.
  kind "tool": before a call of one tool; tool: its exact name from the tool list; after_tool: \
the tool whose result comes first, or null; text: the situation.
  Fields a kind does not use are "" / [] / null.
- qualifiers: the user's conditions, each a short phrase in their words.
- group: a short snake_case label of the behavior; rules about the same behavior share it.
- subject: the subject's name when the rule is limited to it, else null.
- drop: true when the message is not a lasting instruction (a fix of a fact in this answer \
only, a one-off request, small talk).
- skip: true when a later correction in this chain replaces or withdraws this rule.
Account for every correction, flagged ones included. Return {"rules": [...]}.""",
    output=CompileOutput,
    schema=strict_schema(CompileOutput),
)


def render_compile(chain: Sequence[CorrectionSignal], tools: Sequence[str] = ()) -> str:
    """The chain as the compiler sees it: task, tools, subjects, then each correction."""
    first = chain[0]
    known = list(dict.fromkeys([*tools, *(t for s in chain for t in s.tools_seen)]))
    subjects = list(dict.fromkeys(s for sig in chain for s in sig.subjects))
    keys = {k: v for sig in chain for k, v in sig.subject_keys.items()}
    parts = [block("Task (the user's first request)", clip(first.query, 1000) or "(none)")]
    parts.append("Tools: " + (", ".join(known) if known else "(none)"))
    if subjects:
        named = [f"{s} (argument {keys[s]!r})" if s in keys else s for s in subjects]
        parts.append("Subjects seen: " + ", ".join(named))
    for n, sig in enumerate(chain, 1):
        tag = "withdrawal" if sig.aftermath is Aftermath.WITHDRAWAL else "correction"
        head = f"{tag.capitalize()} {n} of {len(chain)}"
        if sig.last_tool:
            head += f" (after a result of {sig.last_tool})"
        parts.append(
            "\n".join(
                (
                    f"--- {head}",
                    block("What happened before", clip(sig.situation, 1500) or "(nothing)"),
                    block("Agent output", clip(sig.previous_output, 1200) or "(no text)"),
                    block("User said", clip(sig.raw or sig.directive, 1500)),
                )
            )
        )
    return "\n\n".join(parts)


def compile_validator(known: set[str]) -> Callable[[dict[str, Any]], CompileOutput]:
    """What the step accepts as an answer: the output model, then the checks a schema cannot
    state (rule text and group present, tool triggers naming a tool of `known`, data triggers
    with a condition). An empty `known` leaves tool names unchecked. Raises ValueError."""

    def validate(data: dict[str, Any]) -> CompileOutput:
        out = CompileOutput.model_validate(data)
        for r in out.rules:
            if not r.rule.strip():
                raise ValueError("a rule has empty text")
            if not r.group.strip():
                raise ValueError(f"rule {r.rule!r} has no group")
            t = r.trigger
            if t.kind == "tool":
                if not t.tool:
                    raise ValueError(f"rule {r.rule!r}: a tool trigger must name its tool")
                for name in (t.tool, t.after_tool):
                    if known and name and name not in known:
                        raise ValueError(f"rule {r.rule!r}: unknown tool {name!r}")
            if t.kind == "data" and not (t.keywords or t.numeric or t.text.strip()):
                raise ValueError(f"rule {r.rule!r}: a data trigger needs a condition")
        return out

    return validate


def llm_compile_chain(
    llm: LLM,
    chain: Sequence[CorrectionSignal],
    *,
    tools: Sequence[str] = (),
    cache: LLMCache | None = None,
) -> list[CompiledRule] | None:
    """Compile one correction chain (same conversation and actor, in order) into rules.

    Returns every rule the model produced, DROP / SKIP flagged ones included (use
    `rule.keep`), or None when the LLM could not deliver. `tools` are the tool names the
    agent may call; a TOOL trigger naming any other tool makes the output invalid.
    """
    if not chain:
        return []
    known = {*tools, *(t for s in chain for t in s.tools_seen)}
    out = run_step(llm, COMPILE, render_compile(chain, tools), compile_validator(known), cache)
    if out is None:
        return None
    rules = []
    for r in out.rules:
        r.rule = " ".join(r.rule.split())
        r.group = r.group.strip().lower().replace(" ", "_")
        rules.append(r)
    return rules
