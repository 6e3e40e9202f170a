"""A command the reader reads as taking an instruction back ("drop the stars") revokes the
rule that asks for that practice, instead of standing beside it as its opposite."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from dctx.capture.reading.base import TurnInput, TurnKind, TurnVerdict
from dctx.memory import Memory
from dctx.models import RuleStatus

ASK = "always put a star icon before each heading in the newsletter."
DROP = "drop the star icons, the mail client mangles them."


class _ReadsAs:
    """Sure of the kind of each turn it is told about; every other turn is a task."""

    id = "reads-as"

    def __init__(self, kinds: dict[str, TurnKind]) -> None:
        self.kinds = kinds

    def read(self, turns: Sequence[TurnInput]) -> list[TurnVerdict]:
        return [
            TurnVerdict(self.kinds[t.text], 0.99, by=self.id)
            if t.text in self.kinds
            else TurnVerdict(TurnKind.TASK, 0.0, by=self.id)
            for t in turns
        ]


def _drop_reader() -> _ReadsAs:
    return _ReadsAs({ASK: TurnKind.STANDING, DROP: TurnKind.WITHDRAWAL})


def _session(turn: str) -> list[dict[str, str]]:
    return [
        {"role": "user", "content": "write the June newsletter for the allotment society"},
        {"role": "assistant", "content": "Here is the June newsletter."},
        {"role": "user", "content": turn},
    ]


def _texts(memory: Memory, status: RuleStatus) -> list[str]:
    return [r.text for r in memory.rules(status=status)]


def test_a_read_withdrawal_revokes_the_rule_it_names(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing", reader=_drop_reader()) as memory:
        memory.capture(_session(ASK), actor="moss", skill="newsletter", conversation_id="a")
        memory.capture(_session(DROP), actor="moss", skill="newsletter", conversation_id="b")
        withdrawn = _texts(memory, RuleStatus.WITHDRAWN)
        active = _texts(memory, RuleStatus.ACTIVE)
    assert len(withdrawn) == 1 and "star icon before" in withdrawn[0].lower()
    assert not any("star icon before" in t.lower() for t in active)


def test_with_no_rule_to_revoke_the_command_is_learned(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing", reader=_drop_reader()) as memory:
        memory.capture(_session(DROP), actor="moss", skill="newsletter", conversation_id="b")
        active = _texts(memory, RuleStatus.ACTIVE)
    assert any("star icons" in t.lower() for t in active)


REPLACE = "scratch the star icons, put a dash before each heading instead."


def _after_a_withdrawal(tmp_path: Path, turn: str) -> tuple[list[str], list[str]]:
    """The withdrawn and the active rules after ASK, then `turn` read as a withdrawal."""
    reader = _ReadsAs({ASK: TurnKind.STANDING, turn: TurnKind.WITHDRAWAL})
    with Memory(tmp_path / "m.db", embedder="hashing", reader=reader) as memory:
        memory.capture(_session(ASK), actor="moss", skill="newsletter", conversation_id="a")
        memory.capture(_session(turn), actor="moss", skill="newsletter", conversation_id="b")
        return _texts(memory, RuleStatus.WITHDRAWN), _texts(memory, RuleStatus.ACTIVE)


def test_a_read_withdrawal_also_learns_what_replaces_it(tmp_path: Path) -> None:
    withdrawn, active = _after_a_withdrawal(tmp_path, REPLACE)
    assert len(withdrawn) == 1 and "star icon before" in withdrawn[0].lower()
    assert any("dash" in t for t in active)


OTHER = "on member newsletters, always list the next meeting date in the heading."


ASIDE = f"the next meeting date stays where it is. {REPLACE}"


def test_what_a_turn_took_back_is_all_its_instead_replaces(tmp_path: Path) -> None:
    # the turn names words of OTHER too ("meeting date"), but it already took back ASK
    reader = _ReadsAs(
        {ASK: TurnKind.STANDING, OTHER: TurnKind.STANDING, ASIDE: TurnKind.WITHDRAWAL}
    )
    with Memory(tmp_path / "m.db", embedder="hashing", reader=reader) as memory:
        memory.capture(_session(ASK), actor="moss", skill="newsletter", conversation_id="a")
        memory.capture(_session(OTHER), actor="moss", skill="newsletter", conversation_id="c")
        memory.capture(_session(ASIDE), actor="moss", skill="newsletter", conversation_id="b")
        active = _texts(memory, RuleStatus.ACTIVE)
        withdrawn = _texts(memory, RuleStatus.WITHDRAWN)
    assert len(withdrawn) == 1 and "star icon before" in withdrawn[0].lower()
    assert any("meeting date" in t for t in active)


MORE = "in the newsletter, also list each heading's author under the heading."


def test_a_read_withdrawal_that_asks_for_more_takes_nothing_back(tmp_path: Path) -> None:
    # the reader's kind alone is not enough: a command that adds to what the agent does
    # ("also list each heading's author ...") takes no rule back, however near the rule it is
    withdrawn, active = _after_a_withdrawal(tmp_path, MORE)
    assert withdrawn == []
    assert any("star icon before" in t.lower() for t in active)
    assert any("author" in t for t in active)
