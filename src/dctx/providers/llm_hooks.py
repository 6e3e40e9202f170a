"""Where capture and compile call an LLM: three steps, each cached and each optional.

Every function returns a validated result, or None when the LLM failed or kept giving invalid
output (logged, and counted as a "fallback" in the active usage meters); the caller then keeps
its deterministic result. Results are cached by a hash of everything that shapes them (step,
prompt version, LLM id, prompt text, schema), so capturing the same trace again costs no
tokens. A store serves as the cache through `StoreCache`.

    classifier = LLMAftermathClassifier(llm, cache=StoreCache(store, namespace="default"))
    rules = llm_compile_chain(llm, chain, tools=["get_financials"], cache=cache)
    found = llm_self_assess(llm, tool_steps([session]), cache=cache)
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from dctx.capture.base import (
    Aftermath,
    CorrectionSignal,
    SessionContext,
    ToolPattern,
    ToolPatternSignal,
)
from dctx.errors import DctxError
from dctx.models import Session
from dctx.providers.base import LLM
from dctx.providers.prompts import (
    AFTERMATH,
    COMPILE,
    SELF_ASSESSMENT,
    AftermathOutput,
    ArgValue,
    CompiledRule,
    CompileOutput,
    PromptSpec,
    SelfAssessmentOutput,
    ToolStep,
    render_aftermath,
    render_compile,
    render_self_assessment,
)
from dctx.providers.structured import complete_json
from dctx.providers.usage import record_event

__all__ = [
    "AssessedPattern",
    "CacheBackend",
    "LLMAftermathClassifier",
    "LLMCache",
    "MemoryCache",
    "StoreCache",
    "cache_key",
    "llm_compile_chain",
    "llm_self_assess",
    "tool_steps",
]

logger = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)


# --------------------------------------------------------------------------- cache


@runtime_checkable
class LLMCache(Protocol):
    """Where validated LLM results are kept, keyed by input hash."""

    def get(self, key: str) -> str | None: ...

    def put(self, key: str, value: str) -> None: ...


class MemoryCache:
    """An in-process LLMCache (tests, one-off scripts)."""

    def __init__(self) -> None:
        self._data: dict[str, str] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            return self._data.get(key)

    def put(self, key: str, value: str) -> None:
        with self._lock:
            self._data[key] = value

    def __len__(self) -> int:
        with self._lock:
            return len(self._data)


class CacheBackend(Protocol):
    """Where cached answers live: a Store, or a capture's PendingCache over one."""

    def cache_get(self, key: str) -> str | None: ...

    def cache_put(self, key: str, value: str, *, namespace: str, actor: str | None) -> None: ...


class StoreCache:
    """An LLMCache over a Store's cache table. Entries carry namespace and actor, so
    `forget_actor` / `drop_namespace` remove them with the rest of the actor's data."""

    def __init__(self, store: CacheBackend, *, namespace: str, actor: str | None = None) -> None:
        self.store = store
        self.namespace = namespace
        self.actor = actor

    def get(self, key: str) -> str | None:
        return self.store.cache_get(key)

    def put(self, key: str, value: str) -> None:
        self.store.cache_put(key, value, namespace=self.namespace, actor=self.actor)


def cache_key(prompt: PromptSpec, llm_id: str, user: str) -> str:
    """sha256 over step, prompt version, LLM id, system text, schema and input."""
    payload = json.dumps(
        [prompt.name, prompt.version, llm_id, prompt.system, prompt.schema, user],
        sort_keys=True,
        ensure_ascii=False,
    )
    return f"llm:{prompt.name}:{hashlib.sha256(payload.encode('utf-8')).hexdigest()}"


def _run(
    llm: LLM,
    prompt: PromptSpec,
    user: str,
    validate: Callable[[dict[str, Any]], M],
    cache: LLMCache | None,
) -> M | None:
    key = cache_key(prompt, llm.id, user) if cache is not None else ""
    if cache is not None:
        try:
            hit = cache.get(key)
        except DctxError as exc:
            logger.warning("LLM cache read failed (%s); calling the LLM", exc)
            hit = None
        if hit is not None:
            try:
                cached = validate(json.loads(hit))
            except (ValueError, TypeError, KeyError):
                logger.info("ignoring an unreadable cache entry for step %r", prompt.name)
            else:
                record_event("cache_hits")
                return cached
    result = complete_json(llm, prompt.system, user, prompt.schema, validate, step=prompt.name)
    if result is not None and cache is not None:
        try:
            cache.put(key, result.model_dump_json())
        except DctxError as exc:
            logger.warning("LLM cache write failed (%s); the result is not cached", exc)
    return result


# --------------------------------------------------------------------------- 1. aftermath


class LLMAftermathClassifier:
    """AftermathClassifier (capture/base.py) backed by an LLM. Returns None on any failure,
    so the deterministic decision stands."""

    def __init__(self, llm: LLM, *, cache: LLMCache | None = None) -> None:
        self.llm = llm
        self.cache = cache

    def classify(self, previous_output: str, user_text: str) -> Aftermath | None:
        if not user_text.strip():
            return None
        out = _run(
            self.llm,
            AFTERMATH,
            render_aftermath(previous_output, user_text),
            AftermathOutput.model_validate,
            self.cache,
        )
        return out.value() if out is not None else None


# --------------------------------------------------------------------------- 2. self-assessment


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
    out = _run(
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
    from dctx.capture.self_assess import tool_calls

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


# --------------------------------------------------------------------------- 3. compile


def _compile_validator(known: set[str]) -> Callable[[dict[str, Any]], CompileOutput]:
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
    out = _run(llm, COMPILE, render_compile(chain, tools), _compile_validator(known), cache)
    if out is None:
        return None
    rules = []
    for r in out.rules:
        r.rule = " ".join(r.rule.split())
        r.group = r.group.strip().lower().replace(" ", "_")
        rules.append(r)
    return rules
