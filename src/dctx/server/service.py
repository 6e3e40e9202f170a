"""The service layer under both the HTTP API and the MCP server: typed requests in, typed
responses out, every operation scoped to a namespace (tenant). Interfaces only translate
transport to these calls, so there is one place where behavior lives.

No lock is shared by every call: the store serializes writes itself (SQLite one writer at a
time, only while a capture writes; PostgreSQL per namespace), readers never wait for a writer,
and the retrieval cache and embedders are thread-safe. Only a server-side run, whose state
changes with each step, is used by one request at a time (the registry's per-run lock).
"""

from __future__ import annotations

from typing import Any

from dctx import __version__
from dctx.errors import NotFoundError
from dctx.inject.run import Run
from dctx.memory import CaptureReport, Memory
from dctx.models import Rule, Unit, to_dict
from dctx.server.runs import RunRegistry
from dctx.server.schemas import (
    CaptureRequest,
    CaptureResponse,
    CorrectionRequest,
    EditRequest,
    Explanation,
    Forgotten,
    GuidanceRequest,
    GuidanceResponse,
    Health,
    Observed,
    ObserveRequest,
    ReviewRequest,
    RolePolicyModel,
    RulebookHealth,
    RuleEventOut,
    RuleFilter,
    RuleOut,
    RunStarted,
    StartRunRequest,
    StepGuidance,
    UnitOut,
)
from dctx.store.registry import open_store, scheme_of
from dctx.validation import identifier


class DctxService:
    """Operations on one Memory, shared by every interface."""

    def __init__(self, memory: Memory, *, runs: RunRegistry | None = None) -> None:
        self.memory = memory
        self.runs = runs or RunRegistry()

    @classmethod
    def open(cls, db: str, *, embedder: str | None = None, **run_bounds: Any) -> DctxService:
        """Open the store a path or URL names (sqlite file, postgresql://...)."""
        store = open_store(db)
        try:
            memory = Memory(store, embedder=embedder or store.embedder_id() or "minilm")
        except BaseException:
            store.close()
            raise
        return cls(memory, runs=RunRegistry(**run_bounds))

    def close(self) -> None:
        self.memory.close()

    # ------------------------------------------------------------------ health
    def health(self) -> Health:
        return Health(
            status="ok",
            version=__version__,
            store=scheme_of(self.memory.store.url),
            embedder=self.memory.embedder.id,
            open_runs=len(self.runs),
        )

    # ------------------------------------------------------------------ capture
    def capture(self, namespace: str, req: CaptureRequest) -> CaptureResponse:
        """Learn from one conversation; all or nothing (a malformed message writes nothing)."""
        report = self.memory.capture(
            req.messages,
            actor=req.actor,
            skill=req.skill,
            conversation_id=req.conversation_id,
            timestamp=req.timestamp,
            namespace=namespace,
            speaker_role=req.speaker_role,
        )
        return _capture_response(report)

    def review(self, namespace: str, req: ReviewRequest) -> CaptureResponse:
        """A reviewer's correction of a captured conversation, anchored to a message."""
        report = self.memory.add_review(
            req.conversation_id,
            req.message_index,
            req.correction,
            reviewer=req.reviewer,
            namespace=namespace,
            timestamp=req.timestamp,
        )
        return _capture_response(report)

    # ------------------------------------------------------------------ roles
    def role_policy(self, namespace: str, skill: str | None) -> RolePolicyModel:
        policy = self.memory.role_policy(skill=skill, namespace=namespace)
        return RolePolicyModel.model_validate(policy.to_dict())

    def set_role_policy(
        self, namespace: str, skill: str | None, req: RolePolicyModel | None
    ) -> RolePolicyModel:
        """Set (None: remove) the policy of the namespace or a skill; returns the one in force."""
        data = None if req is None else req.model_dump(mode="json")
        policy = self.memory.set_role_policy(data, skill=skill, namespace=namespace)
        return RolePolicyModel.model_validate(policy.to_dict())

    def record_correction(self, namespace: str, req: CorrectionRequest) -> CaptureResponse:
        """A correction given live: captured as the three-turn conversation it was."""
        messages = [
            {"role": "user", "content": req.query},
            {"role": "assistant", "content": req.answer},
            {"role": "user", "content": req.correction},
        ]
        return self.capture(
            namespace,
            CaptureRequest(
                actor=req.actor,
                skill=req.skill,
                messages=messages,
                conversation_id=req.conversation_id,
                speaker_role=req.speaker_role,
            ),
        )

    # ------------------------------------------------------------------ guidance
    def guidance(self, namespace: str, req: GuidanceRequest) -> GuidanceResponse:
        """Stateless: replay the run so far and say what applies now. Nothing is written,
        unless a conversation id is given: then what applies is recorded as delivered to
        that conversation (once per rule, however often the run is replayed)."""
        run = self._start(
            namespace,
            req.actor,
            req.skill,
            req.query,
            req.tools,
            req.token_budget,
            conversation_id=req.conversation_id,
            run_id=req.conversation_id,
            record=req.conversation_id is not None,
        )
        steps: list[StepGuidance] = []
        for step in req.steps:
            units = run.observe({"name": step.tool, "arguments": step.arguments}, step.result)
            steps.append(
                StepGuidance(decision_point=run.decision_point, tool=step.tool, units=_units(units))
            )
        stage1 = _units(run.units)
        return GuidanceResponse(
            messages=run.messages,
            units=stage1,
            steps=steps,
            latest=steps[-1].units if steps else stage1,
            system=run.system,
        )

    def start_run(self, namespace: str, req: StartRunRequest) -> RunStarted:
        """A run kept on the server; what it delivers is recorded under its id (and the
        conversation id, if given), so capturing either id records how each rule did."""
        run = self._start(
            namespace,
            req.actor,
            req.skill,
            req.query,
            req.tools,
            req.token_budget,
            conversation_id=req.conversation_id,
        )
        messages, units = run.messages, _units(run.units)
        run_id = self.runs.add(namespace, run)
        return RunStarted(
            run_id=run_id, expires_in_s=int(self.runs.ttl_s), messages=messages, units=units
        )

    def observe(self, namespace: str, run_id: str, req: ObserveRequest) -> Observed:
        with self.runs.using(namespace, identifier(run_id, "run_id")) as run:
            units = run.observe({"name": req.tool, "arguments": req.arguments}, req.result)
            return Observed(
                run_id=run_id,
                decision_point=run.decision_point,
                units=_units(units),
                system=run.system,
            )

    def end_run(self, namespace: str, run_id: str) -> None:
        self.runs.end(namespace, identifier(run_id, "run_id"))

    def _start(
        self,
        namespace: str,
        actor: str,
        skill: str,
        query: str,
        tools: list[str] | None,
        token_budget: int | None,
        *,
        conversation_id: str | None = None,
        run_id: str | None = None,
        record: bool = True,
    ) -> Run:
        return self.memory.start(
            actor=actor,
            skill=skill,
            query=query,
            tools=tools,
            namespace=namespace,
            token_budget=token_budget,
            conversation_id=conversation_id,
            run_id=run_id,
            record=record,
        )

    # ------------------------------------------------------------------ rules
    def list_rules(self, namespace: str, flt: RuleFilter) -> list[RuleOut]:
        """Rules filtered by actor, skill, status; `flagged` keeps those to review, `stale`
        the active ones no run was given for `days` days."""
        if flt.stale:
            stale = self.memory.stale(
                days=flt.days, actor=flt.actor, skill=flt.skill, namespace=namespace
            )
            rules = [s.rule for s in stale]
        else:
            rules = self.memory.rules(
                actor=flt.actor, skill=flt.skill, status=flt.status, namespace=namespace
            )
        if flt.flagged:
            rules = [r for r in rules if r.flagged_at is not None]
        if flt.stale and flt.status is not None:
            rules = [r for r in rules if r.status in flt.status]
        return [_rule(r) for r in rules]

    def outcomes(self, namespace: str, rule_id: str) -> list[RuleEventOut]:
        """A rule's events, oldest first: deliveries, how they went, status changes."""
        self._owned(namespace, rule_id)
        return [RuleEventOut.model_validate(e.to_dict()) for e in self.memory.outcomes_of(rule_id)]

    def rulebook_health(self, namespace: str, days: int | None = None) -> RulebookHealth:
        report = self.memory.health(days=days, namespace=namespace)
        return RulebookHealth.model_validate(report.to_dict())

    def search_rules(
        self, namespace: str, query: str, flt: RuleFilter, *, limit: int = 10
    ) -> list[RuleOut]:
        """Rules matching `query` (full text), best first, filtered like `list_rules`."""
        hits = self.memory.search(
            query,
            limit=limit,
            namespace=namespace,
            actor=flt.actor,
            skill=flt.skill,
            status=flt.status,
        )
        return [_rule(rule) for rule, _ in hits]

    def get_rule(self, namespace: str, rule_id: str) -> RuleOut:
        return _rule(self._owned(namespace, rule_id))

    def edit_rule(self, namespace: str, rule_id: str, req: EditRequest) -> RuleOut:
        self._owned(namespace, rule_id)
        return _rule(self.memory.edit(rule_id, req.text, trigger=req.trigger))

    def set_status(self, namespace: str, rule_id: str, action: str) -> RuleOut:
        """disable, enable, approve or reject a rule, as the Memory method of that name does."""
        change = {
            "disable": self.memory.disable,
            "enable": self.memory.enable,
            "approve": self.memory.approve,
            "reject": self.memory.reject,
        }[action]
        self._owned(namespace, rule_id)
        return _rule(change(rule_id))

    def delete_rule(self, namespace: str, rule_id: str) -> None:
        self._owned(namespace, rule_id)
        self.memory.delete(rule_id)

    def explain(
        self, namespace: str, rule_id: str, actor: str | None = None, skill: str | None = None
    ) -> Explanation:
        self._owned(namespace, rule_id)
        return Explanation.model_validate(self.memory.explain(rule_id, actor=actor, skill=skill))

    def forget_actor(self, namespace: str, actor: str) -> Forgotten:
        self.runs.drop_actor(namespace, identifier(actor, "actor"))  # first: none records more
        deleted = self.memory.forget_actor(actor, namespace=namespace)
        return Forgotten(actor=actor, namespace=namespace, deleted=deleted)

    def _owned(self, namespace: str, rule_id: str) -> Rule:
        """The rule, if it belongs to this namespace; another tenant's rule reads as absent."""
        try:
            rule = self.memory.rule(rule_id)
        except NotFoundError:
            rule = None
        if rule is None or rule.scope.namespace != namespace:
            raise NotFoundError(
                f"no rule {rule_id!r} in namespace {namespace!r}; list the ids with GET "
                f"/v1/{namespace}/rules (MCP: list_rules)"
            )
        return rule


def _capture_response(report: CaptureReport) -> CaptureResponse:
    return CaptureResponse(
        sessions=report.sessions,
        messages=report.messages,
        corrections=report.corrections,
        withdrawals=report.withdrawals,
        tool_signals=report.tool_signals,
        added=[_rule(r) for r in report.added],
        changed=[_rule(r) for r in report.changed],
        unchanged=report.unchanged,
        reader=report.reader,
    )


def _rule(rule: Rule) -> RuleOut:
    return RuleOut.model_validate(rule.to_dict())


def _units(units: list[Unit]) -> list[UnitOut]:
    return [UnitOut.model_validate(to_dict(u)) for u in units]


__all__ = ["DctxService"]
