"""Through Memory: a correction whose condition compares periods fires on a result where the
metric moved that way and stays silent where it did not; a threshold's second branch, said
in the same turn, fires on the other side of the number."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dctx.memory import Memory
from dctx.models import RuleStatus
from stub_reader import SureOf


def _delivered(memory: Memory, actor: str, skill: str, query: str, result: object) -> list[str]:
    texts = {r.id: r.text for r in memory.rules(status=RuleStatus.ACTIVE)}
    run = memory.start(actor=actor, skill=skill, query=query)
    assert not [r for u in run.units for r in u.rule_ids]  # nothing before the data is seen
    fired = run.observe({"name": "get_stats", "arguments": {}}, json.dumps(result))
    return [texts[r] for u in fired for r in u.rule_ids]


LIBRARY = "If book loans fall month over month, ask the branch to plan a reading event."


def test_a_period_change_fires_only_where_the_metric_moved_that_way(tmp_path: Path) -> None:
    messages = [
        {"role": "user", "content": "how is the Millbrook branch library doing?"},
        {"role": "assistant", "content": "Loans look steady at Millbrook."},
        {"role": "user", "content": LIBRARY},
    ]

    def stats(latest: int) -> dict[str, object]:
        months = [
            {"month": "2026-05", "book_loans": 402, "card_signups": 31},
            {"month": "2026-06", "book_loans": latest, "card_signups": 35},
        ]
        return {"branch": "Tarn Road", "months": months}

    with Memory(tmp_path / "m.db", embedder="hashing", reader=SureOf(LIBRARY)) as memory:
        memory.capture(messages, actor="noor", skill="libraries", conversation_id="c1")
        query = "review the Tarn Road branch"
        fell = _delivered(memory, "noor", "libraries", query, stats(310))
        rose = _delivered(memory, "noor", "libraries", query, stats(455))
    assert (fell, rose) == ([LIBRARY], [])


BRANCHES = (
    "If a ward has fewer than 4 nurses on shift, call the agency for cover. "
    "4 or more nurses on shift, just note the rota in the log."
)


@pytest.mark.parametrize(("nurses", "expected"), [(3, 0), (5, 1)])
def test_the_second_branch_of_a_threshold_fires_on_its_side(
    tmp_path: Path, nurses: int, expected: int
) -> None:
    messages = [
        {"role": "user", "content": "check the rota for ward 7"},
        {"role": "assistant", "content": "Ward 7 looks fine."},
        {"role": "user", "content": BRANCHES},
    ]
    with Memory(tmp_path / "m.db", embedder="hashing", reader=SureOf(BRANCHES)) as memory:
        memory.capture(messages, actor="ada", skill="rota", conversation_id="c1")
        rules = sorted(r.text for r in memory.rules(status=RuleStatus.ACTIVE))
        said = _delivered(
            memory, "ada", "rota", "check the rota for ward 2", {"ward": "W2", "nurses": nurses}
        )
    assert len(rules) == 2
    assert said == [sorted(rules, key=lambda t: t.startswith("4"))[expected]]


SHIPPING = (
    "Whenever the quote and the customs form come back in different currencies, convert the "
    "declared value into the quote's currency before you file the form."
)


@pytest.mark.parametrize(("second", "fires"), [("EUR", True), ("GBP", False)])
def test_values_that_differ_between_results_meet_a_differ_condition(
    tmp_path: Path, second: str, fires: bool
) -> None:
    messages = [
        {"role": "user", "content": "file the customs form for crate 88"},
        {"role": "assistant", "content": "Filed it with a declared value of 1,200."},
        {"role": "user", "content": SHIPPING},
    ]
    with Memory(tmp_path / "m.db", embedder="hashing", reader=SureOf(SHIPPING)) as memory:
        memory.capture(messages, actor="ivo", skill="freight", conversation_id="c1")
        (rule,) = memory.rules(status=RuleStatus.ACTIVE)
        assert rule.trigger.predicate is not None
        assert (rule.trigger.predicate.change, rule.trigger.predicate.key) == (
            "differ",
            ["currenc"],
        )
        run = memory.start(actor="ivo", skill="freight", query="ship crate 91 to Rotterdam")
        quote = {"quote_id": "Q-7", "amount": 940, "currency": "GBP"}
        first = run.observe({"name": "get_quote", "arguments": {}}, json.dumps(quote))
        form = {"form": "C88", "declared_value": 1100, "currency": second}
        then = run.observe({"name": "get_customs_form", "arguments": {}}, json.dumps(form))
    assert not [r for u in first for r in u.rule_ids]  # one currency seen: nothing differs yet
    assert bool([r for u in then for r in u.rule_ids]) is fires
