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


class _Reads:
    """ASK is a standing correction, DROP a withdrawal; every other turn a task."""

    id = "reads"

    def read(self, turns: Sequence[TurnInput]) -> list[TurnVerdict]:
        kinds = {ASK: TurnKind.STANDING, DROP: TurnKind.WITHDRAWAL}
        return [
            TurnVerdict(kinds[t.text], 0.99, by=self.id)
            if t.text in kinds
            else TurnVerdict(TurnKind.TASK, 0.0, by=self.id)
            for t in turns
        ]


def _session(turn: str) -> list[dict[str, str]]:
    return [
        {"role": "user", "content": "write the June newsletter for the allotment society"},
        {"role": "assistant", "content": "Here is the June newsletter."},
        {"role": "user", "content": turn},
    ]


def _texts(memory: Memory, status: RuleStatus) -> list[str]:
    return [r.text for r in memory.rules(status=status)]


def test_a_read_withdrawal_revokes_the_rule_it_names(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing", reader=_Reads()) as memory:
        memory.capture(_session(ASK), actor="moss", skill="newsletter", conversation_id="a")
        memory.capture(_session(DROP), actor="moss", skill="newsletter", conversation_id="b")
        withdrawn = _texts(memory, RuleStatus.WITHDRAWN)
        active = _texts(memory, RuleStatus.ACTIVE)
    assert len(withdrawn) == 1 and "star icon" in withdrawn[0].lower()
    assert not any("star" in t.lower() for t in active)


def test_with_no_rule_to_revoke_the_command_is_learned(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing", reader=_Reads()) as memory:
        memory.capture(_session(DROP), actor="moss", skill="newsletter", conversation_id="b")
        active = _texts(memory, RuleStatus.ACTIVE)
    assert any("star icons" in t.lower() for t in active)
