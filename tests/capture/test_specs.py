"""A spec set out as a head and its items ("Every handover note like this: bed number first.
Then the open tasks. ...") is one rule with its head: apart, "Then the open tasks." says
nothing of what it is about, and a verbless list has no command for the cues to find."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from dctx.capture.corrections import find_corrections
from dctx.capture.parse import parse_messages
from dctx.capture.reading.base import TurnClassifier, TurnInput, TurnKind, TurnVerdict
from dctx.capture.specs import opens_spec, spelled_out_spec, standing_spec, stands
from one_turn import active_rules

_TASK = "text Mr Obi his pickup time"
_REPLY = "Sent: 'Dear Mr Obi, your order ... regards.'"


def _found(
    reader: TurnClassifier, *turns: str, task: str = _TASK, reply: str = _REPLY
) -> list[tuple[str, bool]]:
    """(directive, candidate) of each signal of a session: the task, the agent's reply, then
    the user's turns (none: the task alone, as the opening request)."""
    messages = [{"role": "user", "content": task}]
    for turn in turns:
        messages += [{"role": "assistant", "content": reply}, {"role": "user", "content": turn}]
    session = parse_messages(messages, conversation_id="c1", actor="ana", skill="desk")
    return [(s.directive, s.candidate) for s in find_corrections(session, reader=reader)]


@pytest.mark.parametrize(
    "sentence",
    [
        "Every handover note like this: the bed number first.",
        "From now on, standup summaries go like this: blockers first, then wins.",
        "For any refund email: the amount, the date it lands, and who approved it.",
        # a head that points at what follows
        "For the monthly stock report, this is the layout: totals first, then the gaps.",
        # "for" a kind of thing, every one of them
        "For repair tickets: the frame number first, then the parts.",
    ],
)
def test_a_head_that_says_where_it_holds_opens_a_spec(sentence: str) -> None:
    assert opens_spec(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Note: the build is red again.",  # a label, not a class of cases
        "Remember: always rebase before you push.",  # a one-word head is a label
        "The table for this report: region, revenue, margin.",  # this report's
        "For the Hale bike: the frame number first.",  # one in view, not a kind
        "Every handover note like this:",  # nothing after the colon
        "Here is the example from the docs repo: https://example.org/a.md",  # what is pasted
        "Max frames: 7 Precision Level: 2 - Balanced",  # a bare plural labels a pasted value
        "Before we close anything: did anyone call the customer back?",  # a question
        # a command and its detail: compile splits those as it always has
        "Whenever a crate is over 40 kg, don't lift it alone: book the hoist.",
        "Put every quote in a table from now on: item | qty | price.",
        "So the thing I keep coming back to after the last three reviews with the whole team "
        "is this: be brief.",  # a sentence of its own before the colon
    ],
)
def test_other_colons_open_no_spec(sentence: str) -> None:
    assert not opens_spec(sentence)


def test_the_items_run_to_the_first_question() -> None:
    turn = (
        "That was far too long. Every handover note from now on: the bed number. Then the "
        "open tasks. Then who to call overnight. Can you redo tonight's?"
    )
    assert spelled_out_spec(turn) == (
        "Every handover note from now on: the bed number. Then the open tasks. "
        "Then who to call overnight."
    )


def test_a_one_off_after_the_items_is_not_one_of_them() -> None:
    turn = (
        "Every invoice summary like this: customer, total, due date. "
        "Also just this once add the VAT column, the auditor wants it."
    )
    assert spelled_out_spec(turn) == "Every invoice summary like this: customer, total, due date."


def test_no_spec_without_a_head() -> None:
    assert spelled_out_spec("Move the meeting to 3pm. Then send the invite.") == ""


class _Admits:
    """Admits every reply as a lasting turn at p 0.5: above the active band, below the level
    at which a turn without cue-found directives is read sentence by sentence."""

    id = "admits"

    def read(self, turns: Sequence[TurnInput]) -> list[TurnVerdict]:
        return [TurnVerdict(TurnKind.STANDING, 0.5, by=self.id) for _ in turns]


def test_a_verbless_spec_in_an_admitted_turn_is_one_rule() -> None:
    turn = (
        "Too chatty for the shift log. Every outage entry like this: first line the service "
        "and the start time. Then minutes down. Then the cause in one line. No paragraphs."
    )
    reply = "Logged: the API was down for a while last night."
    directives = [
        d for d, _ in _found(_Admits(), turn, task="log last night's outage", reply=reply)
    ]
    assert directives == [
        "Every outage entry like this: first line the service and the start time. Then minutes "
        "down. Then the cause in one line. No paragraphs."
    ]


def test_a_spec_with_semicolons_compiles_to_one_rule(tmp_path: Path) -> None:
    turn = (
        "Here's the layout, every time I ask for the weekly digest: one line per project; "
        "then the owner; then the status. Sort them by due date."
    )
    rules = active_rules(
        tmp_path,
        turn,
        task="weekly digest please",
        reply="Here is this week's digest as three paragraphs.",
        actor="ana",
        skill="pm",
    )
    assert len(rules) == 1
    assert all(item in rules[0].text for item in ("one line per project", "owner", "due date"))


class _DoubtsTheWholeTurn:
    """Doubts any text that asks for something (p 0.05), is sure of one without (p 0.5): a
    reader that weighs the request at a spec's end against a lasting reading."""

    id = "doubts"

    def read(self, turns: Sequence[TurnInput]) -> list[TurnVerdict]:
        return [
            TurnVerdict(TurnKind.ONE_OFF, 0.05, by=self.id)
            if "?" in t.text
            else TurnVerdict(TurnKind.STANDING, 0.5, by=self.id)
            for t in turns
        ]


def _session(turn: str) -> list[str]:
    return [d for d, _ in _found(_DoubtsTheWholeTurn(), turn)]


def test_a_spec_is_read_without_the_request_around_it() -> None:
    turn = (
        "Far too formal. Every pickup text from now on: first name, the time, the counter "
        "number. Nothing else. Could you resend his?"
    )
    assert _session(turn) == [
        "Every pickup text from now on: first name, the time, the counter number. Nothing else."
    ]


def test_a_turn_without_a_spec_is_read_whole() -> None:
    assert _session("Far too formal. Always use first names. Could you resend his?") == []


class _TakesEveryTurnForATask:
    """Reads every turn as a task at p 0.01: a reader that a long list of items misleads."""

    id = "task"

    def read(self, turns: Sequence[TurnInput]) -> list[TurnVerdict]:
        return [TurnVerdict(TurnKind.TASK, 0.01, by=self.id) for _ in turns]


def test_a_spec_whose_head_says_it_stands_is_a_standing_correction() -> None:
    spec = "Every pickup text from now on: first name, the time, the counter number."
    assert _found(_TakesEveryTurnForATask(), f"Far too formal. {spec}") == [(spec, False)]


def test_a_standing_spec_in_the_opening_request_is_a_standing_correction() -> None:
    """The head says it stands, so the spec outlives the task it came with, whether the
    person says it in a reply or with their first request (on the labelled real sessions no
    opening request sets out such a spec)."""
    opening = (
        "Text Mr Obi his pickup time. Every pickup text from now on: first name, the time, "
        "the counter number."
    )
    spec = "Every pickup text from now on: first name, the time, the counter number."
    assert standing_spec(opening) == spec
    assert _found(_TakesEveryTurnForATask(), task=opening) == [(spec, False)]


def test_a_spec_as_the_opening_request_without_a_standing_head_stays_the_readers_call() -> None:
    opening = "Each pickup text like this: first name, the time, the counter number."
    assert spelled_out_spec(opening) == opening
    assert _found(_TakesEveryTurnForATask(), task=opening) == []


@pytest.mark.parametrize(
    ("turn", "spec"),
    [
        (
            "Book the Ferreira party for Friday. Honestly our cake orders have been a total "
            "mess all week, so here's the form, every time: the name on the cake first. Then "
            "the flavour. Then the pickup hour.",
            "here's the form, every time: the name on the cake first. Then the flavour. Then "
            "the pickup hour.",
        ),
        (
            "Before you send the reminder: members keep asking which studio, so here's the "
            "layout I want for class reminders, every time. First line the studio. Then the "
            "coach.",
            "here's the layout I want for class reminders, every time. First line the studio. "
            "Then the coach.",
        ),
    ],
)
def test_a_spec_head_may_be_the_last_clause_of_its_sentence(turn: str, spec: str) -> None:
    """A complaint or this task's step may come first in the head's sentence; the clause
    that announces the spec is its last, and the spec starts there."""
    assert spelled_out_spec(turn) == spec


def test_a_request_in_a_questions_form_ends_the_spec() -> None:
    turn = (
        "For everyone: ferry notices go out with the sailing first. Then the berth. Anyway, "
        "can you call the Lindqvist group about their cabins, they asked twice."
    )
    assert spelled_out_spec(turn) == (
        "For everyone: ferry notices go out with the sailing first. Then the berth."
    )


def test_the_case_it_is_first_used_on_ends_the_spec() -> None:
    """ "First one's for the Okafor crate, SHP-40217": the turn moves from the format to
    this task's case, which no later crate shares; a case named inside a quoted example is
    still an item."""
    turn = (
        "Every customs label from now on: top line 'HS <code>'. Then the origin country. "
        "Example line: 'SHP-11111 / CN'. First one's for the Okafor crate, SHP-40217."
    )
    assert spelled_out_spec(turn) == (
        "Every customs label from now on: top line 'HS <code>'. Then the origin country. "
        "Example line: 'SHP-11111 / CN'."
    )


def test_a_short_command_on_the_output_in_view_ends_the_spec() -> None:
    """ "Redo it." acts on this output: a step of this task, not an item of the format, and
    what follows it ("waive the fee for them") is not the format's either."""
    turn = (
        "Every haulage quote: the lane first, then the rate per pallet. Redo it. And waive "
        "the fuel surcharge for them. Sign it with the depot code."
    )
    assert (
        spelled_out_spec(turn) == "Every haulage quote: the lane first, then the rate per pallet."
    )
    kept = "Every haulage quote: the lane first. Sign it with the depot code. Then the weight."
    assert spelled_out_spec(kept) == kept


@pytest.mark.parametrize(
    ("turn", "standing"),
    [
        ("Every haulage quote: the lane first, then the rate per pallet. Fix this one.", True),
        ("For each MR: glab mr view <id>, record the state. Then the target branch.", False),
        ("In this case it's all data from 2022: the demo ledger, nothing else.", False),
    ],
)
def test_a_spec_of_every_one_of_a_kind_stands(turn: str, standing: bool) -> None:
    """ "Every haulage quote: ..." speaks of every quote to come, as "from now on" would;
    "for each MR" walks through the ones in view, and "all data" describes what is there."""
    assert stands(spelled_out_spec(turn)) is standing


def test_a_spec_head_without_a_standing_cue_stays_the_readers_call() -> None:
    turn = "Each pickup text like this: first name, the time, the counter number."
    assert spelled_out_spec(turn) == turn
    assert standing_spec(turn) == ""
    assert _found(_TakesEveryTurnForATask(), turn) == []


def test_a_head_that_points_ahead_without_a_colon_opens_a_spec() -> None:
    turn = (
        "Nobody reads those. Shift swap notices, this is the layout from now on. Subject: "
        "'SWAP - date - shift'. First line who covers. Then who is off. Is the rota up?"
    )
    assert spelled_out_spec(turn) == (
        "Shift swap notices, this is the layout from now on. Subject: 'SWAP - date - shift'. "
        "First line who covers. Then who is off."
    )


@pytest.mark.parametrize(
    "turn",
    [
        "This is the layout from now on? Subject: 'SWAP'. Then who is off.",  # a question
        "Shift swap notices, this is the layout. Subject: 'SWAP'.",  # no standing cue
        "Always send this to Jo. Subject: 'SWAP'.",  # a command of its own
    ],
)
def test_a_sentence_that_does_not_point_ahead_opens_no_spec(turn: str) -> None:
    assert spelled_out_spec(turn) == ""


def test_here_is_how_points_ahead_like_this_is() -> None:
    turn = (
        "Too stiff. Here's how I want welcome emails from now on. First line their name and "
        "start date. Then who meets them at the door. Can you redo Priya's?"
    )
    assert spelled_out_spec(turn) == (
        "Here's how I want welcome emails from now on. First line their name and start date. "
        "Then who meets them at the door."
    )


def test_a_command_to_use_what_follows_from_now_on_opens_a_spec() -> None:
    """ "Use this from now on:" acts on the template after its colon; the colon may end its
    line, the items on the lines after it. It is the spec, not a command about the sentence
    before it ("do it like that" refers back; "use this:" points ahead)."""
    turn = (
        "The crew never reads those long ones. Use this from now on:\n\n"
        "Pour log - <date> - slab <id>\nPour window: start to finish\nCrew: names\n\n"
        "Plain text, no photos. Can you redo today's?"
    )
    spec = (
        "Use this from now on: Pour log - <date> - slab <id> Pour window: start to finish "
        "Crew: names Plain text, no photos."
    )
    assert spelled_out_spec(turn) == spec
    assert _found(_TakesEveryTurnForATask(), turn) == [(spec, False)]
    assert not opens_spec("Fix this: TypeError in pour_log.py line 4")  # no standing cue
    # a colon at a line's end before what follows, with nothing that says it stands
    for turn in (
        "Now let's change the listeners so they save when they change:\n\nsave() on input.",
        "THIS IS ALL INSANE:\n\nJUST USE max_rows everywhere.",
    ):
        assert spelled_out_spec(turn) == ""


def test_an_items_listed_values_do_not_end_the_spec() -> None:
    """ "sections: Done this week, Next week" names sections; "this week" there says nothing
    of how long the spec holds, as it would in the item's own words ("just this week: ...")."""
    turn = (
        "Going forward the shift report is: subject 'Shift NN - <ward>'. Then three sections "
        "in this order: Done this week, Next week, Blockers. Keep it under 150 words."
    )
    assert spelled_out_spec(turn) == turn
    ended = "Going forward the shift report is: subject 'Shift NN'. Just this week: skip Blockers."
    assert spelled_out_spec(ended) == "Going forward the shift report is: subject 'Shift NN'."


def test_the_sentence_that_opens_a_spec_in_its_last_clause_is_the_spec_rule_once() -> None:
    """The complaint before the head's clause is neither part of the rule nor a rule of its
    own: the sentence that opens the spec is the spec."""
    turn = (
        "Table 9 waited forty minutes. Guests keep asking when, so here's the layout I want "
        "for waitlist texts, every time. First line the party name. Then the wait in minutes."
    )
    assert _found(_TakesEveryTurnForATask(), turn) == [
        (
            "here's the layout I want for waitlist texts, every time. First line the party "
            "name. Then the wait in minutes.",
            False,
        )
    ]


def test_a_head_with_an_aside_before_and_a_complaint_after_is_one_rule() -> None:
    """The comma clause that says it stands and points at what follows is the head; what
    comes before it ("while I've got you") and after it ("I keep redoing them") is neither
    the head nor a rule of its own."""
    turn = (
        "Oh and while you're at it, this is how every boarding summary should look from now "
        "on, I keep redoing them:\nFirst line: the dog's name and kennel number.\n"
        "Then feeding times.\nNo emojis."
    )
    spec = (
        "this is how every boarding summary should look from now on: First line: the dog's "
        "name and kennel number. Then feeding times. No emojis."
    )
    assert spelled_out_spec(turn) == spec
    assert _found(_TakesEveryTurnForATask(), turn) == [(spec, False)]


def test_a_question_quoted_in_an_item_does_not_end_the_spec() -> None:
    turn = (
        "From now on every recall card goes like this: first line the pet's name. "
        'Then: "Questions? Call the front desk." Signed "Front Desk".'
    )
    assert spelled_out_spec(turn) == turn


def test_an_item_a_bare_one_off_marker_follows_is_not_one_of_the_items() -> None:
    """ "For the Okafors only, add the gate code. Just this once." is this case's extra, not
    part of the format every case gets."""
    turn = (
        "Every delivery text from now on: the window, then the driver's name.\n"
        "For the Okafors only, add the gate code. Just this once."
    )
    assert spelled_out_spec(turn) == (
        "Every delivery text from now on: the window, then the driver's name."
    )


def test_a_one_off_word_quoted_in_an_item_does_not_end_the_spec() -> None:
    """ "'today' or 'this week'" are values the item asks for, not a word that this is for
    today only."""
    turn = (
        "From now on every repair ticket for the bike shop goes like this: first line the "
        "frame number. Then when the customer needs it back, 'today' or 'this week'. "
        "Then the parts we quoted."
    )
    assert spelled_out_spec(turn) == turn


def test_a_spec_for_a_kind_of_thing_is_one_rule() -> None:
    """ "For repair tickets: ..." says what every repair ticket holds; its items said in
    sentences of their own ("Prices rounded to whole euros.") are the same rule."""
    turn = (
        "Redo it. For repair tickets: four lines in this order: frame, parts, labour, total. "
        "Prices rounded to whole euros. End with the pickup day."
    )
    directives = [d for d, _ in _found(_Admits(), turn, task="write up the Hale bike's ticket")]
    assert directives == [
        "For repair tickets: four lines in this order: frame, parts, labour, total. Prices "
        "rounded to whole euros. End with the pickup day."
    ]
