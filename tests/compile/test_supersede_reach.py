"""A rule that replaces an older one reaches the requests the older one answered."""

from __future__ import annotations

from dctx.memory import Memory
from dctx.models import RuleStatus, TriggerKind

SKILL = "circulation"
ASKED = "A patron wants to renew the laptop she borrowed last week. Sort it out."


def _teach(mem: Memory) -> None:
    mem.capture(
        [
            {"role": "user", "content": ASKED},
            {"role": "assistant", "content": "Renewed the laptop for another 14 days."},
            {"role": "user", "content": "Laptop renewals are 7 days, not 14. Please change it."},
        ],
        actor="ines",
        skill=SKILL,
        conversation_id="c1",
        timestamp="2026-01-10T09:00:00Z",
    )
    # the change is said on another errand
    mem.capture(
        [
            {
                "role": "user",
                "content": "The returns bin on the second floor is full, log a facilities request.",
            },
            {"role": "assistant", "content": "Logged facilities request FR-2211."},
            {
                "role": "user",
                "content": "Thanks. Oh, and that changed this month: renew laptops for 10 days "
                "now instead of 7, and check that the charger is in the bag before you renew "
                "one.",
            },
            {"role": "assistant", "content": "Noted."},
        ],
        actor="ines",
        skill=SKILL,
        conversation_id="c2",
        timestamp="2026-02-03T09:00:00Z",
    )


def test_the_replacement_answers_the_requests_the_old_rule_answered(mem: Memory) -> None:
    _teach(mem)
    rules = mem.rules(status=[RuleStatus.ACTIVE, RuleStatus.SUPERSEDED])
    old = next(r for r in rules if r.status is RuleStatus.SUPERSEDED)
    new = next(r for r in rules if r.id == old.superseded_by)
    assert "10 days" in new.text
    assert new.trigger.kind is TriggerKind.QUERY
    assert new.trigger.text == old.trigger.text  # the laptop renewal it was learned on
    # the turn's other rule, said on the same errand, goes where its replacement went
    charger = next(r for r in rules if "charger" in r.text)
    assert charger.trigger.kind is TriggerKind.QUERY
    assert charger.trigger.text == old.trigger.text
    run = mem.start(actor="ines", skill=SKILL, query="Can this patron renew his borrowed laptop?")
    delivered = " ".join(u.text for u in run.units)
    assert "10 days" in delivered
    assert "charger" in delivered
    assert "not 14" not in delivered
