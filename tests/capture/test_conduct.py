"""A general instruction about what the agent's own tools act on is a standing correction,
even where the turn reader doubts it (capture/conduct.py).

Sentences written for this test in domains no benchmark uses (a pet-boarding kennel, a
lending library), so that they check the mechanism and not a scenario's wording.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from dctx.capture.conduct import (
    about_conduct,
    argument_nouns,
    conduct_directive,
    named_tool,
    tool_nouns,
)
from dctx.capture.corrections import find_corrections
from dctx.capture.reading.base import TurnInput, TurnKind, TurnVerdict
from dctx.capture.reading.default import bands_for, default_reader
from dctx.capture.turns import user_turn_inputs
from dctx.grammar import open_case, says_when
from dctx.memory import Memory
from dctx.models import Message, RuleStatus, Session, ToolCall

RULE = (
    "ugh, that one went out with 5 nights, she was only here for 4. I will call them. before "
    "you send any invoice, pull the booking and check the nights match what it says there."
)


class Doubts:
    """Reads every turn as a one-off fix it is almost sure of: as the learned reader reads a
    correction said once inside a longer, polite turn."""

    id = "doubting-reader"

    def read(self, turns: Sequence[TurnInput]) -> list[TurnVerdict]:
        return [TurnVerdict(TurnKind.ONE_OFF, 0.02, by=self.id) for _ in turns]


def _session(turn: str, *, calls: bool = True) -> Session:
    get = ToolCall(id="c1", name="get_booking", arguments={"booking_id": "BK-204"})
    send = ToolCall(id="c2", name="send_invoice", arguments={"booking_id": "BK-204"})
    messages = [Message(0, "user", "Invoice the Hendersons for Biscuit's stay.")]
    if calls:
        messages += [
            Message(1, "assistant", "", tool_calls=[get]),
            Message(2, "tool", '{"nights": 4}', tool_call_id="c1", tool_name="get_booking"),
            Message(3, "assistant", "", tool_calls=[send]),
            Message(4, "tool", '{"sent": true}', tool_call_id="c2", tool_name="send_invoice"),
        ]
    messages += [
        Message(len(messages), "assistant", "Sent the invoice for 5 nights."),
        Message(len(messages) + 1, "user", turn),
    ]
    return Session("s1", messages, actor="ana", skill="front_desk")


@pytest.mark.parametrize(
    ("names", "nouns"),
    [
        (["get_booking", "send_invoice"], {"bookin", "invoic"}),
        (["createTicket", "TodoWrite"], {"ticket", "todo"}),
        (["Read", "Bash"], set()),  # one-word tools of a general-purpose agent
        (["mcp__library__renew_loan"], {"loan"}),  # the tool of an MCP name, not its server
        (["get_user_details"], {"user"}),
    ],
)
def test_tool_names_give_what_the_tools_act_on(names: list[str], nouns: set[str]) -> None:
    assert tool_nouns(names) == nouns


@pytest.mark.parametrize(
    ("sentence", "general"),
    [
        ("Before you send any invoice, pull the booking.", True),
        ("When a dog arrives without papers, call the owner first.", True),
        ("Weigh every cat at check-in.", True),
        ("Anything over three nights needs a deposit.", True),
        ("Send the invoice to the Hendersons.", False),
        ("Use the blue form for her.", False),
    ],
)
def test_says_when_reads_a_class_or_a_case(sentence: str, general: bool) -> None:
    assert says_when(sentence) is general


def test_a_general_directive_naming_a_tool_object_is_conduct() -> None:
    nouns = tool_nouns(["get_booking", "send_invoice"])
    assert about_conduct(RULE, nouns)
    # about this one only, a question, or general but about nothing the tools act on
    assert not about_conduct("Send the invoice to her new address.", nouns)
    assert not about_conduct("Can you check every invoice before you send it?", nouns)
    # a standing instruction in a question's polite form is one
    assert about_conduct("Could you put the booking ref on invoices going forward?", nouns)
    assert not about_conduct("Before you leave tonight, water the plants.", nouns)
    # no tools called, or no agent output yet: nothing to be about
    assert not about_conduct(RULE, frozenset())
    assert not about_conduct(RULE, nouns, first_turn=True)


@pytest.mark.parametrize(
    ("sentence", "any_case"),
    [
        ("check the vaccination card before you board anyone", True),
        ("weigh the cat before you book a grooming slot", True),
        ("call the owner if a dog arrives without papers", True),
        ("check every invoice before you send it", False),  # the invoices in view
        ("ring me when the Hendersons arrive", False),  # one case
        ("call me when you are done", False),  # this task
        ("weigh every cat at check-in", False),  # general, but no clause of cases
    ],
)
def test_open_case_reads_a_clause_of_any_case(sentence: str, any_case: bool) -> None:
    assert open_case(sentence) is any_case


@pytest.mark.parametrize(
    ("sentence", "any_case"),
    [
        ("when any invoice is overdue, send a reminder", True),
        ("if any are missing, flag the order", True),  # the subject says which cases
        ("after every release, post the notes", True),  # a phrase of time
        ("it counts wrong when I press 'select all' twice", False),  # a button's name
        ("when you select all of them, show the count", False),
    ],
)
def test_open_case_needs_a_word_that_quantifies(sentence: str, any_case: bool) -> None:
    assert open_case(sentence, universal=True) is any_case


@pytest.mark.parametrize(
    ("turn", "command"),
    [
        (
            "Oh, and one more thing: could you check the vaccination card before you book any "
            "stay? Two came in expired last week.",
            "Check the vaccination card before you book any stay.",
        ),
        (
            "Would you please pull the booking before you send an invoice?",
            "Pull the booking before you send an invoice.",
        ),
    ],
)
def test_a_polite_question_asking_it_for_any_case_is_conduct(turn: str, command: str) -> None:
    nouns = tool_nouns(["get_booking", "send_invoice", "book_stay"])
    assert conduct_directive(turn, nouns) == command


def test_a_polite_question_about_this_case_is_a_request() -> None:
    nouns = tool_nouns(["get_booking", "send_invoice"])
    assert conduct_directive("Could you pull the booking before you send it?", nouns) is None
    assert conduct_directive("Can you send the invoice when the Hendersons pay?", nouns) is None


def test_a_tool_called_after_the_correction_is_the_agents_tool_too() -> None:
    """The agent books without checking; told to check first, it calls the check next: the
    check's tool names what the correction is about."""
    asked = "thanks. could you check the vaccination card before you book any stay?"
    check = ToolCall(id="c3", name="check_vaccinations", arguments={"pet": "Biscuit"})
    session = _session(asked)
    session.messages += [
        Message(len(session.messages), "assistant", "", tool_calls=[check]),
        Message(len(session.messages) + 1, "tool", '{"ok": true}', tool_call_id="c3"),
    ]
    found = find_corrections(session, reader=Doubts())
    assert [s.directive for s in found] == ["Check the vaccination card before you book any stay."]
    assert not found[0].candidate


def test_capture_admits_it_where_the_reader_doubts_it() -> None:
    found = find_corrections(_session(RULE), reader=Doubts())
    assert len(found) == 1
    assert "pull the booking" in found[0].directive
    assert not found[0].candidate  # a rule at once, as the reader's surest band would admit


def test_without_tool_calls_the_reader_decides() -> None:
    assert find_corrections(_session(RULE, calls=False), reader=Doubts()) == []


def test_tool_names_inside_a_result_are_data_not_the_agents_tools() -> None:
    # the words of the rule appear in a tool result, never in a call the agent made
    session = _session(RULE, calls=False)
    session.messages.insert(
        1, Message(1, "tool", json.dumps({"tools": ["get_booking", "send_invoice"]}))
    )
    assert find_corrections(session, reader=Doubts()) == []


def test_the_learned_reader_doubts_it_and_capture_keeps_it(tmp_path: Path) -> None:
    """With the shipped reader: the band check said once after a thank-you is below its
    bands, and capture keeps it as an active rule."""
    session = _session(RULE)
    reader = default_reader()
    (_, turn) = user_turn_inputs(session)[-1]
    assert reader.read([turn])[0].p_lasting < bands_for(reader).candidate
    with Memory(tmp_path / "m.db") as memory:
        report = memory.capture_sessions([session])
        rules = memory.rules(status=RuleStatus.ACTIVE)
    assert [r.id for r in report.added] == [r.id for r in rules]
    assert any("pull the booking" in r.text for r in rules)


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        # the object of a tool, and where two tools' objects are named, the one whose verb is
        # said too
        ("Parcels: weigh it first, then ship it.", "ship_parcel"),
        ("Invoices: pull the booking and send the invoice after.", "send_invoice"),
        ("Put a thank-you card in with the seeds.", None),
        # a one-word tool names nothing
        ("Read the label twice.", None),
    ],
)
def test_named_tool_is_the_tool_whose_object_the_text_names(text: str, tool: str | None) -> None:
    tools = ["get_booking", "ship_parcel", "send_invoice", "Read"]
    assert named_tool(text, tools) == tool


def test_a_verbless_standing_correction_is_read_for_conduct_as_spelled_out() -> None:
    # "proofs first, always, then the print run" has no verb for the cues; spelled out
    # ("Always do proofs first, then ...") it is a general directive naming the invoice
    turn = "you skipped the check again. Booking check first, always, then the invoice."
    found = find_corrections(_session(turn), reader=Doubts())
    assert [s.directive for s in found] == ["Always do booking check first, then the invoice."]


# an apiary's honey shop: the agent labels jars and lists them
_LABEL = ToolCall(
    id="c1",
    name="print_label",
    arguments={"jar_id": "J-88", "headline": "Wildflower 340g", "harvest_month": "June"},
)


def _labelled(turn: str) -> Session:
    messages = [
        Message(0, "user", "Label the new wildflower jars."),
        Message(1, "assistant", "", tool_calls=[_LABEL]),
        Message(2, "tool", '{"printed": 24}', tool_call_id="c1", tool_name="print_label"),
        Message(3, "assistant", "Printed 24 labels: 'Wildflower 340g'."),
        Message(4, "user", turn),
    ]
    return Session("s1", messages, actor="ana", skill="honey_shop")


def test_argument_names_say_what_the_agent_fills_in() -> None:
    calls = [_LABEL, ToolCall(id="c2", name="list_jar", arguments={"customerId": "C-1"})]
    # an identifier names nothing the agent writes; the rest do
    assert argument_nouns(calls) == {"headli", "harves", "month"}


def test_a_standing_fact_about_what_the_agent_fills_in_is_conduct() -> None:
    """The reader doubts it, but the turn says how every headline the agent writes must be:
    the tool's argument names what it is about."""
    turn = (
        "Headlines need to be like 'Heather 340g - Moorland': variety, weight, then where. "
        "The till scans that prefix. Can you reprint these?"
    )
    found = find_corrections(_labelled(turn), reader=Doubts())
    assert [s.directive for s in found] == [
        "Headlines need to be like 'Heather 340g - Moorland': variety, weight, then where."
    ]
    assert not found[0].candidate


@pytest.mark.parametrize(
    "turn",
    [
        "The headline on these looks wrong. Can you reprint them?",  # the ones in view
        "Jars sell better in June. Reprint them.",  # a fact naming no argument
        "Use 'Heather' in the headline for this batch.",  # this batch, no kind
    ],
)
def test_a_statement_of_this_case_or_of_no_argument_is_not(turn: str) -> None:
    assert find_corrections(_labelled(turn), reader=Doubts()) == []
