"""`Memory`: the one facade over Capture -> Store -> Retrieve -> Inject.

mem = Memory("memory.db")                       # SQLite file, local embedder, no LLM
mem.capture(messages, actor="alice", skill="analyst", conversation_id="s1")
run = mem.start(actor="alice", skill="analyst", query="Summarize Beta's growth")
run.messages          # stage 1: fabricated user/assistant pair with the up-front rules
run.observe(call, result)   # stage 2: rules the data just seen triggers
run.system            # system-prompt text for the next model call

Memory("memory.db", llm="openai:gpt-4o-mini")   # capture with an LLM (deterministic fallback)
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dctx.capture.base import AftermathClassifier, CorrectionSignal, ToolPatternSignal
from dctx.capture.corrections import find_corrections
from dctx.capture.graph import SessionGraph, build_graph, node_vectors
from dctx.capture.parse import load_sessions, parse_messages
from dctx.capture.recurring import empty_fallbacks, fruitless_lookups, recurring_failures
from dctx.capture.self_assess import assess
from dctx.compile.compiler import compile_signals
from dctx.compile.maintain import Rulebook
from dctx.errors import ConfigError, NotFoundError
from dctx.inject.run import Run
from dctx.models import (
    DEFAULT_NAMESPACE,
    Edge,
    EdgeType,
    Rule,
    RuleStatus,
    Session,
    to_dict,
    utcnow,
)
from dctx.providers.base import LLM, Embedder
from dctx.providers.embedders import get_embedder
from dctx.providers.usage import UsageTotals, metering
from dctx.retrieve.engine import Retriever
from dctx.store.base import CaptureBatch, Store

if TYPE_CHECKING:
    from dctx.providers.llm_pipeline import LLMPipeline

log = logging.getLogger("dctx")

DEFAULT_TOKEN_BUDGET = 400


@dataclass(slots=True)
class CaptureReport:
    """What one capture learned and changed."""

    sessions: int = 0
    messages: int = 0
    corrections: int = 0
    withdrawals: int = 0
    tool_signals: int = 0
    added: list[Rule] = field(default_factory=list)
    changed: list[Rule] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    usage: UsageTotals = field(default_factory=UsageTotals)  # LLM and embedding tokens spent

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = to_dict(self)
        out["usage"] = self.usage.to_dict()
        return out


class Memory:
    """Persistent behavioral memory for tool-using agents.

    `llm` ("provider:model" or an LLM) lets capture ask a model to decide ambiguous user
    turns, to assess tool calls and to compile corrections; each step falls back to the
    deterministic one when the model fails. Without it, capture makes no model call.
    """

    def __init__(
        self,
        store: str | Path | Store = "dctx.db",
        *,
        embedder: str | Embedder | None = None,
        namespace: str = DEFAULT_NAMESPACE,
        token_budget: int = DEFAULT_TOKEN_BUDGET,
        review: bool = False,
        embed_nodes: bool = True,
        classifier: AftermathClassifier | None = None,
        llm: str | LLM | None = None,
    ) -> None:
        if isinstance(store, Store):
            self.store: Store = store
        else:
            from dctx.store.registry import open_store

            self.store = open_store(str(store))
        self.embedder: Embedder = get_embedder(embedder)
        self.store.set_embedder_id(self.embedder.id)
        self.namespace = namespace
        self.token_budget = token_budget
        self.review = review
        self.embed_nodes = embed_nodes
        self.classifier = classifier
        self.llm: LLM | None = None
        self._llm_steps: LLMPipeline | None = None
        if llm is not None:
            from dctx.providers.llm import resolve_llm
            from dctx.providers.llm_pipeline import LLMPipeline

            self.llm = resolve_llm(llm)
            self._llm_steps = LLMPipeline(self.llm, self.store)
        self.retriever = Retriever(self.store, self.embedder)

    # ------------------------------------------------------------------ capture
    def capture(
        self,
        messages: Iterable[Any],
        *,
        actor: str = "anonymous",
        skill: str = "default",
        conversation_id: str | None = None,
        timestamp: str | datetime | None = None,
        namespace: str | None = None,
        source: str | None = None,
    ) -> CaptureReport:
        """Capture one conversation (OpenAI chat or Anthropic messages) and learn from it."""
        session = parse_messages(
            messages,
            conversation_id=conversation_id,
            actor=actor,
            skill=skill,
            namespace=namespace or self.namespace,
            timestamp=timestamp or utcnow(),
            source=source,
        )
        return self.capture_sessions([session])

    def capture_file(self, path: str | Path, **defaults: Any) -> CaptureReport:
        """Capture every session of a JSONL / JSON / YAML trace file in one transaction."""
        return self.capture_sessions(load_sessions(path, **defaults))

    def capture_sessions(self, sessions: Sequence[Session]) -> CaptureReport:
        """Learn from parsed sessions. All-or-nothing: one transaction for the whole call."""
        report = CaptureReport(sessions=len(sessions))
        by_ns: dict[str, list[Session]] = {}
        for s in sessions:
            by_ns.setdefault(s.namespace, []).append(s)
            report.messages += len(s.messages)
        with metering() as meter, self.store.transaction():
            for namespace, group in by_ns.items():
                self._capture_namespace(namespace, group, report)
        report.usage = meter.totals()
        return report

    def _capture_namespace(
        self, namespace: str, sessions: list[Session], report: CaptureReport
    ) -> None:
        batch = CaptureBatch(sessions=list(sessions))
        corrections: list[CorrectionSignal] = []
        graphs: list[SessionGraph] = []
        steps = self._llm_steps
        for session in sorted(sessions, key=lambda s: s.timestamp):
            classifier = self.classifier
            if classifier is None and steps is not None:
                classifier = steps.classifier(session)
            signals = find_corrections(session, classifier)
            subjects = signals[-1].subjects if signals else []
            graph = build_graph(session, subjects)
            _anchor(signals, graph)
            corrections.extend(signals)
            graphs.append(graph)
            batch.nodes.extend(graph.nodes)
            batch.edges.extend(graph.edges)
            batch.evidence.extend(graph.evidence)
        tool_signals: list[ToolPatternSignal] = list(assess(sessions, steps))
        tool_signals.extend(recurring_failures(self.store, sessions, tool_signals))
        tool_signals.extend(fruitless_lookups(self.store, sessions))
        tool_signals.extend(empty_fallbacks(self.store, sessions))
        report.corrections += sum(1 for c in corrections if c.aftermath.value == "correction")
        report.withdrawals += sum(1 for c in corrections if c.aftermath.value == "withdrawal")
        report.tool_signals += len(tool_signals)
        if self.embed_nodes and batch.nodes:
            batch.node_vectors.update(node_vectors(self.embedder, batch.nodes))
        index = self.store.rule_index(namespace, [RuleStatus.ACTIVE, RuleStatus.DRAFT])
        rulebook = Rulebook(index.rules, index.text_vectors, self.embedder)
        result = compile_signals(rulebook, corrections, tool_signals, chain_compiler=steps)
        batch.evidence.extend(result.evidence)
        new_rules = result.maintenance.new_rules
        if self.review:
            for rule in new_rules:
                rule.status = RuleStatus.DRAFT
        if new_rules:
            # text vectors were computed during maintenance; only trigger texts are new here
            triggers = self.embedder.embed([r.trigger.text or r.text for r in new_rules])
            for rule, trigger_vec in zip(new_rules, triggers, strict=True):
                batch.rule_vectors[rule.id] = (
                    result.maintenance.new_vectors[rule.id],
                    trigger_vec,
                )
                if rule.trigger.node_id:
                    batch.edges.append(Edge(rule.id, EdgeType.FORGED_FROM, rule.trigger.node_id))
                for ev_id in rule.evidence_ids:
                    batch.edges.append(Edge(rule.id, EdgeType.FORGED_FROM, ev_id))
        batch.rules = new_rules + list(result.maintenance.changed.values())
        self.store.write(batch)
        report.added.extend(new_rules)
        report.changed.extend(result.maintenance.changed.values())
        report.log.extend(result.maintenance.log)

    # ------------------------------------------------------------------ inject
    def start(
        self,
        *,
        actor: str,
        skill: str,
        query: str,
        tools: Sequence[Any] | None = None,
        namespace: str | None = None,
        token_budget: int | None = None,
    ) -> Run:
        """Begin a run: stage-1 rules are ready in `run.units` / `run.messages`."""
        return Run(
            namespace=namespace or self.namespace,
            actor=actor,
            skill=skill,
            query=query,
            tools=_tool_names(tools),
            retriever=self.retriever,
            embedder=self.embedder,
            token_budget=token_budget if token_budget is not None else self.token_budget,
        )

    # ------------------------------------------------------------------ rulebook
    def rules(
        self,
        *,
        actor: str | None = None,
        skill: str | None = None,
        status: RuleStatus | Sequence[RuleStatus] | None = None,
        namespace: str | None = None,
    ) -> list[Rule]:
        statuses = [status] if isinstance(status, RuleStatus) else status
        return self.store.list_rules(
            namespace=namespace or self.namespace, actor=actor, skill=skill, statuses=statuses
        )

    def rule(self, rule_id: str) -> Rule:
        return self.store.get_rule(rule_id)

    def search(
        self,
        query: str,
        *,
        limit: int = 10,
        namespace: str | None = None,
        actor: str | None = None,
        skill: str | None = None,
        status: RuleStatus | Sequence[RuleStatus] | None = None,
    ) -> list[tuple[Rule, float]]:
        """Rules whose text or trigger matches `query` (BM25 full text), best first, with
        their scores; `actor`, `skill` and `status` filter as in `rules`."""
        ns = namespace or self.namespace
        hits = self.store.search_text(ns, query, limit=max(limit * 4, 50))
        allowed = {
            r.id: r for r in self.rules(actor=actor, skill=skill, status=status, namespace=ns)
        }
        return [(allowed[rid], score) for rid, score in hits if rid in allowed][:limit]

    def explain(
        self,
        rule_id: str,
        *,
        query: str | None = None,
        actor: str | None = None,
        skill: str | None = None,
        tools: Sequence[str] | None = None,
        steps: Sequence[tuple[dict[str, Any], str]] = (),
    ) -> dict[str, Any]:
        """Explain a rule: its provenance (who said what, when, in which session and message)
        and, given a run (`query`, `actor`, `skill`, optional `tools` and `steps` as
        ({"name", "arguments"}, result) pairs), why it would or would not fire at each
        decision point of that run, under "run". `dctx rules explain` prints the same."""
        rule = self.store.get_rule(rule_id)
        evidence = self.store.get_evidence(rule.evidence_ids)
        nodes = self.store.get_nodes([rule.trigger.node_id] if rule.trigger.node_id else [])
        out: dict[str, Any] = {
            "rule": rule.to_dict(),
            "evidence": [to_dict(e) for e in evidence],
            "trigger_node": to_dict(nodes[0]) if nodes else None,
        }
        if query is None:
            if actor is not None or skill is not None or tools is not None or steps:
                raise ConfigError("explaining a run needs its query: pass query=...")
            return out
        if not actor or not skill:
            raise ConfigError("explaining a run needs the actor and skill that run it")
        from dctx.inject.why import explain_run

        _, (why,) = explain_run(
            self, [rule], actor=actor, skill=skill, query=query, tools=tools, steps=steps
        )
        out["run"] = why.to_dict()
        return out

    def set_status(self, rule_id: str, status: RuleStatus, note: str = "") -> Rule:
        return self.store.set_rule_status(rule_id, status, note=note)

    def disable(self, rule_id: str) -> Rule:
        return self.set_status(rule_id, RuleStatus.DISABLED, "disabled by user")

    def enable(self, rule_id: str) -> Rule:
        return self.set_status(rule_id, RuleStatus.ACTIVE, "enabled by user")

    def approve(self, rule_id: str) -> Rule:
        return self.set_status(rule_id, RuleStatus.ACTIVE, "approved in review")

    def delete(self, rule_id: str) -> None:
        self.store.delete_rule(rule_id)

    def edit(self, rule_id: str, text: str) -> Rule:
        """Replace a rule's text (kept in its history) and re-embed it."""
        rule = self.store.get_rule(rule_id)
        if not text.strip():
            raise NotFoundError("a rule's text cannot be empty") from None
        rule.history.append({"at": utcnow(), "event": "edited", "old_text": rule.text})
        rule.text = text.strip()
        rule.updated_at = utcnow()
        vec = self.embedder.embed([rule.text, rule.trigger.text or rule.text])
        self.store.write(CaptureBatch(rules=[rule], rule_vectors={rule.id: (vec[0], vec[1])}))
        return rule

    def forget_actor(self, actor: str, *, namespace: str | None = None) -> dict[str, int]:
        return self.store.forget_actor(namespace or self.namespace, actor)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _anchor(signals: list[CorrectionSignal], graph: SessionGraph) -> None:
    """Point each correction at the decision node it corrected (its trigger anchor)."""
    positions = sorted(graph.node_at.items())
    for signal in signals:
        before = [node for idx, node in positions if idx < signal.message_index]
        signal.node_id = before[-1] if before else None


def _tool_names(tools: Sequence[Any] | None) -> list[str] | None:
    if tools is None:
        return None
    names: list[str] = []
    for tool in tools:
        if isinstance(tool, str):
            names.append(tool)
        elif isinstance(tool, dict):
            inner = tool.get("function", tool)
            if isinstance(inner, dict) and "name" in inner:
                names.append(str(inner["name"]))
        elif hasattr(tool, "name"):
            names.append(str(tool.name))
    return names
