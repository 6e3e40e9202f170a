"""Resolve conflicting rules at injection time, per querying actor (paper, section 4.2).

Rules about the same behavior share a conflict group. When retrieval surfaces a group holding
different directives: (i) the querying actor's own rule wins if they are a party; (ii) else the
directive with the most supporting corrections; (iii) with no majority, abstain. `decide` says
which rule won and why, so `explain` can name the winner.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from dctx.models import Rule

Reason = Literal["no_conflict", "own_rule", "majority", "abstain"]


@dataclass(slots=True)
class Decision:
    """How one conflict group was resolved for one querying actor."""

    group: str
    actor: str
    reason: Reason
    winners: list[str] = field(default_factory=list)  # rule ids delivered
    members: list[str] = field(default_factory=list)  # rule ids of the group visible to the actor
    support: dict[str, int] = field(default_factory=dict)  # rule id -> support counted

    def to_dict(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "actor": self.actor,
            "reason": self.reason,
            "winners": list(self.winners),
            "members": list(self.members),
            "support": dict(self.support),
        }


def resolve_conflicts(
    found: Sequence[Rule], all_rules: Sequence[Rule], visible: np.ndarray, *, actor: str
) -> list[Rule]:
    groups: dict[str, list[Rule]] = {}
    for i in visible:
        rule = all_rules[int(i)]
        groups.setdefault(rule.group, []).append(rule)
    out: list[Rule] = []
    kept: set[str] = set()
    decided: dict[str, set[str]] = {}
    for rule in found:
        members = groups.get(rule.group, [rule])
        if rule.group not in decided:
            decided[rule.group] = set(decide(members, actor).winners)
        if rule.id in decided[rule.group] and rule.id not in kept:
            kept.add(rule.id)
            out.append(rule)
    return out


def decide(members: Sequence[Rule], actor: str) -> Decision:
    """Resolve one group's visible members for `actor`: who wins, and by which step."""
    group = members[0].group if members else ""
    out = Decision(group, actor, "no_conflict", members=[m.id for m in members])
    texts = {m.text.strip().lower() for m in members}
    authors = {m.actor for m in members}
    if len(texts) <= 1 or len(authors) <= 1:
        out.winners = [m.id for m in members]
        return out
    own = [m for m in members if m.actor == actor]
    if own:
        out.reason = "own_rule"
        out.winners = [max(own, key=lambda m: m.created_at).id]
        return out
    out.support = {m.id: m.support + len(set(m.supporters) - {m.actor}) for m in members}
    ranked = sorted(members, key=lambda m: -out.support[m.id])
    if out.support[ranked[0].id] > out.support[ranked[1].id]:
        out.reason = "majority"
        out.winners = [ranked[0].id]
    else:
        out.reason = "abstain"
    return out
