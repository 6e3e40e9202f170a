"""The other branch of a data condition carries the condition's negation: it is met where
the condition is not, and a condition with no safe negation gives no data trigger."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from dctx.capture.condition_words import condition_keywords
from dctx.capture.reading.base import TurnInput, TurnKind, TurnVerdict
from dctx.compile.branches import negated_trigger, says_negated, threshold_side
from dctx.compile.triggers import parse_trigger
from dctx.inject.why import describe_trigger
from dctx.memory import Memory
from dctx.models import (
    NumericCondition,
    Predicate,
    Rule,
    RuleSource,
    RuleStatus,
    RuleType,
    Scope,
    Trigger,
    TriggerKind,
)
from dctx.retrieve.context import RunContext, data_condition_met
from one_turn import active_rules


def _seen(result: object) -> RunContext:
    ctx = RunContext.start("sort out the bookings")
    ctx.add_step("lookup", {}, json.dumps(result))
    return ctx


def _negated(spec: str) -> Trigger:
    negated = negated_trigger(parse_trigger(spec))
    assert negated is not None
    return negated


@pytest.mark.parametrize(
    ("text", "negated"),
    [
        ("Members who haven't renewed, send the reminder.", True),
        ("Any boat not on the slipway, log it as afloat.", True),
        ("Hives without a queen, order a new one.", True),
        ("For those members, also copy the treasurer.", False),
        ("Don't email the renewed members yet.", False),  # negates the command, not `renew`
    ],
)
def test_a_negation_counts_only_before_a_word_of_the_condition(text: str, negated: bool) -> None:
    keywords = ["member", "renew", "slipway", "queen"]
    assert says_negated(text, keywords) is negated


def test_a_negated_state_wants_the_flag_the_other_way_round() -> None:
    trig = parse_trigger("data: the caravan is booked for repairs")
    other = _negated("data: the caravan is booked for repairs")
    booked, free = {"caravan_booked": True}, {"caravan_booked": False}
    assert data_condition_met(trig, _seen(booked)) and not data_condition_met(trig, _seen(free))
    assert data_condition_met(other, _seen(free)) and not data_condition_met(other, _seen(booked))
    assert other.keywords == []  # never met by resemblance to the words it negates


def test_a_negated_state_is_not_met_by_prose_that_states_it() -> None:
    other = _negated("data: the caravan is booked for repairs")
    ctx = RunContext.start("is the caravan booked for repairs?")
    ctx.add_step("read_notes", {}, "the caravan is booked for repairs until May")
    assert not data_condition_met(other, ctx)


def test_a_negated_threshold_takes_the_complementary_comparison() -> None:
    other = _negated("data: a rowing crew has fewer than 4 rowers")
    assert other.numeric is not None and other.numeric.op == ">="
    assert data_condition_met(other, _seen({"crew": "B", "rowers": 4}))
    assert not data_condition_met(other, _seen({"crew": "B", "rowers": 3}))


def test_a_negated_value_becomes_some_other_value_and_back() -> None:
    named = Trigger(
        TriggerKind.DATA,
        text="a kiln whose phase is cooling",
        keywords=["kiln", "phase"],
        predicate=Predicate(terms=["kiln"], values=["cooling"], key=["phase"], soft=True),
    )
    other = negated_trigger(named)
    assert other is not None and other.excluded == ["cooling"]
    assert data_condition_met(other, _seen({"kiln": "K1", "phase": "firing"}))
    assert not data_condition_met(other, _seen({"kiln": "K1", "phase": "cooling"}))
    back = negated_trigger(other)
    assert back is not None and back.predicate is not None
    assert data_condition_met(back, _seen({"kiln": "K1", "phase": "cooling"}))
    assert not data_condition_met(back, _seen({"kiln": "K1", "phase": "firing"}))


def test_a_condition_without_a_safe_negation_gives_no_data_trigger() -> None:
    free_text = Trigger(
        TriggerKind.DATA,
        text="the weather looks stormy",
        keywords=condition_keywords("the weather looks stormy"),
    )
    assert negated_trigger(free_text) is None
    valued = parse_trigger("data: a pod is in `ImagePullBackOff`")
    assert valued.predicate is not None and not valued.predicate.soft
    assert negated_trigger(valued) is None


HELD = "Whenever a tenant's file says they keep a pet, add the pet clause to the lease."
TURN = f"{HELD} Tenants without a pet, use the standard lease as normal."


class _Sure:
    """Reads the one turn as a sure standing correction, every other one as a task."""

    id = "sure"

    def read(self, turns: Sequence[TurnInput]) -> list[TurnVerdict]:
        return [
            TurnVerdict(TurnKind.STANDING if t.text == TURN else TurnKind.TASK, 0.99, by=self.id)
            for t in turns
        ]


@pytest.mark.parametrize("keeps_pet", [True, False])
def test_each_branch_fires_only_on_its_own_record(tmp_path: Path, keeps_pet: bool) -> None:
    messages = [
        {"role": "user", "content": "draft the lease for flat 3"},
        {"role": "assistant", "content": "Drafted the lease."},
        {"role": "user", "content": TURN},
    ]
    with Memory(tmp_path / "m.db", embedder="hashing", reader=_Sure()) as memory:
        memory.capture(messages, actor="ivo", skill="leases", conversation_id="c1")
        texts = {r.id: r.text for r in memory.rules(status=RuleStatus.ACTIVE)}
        run = memory.start(actor="ivo", skill="leases", query="draft the lease for flat 9")
        assert not [r for u in run.units for r in u.rule_ids]
        record = json.dumps({"tenant": "R. Ode", "keeps_pet": keeps_pet})
        fired = run.observe({"name": "get_tenant", "arguments": {}}, record)
    said = [texts[r] for u in fired for r in u.rule_ids]
    assert said == (
        [HELD] if keeps_pet else ["Tenants without a pet, use the standard lease as normal."]
    )


UNSIGNED = (
    "If a volunteer's record says they haven't signed the waiver, keep them off the climbing "
    "wall. Any volunteer who signed the waiver, send them to the wall as normal."
)


def test_a_negated_condition_gives_its_other_branch_the_positive_test(tmp_path: Path) -> None:
    rules = active_rules(
        tmp_path,
        UNSIGNED,
        task="assign the volunteers for Saturday",
        reply="Assigned everyone to the wall.",
        actor="kit",
        skill="rota",
    )
    flags = {r.text: r.trigger.predicate.flag for r in rules if r.trigger.predicate is not None}
    assert flags == {
        "If a volunteer's record says they haven't signed the waiver, keep them off the "
        "climbing wall.": False,
        "Any volunteer who signed the waiver, send them to the wall as normal.": True,
    }


def test_explain_does_not_promise_a_free_text_fallback_for_a_negation() -> None:
    other = _negated("data: the caravan is booked for repairs")
    rule = Rule(
        id="r1",
        text="Caravans not booked for repairs, list them as available.",
        type=RuleType.CONTENT,
        trigger=other,
        scope=Scope(),
        source=RuleSource.CORRECTION,
        actor="mo",
        group="g1",
    )
    said = describe_trigger(rule)
    assert "that is false" in said and "where none has such a field" not in said


@pytest.mark.parametrize(
    ("text", "side"),
    [
        ("4 or more, just note it.", "other"),
        ("At least 4: log it.", "other"),
        ("Under 4, also email the matron.", "same"),
        ("Ward 4 is different.", None),
        ("With 5 or more, log it.", None),
        ("$4 or more: log it.", "other"),
    ],
)
def test_the_side_of_a_threshold_is_read_off_its_number(text: str, side: str | None) -> None:
    fewer = NumericCondition(terms=["nurs"], op="<", value=4.0)
    assert threshold_side(text, fewer) == side


def test_a_threshold_said_without_its_subject_has_both_branches(tmp_path: Path) -> None:
    # the compared thing is named only after the number ("fewer than 2 medics on the rota")
    turn = (
        "fewer than 2 medics on the rota, call the agency for cover. "
        "2 or more, just note it in the handover sheet"
    )
    said = active_rules(
        tmp_path,
        turn,
        task="plan saturday's event cover",
        reply="Drafted the rota for Saturday.",
        actor="ana",
        skill="events",
    )
    rules = {r.text: r for r in said}
    agency = next(r for t, r in rules.items() if "agency" in t)
    handover = next(r for t, r in rules.items() if "handover" in t)
    assert agency.trigger.numeric is not None and handover.trigger.numeric is not None
    assert (agency.trigger.numeric.op, agency.trigger.numeric.value) == ("<", 2.0)
    assert (handover.trigger.numeric.op, handover.trigger.numeric.value) == (">=", 2.0)
    assert agency.trigger.numeric.terms == ["medic"]


def test_otherwise_is_the_branch_where_the_condition_does_not_hold(tmp_path: Path) -> None:
    """A command opening with "otherwise" after a conditioned one is the other branch, even
    with a sentence between them; not the next step of the same case."""
    turn = (
        "When a parcel is hazardous cargo, book the sealed van. "
        "The depot audits this. Otherwise, just use the normal courier."
    )
    rules = active_rules(
        tmp_path, turn, task="ship parcel P-12", reply="Booked the courier.", actor="jo", skill="d"
    )
    flags = {r.text: r.trigger.predicate.flag for r in rules if r.trigger.predicate is not None}
    assert flags == {
        "When a parcel is hazardous cargo, book the sealed van.": True,
        "Otherwise, just use the normal courier.": False,
    }


@pytest.mark.parametrize(
    ("text", "negated"),
    [
        ("Only open a claim when the invoice doesn't show a purchase order.", True),
        ("If the crate isn't carrying batteries, ship it by air.", True),
        ("Please don't email the renewed members yet.", False),
        ("and don't show the order total.", False),
    ],
)
def test_a_negated_verb_after_its_subject_reaches_the_word_the_condition_tests(
    text: str, negated: bool
) -> None:
    assert says_negated(text, ["purchas", "order", "batteri", "renew"]) is negated
