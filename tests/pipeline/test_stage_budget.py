"""Stage 1 leaves part of a run's token budget to later stages: a rule whose data condition a
tool result meets must find room however many rules the request alone brings (a bowling
alley's lane desk, no benchmark's domain)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dctx.inject.run import STAGE1_SHARE
from dctx.memory import Memory
from dctx.models import TriggerKind

_HOUSE_STYLE = [
    "Always write times as 24-hour clock, like 18:00.",
    "Always put the party's name first in a booking note.",
    "Always quote shoe hire separately from the lane price.",
    "Always give the lane number in words and digits in a confirmation.",
    "Always list the bumpers request on its own line.",
    "Always sign booking confirmations as the Lakeside Lanes desk.",
    "Always mention the last order time for the snack bar.",
]
_OIL = "When a lane's oil pattern is more than 3 days old, tell the mechanic before you book it."
BUDGET = 96  # stage 1's request-only rules would take it all but 12 tokens


def _taught(path: Path) -> Memory:
    mem = Memory(path / "m.db")
    for i, correction in enumerate([*_HOUSE_STYLE, _OIL]):
        mem.capture(
            [
                {"role": "user", "content": "Book lane 7 for the Hendry party at 6."},
                {"role": "assistant", "content": "Booked lane 7 at 18:00."},
                {"role": "user", "content": correction},
                {"role": "assistant", "content": "Understood."},
            ],
            actor="rae",
            skill="lanes",
            conversation_id=f"s{i}",
        )
    return mem


@pytest.fixture
def mem(tmp_path: Path) -> Memory:
    memory = _taught(tmp_path)
    kinds = {r.text: r.trigger.kind for r in memory.rules()}
    assert kinds[_OIL] is TriggerKind.DATA
    assert sum(k is TriggerKind.ALWAYS for k in kinds.values()) == len(_HOUSE_STYLE)
    return memory


def test_a_rule_whose_data_appears_finds_room_after_a_full_stage_1(mem: Memory) -> None:
    run = mem.start(
        actor="rae",
        skill="lanes",
        query="Book lane 4 for the Osei birthday at 7.",
        token_budget=BUDGET,
    )
    assert 0 < len(run.units) < len(_HOUSE_STYLE)  # stage 1 could not take every rule
    assert run.tokens_used <= BUDGET * STAGE1_SHARE
    later = run.observe(
        {"name": "get_lane", "arguments": {"lane": 4}}, '{"lane": 4, "oil_pattern_age_days": 5}'
    )
    assert [u.text for u in later] == [f"RULE: {_OIL}"]
    assert run.tokens_used <= BUDGET


def test_with_room_to_spare_stage_1_is_not_cut(mem: Memory) -> None:
    run = mem.start(actor="rae", skill="lanes", query="Book lane 4 for the Osei birthday at 7.")
    assert len(run.units) == len(_HOUSE_STYLE)
