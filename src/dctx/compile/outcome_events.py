"""The rule events one capture writes: how the rules its runs were given did, and every
status change it makes, with its evidence. Runs inside the capture's write transaction (it
reads the stored deliveries of the captured conversations), so the events, and the rules
they change, land with the capture or not at all."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from dctx.compile.compiler import CompileResult
from dctx.compile.outcomes import OutcomePolicy, assess_outcomes, maintenance_changes
from dctx.models import Rule, RuleEvent, RuleEventKind, RuleStatus, Session
from dctx.store.base import CaptureBatch, Store


def capture_events(
    store: Store,
    policy: OutcomePolicy,
    namespace: str,
    sessions: Sequence[Session],
    result: CompileResult,
    rulebook: Sequence[Rule],
    status_before: Mapping[str, RuleStatus],
    batch: CaptureBatch,
) -> list[RuleEvent]:
    """Events to write; rules the outcomes change are added to `result.maintenance.changed`
    (so the capture writes them). `rulebook`: the rules after maintenance."""
    events = _outcomes(store, policy, namespace, sessions, result, rulebook, status_before, batch)
    recorded = {e.rule_id for e in events if e.kind is RuleEventKind.STATUS}
    changed = list(result.maintenance.changed.values())
    events += maintenance_changes(
        changed, status_before, result.maintenance.relations, sessions, recorded=recorded
    )
    return events


def _outcomes(
    store: Store,
    policy: OutcomePolicy,
    namespace: str,
    sessions: Sequence[Session],
    result: CompileResult,
    rulebook: Sequence[Rule],
    status_before: Mapping[str, RuleStatus],
    batch: CaptureBatch,
) -> list[RuleEvent]:
    if not policy.track:
        return []
    known = store.rule_events(namespace, runs=[s.conversation_id for s in sessions])
    delivered = sorted({e.rule_id for e in known if e.kind is RuleEventKind.DELIVERED})
    if not delivered:
        return []
    recurred: dict[str, set[str]] = {}
    for e in store.rule_events(namespace, rule_ids=delivered, kinds=[RuleEventKind.RECURRED]):
        recurred.setdefault(e.rule_id, set()).add(e.run_id or e.id)
    assessment = assess_outcomes(
        sessions,
        known,
        result.maintenance.relations,
        {r.id: r for r in rulebook},
        {e.id: e for e in batch.evidence},
        status_before=status_before,
        recurred_before=recurred,
        policy=policy,
    )
    for rule in assessment.changed.values():
        if rule.id not in result.maintenance.new_vectors:
            result.maintenance.changed[rule.id] = rule
    return assessment.events


__all__ = ["capture_events"]
