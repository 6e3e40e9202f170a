"""The three LLM steps behind the pipeline's hooks, as `Memory(llm=...)` uses them.

`LLMPipeline` is an AftermathClassifier factory (capture/corrections.py), a SelfAssessor
(capture/self_assess.py) and a ChainCompiler (compile/compiler.py), over the LLM steps that
sit beside them: capture/reading/llm.py, capture/self_assess_llm.py, compile/compiler_llm.py.
It imports capture and compile, so it sits above both, beside memory.py. Each step answers
None when the LLM failed, so the deterministic step decides; nothing here raises for a model
or provider failure. Results are cached in the store by input hash, under the namespace and
actor they came from, so re-capturing a trace costs no tokens and `forget_actor` removes them.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from dctx.capture.base import Aftermath, CorrectionSignal, ToolPatternSignal, session_context
from dctx.capture.reading.llm import LLMAftermathClassifier
from dctx.capture.self_assess_llm import llm_self_assess, tool_steps
from dctx.compile.compiler_llm import CompiledRule, llm_compile_chain
from dctx.compile.reach import PERSONAL, SHARED_SCOPE
from dctx.compile.triggers import data_trigger
from dctx.errors import ConfigError
from dctx.models import (
    Evidence,
    Rule,
    RuleSource,
    RuleType,
    Scope,
    Session,
    Trigger,
    TriggerKind,
    new_id,
)
from dctx.providers.base import LLM
from dctx.providers.llm_step import CacheBackend, StoreCache
from dctx.providers.usage import record_event
from dctx.text import content_stems

__all__ = ["LLMPipeline"]

logger = logging.getLogger(__name__)


class LLMPipeline:
    """The three LLM steps of a capture, over one LLM and one store (the cache)."""

    def __init__(self, llm: LLM, store: CacheBackend) -> None:
        self.llm = llm
        self.store = store

    def over(self, cache: CacheBackend) -> LLMPipeline:
        """The same steps with answers cached in `cache` (a capture's pending overlay)."""
        return LLMPipeline(self.llm, cache)

    def _cache(self, namespace: str, actor: str | None) -> StoreCache:
        return StoreCache(self.store, namespace=namespace, actor=actor)

    # ------------------------------------------------------------------ 1. aftermath
    def classifier(self, session: Session) -> LLMAftermathClassifier:
        """The aftermath classifier for one session (its cache entries carry its actor)."""
        return LLMAftermathClassifier(self.llm, cache=self._cache(session.namespace, session.actor))

    # ------------------------------------------------------------------ 2. self-assessment
    def assess(self, sessions: Sequence[Session]) -> list[ToolPatternSignal] | None:
        """Tool-call patterns, one request per (namespace, actor); None when any failed."""
        groups: dict[tuple[str, str], list[Session]] = {}
        for s in sorted(sessions, key=lambda s: s.timestamp):
            groups.setdefault((s.namespace, s.actor), []).append(s)
        out: list[ToolPatternSignal] = []
        try:
            for (namespace, actor), group in groups.items():
                found = llm_self_assess(
                    self.llm, tool_steps(group), cache=self._cache(namespace, actor)
                )
                if found is None:
                    return None
                contexts = {s.conversation_id: session_context(s) for s in group}
                for p in found:
                    conv = p.conversation_ids[0] if p.conversation_ids else group[0].conversation_id
                    signal = p.to_signal(contexts.get(conv, session_context(group[0])))
                    signal.directive = p.directive
                    out.append(signal)
        except Exception as exc:  # a bug or an odd answer must not fail the capture
            _gave_up("self_assessment", exc)
            return None
        return out

    # ------------------------------------------------------------------ 3. compile
    def compile_chain(
        self, chain: Sequence[CorrectionSignal], evidence: Sequence[Evidence]
    ) -> list[Rule] | None:
        """The chain's kept rules (DROP / SKIP left out), or None when the LLM gave up."""
        if not chain:
            return []
        ctx = chain[0].ctx
        try:
            compiled = llm_compile_chain(
                self.llm, chain, cache=self._cache(ctx.namespace, ctx.actor)
            )
            if compiled is None:
                return None
            return [self._rule(r, chain, evidence) for r in compiled if r.keep]
        except Exception as exc:
            _gave_up("compile", exc)
            return None

    def _rule(
        self, out: CompiledRule, chain: Sequence[CorrectionSignal], evidence: Sequence[Evidence]
    ) -> Rule:
        corrections = [i for i, s in enumerate(chain) if s.aftermath is not Aftermath.WITHDRAWAL]
        main = _source_of(out.rule, chain, corrections or list(range(len(chain))))
        signal = chain[main]
        ctx = signal.ctx
        # the team's when the turn says so, or passes on a decision of the organisation
        # (capture's announcement reader) for a rule not marked as the speaker's own
        shared = bool(SHARED_SCOPE.search(signal.raw)) or (
            signal.announced and not PERSONAL.search(out.rule)
        )
        others = [evidence[i].id for i in corrections if i != main]
        return Rule(
            id=new_id("rule"),
            text=out.rule,
            type=RuleType(out.type),
            trigger=_condition_read(_stemmed(out.to_trigger(node_id=signal.node_id))),
            scope=Scope(
                namespace=ctx.namespace,
                skill=ctx.skill,
                actor=None if shared else ctx.actor,
                subject=(out.subject or "").strip() or None,
            ),
            source=RuleSource.CORRECTION,
            actor=ctx.actor,
            group=out.group,
            qualifiers=[q.strip() for q in out.qualifiers if q.strip()],
            supporters=[ctx.actor],
            evidence_ids=[evidence[main].id, *others],
            conversation_id=ctx.conversation_id,
            created_at=ctx.timestamp,
            updated_at=ctx.timestamp,
            history=[{"at": ctx.timestamp, "event": "compiled", "by": self.llm.id}],
        )


def _stemmed(trigger: Trigger) -> Trigger:
    """Keywords and numeric terms as the stems retrieval matches against (retrieve/context.py);
    a data trigger without either falls back to the stems of its condition text."""
    trigger.keywords = list(
        dict.fromkeys(s for k in trigger.keywords for s in content_stems(k, drop_generic=True))
    )
    if trigger.numeric is not None:
        terms = [s for t in trigger.numeric.terms for s in content_stems(t, drop_generic=True)]
        trigger.numeric.terms = list(dict.fromkeys(terms)) or trigger.numeric.terms
    elif trigger.kind is TriggerKind.DATA and not trigger.keywords:
        trigger.keywords = content_stems(trigger.text, drop_generic=True)
    return trigger


def _condition_read(trigger: Trigger) -> Trigger:
    """A data trigger whose condition is read as the offline compiler reads one
    (compile/triggers.py): the model says what the condition is, the reading says how a run
    tests it, the same for every rule. "a pod is in CrashLoopBackOff" is a predicate over
    result items, not two words; "over 5%" keeps its unit, so it meets the fraction 0.07;
    "over $40" is read on money fields. The model's own keywords and threshold stand where
    the reading finds none (a condition without a number the model put one on)."""
    if trigger.kind is not TriggerKind.DATA or not trigger.text:
        return trigger
    try:
        read = data_trigger(trigger.text)
    except ConfigError:  # nothing checkable in the words: the model's parts are all there is
        return trigger
    trigger.keywords = read.keywords or trigger.keywords
    trigger.excluded = read.excluded
    if read.numeric is not None:
        said = trigger.numeric.terms if trigger.numeric is not None else []
        read.numeric.terms = list(dict.fromkeys([*read.numeric.terms, *said]))
        trigger.numeric = read.numeric
        trigger.predicate = read.predicate  # a date window beside the threshold, or None
    elif trigger.numeric is None:
        trigger.predicate = read.predicate
    # else the model's threshold is the condition: no reading of other words stands beside it
    return trigger


def _source_of(text: str, chain: Sequence[CorrectionSignal], candidates: list[int]) -> int:
    """The correction a compiled rule mostly rests on: most shared content words, latest on
    a tie (a later correction wins)."""
    stems = set(content_stems(text))

    def overlap(i: int) -> tuple[int, int]:
        said = chain[i].raw or chain[i].directive
        return len(stems & set(content_stems(said))), i

    return max(candidates, key=overlap)


def _gave_up(step: str, exc: Exception) -> None:
    logger.warning(
        "LLM step %r failed (%s: %s); keeping the deterministic result",
        step,
        type(exc).__name__,
        exc,
    )
    record_event("fallbacks")
