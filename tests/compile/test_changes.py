"""Conditions that compare two values of a metric compile to change predicates, judged on the
metric's latest two periods in one result or on the field in two results of the run."""

from __future__ import annotations

import json
from typing import Any

import pytest

from dctx.compile.changes import change_predicate
from dctx.compile.conditions import condition_parts
from dctx.compile.triggers import data_trigger, parse_trigger
from dctx.inject.why import condition_text, describe_trigger
from dctx.models import Rule, RuleSource, RuleType, Scope, Trigger
from dctx.retrieve.context import RunContext, data_condition_met, judge_soft


def _compiled(condition: str) -> Trigger:
    return data_trigger(condition)


def _run(*results: Any) -> RunContext:
    ctx = RunContext.start("how are the orchards doing")
    for i, result in enumerate(results):
        ctx.add_step(f"tool_{i}", {}, json.dumps(result))
    return ctx


@pytest.mark.parametrize(
    ("condition", "change", "direction"),
    [
        ("apple yields shrink year over year", "period", "down"),
        ("the hive count is higher than the prior season's", "step", "up"),
        ("membership climbed quarter on quarter", "period", "up"),
        ("the water level went down since the previous reading", "step", "down"),
        ("ferry bookings are lower than last month", "period", "down"),
    ],
)
def test_a_direction_and_a_reference_compile_to_a_change(
    condition: str, change: str, direction: str
) -> None:
    pred = _compiled(condition).predicate
    assert pred is not None and pred.soft
    assert (pred.change, pred.direction) == (change, direction)


@pytest.mark.parametrize(
    "condition",
    [
        "more than 6 kayaks are out",  # a threshold
        "the boiler pressure falls below 2 bar",  # a threshold the field reaches
        "the greenhouse is higher than 30 degrees",  # a comparative with no reference
        "the tractor is on loan",  # a state
    ],
)
def test_thresholds_and_states_are_no_change(condition: str) -> None:
    keywords, numeric, _ = condition_parts(condition)
    assert change_predicate(condition, keywords, numeric) is None


def test_an_amount_after_by_is_the_change_not_a_threshold() -> None:
    trig = _compiled("ticket sales drop by more than 8% week over week")
    assert trig.numeric is None  # never a threshold on the sales field itself
    pred = trig.predicate
    assert pred is not None
    assert (pred.by, pred.percent, pred.direction) == (8.0, True, "down")
    assert "ticket" in trig.keywords or "sale" in trig.keywords


def test_sibling_fields_of_a_period_are_compared() -> None:
    trig = _compiled("visitor numbers fall quarter on quarter")
    fell = _run({"park": "Elm Ridge", "visitors": 8100, "visitors_prior_q": 9050, "rangers": 12})
    rose = _run({"park": "Elm Ridge", "visitors": 9900, "visitors_prior_q": 9050, "rangers": 12})
    assert data_condition_met(trig, fell)
    assert not data_condition_met(trig, rose)
    assert trig.predicate is not None
    assert judge_soft(trig.predicate, rose).testable  # tested, and not met


def test_a_dated_series_is_ordered_by_its_periods_not_its_listing() -> None:
    trig = _compiled("loan renewals declined month over month")
    newest_first = {
        "branch": "Harbour St",
        "history": [
            {"month": "2026-04", "renewals": 37, "new_loans": 9},
            {"month": "2026-03", "renewals": 52, "new_loans": 11},
            {"month": "2026-02", "renewals": 20, "new_loans": 8},
        ],
    }
    assert data_condition_met(trig, _run(newest_first))
    assert trig.predicate is not None
    evidence = judge_soft(trig.predicate, _run(newest_first)).evidence
    assert any("2026-03" in e and "2026-04" in e and "renewals" in e for e in evidence)
    newest_first["history"][0]["renewals"] = 60
    assert not data_condition_met(trig, _run(newest_first))


def test_nested_period_labels_and_current_marks_order_the_values() -> None:
    labelled = _compiled("cider output rose quarter on quarter")
    assert data_condition_met(labelled, _run({"cider_output": {"Q2": 410, "Q3": 455}}))
    assert not data_condition_met(labelled, _run({"cider_output": {"Q2": 455, "Q3": 410}}))
    marked = _compiled("the occupancy rate is lower than the prior year")
    assert data_condition_met(
        marked, _run({"occupancy_rate": {"current": 0.71, "prior_year": 0.8}})
    )
    assert not data_condition_met(
        marked, _run({"occupancy_rate": {"current": 0.85, "prior_year": 0.8}})
    )


def test_an_amount_must_be_exceeded() -> None:
    trig = _compiled("ticket sales drop by more than 8% week over week")
    small = {"ticket_sales": {"this_week": 950, "last_week": 1000}}  # -5%
    large = {"ticket_sales": {"this_week": 880, "last_week": 1000}}  # -12%
    assert not data_condition_met(trig, _run(small))
    assert data_condition_met(trig, _run(large))
    unsaid_by = _compiled("ticket sales slipped more than 8% week over week")
    assert unsaid_by.numeric is None
    assert not data_condition_met(unsaid_by, _run(small))
    assert data_condition_met(unsaid_by, _run(large))


def test_a_step_change_compares_the_field_in_two_results() -> None:
    trig = _compiled("the fuel price went up since the last check")
    assert not data_condition_met(trig, _run({"station": "A4", "fuel_price": 1.61}))
    assert data_condition_met(
        trig, _run({"station": "A4", "fuel_price": 1.61}, {"station": "A4", "fuel_price": 1.68})
    )
    assert not data_condition_met(
        trig, _run({"station": "A4", "fuel_price": 1.61}, {"station": "A4", "fuel_price": 1.55})
    )


def test_without_the_metric_or_a_period_it_is_untestable_never_met() -> None:
    trig = _compiled("visitor numbers fall quarter on quarter")
    pred = trig.predicate
    assert pred is not None
    other = _run({"park": "Elm Ridge", "rangers": 12, "rangers_prior_q": 15})
    single = _run({"park": "Elm Ridge", "visitors": 8100})
    for ctx in (other, single):
        assert not judge_soft(pred, ctx).testable
        assert not data_condition_met(trig, ctx)


def test_a_qualifier_that_is_no_period_is_not_read_as_one() -> None:
    trig = _compiled("visitor numbers fall quarter on quarter")
    mixed = {"visitors": 8100, "visitors_weekend": 9050}  # a breakdown, not an earlier value
    assert trig.predicate is not None
    assert not judge_soft(trig.predicate, _run(mixed)).testable


def test_explain_names_the_change_and_the_values_that_decided() -> None:
    trig = parse_trigger("data: visitor numbers fall quarter on quarter")
    assert trig.predicate is not None
    said = trig.predicate.describe()
    assert "down" in said and "periods" in said
    verdict = judge_soft(trig.predicate, _run({"visitors": 8100, "visitors_prior_q": 9050}))
    assert verdict.evidence == ("visitors_prior_q=9050 -> visitors=8100 (-10.5%)",)
    assert "visitor" in describe_trigger_text(trig)
    met, said = condition_text(_rule(trig), _run({"visitors": 8100, "visitors_prior_q": 9050}))
    assert met and "visitors_prior_q=9050 -> visitors=8100" in said


def describe_trigger_text(trig: Trigger) -> str:
    return describe_trigger(_rule(trig))


def _rule(trig: Trigger) -> Rule:
    return Rule(
        id="rule_x",
        text="Call the park office.",
        type=RuleType.CONTENT,
        trigger=trig,
        scope=Scope(),
        source=RuleSource.MANUAL,
        actor=None,
        group="g",
    )


def test_a_change_predicate_survives_json() -> None:
    trig = _compiled("ticket sales drop by more than 8% week over week")
    again = Trigger.from_dict(json.loads(json.dumps(trig_to_dict(trig))))
    assert again.predicate == trig.predicate


def trig_to_dict(trig: Trigger) -> dict[str, Any]:
    from dctx.models import to_dict

    out: dict[str, Any] = to_dict(trig)
    return out


@pytest.mark.parametrize(
    ("condition", "key"),
    [
        ("the quote and the invoice come back in different currencies", ["currenc"]),
        ("the dates on the two delivery notes don't match", ["date"]),
        ("the counted totals differ", ["total"]),
        ("the weights on the two scales do not match", ["weight"]),
    ],
)
def test_a_condition_that_values_differ_compiles_to_a_differ_predicate(
    condition: str, key: list[str]
) -> None:
    pred = change_predicate(condition, [])
    assert pred is not None and (pred.change, pred.key, pred.soft) == ("differ", key, True)
