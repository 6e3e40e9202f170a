"""A command said to hold from now on, inside a turn that also complains and asks for this task,
is read again without the rest of the turn; the more lasting reading stands. Only commands
that look ahead ("from now on", "going forward", "next time") are read alone: on real coding
turns "always" and "make sure" open this task's instructions as often as standing ones, and
"in the future" says when something may happen as often as how to work."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace

import pytest

from dctx.capture.reading.base import TurnInput, TurnKind, TurnVerdict
from dctx.capture.reading.learned import Thresholds
from dctx.memory import Memory
from dctx.models import RuleStatus
from stub_reader import SureOf

COMPLAINT = "Ugh, the courier came at 7am and nobody was at the dock, so the driver left."
AHEAD = "From now on, book delivery slots after 9am only."
ALWAYS = "Always book delivery slots after 9am."
MAY_HAPPEN = "We should book slots after 9am for deliveries that might come in the future."


def _capture(memory: Memory, turn: str) -> None:
    memory.capture(
        [
            {"role": "user", "content": "Book the Tuesday delivery of the new shelving."},
            {"role": "assistant", "content": "Booked the 07:00 slot on Tuesday."},
            {"role": "user", "content": turn},
            {"role": "assistant", "content": "Noted, rebooked for 09:30."},
        ],
        actor="rey",
        skill="warehouse_desk",
    )


def _active(memory: Memory) -> list[str]:
    return [r.text for r in memory.rules(status=RuleStatus.ACTIVE)]


def test_a_command_that_looks_ahead_is_read_without_the_complaint(tmp_path: Path) -> None:
    # the reader is sure of the command alone, not of the whole turn
    with Memory(tmp_path / "m.db", embedder="hashing", reader=SureOf(AHEAD)) as memory:
        _capture(memory, f"{COMPLAINT} {AHEAD}")
        active = _active(memory)
    assert len(active) == 1 and "after 9am" in active[0]


@pytest.mark.parametrize("command", [ALWAYS, MAY_HAPPEN])
def test_a_command_that_does_not_look_ahead_is_not_read_alone(tmp_path: Path, command: str) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing", reader=SureOf(command)) as memory:
        _capture(memory, f"{COMPLAINT} {command}")
        assert _active(memory) == []


def test_the_shipped_reader_admits_the_turn(tmp_path: Path) -> None:
    """The shipped reader doubts the whole turn (p 0.16, below its candidate band) and is sure
    enough of the command alone (p 0.30, above its active band)."""
    with Memory(tmp_path / "m.db", embedder="hashing") as memory:
        _capture(memory, f"{COMPLAINT} {AHEAD}")
        active = _active(memory)
    assert any("after 9am" in t for t in active)


class _Doubts:
    """A calibrated reader that puts every turn in its candidate band (p 0.4; a rule at 0.5,
    a candidate from 0.3)."""

    id = "doubts"
    model = SimpleNamespace(thresholds=Thresholds(active=0.5, candidate=0.3))

    def read(self, turns: Sequence[TurnInput]) -> list[TurnVerdict]:
        return [TurnVerdict(TurnKind.STANDING, 0.4, by=self.id) for _ in turns]


@pytest.mark.parametrize(("command", "ruled"), [(AHEAD, True), (ALWAYS, False)])
def test_a_doubted_command_said_to_hold_from_now_on_is_a_rule(
    tmp_path: Path, command: str, ruled: bool
) -> None:
    """The reader doubts the turn (candidate band); a command in it that says it holds from
    now on settles what the doubt was about. "Always" does not (real coding turns use it for
    this task's instructions), so that turn stays a candidate."""
    with Memory(tmp_path / "m.db", embedder="hashing", reader=_Doubts()) as memory:
        _capture(memory, f"{COMPLAINT} {command}")
        active = _active(memory)
        candidates = [r.text for r in memory.rules(status=RuleStatus.CANDIDATE)]
    assert any("after 9am" in t for t in active) is ruled
    assert any("after 9am" in t for t in candidates) is not ruled


def test_a_verbless_standing_correction_is_read_without_the_request_beside_it(
    tmp_path: Path,
) -> None:
    """ "Fillings: £30 deposit, taken at booking. Always." is spelled out as the command it
    means (capture/verbless.py) and read alone too: the booking request beside it is what the
    reader weighs against a lasting reading."""
    spelled = "Fillings: always use £30 deposit, taken at booking."
    turn = (
        "Book Ms Ade's filling on the 24th please. Fillings: £30 deposit, taken at booking. "
        "Always. We had three no-shows."
    )
    with Memory(tmp_path / "m.db", embedder="hashing", reader=SureOf(spelled)) as memory:
        _capture(memory, turn)
        active = _active(memory)
    assert any("£30 deposit" in t for t in active)


class _Denies:
    """A reader sure that no turn lasts (p 0.01): the shipped one reads an opening request
    with a case number that way."""

    id = "denies"
    model = SimpleNamespace(thresholds=Thresholds(active=0.5, candidate=0.3))

    def read(self, turns: Sequence[TurnInput]) -> list[TurnVerdict]:
        return [TurnVerdict(TurnKind.TASK, 0.01, by=self.id) for _ in turns]


def test_a_command_said_to_hold_from_now_on_is_a_rule_below_the_candidate_band(
    tmp_path: Path,
) -> None:
    """On the labelled real sessions two turns have a command that looks ahead (one standing);
    whatever the reader makes of the rest of the turn, that command says it lasts."""
    with Memory(tmp_path / "m.db", embedder="hashing", reader=_Denies()) as memory:
        _capture(memory, f"{COMPLAINT} {AHEAD}")
        assert any("after 9am" in t for t in _active(memory))
