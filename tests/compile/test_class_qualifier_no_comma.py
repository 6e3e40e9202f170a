"""A class qualifier with no comma before its command ("on refund emails cc ..., and always
...") is the condition of every command of the sentence, so each is a rule of its own and
withdrawing one leaves the other."""

from __future__ import annotations

from pathlib import Path

from dctx.compile.conditions import split_condition
from dctx.memory import Memory
from dctx.models import RuleStatus
from stub_reader import SureOf

SAID = "on refund emails cc the store manager, and always quote the order date."
TAKEN_BACK = "don't cc the store manager on refund emails any more."


def test_the_qualifier_is_the_condition_and_the_commands_the_main() -> None:
    cond = split_condition(SAID, [])
    assert cond is not None
    assert cond.text == "refund emails"
    assert cond.main.startswith("cc the store manager")


def _session(turn: str) -> list[dict[str, str]]:
    return [
        {"role": "user", "content": "answer the refund request from the Harbour Street shop"},
        {"role": "assistant", "content": "Sent the refund email."},
        {"role": "user", "content": turn},
    ]


def test_withdrawing_one_command_keeps_the_other(tmp_path: Path) -> None:
    reader = SureOf(SAID, TAKEN_BACK)
    with Memory(tmp_path / "m.db", embedder="hashing", reader=reader) as memory:
        memory.capture(_session(SAID), actor="ola", skill="shop", conversation_id="a")
        memory.capture(_session(TAKEN_BACK), actor="ola", skill="shop", conversation_id="b")
        active = [r.text for r in memory.rules(status=RuleStatus.ACTIVE)]
        withdrawn = [r.text for r in memory.rules(status=RuleStatus.WITHDRAWN)]
    assert any("order date" in t for t in active)
    assert not any("store manager" in t for t in active)
    assert any("store manager" in t for t in withdrawn)


def test_under_a_condition_one_specific_word_names_the_behaviour(tmp_path: Path) -> None:
    said = "if a parcel is lost, get someone to ring the customer."
    vague = "make it better."
    with Memory(tmp_path / "m.db", embedder="hashing", reader=SureOf(said, vague)) as memory:
        memory.capture(_session(said), actor="ola", skill="shop", conversation_id="a")
        memory.capture(_session(vague), actor="ola", skill="shop", conversation_id="b")
        texts = [r.text for r in memory.rules(status=RuleStatus.ACTIVE)]
    assert texts == ["If a parcel is lost, get someone to ring the customer."]
