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

import dataclasses
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dctx.capture.base import (
    Aftermath,
    AftermathClassifier,
    CorrectionSignal,
    ToolPatternSignal,
)
from dctx.capture.corrections import find_corrections
from dctx.capture.graph import SessionGraph, build_graph, node_vectors
from dctx.capture.parse import load_sessions, parse_messages
from dctx.capture.reading.base import TurnClassifier
from dctx.capture.reading.default import default_reader
from dctx.capture.reading.preread import PrereadReader
from dctx.capture.recurring import empty_fallbacks, fruitless_lookups, recurring_failures
from dctx.capture.replacements import replacement_lessons
from dctx.capture.review import review_signals
from dctx.capture.revisions import forget_read_texts
from dctx.capture.roles import RolePolicy, resolve_policy
from dctx.capture.self_assess import assess
from dctx.capture.turns import user_turn_inputs
from dctx.compile.admission import DEFAULT_ADMISSION, Admission
from dctx.compile.compiler import ForeseenChains, compile_signals, foreseen_texts
from dctx.compile.handover import hand_over
from dctx.compile.maintain import Rulebook
from dctx.compile.outcome_events import capture_events
from dctx.compile.outcomes import DEFAULT_OUTCOMES, OutcomePolicy
from dctx.compile.tool_reversals import apply_reversals, unsupported
from dctx.compile.triggers import parse_trigger
from dctx.errors import ConfigError, ConflictError, NotFoundError
from dctx.grammar import forget_clauses
from dctx.inject.run import Run, new_run_id
from dctx.models import (
    DEFAULT_NAMESPACE,
    Edge,
    EdgeType,
    Rule,
    RuleEvent,
    RuleEventKind,
    RuleStatus,
    Session,
    SpeakerRole,
    Trigger,
    TriggerKind,
    parse_time,
    to_dict,
    utcnow,
)
from dctx.providers.base import LLM, Embedder, forget_texts
from dctx.providers.embedders import get_embedder
from dctx.providers.memo_embedder import MemoEmbedder
from dctx.providers.usage import UsageTotals, metering
from dctx.retrieve.engine import Retriever
from dctx.store.base import CaptureBatch, Store
from dctx.store.pending_cache import PendingCache
from dctx.text import forget_words
from dctx.units import forget_unit_words
from dctx.validation import (
    DEFAULT_LIMITS,
    Limits,
    check_session,
    check_text,
    identifier,
    optional_identifier,
)

if TYPE_CHECKING:
    from dctx.capture.transcripts import TranscriptReport
    from dctx.llm_pipeline import LLMPipeline
    from dctx.review.health import HealthReport
    from dctx.review.stale import StaleRule

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
    unchanged: list[str] = field(default_factory=list)  # conversations captured before, as is
    # how the rules its runs were given did, and the status changes that followed
    outcomes: list[RuleEvent] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    usage: UsageTotals = field(default_factory=UsageTotals)  # LLM and embedding tokens spent
    reader: str = ""  # what read the user turns: "learned:<version>", "llm:<provider:model>", ...

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = to_dict(self)
        out["usage"] = self.usage.to_dict()
        return out


@dataclass(slots=True)
class _Prepared:
    """One namespace's share of a capture after the work phase, ready to merge and write."""

    namespace: str
    sessions: list[Session]
    batch: CaptureBatch
    corrections: list[CorrectionSignal] = field(default_factory=list)
    tool_signals: list[ToolPatternSignal] = field(default_factory=list)


class Memory:
    """Persistent behavioral memory for tool-using agents.

    `llm` ("provider:model" or an LLM) lets capture ask a model to decide ambiguous user
    turns, to assess tool calls and to compile corrections; each step falls back to the
    deterministic one when the model fails. Without it, capture makes no model call.

    Every identifier a caller passes (actor, skill, namespace, conversation and rule ids) is
    checked and NFC-normalized (`dctx.validation`); `limits` bounds what a capture accepts.
    `admission` says how much independent evidence makes a candidate lesson (one that took a
    value or a tool from tool output) active: distinct conversations and actors.
    `outcomes` says whether runs record what they delivered, so that capturing the
    conversation later records how each rule did (compile/outcomes.py), after how many
    recurrences a rule is flagged, and after how many idle days it is stale.
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
        limits: Limits = DEFAULT_LIMITS,
        admission: Admission = DEFAULT_ADMISSION,
        reader: TurnClassifier | None = None,
        outcomes: OutcomePolicy = DEFAULT_OUTCOMES,
    ) -> None:
        self.limits = limits
        namespace = identifier(namespace, "namespace", limits=limits)
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
        self.admission = admission
        self.outcomes = outcomes
        self.reader = reader  # None: the learned turn reader (capture/reading/default.py)
        self.llm: LLM | None = None
        self._llm_steps: LLMPipeline | None = None
        if llm is not None:
            from dctx.llm_pipeline import LLMPipeline
            from dctx.providers.llm import resolve_llm

            self.llm = resolve_llm(llm)
            self._llm_steps = LLMPipeline(self.llm, self.store)
        self.retriever = Retriever(self.store, self.embedder)

    @property
    def reader_id(self) -> str:
        """What reads user turns in a capture: the configured LLM (which overrules the offline
        reader), else a classifier given to Memory, else the turn reader in use."""
        if self.classifier is not None:
            return f"classifier:{type(self.classifier).__name__}"
        if self.llm is not None:
            return f"llm:{self.llm.id}"
        return (self.reader or default_reader()).id

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
        speaker_role: str | SpeakerRole | None = None,
    ) -> CaptureReport:
        """Capture one conversation (OpenAI chat or Anthropic messages) and learn from it.

        `speaker_role` says who the user is ("operator", "end_user", "reviewer"); None: the
        role policy's default for the skill (`set_role_policy`; built in: the operator)."""
        session = parse_messages(
            messages,
            conversation_id=optional_identifier(
                conversation_id, "conversation_id", limits=self.limits
            ),
            actor=identifier(actor, "actor", limits=self.limits),
            skill=identifier(skill, "skill", limits=self.limits),
            namespace=self._namespace(namespace),
            timestamp=timestamp or utcnow(),
            source=source,
            limits=self.limits,
            speaker_role=speaker_role,
        )
        return self.capture_sessions([session])

    def capture_file(self, path: str | Path, **defaults: Any) -> CaptureReport:
        """Capture every session of a JSONL / JSON / YAML trace file in one transaction."""
        return self.capture_sessions(load_sessions(path, limits=self.limits, **defaults))

    def capture_transcripts(
        self,
        client: str,
        *paths: str | Path,
        actor: str | None = None,
        skill: str | None = None,
        namespace: str | None = None,
        skip_malformed: bool = False,
        progress: Callable[[Path, int, int], None] | None = None,
    ) -> TranscriptReport[CaptureReport]:
        """Capture an agent client's own transcripts ("claude-code", "codex", "aider"), only
        what is new since the last run. `paths` default to where the client keeps them; the
        actor defaults to the OS user name, the skill to the client name.

        mem.capture_transcripts("claude-code")                  # ~/.claude/projects
        mem.capture_transcripts("aider", "~/src/app", actor="ana")
        """
        from dctx.capture.transcripts import capture_transcripts

        return capture_transcripts(
            self.store,
            self._capture,
            client,
            paths,
            actor=actor,
            skill=skill,
            namespace=namespace or self.namespace,
            skip_malformed=skip_malformed,
            progress=progress,
        )

    def capture_sessions(self, sessions: Sequence[Session]) -> CaptureReport:
        """Learn from parsed sessions. All-or-nothing: one transaction for the whole call.

        Checking, classifying, LLM calls and embedding run first, with no lock held; the
        write transaction then only reads the rulebook, merges into it and writes, so a slow
        model or a large capture never holds the store's write lock (README, Security model).

        Idempotent: a conversation already captured (same namespace and conversation id) with
        the same actor, skill and messages is skipped (listed in `unchanged`; no rule, support
        or evidence is added). One captured with other content or as another actor raises
        ConflictError and nothing is written: a conversation is learned from once.
        """
        report = self._capture(sessions)
        assert report is not None  # no `still_current` check: never abandoned
        return report

    def _capture(
        self, sessions: Sequence[Session], still_current: Callable[[], bool] | None = None
    ) -> CaptureReport | None:
        """`capture_sessions`, with `still_current` called first inside the write transaction
        (it may write there too): False abandons the capture, nothing written, None returned.
        Transcript capture uses it to record a file in the capture's own transaction."""
        for s in sessions:
            check_session(s, limits=self.limits)  # fails fast: nothing done, no lock taken
        while True:
            report = CaptureReport(sessions=len(sessions), reader=self.reader_id)
            # unlocked first look, so no work is spent on what was captured before
            fresh = self._not_captured(sessions, report)
            by_ns: dict[str, list[Session]] = {}
            for s in fresh:
                by_ns.setdefault(s.namespace, []).append(s)
                report.messages += len(s.messages)
            cache = PendingCache(self.store)
            steps = self._llm_steps.over(cache) if self._llm_steps is not None else None
            chains = ForeseenChains(steps) if steps is not None else None
            embedder = MemoEmbedder(self.embedder)
            with metering() as meter:
                work = [
                    self._prepare(ns, group, steps, chains, embedder) for ns, group in by_ns.items()
                ]
                with self.store.transaction():
                    # the check that counts: another capture may have written one meanwhile
                    # (a conflicting one raises here and nothing is written)
                    if len(self._not_captured(fresh, CaptureReport())) < len(fresh):
                        continue  # prepared against an older store: redo, nothing written
                    if still_current is not None and not still_current():
                        return None
                    cache.flush()
                    for item in work:
                        self._merge_and_write(item, chains, embedder, report)
            report.usage = meter.totals()
            return report

    def _not_captured(self, sessions: Sequence[Session], report: CaptureReport) -> list[Session]:
        """The sessions to learn from; the rest were captured before, unchanged."""
        known: dict[tuple[str, str], Session] = {}
        for namespace in dict.fromkeys(s.namespace for s in sessions):
            ids = [s.conversation_id for s in sessions if s.namespace == namespace]
            for stored in self.store.get_sessions(namespace, ids):
                known[(namespace, stored.conversation_id)] = stored
        fresh: list[Session] = []
        for s in sessions:
            before = known.get((s.namespace, s.conversation_id))
            if before is None:
                known[(s.namespace, s.conversation_id)] = s
                fresh.append(s)
                continue
            if (before.actor, before.skill, before.messages) != (s.actor, s.skill, s.messages):
                raise ConflictError(_recapture_conflict(before, s))
            report.unchanged.append(s.conversation_id)
            report.log.append(f"conversation {s.conversation_id!r} was captured before: skipped")
        return fresh

    def _prepare(
        self,
        namespace: str,
        sessions: list[Session],
        steps: LLMPipeline | None,
        chains: ForeseenChains | None,
        embedder: MemoEmbedder,
    ) -> _Prepared:
        """The work phase: signals, graph, node vectors and every text the compile will
        embed, computed without writing (LLM answers wait in the pending cache)."""
        work = _Prepared(namespace, sessions, CaptureBatch(sessions=list(sessions)))
        policies = self.store.role_policies(namespace)
        reader = self._batch_reader(sessions, policies)
        rulebooks: dict[tuple[str, str], list[str]] = {}  # active rule texts by actor, skill
        for session in sorted(sessions, key=lambda s: s.timestamp):
            classifier = self.classifier
            if classifier is None and steps is not None:
                classifier = steps.classifier(session)
            policy = resolve_policy(policies, session.skill)
            if (session.actor, session.skill) not in rulebooks:
                # the store as the batch found it: its own rules are written after compile
                rulebooks[(session.actor, session.skill)] = [
                    r.text
                    for r in self.store.list_rules(
                        namespace=namespace,
                        actor=session.actor,
                        skill=session.skill,
                        statuses=[RuleStatus.ACTIVE],
                    )
                ]
            signals = find_corrections(
                session,
                classifier,
                reader,
                teaches=policy.teaches,
                rulebook=rulebooks[(session.actor, session.skill)],
            )
            signals = policy.apply(signals, session)
            # what this session taught is part of its speaker's rules for the batch's later
            # sessions: a later turn revises or takes back a rule an earlier one set
            rulebooks[(session.actor, session.skill)].extend(
                s.directive
                for s in signals
                if s.aftermath is Aftermath.CORRECTION and not s.candidate
            )
            subjects = signals[-1].subjects if signals else []
            graph = build_graph(session, subjects)
            _anchor(signals, graph)
            work.corrections.extend(signals)
            work.batch.nodes.extend(graph.nodes)
            work.batch.edges.extend(graph.edges)
            work.batch.evidence.extend(graph.evidence)
        work.tool_signals = list(assess(sessions, steps))
        if self.embed_nodes and work.batch.nodes:
            work.batch.node_vectors.update(node_vectors(self.embedder, work.batch.nodes))
        embedder.prime(foreseen_texts(work.corrections, work.tool_signals, chains))
        return work

    def _batch_reader(
        self, sessions: list[Session], policies: Mapping[str | None, Mapping[str, Any]]
    ) -> TurnClassifier | None:
        """The turn reader for these sessions: with several, one that has read every turn
        they teach in one batch (capture/reading/preread.py); the same verdicts."""
        if len(sessions) < 2:
            return self.reader
        reader = PrereadReader(self.reader or default_reader())
        reader.prime(
            [
                turn
                for session in sessions
                for message, turn in user_turn_inputs(session)
                if resolve_policy(policies, session.skill).teaches(message)
            ]
        )
        return reader

    def _merge_and_write(
        self,
        work: _Prepared,
        chains: ForeseenChains | None,
        embedder: MemoEmbedder,
        report: CaptureReport,
        *,
        note: dict[str, Any] | None = None,
    ) -> None:
        """The write phase, inside the transaction: cross-capture counts, merge, write.
        `note` goes into the history of every rule it adds (a review's provenance)."""
        namespace, sessions, batch = work.namespace, work.sessions, work.batch
        # first, so a backend that locks per namespace holds it for the counts below too
        index = self.store.rule_index(
            namespace, [RuleStatus.ACTIVE, RuleStatus.DRAFT, RuleStatus.CANDIDATE]
        )
        status_before = {r.id: r.status for r in index.rules}
        tool_signals = work.tool_signals
        tool_signals.extend(recurring_failures(self.store, sessions, tool_signals))
        tool_signals.extend(fruitless_lookups(self.store, sessions))
        tool_signals.extend(empty_fallbacks(self.store, sessions))
        tool_signals, reversals = replacement_lessons(self.store, sessions, tool_signals)
        corrections = work.corrections
        report.corrections += sum(1 for c in corrections if c.aftermath.value == "correction")
        report.withdrawals += sum(1 for c in corrections if c.aftermath.value == "withdrawal")
        report.tool_signals += len(tool_signals)
        rulebook = Rulebook(
            index.rules,
            index.text_vectors,
            embedder,
            admission=self.admission,
            promote_to=RuleStatus.DRAFT if self.review else RuleStatus.ACTIVE,
        )
        result = compile_signals(rulebook, corrections, tool_signals, chain_compiler=chains)
        batch.evidence.extend(result.evidence)
        new_rules = result.maintenance.new_rules
        if self.review:
            for rule in new_rules:
                if rule.status is not RuleStatus.CANDIDATE:  # a candidate waits for evidence too
                    rule.status = RuleStatus.DRAFT
        if note is not None:
            for rule in new_rules:
                rule.history.append(dict(note))
        if new_rules:
            # text vectors were computed during maintenance; only trigger texts are new here
            triggers = embedder.embed([r.trigger.text or r.text for r in new_rules])
            for rule, trigger_vec in zip(new_rules, triggers, strict=True):
                batch.rule_vectors[rule.id] = (
                    result.maintenance.new_vectors[rule.id],
                    trigger_vec,
                )
                if rule.trigger.node_id:
                    batch.edges.append(Edge(rule.id, EdgeType.FORGED_FROM, rule.trigger.node_id))
                for ev_id in rule.evidence_ids:
                    batch.edges.append(Edge(rule.id, EdgeType.FORGED_FROM, ev_id))
        events = capture_events(
            self.store,
            self.outcomes,
            namespace,
            sessions,
            result,
            rulebook.rules,
            status_before,
            batch,
        )
        reversed_rules, reversal_events = apply_reversals(rulebook.rules, reversals)
        for rule in reversed_rules:
            if rule.id not in result.maintenance.new_vectors:
                result.maintenance.changed[rule.id] = rule
        events.extend(reversal_events)
        batch.rules = new_rules + list(result.maintenance.changed.values())
        expired = self._expire_candidates(index.rules, sessions, batch.rules)
        batch.rules.extend(expired)
        events.extend(
            _status_event(
                rule,
                RuleStatus.CANDIDATE,
                f"not seen again or approved within {self.admission.candidate_days:g} days "
                f"(last seen {rule.updated_at})",
                rule.evidence_ids,
            )
            for rule in expired
        )
        self.store.write(batch)
        self.store.add_rule_events(events)
        report.outcomes.extend(events)
        report.added.extend(new_rules)
        report.changed.extend(result.maintenance.changed.values())
        report.log.extend(result.maintenance.log)

    def _expire_candidates(
        self, known: Sequence[Rule], sessions: Sequence[Session], written: Sequence[Rule]
    ) -> list[Rule]:
        """Candidates nothing confirmed within `admission.candidate_days` of the newest session
        captured now: expired, kept as history, never injected or promoted."""
        now = max((t for s in sessions if (t := parse_time(s.timestamp))), default=None)
        if now is None:
            return []
        touched = {r.id for r in written}
        out: list[Rule] = []
        for rule in known:
            if rule.id in touched or not self.admission.expired(rule, now):
                continue
            rule.status = RuleStatus.EXPIRED
            rule.history.append(
                {"at": utcnow(), "event": "expired", "days": self.admission.candidate_days}
            )
            out.append(rule)
        return out

    # ------------------------------------------------------------------ roles and review
    def set_role_policy(
        self,
        policy: RolePolicy | Mapping[str, Any] | None,
        *,
        skill: str | None = None,
        namespace: str | None = None,
    ) -> RolePolicy:
        """Set who may teach what in a namespace, or in one skill of it (None removes it, so
        the namespace's or the default applies again). Returns the policy now in force.

        mem.set_role_policy({"default_role": "end_user"}, skill="airline_agent")"""
        ns = self._namespace(namespace)
        skill = optional_identifier(skill, "skill", limits=self.limits)
        if policy is not None and not isinstance(policy, RolePolicy):
            policy = RolePolicy.from_dict(policy)
        self.store.put_role_policy(ns, skill, None if policy is None else policy.to_dict())
        return self.role_policy(skill=skill, namespace=ns)

    def role_policy(self, *, skill: str | None = None, namespace: str | None = None) -> RolePolicy:
        """The policy in force for a skill (its own, else the namespace's, else the default:
        an unmarked user is the operator)."""
        ns = self._namespace(namespace)
        skill = optional_identifier(skill, "skill", limits=self.limits)
        return resolve_policy(self.store.role_policies(ns), skill)

    def role_policies(self, *, namespace: str | None = None) -> dict[str | None, RolePolicy]:
        """The policies set in a namespace, by skill (None: the namespace-wide one)."""
        stored = self.store.role_policies(self._namespace(namespace))
        return {k: RolePolicy.from_dict(v) for k, v in stored.items()}

    def add_review(
        self,
        conversation_id: str,
        message_index: int,
        correction: str,
        *,
        reviewer: str,
        namespace: str | None = None,
        timestamp: str | datetime | None = None,
    ) -> CaptureReport:
        """Add a reviewer's correction to a captured conversation, anchored to the message it
        corrects; it compiles like a correction made in the conversation, as the skill's role
        policy lets a reviewer teach (default: a rule for every actor of the skill). The
        evidence names the reviewer, the time and the anchored message.

        mem.add_review("tau-3-trial-0", 14, "Check the fare rules first.", reviewer="maria")"""
        ns = self._namespace(namespace)
        conv = identifier(conversation_id, "conversation_id", limits=self.limits)
        reviewer = identifier(reviewer, "reviewer", limits=self.limits)
        correction = check_text(correction, field="correction", limits=self.limits)
        if not correction.strip():
            raise ConfigError("a review needs the correction's text")
        if isinstance(message_index, bool) or not isinstance(message_index, int):
            raise ConfigError(f"message_index must be an integer, got {message_index!r}")
        stored = self.store.get_sessions(ns, [conv])
        if not stored:
            raise NotFoundError(
                f"conversation {conv!r} was not captured in namespace {ns!r}: capture it first"
            )
        when = _timestamp(timestamp)
        signals = review_signals(
            stored[0],
            message_index=message_index,
            correction=correction.strip(),
            reviewer=reviewer,
            timestamp=when,
            policy=self.role_policy(skill=stored[0].skill, namespace=ns),
        )
        report = CaptureReport(corrections=len(signals))
        embedder = MemoEmbedder(self.embedder)
        with metering() as meter:
            work = _Prepared(ns, [], CaptureBatch(), corrections=signals)
            embedder.prime(foreseen_texts(signals, []))
            note = {
                "at": when,
                "event": "reviewed",
                "by": reviewer,
                "as": SpeakerRole.REVIEWER.value,
                "conversation_id": conv,
                "message_index": message_index,
            }
            with self.store.transaction():
                self._merge_and_write(work, None, embedder, report, note=note)
        if not signals:
            report.log.append("the role policy lets a reviewer create nothing here")
        elif not report.added and not report.changed:
            report.log.append("the review compiled to no rule (it names no behaviour)")
        report.usage = meter.totals()
        return report

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
        conversation_id: str | None = None,
        run_id: str | None = None,
        record: bool = True,
        now: datetime | None = None,
    ) -> Run:
        """Begin a run: stage-1 rules are ready in `run.units` / `run.messages`.

        What it delivers is recorded (unless `record` is False or outcome tracking is off),
        so that capturing the conversation later, under `conversation_id` or the run's id
        (`run.id`, or `run_id` when given), records how each rule did. Date windows ("a
        booking older than 90 days") are measured from `now` (timezone-aware; default: the
        clock), so a replayed or scheduled run judges dates as of its own day. The rules of a
        run share `token_budget` (default: the memory's); stage 1 takes at most three quarters
        of it (`inject.run.STAGE1_SHARE`), leaving room for rules whose data a tool result
        shows."""
        if now is not None and now.tzinfo is None:
            raise ConfigError("now must be timezone-aware, e.g. datetime(2026, 3, 2, tzinfo=UTC)")
        run_id = optional_identifier(run_id, "run_id", limits=self.limits)
        return Run(
            namespace=self._namespace(namespace),
            actor=identifier(actor, "actor", limits=self.limits),
            skill=identifier(skill, "skill", limits=self.limits),
            query=check_text(query, field="query", limits=self.limits),
            tools=_tool_names(tools),
            retriever=self.retriever,
            embedder=self.embedder,
            token_budget=token_budget if token_budget is not None else self.token_budget,
            conversation_id=optional_identifier(
                conversation_id, "conversation_id", limits=self.limits
            ),
            record=self.store.add_rule_events if record and self.outcomes.track else None,
            id=run_id or new_run_id(),
            now=now,
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
            namespace=self._namespace(namespace),
            actor=optional_identifier(actor, "actor", limits=self.limits),
            skill=optional_identifier(skill, "skill", limits=self.limits),
            statuses=statuses,
        )

    def rule(self, rule_id: str) -> Rule:
        return self.store.get_rule(self._rule_id(rule_id))

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
        ns = self._namespace(namespace)
        query = check_text(query, field="query", limits=self.limits)
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
        rule = self.store.get_rule(self._rule_id(rule_id))
        evidence = self.store.get_evidence(rule.evidence_ids)
        nodes = self.store.get_nodes([rule.trigger.node_id] if rule.trigger.node_id else [])
        outcomes = self.outcomes_of(rule.id)
        out: dict[str, Any] = {
            "rule": rule.to_dict(),
            "evidence": [to_dict(e) for e in evidence],
            "trigger_node": to_dict(nodes[0]) if nodes else None,
            "outcomes": [e.to_dict() for e in outcomes],
            "outcome_counts": _counts(outcomes),
        }
        from dctx.inject.why import explain_conflict, explain_run

        if actor is not None:
            # how the rule's conflict group is resolved for this actor: the winner and why
            skill_ = skill or rule.scope.skill
            if not skill_:
                raise ConfigError("explaining a conflict for an actor needs the skill: skill=...")
            out["conflict"] = explain_conflict(
                self.retriever,
                rule,
                namespace=rule.scope.namespace,
                skill=identifier(skill_, "skill", limits=self.limits),
                actor=identifier(actor, "actor", limits=self.limits),
            )
        if query is None:
            if tools is not None or steps:
                raise ConfigError("explaining a run needs its query: pass query=...")
            return out
        if not actor or not skill:
            raise ConfigError("explaining a run needs the actor and skill that run it")

        _, (why,) = explain_run(
            self, [rule], actor=actor, skill=skill, query=query, tools=tools, steps=steps
        )
        out["run"] = why.to_dict()
        return out

    def set_status(
        self, rule_id: str, status: RuleStatus, note: str = "", *, evidence: Sequence[str] = ()
    ) -> Rule:
        """Change a rule's status; the change is also a STATUS rule event naming `evidence`
        (event ids). A person reviewing a flagged rule (approve, enable) clears its flag."""
        rule_id = self._rule_id(rule_id)
        with self.store.transaction():
            was = self.store.get_rule(rule_id)
            rule = self.store.set_rule_status(rule_id, status, note=note)
            events = [_status_event(rule, was.status, note, evidence)]
            if rule.flagged_at is not None and rule.status is RuleStatus.ACTIVE:
                events.append(self._unflag(rule, note))
            self.store.add_rule_events(events)
        return rule

    def disable(self, rule_id: str) -> Rule:
        return self.set_status(rule_id, RuleStatus.DISABLED, "disabled by user")

    def enable(self, rule_id: str) -> Rule:
        return self.set_status(rule_id, RuleStatus.ACTIVE, "enabled by user")

    def approve(self, rule_id: str) -> Rule:
        return self.set_status(rule_id, RuleStatus.ACTIVE, "approved in review")

    def reject(self, rule_id: str) -> Rule:
        """A person says a candidate (or a draft in review mode) is wrong: it is disabled, kept
        with its history; `enable` or `approve` undoes it."""
        rule = self.store.get_rule(self._rule_id(rule_id))
        if rule.status not in (RuleStatus.CANDIDATE, RuleStatus.DRAFT):
            raise ConflictError(
                f"rule {rule.id} is {rule.status.value}; only a candidate or a draft can be "
                f"rejected (switch an active rule off with: dctx rules disable {rule.id})"
            )
        return self.set_status(rule.id, RuleStatus.DISABLED, "rejected in review")

    def _unflag(self, rule: Rule, why: str) -> RuleEvent:
        """Clear a rule's flag (a person looked at it) and write it; the event says why."""
        flagged, rule.flagged_at = rule.flagged_at, None
        rule.history.append({"at": utcnow(), "event": "unflagged", "note": why})
        self.store.write(CaptureBatch(rules=[rule]))
        return RuleEvent(
            rule.id,
            RuleEventKind.UNFLAGGED,
            namespace=rule.scope.namespace,
            detail={"why": why, "flagged_at": flagged},
        )

    # ------------------------------------------------------------------ outcomes
    def outcomes_of(self, rule_id: str) -> list[RuleEvent]:
        """A rule's events, oldest first: deliveries, how they went, status changes."""
        rule = self.store.get_rule(self._rule_id(rule_id))
        return self.store.rule_events(rule.scope.namespace, rule_ids=[rule.id])

    def flagged(
        self, *, actor: str | None = None, skill: str | None = None, namespace: str | None = None
    ) -> list[Rule]:
        """Live rules whose mistake kept recurring after delivery: for a person to review."""
        live = [RuleStatus.ACTIVE, RuleStatus.DRAFT, RuleStatus.CANDIDATE]
        found = self.rules(actor=actor, skill=skill, status=live, namespace=namespace)
        return [r for r in found if r.flagged_at is not None]

    def stale(
        self,
        *,
        days: int | None = None,
        now: datetime | None = None,
        actor: str | None = None,
        skill: str | None = None,
        namespace: str | None = None,
    ) -> list[StaleRule]:
        """ACTIVE rules no run was given for more than `days` (default: the policy's
        `stale_days`), counted from the last delivery or guard, else from creation."""
        from dctx.review.stale import find_stale

        ns = self._namespace(namespace)
        rules = self.rules(actor=actor, skill=skill, status=RuleStatus.ACTIVE, namespace=ns)
        days = _days(days, self.outcomes.stale_days)
        return find_stale(rules, self.store.rule_event_tally(ns), days=days, now=now)

    def archive(self, rule_ids: Sequence[str], *, why: str = "archived by user") -> list[Rule]:
        """Archive rules (kept, never injected; `enable` brings one back), in one
        transaction, each with a STATUS event. Nothing is archived unless asked for."""
        with self.store.transaction():
            return [self.set_status(rid, RuleStatus.ARCHIVED, why) for rid in rule_ids]

    def archive_stale(
        self,
        *,
        days: int | None = None,
        now: datetime | None = None,
        namespace: str | None = None,
    ) -> list[Rule]:
        """Archive every stale rule (see `stale`); each STATUS event names its last
        delivery (or none) and how long it was idle."""
        days = _days(days, self.outcomes.stale_days)
        out: list[Rule] = []
        with self.store.transaction():
            for item in self.stale(days=days, now=now, namespace=namespace):
                when = item.last_triggered or "never"
                why = (
                    f"not delivered for {item.idle_days:.0f} days (more than {days}); "
                    f"last delivered: {when}"
                )
                out.append(self.set_status(item.rule.id, RuleStatus.ARCHIVED, why))
        return out

    def health(
        self,
        *,
        days: int | None = None,
        now: datetime | None = None,
        namespace: str | None = None,
    ) -> HealthReport:
        """The rulebook on one screen: counts per status, flagged, delivered and never
        triggered rules, stale ones, and duplicate / near-duplicate pairs."""
        from dctx.review.health import build_report

        ns = self._namespace(namespace)
        index = self.store.rule_index(
            ns, [RuleStatus.ACTIVE, RuleStatus.DRAFT, RuleStatus.CANDIDATE]
        )
        return build_report(
            ns,
            self.rules(namespace=ns),
            self.store.rule_event_tally(ns),
            index.rules,
            index.text_vectors,
            stale_days=_days(days, self.outcomes.stale_days),
            now=now,
        )

    def delete(self, rule_id: str) -> None:
        """Delete a rule with its vectors, edges and history; on SQLite its text also leaves
        the full-text index and the WAL, and this process's text caches are emptied. The
        conversation it was learned from stays (`forget_actor` removes that)."""
        self.store.delete_rule(self._rule_id(rule_id))
        self._forget_cached_texts()

    def edit(
        self, rule_id: str, text: str | None = None, *, trigger: str | Trigger | None = None
    ) -> Rule:
        """Replace a rule's text and/or its trigger (both kept in its history) and re-embed it.

        `trigger` is a `Trigger` or a spec as `dctx rules edit --trigger` takes it: 'always',
        'query: TEXT', 'data: CONDITION' (compiled to a threshold, negated value, predicate
        over result items, or words that must all be seen) or 'tool: NAME [after OTHER]'.
        """
        rule = self.store.get_rule(self._rule_id(rule_id))
        if text is None and trigger is None:
            raise ConfigError(f"nothing to change on {rule.id}: pass text=... or trigger=...")
        if text is not None:
            check_text(text, field="text", limits=self.limits)
            if not text.strip():
                raise ConfigError("a rule's text cannot be empty") from None
            rule.history.append({"at": utcnow(), "event": "edited", "old_text": rule.text})
            rule.text = text.strip()
        if trigger is not None:
            if isinstance(trigger, str):
                check_text(trigger, field="trigger", limits=self.limits)
                trigger = parse_trigger(trigger)
            new = dataclasses.replace(trigger, node_id=trigger.node_id or rule.trigger.node_id)
            if new.kind is TriggerKind.ALWAYS and not new.text:
                new.text = rule.text
            rule.history.append(
                {
                    "at": utcnow(),
                    "event": "trigger_edited",
                    "old_trigger": to_dict(rule.trigger),
                    "new_trigger": to_dict(new),
                }
            )
            rule.trigger = new
        rule.updated_at = utcnow()
        vec = self.embedder.embed([rule.text, rule.trigger.text or rule.text])
        with self.store.transaction():
            self.store.write(CaptureBatch(rules=[rule], rule_vectors={rule.id: (vec[0], vec[1])}))
            if rule.flagged_at is not None:  # a person rewrote it: the flag is answered
                self.store.add_rule_events([self._unflag(rule, "edited by user")])
        return rule

    def forget_actor(self, actor: str, *, namespace: str | None = None) -> dict[str, int]:
        """Delete everything derived from `actor`. A team rule they authored that others agreed
        with is kept, rewritten as the others said it, with only their support and evidence
        (compile/handover.py); a rule resting only on their evidence is deleted; a lesson from
        tool output that their sightings admitted, or a replacement lesson ("use B instead of
        A") their conversations' counts admitted, is a candidate again."""
        ns = self._namespace(namespace)
        actor = identifier(actor, "actor", limits=self.limits)
        kept = [
            r
            for r in self.store.list_rules(namespace=ns, actor=actor)
            if hand_over(r, actor) is not None
        ]
        texts = [t for r in kept for t in (r.text, r.trigger.text or r.text)]
        vecs = self.embedder.embed(texts) if texts else None  # before any lock is taken
        # one transaction: what lost its support is demoted before the forget is final (and,
        # on SQLite, before the WAL is truncated: no page written after it holds old data)
        with self.store.transaction():
            if vecs is not None:
                self.store.write(
                    CaptureBatch(
                        rules=kept,
                        rule_vectors={
                            r.id: (vecs[2 * i], vecs[2 * i + 1]) for i, r in enumerate(kept)
                        },
                        edges=[
                            Edge(r.id, EdgeType.FORGED_FROM, e)
                            for r in kept
                            for e in r.evidence_ids
                        ],
                    )
                )
            held = {r.id for r, _ in unsupported(self.store, self._live(ns))}
            counts = self.store.forget_actor(ns, actor)
            counts["rules_kept"] = len(kept)
            counts["rules_demoted"] = self._demote_unsupported(ns, held)
        self._forget_cached_texts()
        return counts

    def _forget_cached_texts(self) -> None:
        """Nothing in this process stays keyed by forgotten words: the embedders' caches (the
        turn reader's too: it caches every turn it read), the word caches and the parsed
        clauses."""
        forget_texts(self.embedder)
        reader_embedder = getattr(self.reader or default_reader(), "embedder", None)
        if isinstance(reader_embedder, Embedder):
            forget_texts(reader_embedder)
        forget_words()
        forget_clauses()
        forget_read_texts()
        forget_unit_words()

    def _live(self, namespace: str) -> list[Rule]:
        return self.store.list_rules(
            namespace=namespace, statuses=[RuleStatus.ACTIVE, RuleStatus.DRAFT]
        )

    def _demote_unsupported(self, namespace: str, held: set[str]) -> int:
        """After a forget: active lessons that the forgotten sightings admitted, and
        replacement lessons their conversations' counts admitted (unsupported now, not in
        `held`, those unsupported before), are candidates again."""
        live = self._live(namespace)
        lapsed = [r for r in live if self.admission.lapsed(r)]
        for rule in lapsed:
            note = "the sightings that admitted it were forgotten"
            self.set_status(rule.id, RuleStatus.CANDIDATE, note)
        ids = {r.id for r in lapsed}
        unsupported_now = [
            (rule, why)
            for rule, why in unsupported(self.store, [r for r in live if r.id not in ids])
            if rule.id not in held
        ]
        for rule, why in unsupported_now:
            self.set_status(rule.id, RuleStatus.CANDIDATE, f"conversations forgotten: {why}")
        return len(lapsed) + len(unsupported_now)

    def _namespace(self, namespace: str | None) -> str:
        if namespace is None:
            return self.namespace
        return identifier(namespace, "namespace", limits=self.limits)

    def _rule_id(self, rule_id: str) -> str:
        return identifier(rule_id, "rule_id", limits=self.limits)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _status_event(rule: Rule, was: RuleStatus, why: str, evidence: Sequence[str]) -> RuleEvent:
    return RuleEvent(
        rule.id,
        RuleEventKind.STATUS,
        namespace=rule.scope.namespace,
        detail={"from": was.value, "to": rule.status.value, "why": why, "evidence": list(evidence)},
    )


def _counts(events: Sequence[RuleEvent]) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in events:
        out[e.kind.value] = out.get(e.kind.value, 0) + 1
    return out


def _days(days: int | None, default: int) -> int:
    if days is None:
        return default
    if isinstance(days, bool) or not isinstance(days, int) or days < 1:
        raise ConfigError(f"days must be a whole number of days, at least 1; got {days!r}")
    return days


def _recapture_conflict(before: Session, now: Session) -> str:
    where = f"conversation {now.conversation_id!r} in namespace {now.namespace!r}"
    if before.actor != now.actor or before.skill != now.skill:
        return (
            f"{where} was captured before as actor {before.actor!r}, skill {before.skill!r}; "
            f"a conversation belongs to one actor and skill: capture it under a new "
            f"conversation id"
        )
    if [dataclasses.replace(m, speaker_role=None) for m in before.messages] == [
        dataclasses.replace(m, speaker_role=None) for m in now.messages
    ]:
        return (
            f"{where} was captured before with other speaker roles (who its users are); what "
            f"was learned then stays: forget the actor (dctx forget --actor {now.actor}) and "
            f"capture it again, or capture into a new store"
        )
    was, is_ = len(before.messages), len(now.messages)
    counts = f" ({was} then, {is_} now)" if was != is_ else ""
    return (
        f"{where} was captured before with other messages{counts}; re-capturing is a no-op only "
        f"for the same content: capture the new messages under a new conversation id"
    )


def _anchor(signals: list[CorrectionSignal], graph: SessionGraph) -> None:
    """Point each correction at the decision node it corrected (its trigger anchor)."""
    positions = sorted(graph.node_at.items())
    for signal in signals:
        before = [node for idx, node in positions if idx < signal.message_index]
        signal.node_id = before[-1] if before else None


def _timestamp(value: str | datetime | None) -> str:
    if value is None:
        return utcnow()
    if isinstance(value, datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=UTC)
        return aware.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return value


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
