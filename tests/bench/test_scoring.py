"""Delivery scoring per DCBENCH.md, on hand-made units."""

from __future__ import annotations

import pytest

from dctx.bench.schema import BeforeCall, Item, Pattern, Scenario
from dctx.bench.scoring import (
    deadline,
    injected_tokens,
    item_satisfied,
    matches,
    score_delivery,
    summarize,
)
from dctx.models import Unit
from dctx.tokens import count_tokens


def U(text: str, channel: str = "system") -> Unit:
    return Unit(text=text, channel=channel)  # type: ignore[arg-type]


def item(mode: str = "positive", by: object = "final", **pattern: list[str]) -> Item:
    key = "match" if mode == "positive" else "forbid"
    return Item.model_validate(
        {"id": "i", "mode": mode, "weight": 1, "text": "t", "by": by, key: pattern}
    )


def test_matches_all_any_none_case_insensitive() -> None:
    pat = Pattern(all=["segment"], any=["growth", "grew"], none=["total only"])
    assert matches("Report GROWTH per Segment.", pat)
    assert not matches("Report growth.", pat)  # `all` fails
    assert not matches("Report each segment.", pat)  # `any` fails
    assert not matches("Segment growth, total only.", pat)  # `none` fails
    assert matches("anything", Pattern())  # nothing imposed
    assert matches("rate: 5%", Pattern(all=[r"\d+%"]))  # real regexes, re.search


def test_match_is_within_one_unit() -> None:
    it = item(all=["segment", "growth"])
    assert not item_satisfied(it, [[U("segment"), U("growth")]], 0)
    assert item_satisfied(it, [[U("segment growth")]], 0)


def test_deadlines() -> None:
    assert deadline("start", 3) == 0
    assert deadline("final", 3) == 3
    assert deadline(BeforeCall(before_call=1), 3) == 0
    assert deadline(BeforeCall(before_call=3), 3) == 2
    assert deadline(BeforeCall(before_call=9), 3) == 3  # clamped to the last point


def test_positive_timing() -> None:
    late = [[], [], [U("use segments")]]  # delivered at DP2 (after the 2nd result)
    assert item_satisfied(item(by="final", all=["segment"]), late, 2)
    assert not item_satisfied(item(by="start", all=["segment"]), late, 2)
    assert not item_satisfied(item(by={"before_call": 2}, all=["segment"]), late, 2)
    assert item_satisfied(item(by={"before_call": 3}, all=["segment"]), late, 2)
    early = [[U("use segments")], [], []]  # stays in context for the rest of the run
    assert item_satisfied(item(by="final", all=["segment"]), early, 2)


def test_negative_timing_and_default() -> None:
    late = [[], [U("apply the segment rule")]]
    assert item_satisfied(item("negative", by="start", all=["segment"]), late, 1)
    assert not item_satisfied(item("negative", by="final", all=["segment"]), late, 1)
    neg = Item.model_validate(
        {"id": "n", "mode": "negative", "weight": 1, "text": "t", "forbid": {"any": ["x"]}}
    )
    assert neg.by == "final"
    assert not item_satisfied(neg, [[], [U("x")]], 1)
    assert item_satisfied(neg, [[], []], 1)


def test_scenario_score_tokens_and_units(scenario: Scenario) -> None:
    # per_segment (w3, final), no_premature (w1, forbid segment at start), no_acme (w1)
    dps = [[], [U("Report growth per segment.")]]
    sc = score_delivery(scenario, dps)
    assert sc.items == {"per_segment": 1.0, "no_premature": 1.0, "no_acme": 1.0}
    assert sc.score == 100.0
    assert sc.tokens == count_tokens("Report growth per segment.") == 5
    assert sc.units == 1 and sc.injected

    premature = [[U("Report growth per segment.", "user")], []]
    sc = score_delivery(scenario, premature)
    assert sc.items["no_premature"] == 0.0
    assert sc.score == pytest.approx(100 * 4 / 5)

    nothing = score_delivery(scenario, [[], []])  # ctrl: negative items only
    assert nothing.score == pytest.approx(100 * 2 / 5)
    assert not nothing.injected and nothing.tokens == 0

    leak = score_delivery(scenario, [[U("Acme: report growth")], [U("segment growth")]])
    assert leak.items == {"per_segment": 1.0, "no_premature": 1.0, "no_acme": 0.0}
    assert leak.score == pytest.approx(80.0)


def test_injected_tokens_sum_over_points() -> None:
    dps = [[U("a b"), U("c")], [], [U("d, e.")]]
    assert injected_tokens(dps) == 2 + 1 + 4


def test_summary_math() -> None:
    rows = [
        ("recall", 100.0, 10.0, True),
        ("recall", 0.0, 30.0, True),
        ("exception", 50.0, 0.0, False),
        ("exception", 100.0, 20.0, True),
        ("exception", 100.0, 0.0, False),
    ]
    s = summarize("x", rows)
    assert s.n == 5
    assert s.dimensions == {"exception": pytest.approx(250 / 3), "recall": 50.0}
    assert s.dimension_counts == {"exception": 3, "recall": 2}
    assert s.overall == pytest.approx(350 / 5)  # mean over scenarios, not over dimensions
    assert s.tokens_mean == pytest.approx(12.0)
    assert s.efficacy == pytest.approx(2 / 3)  # injected: 100, 0, 100 -> 2 of 3 score > 0
    assert summarize("ctrl", [("recall", 40.0, 0.0, False)]).efficacy is None
    assert summarize("none", []).n == 0
