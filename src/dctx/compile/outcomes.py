"""Per-rule outcomes: how a delivered rule did, read from the capture of the run it was given to.

A run records which rules it delivered at which decision point (`inject/run.py`). When the
conversation is captured (same conversation id, or the run id used as one), its signals are
merged into the rulebook, and maintenance says how each met an existing rule
(`maintain.Relation`): the same lesson again (agreed, restated, a tool lesson reinforced) or
against it (superseded, in conflict, withdrawn). "The same lesson" is therefore decided by the
one machinery that merges rules (embeddings, conditions, scope), never by a word list here.

For every rule delivered in the captured run, once per run:
- the same lesson came back after the delivery: RECURRED (the rule did not prevent it);
- a correction against it came after the delivery: CONTRADICTED;
- neither, and no guard of it fired: QUIET (nothing happened).

Consequences, each a STATUS / FLAGGED event naming the events that are its evidence (and
`maintenance_changes` records every other status change a capture makes, with the evidence
of the signal behind it):
- CONTRADICTED: a rule maintenance did not already supersede or withdraw is demoted to
  CANDIDATE at once (kept, never injected, back with `approve`);
- RECURRED in `flag_after` distinct runs: the rule is flagged (`Rule.flagged_at`) for review;
  its text or channel may be wrong. Nothing is deleted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dctx.compile.maintain import Relation
from dctx.errors import ConfigError
from dctx.models import (
    Evidence,
    Rule,
    RuleEvent,
    RuleEventKind,
    RuleStatus,
    Session,
    utcnow,
)

_AGAIN = frozenset({"agreed", "restated", "reinforced"})  # the same lesson once more
_AGAINST = frozenset({"superseded", "conflict", "withdrawn"})
_DEMOTABLE = (RuleStatus.ACTIVE, RuleStatus.DRAFT)


@dataclass(frozen=True, slots=True)
class OutcomePolicy:
    """What outcome tracking records and does.

    `track`: record deliveries and assess them at capture. `flag_after`: distinct runs in
    which a delivered rule's mistake came back before it is flagged. `stale_days`: a live
    rule not delivered for this many days is stale (`dctx rules --stale`); it is archived
    only by an explicit command (`dctx rules archive --stale`).
    """

    track: bool = True
    flag_after: int = 2
    stale_days: int = 90

    def __post_init__(self) -> None:
        if self.flag_after < 1 or self.stale_days < 1:
            raise ConfigError(
                f"OutcomePolicy needs flag_after >= 1 and stale_days >= 1, got "
                f"flag_after={self.flag_after}, stale_days={self.stale_days}"
            )


DEFAULT_OUTCOMES = OutcomePolicy()


@dataclass(slots=True)
class Assessment:
    """What one capture learned about the rules its runs were given."""

    events: list[RuleEvent] = field(default_factory=list)
    changed: dict[str, Rule] = field(default_factory=dict)  # rules whose status or flag moved


@dataclass(slots=True)
class _Delivered:
    run_id: str
    rule_id: str
    decision_point: int


def assess_outcomes(
    sessions: Sequence[Session],
    known: Sequence[RuleEvent],
    relations: Sequence[Relation],
    rules: Mapping[str, Rule],
    evidence: Mapping[str, Evidence],
    *,
    status_before: Mapping[str, RuleStatus],
    recurred_before: Mapping[str, set[str]],
    policy: OutcomePolicy = DEFAULT_OUTCOMES,
) -> Assessment:
    """Outcome events and rule changes for the captured `sessions`.

    `known`: the stored events of runs matching these sessions (deliveries, guards, earlier
    outcomes); `relations`: what maintenance did in this capture; `rules`: the rulebook after
    maintenance, by id (changed in place); `evidence`: the capture's evidence by id;
    `status_before`: each rule's status before this capture; `recurred_before`: per rule,
    the runs of earlier RECURRED events."""
    out = Assessment()
    for session in sessions:
        delivered = _deliveries(session, known)
        if not delivered:
            continue
        positions = _tool_result_positions(session)
        for item in delivered:
            rule = rules.get(item.rule_id)
            if rule is None:
                continue  # deleted since it was delivered
            guards = sum(
                1
                for e in known
                if e.kind is RuleEventKind.GUARD
                and e.run_id == item.run_id
                and e.rule_id == item.rule_id
            )
            hits = [
                (rel, index)
                for rel in relations
                if rel.rule_id == item.rule_id
                and (index := _after_delivery(rel, session, item, positions, evidence)) is not None
            ]
            against = [(r, i) for r, i in hits if r.kind in _AGAINST]
            again = [(r, i) for r, i in hits if r.kind in _AGAIN]
            if against:
                event = _outcome(session, item, RuleEventKind.CONTRADICTED, against, guards)
                out.events.append(event)
                _contradicted(rule, event, status_before, out)
            if again:
                event = _outcome(session, item, RuleEventKind.RECURRED, again, guards)
                out.events.append(event)
                runs = recurred_before.get(rule.id, set()) | {item.run_id}
                _recurred(rule, event, runs, policy, out)
            if not hits and not guards:
                out.events.append(_event(session, item, RuleEventKind.QUIET, {"guards": 0}))
    return out


def maintenance_changes(
    changed: Sequence[Rule],
    status_before: Mapping[str, RuleStatus],
    relations: Sequence[Relation],
    sessions: Sequence[Session],
    *,
    recorded: set[str],
) -> list[RuleEvent]:
    """A STATUS event for every status change maintenance made in this capture (superseded,
    withdrawn, a candidate admitted) that outcome tracking has not recorded already
    (`recorded`: rule ids), naming the evidence of the signal that caused it."""
    actors = {s.conversation_id: s.actor for s in sessions}
    out: list[RuleEvent] = []
    for rule in changed:
        was = status_before.get(rule.id)
        if was is None or was is rule.status or rule.id in recorded:
            continue
        cause = [r for r in relations if r.rule_id == rule.id]
        conversation = cause[-1].conversation_id if cause else None
        out.append(
            RuleEvent(
                rule_id=rule.id,
                kind=RuleEventKind.STATUS,
                namespace=rule.scope.namespace,
                conversation_id=conversation,
                actor=actors.get(conversation or ""),
                detail={
                    "from": was.value,
                    "to": rule.status.value,
                    "why": " / ".join(sorted({r.kind for r in cause})) or "maintenance",
                    "by": sorted({r.by for r in cause if r.by}),
                    "evidence": sorted({e for r in cause for e in r.evidence_ids}),
                },
            )
        )
    return out


def _deliveries(session: Session, known: Sequence[RuleEvent]) -> list[_Delivered]:
    """The rules delivered in runs of this conversation (by its actor) and not assessed yet,
    each at its first decision point."""
    cid = session.conversation_id
    assessed = {
        (e.run_id, e.rule_id)
        for e in known
        if e.kind in (RuleEventKind.RECURRED, RuleEventKind.CONTRADICTED, RuleEventKind.QUIET)
    }
    first: dict[tuple[str, str], _Delivered] = {}
    for e in known:
        if e.kind is not RuleEventKind.DELIVERED or e.run_id is None:
            continue
        if cid not in (e.run_id, e.conversation_id) or e.actor not in (None, session.actor):
            continue
        key = (e.run_id, e.rule_id)
        if key in assessed:
            continue
        point = e.decision_point or 0
        if key not in first or point < first[key].decision_point:
            first[key] = _Delivered(e.run_id, e.rule_id, point)
    return list(first.values())


def _tool_result_positions(session: Session) -> list[int]:
    """Message index of each tool result, in order: decision point k follows the k-th."""
    return [m.index for m in session.messages if m.role == "tool"]


def _after_delivery(
    rel: Relation,
    session: Session,
    item: _Delivered,
    positions: Sequence[int],
    evidence: Mapping[str, Evidence],
) -> int | None:
    """The message index of the relation's evidence in this conversation, if it came after
    the delivery (a stage-1 delivery precedes the whole conversation); else None."""
    seen = [evidence[i] for i in rel.evidence_ids if i in evidence]
    mine = [e for e in seen if e.conversation_id == session.conversation_id]
    if not mine:
        if rel.conversation_id == session.conversation_id and not seen:
            return -1  # no evidence to place it: it is of this conversation, so count it
        return None
    index = min(e.message_index for e in mine)
    k = item.decision_point
    if k > 0 and len(positions) >= k and index <= positions[k - 1]:
        return None  # said before this rule was delivered
    return index


def _event(
    session: Session, item: _Delivered, kind: RuleEventKind, detail: dict[str, Any]
) -> RuleEvent:
    return RuleEvent(
        rule_id=item.rule_id,
        kind=kind,
        namespace=session.namespace,
        run_id=item.run_id,
        conversation_id=session.conversation_id,
        actor=session.actor,
        decision_point=item.decision_point,
        detail=detail,
    )


def _outcome(
    session: Session,
    item: _Delivered,
    kind: RuleEventKind,
    hits: Sequence[tuple[Relation, int]],
    guards: int,
) -> RuleEvent:
    detail: dict[str, Any] = {
        "how": sorted({r.kind for r, _ in hits}),
        "by": sorted({r.by for r, _ in hits if r.by}),
        "evidence": sorted({e for r, _ in hits for e in r.evidence_ids}),
        "message_index": min(i for _, i in hits),
        "similarity": max(
            (r.similarity for r, _ in hits if r.similarity is not None), default=None
        ),
        "guards": guards,
    }
    return _event(session, item, kind, detail)


def _status_event(rule: Rule, evidence: RuleEvent, was: RuleStatus, why: str) -> RuleEvent:
    return RuleEvent(
        rule_id=rule.id,
        kind=RuleEventKind.STATUS,
        namespace=rule.scope.namespace,
        run_id=evidence.run_id,
        conversation_id=evidence.conversation_id,
        actor=evidence.actor,
        detail={"from": was.value, "to": rule.status.value, "why": why, "evidence": [evidence.id]},
    )


def _contradicted(
    rule: Rule, event: RuleEvent, before: Mapping[str, RuleStatus], out: Assessment
) -> None:
    was = before.get(rule.id, rule.status)
    if rule.status in _DEMOTABLE:
        rule.status = RuleStatus.CANDIDATE
        rule.updated_at = utcnow()
        why = "the user corrected against it after it was delivered"
        rule.history.append(
            {"at": rule.updated_at, "event": "status", "from": was.value, "to": "candidate",
             "note": why, "evidence": event.id}
        )  # fmt: skip
        out.changed[rule.id] = rule
        out.events.append(_status_event(rule, event, was, why))
    elif rule.status is not was:  # maintenance superseded or withdrew it in this capture
        why = f"{rule.status.value} by a correction made after it was delivered"
        out.events.append(_status_event(rule, event, was, why))


def _recurred(
    rule: Rule, event: RuleEvent, runs: set[str], policy: OutcomePolicy, out: Assessment
) -> None:
    if rule.flagged_at is not None or len(runs) < policy.flag_after:
        return
    rule.flagged_at = utcnow()
    rule.history.append({"at": rule.flagged_at, "event": "flagged", "evidence": event.id})
    out.changed[rule.id] = rule
    out.events.append(
        RuleEvent(
            rule_id=rule.id,
            kind=RuleEventKind.FLAGGED,
            namespace=rule.scope.namespace,
            run_id=event.run_id,
            conversation_id=event.conversation_id,
            actor=event.actor,
            detail={
                "why": f"its mistake came back after delivery in {len(runs)} runs",
                "runs": sorted(runs),
                "evidence": [event.id],
            },
        )
    )


__all__ = [
    "DEFAULT_OUTCOMES",
    "Assessment",
    "OutcomePolicy",
    "assess_outcomes",
    "maintenance_changes",
]
