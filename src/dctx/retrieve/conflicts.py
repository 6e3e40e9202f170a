"""Resolve conflicting rules at injection time, per querying actor (paper, section 4.2).

Rules about the same behavior share a conflict group. When retrieval surfaces a group holding
different directives: (i) the querying actor's own rule wins if they are a party; (ii) else the
directive with the most supporting corrections; (iii) with no majority, abstain.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dctx.models import Rule


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
            decided[rule.group] = _winners(members, actor)
        if rule.id in decided[rule.group] and rule.id not in kept:
            kept.add(rule.id)
            out.append(rule)
    return out


def _winners(members: Sequence[Rule], actor: str) -> set[str]:
    texts = {m.text.strip().lower() for m in members}
    authors = {m.actor for m in members}
    if len(texts) <= 1 or len(authors) <= 1:
        return {m.id for m in members}
    own = [m for m in members if m.actor == actor]
    if own:
        return {max(own, key=lambda m: m.created_at).id}
    support: dict[str, int] = {}
    for m in members:
        support[m.id] = m.support + len(set(m.supporters) - {m.actor})
    ranked = sorted(members, key=lambda m: -support[m.id])
    if support[ranked[0].id] > support[ranked[1].id]:
        return {ranked[0].id}
    return set()
