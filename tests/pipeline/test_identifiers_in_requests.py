"""Two requests are not alike because their order numbers share a format: a rule learned on
"Repot order PLT-24-00311" answers other repotting orders, not a refund on PLT-24-01988.
Identifiers are left out wherever a request is compared (the situation a QUERY rule stores, the
live query a run embeds), as names are."""

from __future__ import annotations

from pathlib import Path

import pytest

from dctx.capture.subjects import mask_instances
from dctx.memory import Memory
from dctx.models import RuleStatus, TriggerKind
from stub_reader import SureOf

RULE = "Water the plant and photograph it before it goes in the van."


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("Repot order PLT-24-00311, the fig", "Repot order, the fig"),
        ("deploy to us_east_1 now", "deploy to now"),
        ("a 5-year lease on v2 returns", "a 5-year lease on v2 returns"),  # a measure, a version
    ],
)
def test_identifiers_are_left_out_measures_and_versions_kept(text: str, masked: str) -> None:
    assert mask_instances(text) == masked


def test_a_request_rule_does_not_answer_a_request_alike_only_by_its_number(
    tmp_path: Path,
) -> None:
    messages = [
        {"role": "user", "content": "Repot order PLT-24-00311, the fig."},
        {"role": "assistant", "content": "Repotted the fig and booked the van."},
        {"role": "user", "content": RULE},
    ]
    with Memory(tmp_path / "m.db", reader=SureOf(RULE)) as memory:
        memory.capture(messages, actor="ines", skill="nursery", conversation_id="c1")
        (rule,) = memory.rules(status=RuleStatus.ACTIVE)
        assert rule.trigger.kind is TriggerKind.QUERY
        assert "PLT" not in rule.trigger.text

        def delivered(query: str) -> bool:
            run = memory.start(actor="ines", skill="nursery", query=query, record=False)
            return any(rule.id in u.rule_ids for u in run.units)

        assert delivered("Repot order PLT-24-07770, the olive tree.")
        assert not delivered("PLT-24-01988 is a dead hedge. Refund it.")
