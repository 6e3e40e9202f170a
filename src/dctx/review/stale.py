"""Stale rules: live rules no run was given (nor guarded by) for a number of days.

A rule that never fires costs nothing at delivery but makes the rulebook harder to audit, and
its trigger or scope may be wrong. Staleness is only reported; archiving it takes an explicit
command (`dctx rules archive --stale`), and an archived rule can be enabled again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from dctx.models import Rule, RuleEventKind, RuleStatus, parse_time

# what counts as the rule having been used: a run was given it, or its guard acted
TRIGGERED = (RuleEventKind.DELIVERED, RuleEventKind.GUARD)
Tally = Mapping[str, Mapping[RuleEventKind, tuple[int, str]]]


@dataclass(slots=True)
class StaleRule:
    rule: Rule
    last_triggered: str | None  # the latest delivery or guard; None: never delivered
    idle_days: float  # since then, or since the rule was created

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule.to_dict(),
            "last_triggered": self.last_triggered,
            "idle_days": round(self.idle_days, 1),
        }


def last_triggered(rule_id: str, tally: Tally) -> str | None:
    times = [tally.get(rule_id, {}).get(k, (0, ""))[1] for k in TRIGGERED]
    return max((t for t in times if t), default=None)


def find_stale(
    rules: Sequence[Rule], tally: Tally, *, days: int, now: datetime | None = None
) -> list[StaleRule]:
    """The ACTIVE rules idle for more than `days`, longest idle first."""
    now = now or datetime.now(UTC)
    out: list[StaleRule] = []
    for rule in rules:
        if rule.status is not RuleStatus.ACTIVE:
            continue
        last = last_triggered(rule.id, tally)
        since = parse_time(last) or parse_time(rule.created_at)
        if since is None:
            continue  # no time to measure from: never called stale
        idle = (now - since).total_seconds() / 86400
        if idle > days:
            out.append(StaleRule(rule, last, idle))
    out.sort(key=lambda s: -s.idle_days)
    return out


__all__ = ["TRIGGERED", "StaleRule", "find_stale", "last_triggered", "parse_time"]
