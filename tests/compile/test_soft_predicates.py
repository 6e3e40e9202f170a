"""Conditions in ordinary words compiled to soft predicates: a true/false field whose name
says the state, a named field equal to a value, and thresholds whose unit or counted noun
names the field. Tested where the data has such a field; elsewhere left to free text."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from dctx.capture.condition_words import condition_keywords, parse_numeric
from dctx.compile.predicates import compile_predicate
from dctx.compile.triggers import parse_trigger
from dctx.errors import ConfigError
from dctx.memory import Memory
from dctx.models import Predicate, Trigger, TriggerKind
from dctx.retrieve.context import RunContext, data_condition_met
from dctx.retrieve.items import judge


def _soft(condition: str) -> Predicate:
    pred = compile_predicate(condition, condition_keywords(condition))
    assert pred is not None and pred.soft
    return pred


def _seen(*results: object) -> RunContext:
    ctx = RunContext.start("look into it")
    for i, result in enumerate(results):
        ctx.add_step(f"lookup_{i}", {}, json.dumps(result))
    return ctx


def test_a_state_compiles_to_a_flag_and_negation_flips_it() -> None:
    assert _soft("the greenhouse vent is jammed") == Predicate(
        key=["greenhous", "vent", "jam"], flag=True, soft=True
    )
    negated = _soft("a volunteer hasn't signed the waiver")
    assert negated.flag is False and "hasn't" not in negated.key


def test_a_state_is_met_by_the_true_false_field_that_names_it() -> None:
    pred = _soft("the greenhouse vent is jammed")
    jammed = _seen({"zone": "B", "sensors": {"vent_jammed": True, "heater_on": True}})
    clear = _seen({"zone": "B", "sensors": {"vent_jammed": False, "heater_on": True}})
    assert judge(pred, jammed.items).met
    verdict = judge(pred, clear.items)
    assert verdict.testable and not verdict.met
    assert verdict.evidence == ("vent_jammed=false",)


def test_the_best_named_flag_decides_not_any_flag_sharing_a_word() -> None:
    pred = _soft("the kayak is on loan")
    # `loan` names the state; `loan_insured` says something else about a loan
    result = {"kayak": {"id": "K7", "loan": False, "loan_insured": True}}
    verdict = judge(pred, _seen(result).items)
    assert verdict.testable and not verdict.met


def test_no_field_for_the_state_leaves_it_untested() -> None:
    pred = _soft("the greenhouse vent is jammed")
    verdict = judge(pred, _seen({"zone": "B", "humidity": 71, "note": "vent ok"}).items)
    assert not verdict.testable and not verdict.met


def test_whose_field_is_value_tests_that_field() -> None:
    pred = _soft("any kiln whose phase is cooling down")
    assert pred.key == ["phase"] and pred.values == ["cooling down"] and pred.terms == ["kiln"]
    kilns = {"kilns": [{"name": "K1", "phase": "firing"}, {"name": "K2", "phase": "COOLING_DOWN"}]}
    assert judge(pred, _seen(kilns).items).met
    firing = {"kilns": [{"name": "K1", "phase": "firing"}]}
    verdict = judge(pred, _seen(firing).items)
    assert verdict.testable and not verdict.met
    # the value in another field is not the field the condition names
    other = {"kilns": [{"name": "K1", "phase": "firing", "next": "cooling down"}]}
    assert not judge(pred, _seen(other).items).met


def test_a_possessive_names_the_field_too() -> None:
    pred = _soft("a hive's queen status is missing")
    assert pred.key == ["queen", "status"] and pred.values == ["missing"]


def test_a_soft_predicate_is_never_met_by_prose_or_the_query() -> None:
    trig = Trigger(
        TriggerKind.DATA,
        text="the greenhouse vent is jammed",
        keywords=condition_keywords("the greenhouse vent is jammed"),
        predicate=_soft("the greenhouse vent is jammed"),
    )
    ctx = RunContext.start("is the greenhouse vent jammed?")
    ctx.add_step("read_log", {}, "the greenhouse vent is jammed again")
    assert not data_condition_met(trig, ctx)  # free text judges this, not the predicate
    ctx.add_step("read_sensors", {}, json.dumps({"vent_jammed": True}))
    assert data_condition_met(trig, ctx)


@pytest.mark.parametrize(
    ("condition", "field", "value", "met"),
    [
        ("a crate weighs over 40 kg", "weight_kg", 52, True),
        ("a crate weighs over 40 kg", "weight_kg", 12, False),
        ("a print job needs more than 5 attempts", "attempts", 6, True),
        ("the render takes longer than 90 minutes", "render_minutes", 95, True),
        ("the backup is above 20 GB", "backup_size_gb", 25, True),
    ],
)
def test_a_unit_or_counted_noun_names_the_numeric_field(
    condition: str, field: str, value: float, met: bool
) -> None:
    trig = parse_trigger(f"data: {condition}")
    assert trig.numeric is not None
    ctx = _seen({"job": "J-4", field: value})
    assert data_condition_met(trig, ctx) is met


def test_words_after_a_number_that_are_no_unit_add_no_term() -> None:
    plain = parse_numeric("a pallet is under 12")
    assert plain is not None
    trailing = parse_numeric("a pallet is under 12 and stays")
    assert trailing is not None and trailing.terms == plain.terms
    money = parse_numeric("anything above 80 euros goes to review")
    assert money is not None and "goe" not in money.terms  # the verb after an amount
    scaled = parse_numeric("a grant is above 5 million")
    assert scaled is not None and scaled.value == 5e6 and scaled.terms == ["grant"]


def _rule_with_trigger(mem: Memory, spec: str) -> str:
    messages = [
        {"role": "user", "content": "book the hall for the chess club"},
        {"role": "assistant", "content": "Booked."},
        {"role": "user", "content": "From now on always send the caretaker a copy of bookings."},
        {"role": "assistant", "content": "Will do."},
    ]
    mem.capture(messages, actor="rui", skill="venues", conversation_id="v1")
    (rule,) = mem.rules(skill="venues")
    return mem.edit(rule.id, trigger=spec).id


def test_a_tested_state_decides_and_an_untested_one_falls_back(mem: Memory) -> None:
    rule_id = _rule_with_trigger(mem, "data: the hall is double booked")
    assert mem.rule(rule_id).trigger.predicate == Predicate(
        key=["hall", "doubl", "book"], flag=True, soft=True
    )
    run = mem.start(actor="rui", skill="venues", query="book the chess club in for Friday")
    assert rule_id not in {r for u in run.units for r in u.rule_ids}
    clash = {"hall": "Main", "double_booked": False, "slots": 3}
    assert not run.observe({"name": "get_hall", "arguments": {}}, json.dumps(clash))
    clash["double_booked"] = True
    fired = run.observe({"name": "get_hall", "arguments": {}}, json.dumps(clash))
    assert [u.rule_ids for u in fired] == [[rule_id]]


def test_explain_shows_the_predicate_and_the_field_that_decided(mem: Memory) -> None:
    rule_id = _rule_with_trigger(mem, "data: the hall is double booked")
    result = json.dumps({"hall": "Main", "double_booked": True})
    out = mem.explain(
        rule_id,
        query="book the chess club in for Friday",
        actor="rui",
        skill="venues",
        steps=[({"name": "get_hall", "arguments": {}}, result)],
    )
    assert "true/false field named like hall/doubl/book" in out["run"]["trigger"]
    after = out["run"]["points"][1]
    assert after["eligible"] and "double_booked=true" in after["condition"]
    before = out["run"]["points"][0]
    assert "not met" in before["condition"]


def _dated(now: datetime, *results: object) -> RunContext:
    ctx = RunContext.start("check the loans")
    ctx.now = now
    for result in results:
        ctx.add_step("list_loans", {}, json.dumps(result))
    return ctx


def test_a_threshold_in_days_is_a_window_over_the_date_field_it_names() -> None:
    trig = parse_trigger("data: a library loan is older than 21 days")
    assert trig.predicate is not None and trig.predicate.unit == "day"
    assert trig.predicate.key == ["librari", "loan"] and trig.predicate.op == ">"
    now = datetime(2026, 5, 30, tzinfo=UTC)
    recent = {"loans": [{"title": "Dune", "loaned_on": "2026-05-20"}]}
    overdue = {"loans": [{"title": "Emma", "loaned_on": "2026-04-02T10:00:00Z"}]}
    assert not data_condition_met(trig, _dated(now, recent))
    assert data_condition_met(trig, _dated(now, recent, overdue))
    # a date under another name is not the loan's date
    other = {"loans": [{"title": "Emma", "printed_on": "1815-12-23"}]}
    assert not data_condition_met(trig, _dated(now, other))


def test_a_window_matches_a_date_field_named_by_another_form_of_the_word() -> None:
    trig = parse_trigger("data: the ferry departs in less than 6 hours")
    now = datetime(2026, 8, 1, 9, 0, tzinfo=UTC)
    soon = {"ferry": "F12", "departure": "2026-08-01T13:30:00+00:00"}
    later = {"ferry": "F12", "departure": "2026-08-02T13:30:00+00:00"}
    assert data_condition_met(trig, _dated(now, soon))
    assert not data_condition_met(trig, _dated(now, later))


def test_a_window_fires_through_retrieval_and_explain_shows_the_date(mem: Memory) -> None:
    rule_id = _rule_with_trigger(mem, "data: a hall booking is older than 30 days")
    result = json.dumps({"bookings": [{"hall": "Main", "booking_date": "2001-02-03"}]})
    run = mem.start(actor="rui", skill="venues", query="tidy up the bookings")
    fired = run.observe({"name": "list_bookings", "arguments": {}}, result)
    assert [u.rule_ids for u in fired] == [[rule_id]]
    out = mem.explain(
        rule_id,
        query="tidy up the bookings",
        actor="rui",
        skill="venues",
        steps=[({"name": "list_bookings", "arguments": {}}, result)],
    )
    assert "booking_date=2001-02-03" in out["run"]["points"][1]["condition"]


def test_a_run_measures_date_windows_from_its_own_now(mem: Memory) -> None:
    rule_id = _rule_with_trigger(mem, "data: a hall booking is older than 30 days")
    result = json.dumps({"bookings": [{"hall": "Main", "booking_date": "2026-03-01"}]})
    call = {"name": "list_bookings", "arguments": {}}
    early = datetime(2026, 3, 10, tzinfo=UTC)  # nine days after the booking: not older
    run = mem.start(actor="rui", skill="venues", query="tidy up the bookings", now=early)
    assert run.observe(call, result) == []
    late = datetime(2026, 5, 1, tzinfo=UTC)
    run = mem.start(actor="rui", skill="venues", query="tidy up the bookings", now=late)
    assert [u.rule_ids for u in run.observe(call, result)] == [[rule_id]]


def test_a_run_s_now_must_say_its_timezone(mem: Memory) -> None:
    with pytest.raises(ConfigError, match="timezone-aware"):
        mem.start(actor="rui", skill="venues", query="q", now=datetime(2026, 3, 10))


@pytest.mark.parametrize(
    ("condition", "terms", "op"),
    [
        ("fewer than 3 kilns firing", ["kiln"], "<"),
        ("at least 10 pallets", ["pallet"], ">="),
        ("more than 5 retries", ["retri"], ">"),
    ],
)
def test_a_threshold_may_name_what_it_counts_only_after_its_number(
    condition: str, terms: list[str], op: str
) -> None:
    parsed = parse_numeric(condition)
    assert parsed is not None and (parsed.terms, parsed.op) == (terms, op)


def test_a_bare_number_with_nothing_counted_is_no_threshold() -> None:
    assert parse_numeric("under 12") is None  # nothing names the field it would test


@pytest.mark.parametrize(
    ("status", "met"),
    [("ON_HOLD", True), ("on hold", True), ("active", False), ("closed", False)],
)
def test_a_state_in_words_is_tested_on_a_status_field(status: str, met: bool) -> None:
    # no true/false field says "on hold": the status field does, in words
    trig = parse_trigger("data: the membership is on hold")
    assert trig.predicate is not None and trig.predicate.flag is True
    ctx = _seen({"member": "M-17", "status": status})
    judged = judge(trig.predicate, ctx.items)
    assert judged.testable and judged.met is met
    assert data_condition_met(trig, ctx) is met


@pytest.mark.parametrize(
    ("cargo", "met"),
    [("hazardous_lithium", True), ("Hazardous goods", True), ("books", False)],
)
def test_a_state_in_words_is_tested_on_the_field_the_condition_names(cargo: str, met: bool) -> None:
    """ "a parcel is hazardous cargo": the `cargo` field says it in its own words; a status
    field about something else (the delivery) and an identifier do not decide it."""
    pred = _soft("a parcel is hazardous cargo")
    ctx = _seen({"parcel": "P-12", "cargo": cargo, "status": "in_transit"})
    judged = judge(pred, ctx.items)
    assert judged.testable and judged.met is met
    negated = _soft("a parcel isn't hazardous cargo")
    assert judge(negated, ctx.items).met is not met


@pytest.mark.parametrize(("needed", "met"), [("Tagalog", True), ("none", False), ("No", False)])
def test_a_field_the_condition_names_whole_holds_with_any_value_but_no(
    needed: str, met: bool
) -> None:
    """ "an interpreter is needed": `interpreter_needed: "Tagalog"` says yes in its own way."""
    pred = _soft("the chart says an interpreter is needed")
    judged = judge(pred, _seen({"patient": "P-9", "interpreter_needed": needed}).items)
    assert judged.testable and judged.met is met


def test_a_list_field_says_whether_it_holds_anything() -> None:
    """ "the reject lists a formulary alternative": a list under a key naming what it holds
    is met when it holds something, and its negation when it is empty."""
    listed = _seen({"status": "rejected", "formulary_alternatives": ["ketorolac 10 mg"]})
    empty = _seen({"status": "rejected", "formulary_alternatives": []})
    holds = _soft("the reject comes back with a formulary alternative on it")
    assert judge(holds, listed.items).met and not judge(holds, empty.items).met
    lacks = _soft("the reject doesn't list any alternative")
    assert judge(lacks, empty.items).met and not judge(lacks, listed.items).met


def test_a_string_in_a_list_is_a_value_of_its_key() -> None:
    pred = _soft("any kiln whose phase is cooling down")
    kilns = {"kilns": [{"name": "K1", "phase": ["firing", "cooling down"]}]}
    assert judge(pred, _seen(kilns).items).met
