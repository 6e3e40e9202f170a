"""A reply the reader takes as lasting that commands nothing but states how a kind of thing is
handled ("Couriers fly economy, and the per diem is £120 a day. Please rebook.") keeps that
statement as its rule; before, a turn with no command sentence kept nothing."""

from __future__ import annotations

from pathlib import Path

from dctx.memory import Memory
from dctx.models import RuleStatus
from stub_reader import SureOf

STATES = "No, not the big van. Wedding cakes travel in the chilled van. Please swap it."
CASE = "No, not the big van. The chilled van is free this afternoon. Please swap it."


def _capture(memory: Memory, turn: str, *, first: bool = False) -> None:
    messages = [
        {"role": "user", "content": "book the delivery for the Okafor wedding cake on Saturday"},
        {"role": "assistant", "content": "Booked the big van for Saturday 10:00."},
        {"role": "user", "content": turn},
        {"role": "assistant", "content": "Swapped."},
    ]
    memory.capture(messages[2:] if first else messages, actor="rey", skill="bakery_desk")


def _active(memory: Memory) -> list[str]:
    return [r.text for r in memory.rules(status=RuleStatus.ACTIVE)]


def _rules_from(tmp_path: Path, turn: str, *, p: float = 0.99) -> list[str]:
    """The active rules a reply leaves that the reader is sure lasts (`p`: how sure)."""
    with Memory(tmp_path / "m.db", embedder="hashing", reader=SureOf(turn, p=p)) as memory:
        _capture(memory, turn)
        return _active(memory)


def test_a_general_statement_is_the_rule_of_a_lasting_reply(tmp_path: Path) -> None:
    active = _rules_from(tmp_path, STATES)
    assert len(active) == 1 and "chilled van" in active[0]
    assert "swap" not in active[0].lower()  # the request of this case stays out


def test_a_statement_about_the_case_in_view_is_no_rule(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing", reader=SureOf(CASE)) as memory:
        _capture(memory, CASE)
        assert _active(memory) == []


def test_an_opening_request_keeps_nothing_of_its_statements(tmp_path: Path) -> None:
    # before the agent has done anything there is nothing to correct
    with Memory(tmp_path / "m.db", embedder="hashing", reader=SureOf(STATES)) as memory:
        _capture(memory, STATES, first=True)
        assert _active(memory) == []


BESIDE = (
    "You forgot the ribbon. Wedding cakes travel in the chilled van. "
    "And for the Okafor order, add a card from the bakers too."
)


def test_a_general_statement_beside_a_command_is_kept_too(tmp_path: Path) -> None:
    # the command the cues find is this order's; the statement of how a kind of thing is
    # handled is the one that lasts, and is kept beside it
    active = _rules_from(tmp_path, BESIDE)
    assert any("Wedding cakes travel in the chilled van" in text for text in active), active
    assert not any("forgot" in text for text in active)


REASON = (
    "Careful, that cake has nuts. Wedding cakes with nuts get their own box. "
    "If a wedding cake has nuts, box it apart and label the box."
)


def test_a_statement_that_gives_a_commands_reason_is_not_a_rule_of_its_own(
    tmp_path: Path,
) -> None:
    active = _rules_from(tmp_path, REASON)
    assert active and all(text.startswith("If a wedding cake has nuts") for text in active), active


def test_a_conditional_statement_is_the_rule_with_its_condition(tmp_path: Path) -> None:
    """ "If X, a Y gets Z": under a condition said first, "a" means any one, so the main
    clause states how a kind of thing is handled."""
    turn = "No. If a cake has three tiers or more, a second driver rides along. They tip."
    active = _rules_from(tmp_path, turn)
    assert len(active) == 1
    assert "three tiers" in active[0] and "second driver" in active[0]


AFTER = (
    "No, the chilled van. Always the chilled van for anything that has cream in it. "
    "Big vans run warm."
)


def test_a_statement_right_after_a_command_is_its_reason(tmp_path: Path) -> None:
    """ "Big vans run warm" says why the command before it holds, not a rule beside it."""
    active = _rules_from(tmp_path, AFTER)
    assert active == ["Always use the chilled van for anything that has cream in it."], active


def test_how_the_agent_handles_a_kind_of_case_is_the_rule_of_a_lasting_reply(
    tmp_path: Path,
) -> None:
    # said in the second person, after the case it holds for, with no command sentence
    turn = (
        "No. Nut-free orders, you bake them first thing, before any flour is out. "
        "Half of the regulars ask for that."
    )
    # the reader admits the turn, short of sure enough to stand for a rule by itself
    active = _rules_from(tmp_path, turn, p=0.6)
    assert len(active) == 1 and "bake them first thing" in active[0], active


def test_values_named_for_a_case_are_the_rule_of_a_lasting_reply(tmp_path: Path) -> None:
    turn = "When a cake has fresh fruit: the chilled van, and a frozen gel pack in the box, please."
    active = _rules_from(tmp_path, turn, p=0.6)
    assert len(active) == 1 and "chilled van" in active[0], active
