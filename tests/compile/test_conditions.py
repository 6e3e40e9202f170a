"""Conditions a correction states, and the ones it only seems to state."""

from __future__ import annotations

import json

import pytest

from compile.signals import correction
from dctx.capture.base import CorrectionSignal
from dctx.capture.condition_words import condition_keywords
from dctx.compile.conditions import split_condition
from dctx.compile.corrections import compile_correction
from dctx.compile.phrasing import drop_reasons
from dctx.models import Trigger, TriggerKind
from dctx.retrieve.context import RunContext, data_condition_met


def _signal(text: str, *, query: str, subjects: list[str] | None = None) -> CorrectionSignal:
    return correction(text, query=query, subjects=subjects)


@pytest.mark.parametrize(
    "directive",
    [
        "End every brief with a one-line bottom line.",  # "with" completes the verb
        "Keep these briefs under 150 words, always.",  # a number inside a command's object
        # a number among a spec's items: the opening says when, the items say what
        "Delivery texts go like this: the van first. Then the slot. Keep it under 300 characters.",
        "Always compute the Rule of 40 and say if they clear 40.",  # "say if" asks whether
        "Always call get_filings to check for restatements before you call get_financials.",
        # "on" ends "from now on": what comes before it is no clause to hold under a condition
        "From now on cc the account rep on every roadside call.",
        # a definite possessive names what belongs to the case in view, not a class of cases
        "For the member's locker, before any renewal, check the waiver.",
        # "over" a verb acts on its object through says how far the action goes
        "No deposit for returning gardeners, spread the plot fee over 4 months.",
    ],
)
def test_not_a_condition(directive: str) -> None:
    assert split_condition(directive, []) is None


def test_an_indefinite_possessive_is_still_a_class() -> None:
    cond = split_condition("For a member's first locker, add the welcome tag.", [])
    assert cond is not None and cond.text == "a member's first locker"


def test_a_command_after_from_now_on_is_the_rule() -> None:
    said = "From now on cc the account rep on every roadside call."
    [rule] = compile_correction(_signal(said, query="Log the roadside call for unit 14.")).rules
    assert "cc the account rep" in rule.text.lower()


@pytest.mark.parametrize(
    "directive",
    [
        "For my flights send airline messages by SITA type B, not email.",
        "For my cases reply by email, and sign it 'Waste Services Team', not my name.",
        "For my bookings, confirm by text rather than email.",
        "Reply by email for my cases.",
    ],
)
def test_the_speakers_own_work_is_no_condition(directive: str) -> None:
    # "my flights" are the flights of the one who said it: the rule is theirs alone already,
    # and nothing in a run's data could be tested for being "mine"
    assert split_condition(directive, []) is None


@pytest.mark.parametrize(
    ("directive", "cond_text"),
    [
        ("For our enterprise clients, add the SLA table.", "our enterprise clients"),
        ("For enterprise clients, add the SLA table.", "enterprise clients"),
    ],
)
def test_a_class_of_the_teams_is_still_a_condition(directive: str, cond_text: str) -> None:
    cond = split_condition(directive, [])
    assert cond is not None and cond.text == cond_text


def test_numeric_condition_stated_as_subject() -> None:
    cond = split_condition("Anything under 12 months of runway gets flagged as a risk", [])
    assert cond is not None and cond.numeric is not None
    assert (cond.numeric.op, cond.numeric.value) == ("<", 12.0)
    assert "runway" in cond.numeric.terms


def test_class_qualifier_with_slash_and_no_comma() -> None:
    cond = split_condition("For software/SaaS companies always compute the Rule of 40", [])
    assert cond is not None
    assert cond.text == "software/SaaS companies"
    assert cond.main.startswith("always compute")


@pytest.mark.parametrize(
    ("directive", "cond_text"),
    [
        (
            "For anything leaving the greenhouse, tag it with the bed number",
            "anything leaving the greenhouse",
        ),
        ("For everything printed after noon, stamp the new date", "everything printed after noon"),
    ],
)
def test_class_described_by_a_participle(directive: str, cond_text: str) -> None:
    # a reduced relative clause ("anything [that is] leaving ...") names a class like a full one
    cond = split_condition(directive, [])
    assert cond is not None and cond.text == cond_text
    participle = cond_text.split()[1]
    # what it tests is the rest; the participle only relates the class to it
    assert cond.keywords and not any(participle.startswith(k) for k in cond.keywords)


def test_leading_condition_without_comma() -> None:
    cond = split_condition(
        "When the account status comes back suspended there's no point touching the order", []
    )
    assert cond is not None
    assert cond.text == "the account status comes back suspended"
    assert "suspend" in cond.keywords


@pytest.mark.parametrize(
    ("directive", "value", "keywords"),
    [
        ("Whenever the order currency isn't USD, write the ISO code", "USD", ["order", "currenc"]),
        ("If the financials come back in anything other than USD, convert", "USD", ["financi"]),
    ],
)
def test_negated_value(directive: str, value: str, keywords: list[str]) -> None:
    cond = split_condition(directive, [])
    assert cond is not None
    assert cond.excluded == [value]
    assert cond.keywords == keywords


def test_compound_counts_once() -> None:
    assert condition_keywords("suspended for non-payment") == ["suspend", "payment"]


def test_reason_aside_dropped_but_elaboration_kept() -> None:
    assert drop_reasons("Round to one decimal - two decimals is false precision.") == (
        "Round to one decimal"
    )
    kept = "P/E should be on forward earnings - consensus EPS for the next twelve months."
    assert drop_reasons(kept) == kept
    quoted = "Drop the canned apology - 'Sorry about that' and then straight to the fix."
    assert drop_reasons(quoted) == quoted
    # a dash inside a quoted value is the value's, also after an apostrophe ("here's")
    subject = "Here's the subject, every time: 'Table ready: <name> - <time>'. Say where they sit."
    assert drop_reasons(subject) == subject


def _ctx(*results: dict[str, object]) -> RunContext:
    ctx = RunContext.start("Refund order KA-1 and draft the confirmation")
    for result in results:
        ctx.add_step("get_order", {"order_id": "KA-1"}, json.dumps(result))
    return ctx


def test_negated_condition_needs_another_value() -> None:
    trig = Trigger(kind=TriggerKind.DATA, keywords=["order", "currenc"], excluded=["USD"])
    assert not data_condition_met(trig, _ctx())  # nothing known before data arrives
    assert not data_condition_met(trig, _ctx({"currency": "USD", "amount": 10}))
    assert data_condition_met(trig, _ctx({"currency": "EUR", "amount": 10}))


def test_negated_condition_finds_field_by_shape() -> None:
    trig = Trigger(kind=TriggerKind.DATA, keywords=["financi"], excluded=["USD"])
    assert data_condition_met(trig, _ctx({"ccy": "GBP", "revenue": 1.0}))
    assert not data_condition_met(trig, _ctx({"ccy": "USD", "revenue": 1.0}))


def test_requirement_threshold_fires_on_breach() -> None:
    cond = split_condition("From Series B onward the burn multiple has to be under 1.5x", [])
    assert cond is not None and cond.numeric is not None
    assert (cond.numeric.op, cond.numeric.value) == (">=", 1.5)


def test_relative_clause_class_is_a_condition() -> None:
    cond = split_condition("For anything that pays a dividend, also give the payout ratio", [])
    assert cond is not None
    assert cond.keywords == ["pay", "dividend"]


def test_class_subject_is_the_condition() -> None:
    cond = split_condition("Webhook and API problems go to the platform_eng queue.", [])
    assert cond is not None
    assert {"webhook", "api"} <= set(cond.keywords)
    assert cond.main.startswith("Webhook and API problems go to")


def test_money_threshold_without_a_field_name() -> None:
    cond = split_condition("Anything over $200 needs a manager's approval first", [])
    assert cond is not None and cond.numeric is not None
    assert cond.numeric.op == ">" and cond.numeric.value == 200.0
    assert {"amount", "total", "price"} <= set(cond.numeric.terms)


def test_preamble_kept_when_it_is_the_rule() -> None:
    from dctx.compile.phrasing import drop_preamble

    assert drop_preamble("I need this in our format: open with a score") == "open with a score"
    kept = "Summaries should always be a markdown table: metric | value | YoY change."
    assert drop_preamble(kept) == kept
    topic = "Dates always: use YYYY-MM-DD in the log."  # the head names what the rule is about
    assert drop_preamble(topic) == topic
    # a command on a thing it names: what follows its colon is that thing, not the rule
    acts = "Add a line from now on: 'Questions? Call the desk.'"
    assert drop_preamble(acts) == acts
    # ... also after a phrase that says from when it holds
    framed = "From now on, check the service log before you quote a tuning: age and last pitch."
    assert drop_preamble(framed) == framed
    # without a word that it stands, such a colon mostly opens pasted output
    pasted = "Contact support at the desk for more info: npm warn deprecated inflight."
    assert drop_preamble(pasted) == "npm warn deprecated inflight."


def test_a_head_that_only_says_the_rule_stands_is_dropped() -> None:
    from dctx.compile.phrasing import drop_preamble

    said = "And this one is for always: whenever a kiln runs hot, log the peak temperature."
    assert drop_preamble(said) == "whenever a kiln runs hot, log the peak temperature."


@pytest.mark.parametrize(
    ("said", "rule"),
    [
        # an adventure park's booking desk: the head rejects what was done and says why
        (
            "Not the express_lane, that's for under-12s: groups of teens go on the high_ropes "
            "session.",
            "groups of teens go on the high_ropes session, not the express_lane.",
        ),
        (
            "Not the zipline waiver, that one's old: every booking gets the 2026 waiver.",
            "every booking gets the 2026 waiver, not the zipline waiver.",
        ),
        # a head that rejects no thing, or a rule that says its contrast already
        ("Not now, it's busy: send the waivers tomorrow.", "send the waivers tomorrow."),
        (
            "Not the van, it's too small: groups go on the coach, never the van.",
            "groups go on the coach, never the van.",
        ),
    ],
)
def test_a_head_rejecting_a_thing_leaves_it_as_the_rules_contrast(said: str, rule: str) -> None:
    from dctx.compile.phrasing import drop_preamble

    assert drop_preamble(said) == rule


def test_quoted_wording_makes_a_format_rule() -> None:
    from dctx.compile.phrasing import rule_type
    from dctx.models import RuleType

    assert rule_type("Drop the 'we apologize for any inconvenience'.") is RuleType.FORMAT
    assert rule_type("Titles need to be like `[SEV3] api: 5xx`.") is RuleType.FORMAT


def test_ladder_stays_one_rule() -> None:
    from dctx.compile.phrasing import split_directives

    ladder = "NRR under 100 -> at-risk; otherwise growth >40% and GM >60% -> growth; else core"
    assert split_directives(ladder) == [ladder]
    assert split_directives("Put it in a table; bold the totals") == [
        "Put it in a table",
        "bold the totals",
    ]
    kept = "lead with CET1 and always show it against the regulatory minimum"
    assert split_directives(kept) == [kept]  # "it" is the CET1


def test_a_verbless_never_stays_with_the_command_it_completes() -> None:
    from dctx.compile.phrasing import split_directives

    # alone, "never a personal name" names no behaviour
    signed = "Sign the letters 'The Allotment Committee', never a personal name"
    assert split_directives(signed) == [signed]
    assert split_directives("Bold the totals, never add a chart") == [
        "Bold the totals",
        "never add a chart",
    ]


def test_trailing_condition_belongs_to_its_own_clause() -> None:
    from dctx.compile.corrections import _clauses

    text = (
        "Set them to pending_customer so the customer can confirm the fix; "
        "they auto-close after 72 hours if nobody replies"
    )
    assert _clauses(text) == ["Set them to pending_customer so the customer can confirm the fix"]
    led = "For banks, lead with CET1; show the buffer too"
    assert _clauses(led) == [led]


@pytest.mark.parametrize(
    ("directive", "cond", "main"),
    [
        ("For retailers lead with same-store sales", "retailers", "lead with same-store sales"),
        ("For REITs, always show occupancy change", "REITs", "always show occupancy change"),
        ("For P3s also page the secondary on-call", "P3s", "also page the secondary on-call"),
    ],
)
def test_plural_noun_phrase_is_a_class(directive: str, cond: str, main: str) -> None:
    found = split_condition(directive, [])
    assert found is not None
    assert (found.text, found.main) == (cond, main)


@pytest.mark.parametrize(
    "directive", ["For my replies, sign them as Nadia", "For comparisons, use a table"]
)
def test_output_qualifier_is_not_a_class(directive: str) -> None:
    assert split_condition(directive, []) is None


def test_a_stated_reason_stays_with_its_rule() -> None:
    from dctx.compile.corrections import _merge_statements

    parts = ["also page the secondary on-call", "primary is drowning this quarter", "cc me"]
    assert _merge_statements(parts) == [
        "also page the secondary on-call; primary is drowning this quarter",
        "cc me",
    ]


def test_first_person_step_is_not_a_condition() -> None:
    assert split_condition("only ticket once I've said which one", []) is None


def test_what_a_source_mentions_is_the_condition() -> None:
    cond = split_condition("When the news mentions an acquisition, give me the deal terms", [])
    assert cond is not None and cond.keywords == ["acquisit"]


def test_universal_framing_before_a_condition() -> None:
    text = (
        "From now on, if a company has debt maturing within the next 12 months, flag the "
        "refinancing risk up front."
    )
    [rule] = compile_correction(_signal(text, query="Debt review of Alder Foods")).rules
    assert rule.trigger.kind is TriggerKind.DATA
    assert "debt" in rule.trigger.keywords


def test_an_id_inside_an_example_does_not_scope_the_rule() -> None:
    text = "Subject lines should start with the ticket number, like '[CS-40212] Your exchange'."
    signal = _signal(text, query="CS-40212 first, a sizing exchange.", subjects=["CS-40212"])
    [rule] = compile_correction(signal).rules
    assert rule.scope.subject is None


def test_condition_on_what_the_agent_writes_is_delivered_up_front() -> None:
    text = "Whenever you report EPS, say whether it's GAAP or adjusted."
    [rule] = compile_correction(_signal(text, query="What did Morley earn?")).rules
    assert rule.trigger.kind is TriggerKind.ALWAYS
    assert rule.text.startswith("Whenever you report EPS")


@pytest.mark.parametrize(
    ("cond", "terms", "op", "value", "unit"),
    [
        ("orders older than 30 days", ["order", "day"], ">", 30.0, "day"),
        ("tickets newer than 7 days", ["ticket", "day"], "<", 7.0, "day"),
        ("net burn is negative", ["net", "burn"], "<", 0.0, ""),
    ],
)
def test_comparatives_and_signs_are_thresholds(
    cond: str, terms: list[str], op: str, value: float, unit: str
) -> None:
    from dctx.compile.conditions import parse_numeric
    from dctx.models import NumericCondition

    expected = NumericCondition(terms=terms, op=op, value=value, unit=unit)  # type: ignore[arg-type]
    assert parse_numeric(cond) == expected


def test_commas_inside_brackets_do_not_end_the_condition() -> None:
    cond = split_condition(
        "If the shipment holds batteries (laptops, phones, power banks), book it by road.", []
    )
    assert cond is not None
    assert cond.text == "the shipment holds batteries (laptops, phones, power banks)"
    assert cond.main == "book it by road"
    assert {"laptop", "phone", "power", "bank"} <= set(cond.keywords)


def test_a_condition_without_a_comma_ends_where_the_parser_ends_its_clause() -> None:
    cond = split_condition(
        "If the order involves chilled goods at all (dairy, meat, anything fresh) a "
        "temperature log has to travel with it.",
        [],
    )
    assert cond is not None and cond.text.startswith("the order involves chilled goods")
    assert cond.text.endswith("anything fresh)")
    assert cond.main == "a temperature log has to travel with it"
    assert not cond.about_query  # "at all" is emphasis, not "all" of the queries


def test_a_threshold_before_a_colon_is_the_condition() -> None:
    cond = split_condition(
        "Any pallet over 900 kg: book the heavy forklift, never the small one.", []
    )
    assert cond is not None and cond.numeric is not None
    assert cond.main == "book the heavy forklift, never the small one"
    assert (cond.numeric.op, cond.numeric.value) == (">", 900.0)


def test_a_colon_inside_a_time_opens_no_clause() -> None:
    cond = split_condition("Anything booked after 17:30 goes on the late sheet.", [])
    assert cond is None or cond.main != "30 goes on the late sheet."


def test_a_threshold_read_on_a_named_window() -> None:
    said = "Anything at or above 8x on the 5m window: wake the greenhouse lead, don't wait."
    [rule] = compile_correction(_signal(said, query="How is bay 4 doing?")).rules
    assert rule.trigger.kind is TriggerKind.DATA
    assert data_condition_met(
        rule.trigger, _ctx({"humidity_spike_5m": 9.2, "humidity_spike_1h": 2.0})
    )
    assert not data_condition_met(
        rule.trigger, _ctx({"humidity_spike_5m": 3.1, "humidity_spike_1h": 9.0})
    )
