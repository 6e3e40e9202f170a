"""Team rules: a decision of the organisation a staff member passes on reaches every colleague,
and a team rule said again with a new value stays the team's, whoever says it."""

from __future__ import annotations

from dctx.memory import Memory
from dctx.models import RuleStatus

SKILL = "pool_desk"
ASKED = "The Marlins swim club wants lane 3 on Saturday from 8 to 10. Book it."


def _say(mem: Memory, actor: str, cid: str, day: str, correction: str) -> None:
    mem.capture(
        [
            {"role": "user", "content": ASKED},
            {"role": "assistant", "content": "Booked lane 3 for the Marlins, Saturday 8-10."},
            {"role": "user", "content": correction},
            {"role": "assistant", "content": "Done, I've updated the booking."},
        ],
        actor=actor,
        skill=SKILL,
        conversation_id=cid,
        timestamp=f"2026-{day}T09:00:00Z",
    )


def _team_rule(mem: Memory) -> None:
    """Lena states the desk's rate for everyone."""
    _say(
        mem,
        "lena",
        "c1",
        "01-05",
        "Lane rentals are $12 an hour for everyone, not $10. Fix the booking.",
    )


def _delivered(mem: Memory, actor: str) -> str:
    run = mem.start(actor=actor, skill=SKILL, query="Book lane 5 for the Tritons on Sunday 7-9.")
    return " ".join(u.text for u in run.units)


def _active(mem: Memory) -> list[str]:
    return [r.text for r in mem.rules(status=[RuleStatus.ACTIVE])]


def test_a_new_value_for_a_team_rule_is_the_teams(mem: Memory) -> None:
    _team_rule(mem)
    # the same speaker gives the team's rule a new value, with no word of whom it is for
    _say(mem, "lena", "c2", "02-02", "Lane rentals are $14 an hour now, not $12. Fix the booking.")
    rules = mem.rules(status=[RuleStatus.ACTIVE])
    [rule] = [r for r in rules if "$14" in r.text]
    assert rule.scope.actor is None
    assert "$14 an hour" in _delivered(mem, "omar")
    assert "$12 an hour" not in _delivered(mem, "omar")  # the team's old value


def test_a_colleague_says_the_teams_new_value(mem: Memory) -> None:
    _team_rule(mem)
    _say(
        mem,
        "omar",
        "c2",
        "02-02",
        "Lane rentals are $14 an hour for everyone now, not $12. Fix the booking.",
    )
    for actor in ("lena", "omar", "kit"):
        delivered = _delivered(mem, actor)
        assert "$14 an hour" in delivered and "$12 an hour" not in delivered


def test_a_personal_exception_leaves_the_team_rule_alone(mem: Memory) -> None:
    _team_rule(mem)
    _say(
        mem,
        "omar",
        "c2",
        "02-02",
        "For my swim clubs, lane rentals are $10 an hour, not $12. Fix the booking.",
    )
    assert "$12" in _delivered(mem, "kit") and "swim clubs" not in _delivered(mem, "kit")
    assert "$12" in _delivered(mem, "lena")


def test_a_decision_passed_on_reaches_every_colleague(mem: Memory) -> None:
    _say(mem, "lena", "c1", "01-05", "Lane rentals are $12 an hour, not $10. Fix the booking.")
    assert "$12 an hour" not in _delivered(mem, "omar")  # lena's own, as far as the words go
    _say(
        mem,
        "lena",
        "c2",
        "02-02",
        "The parks board changed the rates last night: lane rentals are $15 an hour now, not "
        "$12. Fix the booking.",
    )
    for actor in ("lena", "omar"):
        delivered = _delivered(mem, actor)
        assert "$15 an hour" in delivered and "$12 an hour" not in delivered
    [rule] = [r for r in mem.rules(status=[RuleStatus.ACTIVE]) if "$15" in r.text]
    why = mem.explain(rule.id)["rule"]["history"]
    assert any(e["event"] == "team rule" and "decision" in e["why"] for e in why)


def test_a_complaint_told_of_the_past_is_no_decision(mem: Memory) -> None:
    _say(
        mem,
        "lena",
        "c1",
        "01-05",
        "Two parents complained last week about the noise. From now on, put the swim clubs in "
        "lanes 7 and 8, away from the lessons. Fix the booking.",
    )
    assert "lanes 7 and 8" in _delivered(mem, "lena")
    assert "lanes 7 and 8" not in _delivered(mem, "omar")
