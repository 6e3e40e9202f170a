"""A team rule outlives its forgotten author when others said the same thing.

`forget_actor` deletes the rules an actor authored. A team rule another actor agreed with is
theirs too: it is kept, but as they said it. Each agreement recorded by maintenance keeps what
the agreeing actor said (text, type, trigger, qualifiers) and their evidence, so the rule is
rewritten from the first such agreement and keeps only the agreeing actors' support and
evidence; nothing of the author's words or evidence stays. Without such an agreement (rules
stored before agreements kept their words) it is deleted with its author.
"""

from __future__ import annotations

from typing import Any

from dctx.models import Rule, RuleType, Trigger, utcnow


def _agreements(rule: Rule, leaving: str) -> list[dict[str, Any]]:
    return [
        h
        for h in rule.history
        if h.get("event") == "agreed"
        and h.get("actor") not in (None, leaving)
        and isinstance(h.get("said"), dict)
        and set(h.get("evidence", [])) & set(rule.evidence_ids)
    ]


def _trigger(data: dict[str, Any]) -> Trigger:
    return Trigger.from_dict(data)


def hand_over(rule: Rule, leaving: str) -> Rule | None:
    """`rule` (a team rule `leaving` authored) as the others who agreed said it, or None when
    nobody else stated it. Changes `rule` in place."""
    if rule.actor != leaving or rule.scope.actor is not None:
        return None
    agreed = _agreements(rule, leaving)
    if not agreed:
        return None
    first = agreed[0]
    said = first["said"]
    authors = list(dict.fromkeys(str(h["actor"]) for h in agreed))
    rule.text = str(said["text"])
    rule.type = RuleType(said["type"])
    rule.trigger = _trigger(said["trigger"])
    rule.qualifiers = [str(q) for q in said.get("qualifiers", [])]
    rule.actor = authors[0]
    rule.supporters = authors[1:]
    rule.support = len(agreed)
    live = set(rule.evidence_ids)
    rule.evidence_ids = [e for h in agreed for e in h["evidence"] if e in live]
    rule.conversation_id = first.get("conversation")
    rule.history = [
        *(h for h in rule.history if h in agreed),
        {"at": utcnow(), "event": "kept after forget", "author": rule.actor},
    ]
    rule.updated_at = utcnow()
    return rule


__all__ = ["hand_over"]
