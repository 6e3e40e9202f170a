"""When a candidate lesson becomes an active rule.

A lesson whose values or tools came from tool output (capture/provenance.py) is stored as a
CANDIDATE: kept with its evidence, never injected. One attacker-controlled result can fake one
sighting, so a candidate is admitted only when the same lesson is seen again independently: in
at least `min_conversations` distinct conversations of at least `min_actors` distinct actors.
A person's approval (`Memory.approve`, `dctx rules approve`) admits it at any time. When
forgetting an actor takes away the sightings that admitted it, it is a candidate again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from dctx.errors import ConfigError
from dctx.models import Rule, RuleStatus, parse_time


@dataclass(frozen=True, slots=True)
class Admission:
    """How much independent evidence admits a candidate lesson (the named setting)."""

    min_conversations: int = 2
    min_actors: int = 2
    # a candidate that nothing confirmed for this long expires (None: never)
    candidate_days: float | None = 90.0

    def __post_init__(self) -> None:
        if self.candidate_days is not None and self.candidate_days <= 0:
            raise ConfigError(
                f"Admission.candidate_days must be positive or None, not {self.candidate_days}"
            )

    def expired(self, rule: Rule, now: datetime) -> bool:
        """A candidate last seen more than `candidate_days` before `now` (a time on the
        sessions' clock, so a replay of old sessions expires what its own timeline left)."""
        if rule.status is not RuleStatus.CANDIDATE or self.candidate_days is None:
            return False
        seen = parse_time(rule.updated_at)
        return seen is not None and now - seen > timedelta(days=self.candidate_days)

    def admits(self, rule: Rule) -> bool:
        """Whether the rule's recorded sightings are independent enough."""
        seen = sightings(rule)
        conversations = {s.get("conversation") for s in seen} - {None}
        actors = {s.get("actor") for s in seen} - {None}
        return len(conversations) >= self.min_conversations and len(actors) >= self.min_actors

    def lapsed(self, rule: Rule) -> bool:
        """An active rule that only its sightings admitted and that they admit no longer
        (some were forgotten); a rule a person made active, or one seen without tool output,
        stays."""
        if rule.status is not RuleStatus.ACTIVE or not rule.from_tool_output:
            return False
        history = rule.history
        if not any(h.get("event") == "promoted" for h in history):
            return False
        if any(
            h.get("event") == "status" and h.get("to") == RuleStatus.ACTIVE.value for h in history
        ):
            return False  # approved or enabled by a person
        return not any(s.get("trusted") for s in sightings(rule)) and not self.admits(rule)


DEFAULT_ADMISSION = Admission()


UNCONFIRMED = "unconfirmed"  # history event of a lesson seen in too few conversations yet


def unconfirmed(rule: Rule) -> bool:
    """A lesson compiled from a signal that has not reached its own threshold (a replacement
    seen in one conversation): it waits as a candidate, and its recurrence admits nothing."""
    return any(h.get("event") == UNCONFIRMED for h in rule.history)


def sightings(rule: Rule) -> list[dict[str, Any]]:
    """The rule's "seen" history entries (one per conversation it was observed in)."""
    return [h for h in rule.history if h.get("event") == "seen"]


__all__ = ["DEFAULT_ADMISSION", "UNCONFIRMED", "Admission", "sightings", "unconfirmed"]
