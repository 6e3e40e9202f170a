"""A command that only makes sense with the sentence before it ("Same with map credits",
"anything slower, ...", "Move them to the archive") is read together with that sentence, so
its rule says what it is about."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from dctx.capture.corrections import find_corrections
from dctx.capture.parse import parse_messages
from dctx.capture.reading.base import TurnInput, TurnKind, TurnVerdict
from one_turn import exchange


class _Sure:
    """Reads every reply as a sure standing correction."""

    id = "sure"

    def read(self, turns: Sequence[TurnInput]) -> list[TurnVerdict]:
        return [TurnVerdict(TurnKind.STANDING, 0.99, by=self.id) for _ in turns]


def _directives(turn: str) -> list[str]:
    session = parse_messages(
        exchange("lay out the autumn newsletter", "Here is the layout.", turn),
        conversation_id="c1",
        actor="ana",
        skill="editor",
    )
    return [s.directive for s in find_corrections(session, reader=_Sure())]


@pytest.mark.parametrize(
    ("turn", "together"),
    [
        (
            "Hmm, we never delete drafts ourselves. Move them to the archive folder.",
            "we never delete drafts ourselves. Move them to the archive folder.",
        ),
        (
            "Put photo credits under each image, in grey. Same with map credits, keep them small.",
            "Put photo credits under each image, in grey. Same with map credits, keep them small.",
        ),
        (  # the command names nothing of its own: "request the what?"
            "Guest columns need a signed release form, not an email. Request the signed one.",
            "Guest columns need a signed release form, not an email. Request the signed one.",
        ),
        (  # whose byline? the possessive points back
            "Don't call contributors 'freelancers' in print. Use their full name.",
            "Don't call contributors 'freelancers' in print. Use their full name.",
        ),
    ],
)
def test_a_command_that_refers_back_is_read_with_its_antecedent(turn: str, together: str) -> None:
    assert [d.lower() for d in _directives(turn)] == [together.lower()]


def test_a_comparison_without_its_standard_takes_the_sentence_that_states_it() -> None:
    turn = "Shipping is two days at most. Anything slower, tell the customer the date first."
    (directive,) = _directives(turn)
    assert "two days" in directive and "tell the customer the date first" in directive


def test_a_question_is_not_what_a_command_refers_to() -> None:
    assert _directives("Why is the header grey? Make it navy in every issue.") == [
        "Make it navy in every issue."
    ]


def test_commands_that_stand_alone_stay_apart() -> None:
    turn = "Put photo credits under each image. Keep headlines under eight words."
    assert len(_directives(turn)) == 2


def test_a_bare_it_is_the_output_not_the_sentence_before() -> None:
    turn = "That greeting is too stiff for regulars. Make it 'Hi there' instead."
    assert _directives(turn) == ["Make it 'Hi there' instead."]


def _read_after(task: str, reply: str, correction: str, then: str) -> list[tuple[str, str]]:
    """(directive, what it extends) of each signal of a session: a task, the agent's reply, a
    correction, its fix, then the turn under test."""
    session = parse_messages(
        [
            {"role": "user", "content": task},
            {"role": "assistant", "content": reply},
            {"role": "user", "content": correction},
            {"role": "assistant", "content": "Done."},
            {"role": "user", "content": then},
            {"role": "assistant", "content": "Understood."},
        ],
        conversation_id="c1",
        actor="ana",
        skill="desk",
    )
    return [(s.directive, s.extends) for s in find_corrections(session, reader=_Sure())]


def test_a_turn_that_only_says_the_same_extends_the_turn_before() -> None:
    said = _read_after(
        "ship the pottery orders",
        "Booked.",
        "if a parcel is over 30 kg, book the freight van. send it now",
        "same for anything marked fragile",
    )
    assert said[-1] == (
        "same for anything marked fragile",
        "if a parcel is over 30 kg, book the freight van.",  # "send it now" was for that run
    )


def test_the_same_said_first_extends_the_turn_before_and_the_rest_stands_alone() -> None:
    said = _read_after(
        "sell Mr Osei a return to the island",
        "Sold a standard return, seat 14C.",
        "No. Anyone with a bike gets a deck ticket, never a seat. Redo it.",
        "And the same for kayaks, surfboards, anything bulky. "
        "Put the item on the ticket, like 'DECK + KAYAK'.",
    )
    extended = [(d, e) for d, e in said if e]
    assert extended[0] == (
        "the same for kayaks, surfboards, anything bulky.",
        "Anyone with a bike gets a deck ticket, never a seat.",
    )
    assert said[-1][0] == "Put the item on the ticket, like 'DECK + KAYAK'."


def test_a_command_after_a_colon_that_refers_back_is_read_with_the_sentence_before() -> None:
    turn = (
        "Could you check every caterer against the allergy sheet before you book one from "
        "now on? Nut kitchens, or anyone without a hygiene rating: skip them."
    )
    (directive,) = _directives(turn)
    assert "allergy sheet" in directive and directive.endswith("skip them.")
    assert "?" not in directive


def test_it_after_a_statement_about_a_class_is_any_of_that_class() -> None:
    turn = (
        "The rug was far too big. Anything over two metres (rugs, wardrobes, mirrors, "
        "whatever) we can't carry in the small van. Log it as oversize and book the lorry."
    )
    (directive,) = _directives(turn)
    assert directive.startswith("Anything over two metres") and "Log it as oversize" in directive


def test_it_after_a_statement_about_one_thing_stays_alone() -> None:
    turn = "The rug is too wide for the small van. Log it as oversize and book the lorry."
    assert _directives(turn) == ["Log it as oversize and book the lorry."]


def test_it_after_a_statement_with_this_cases_condition_stays_alone() -> None:
    """ "if there's room" is this booking's condition, not a class of cases: "it" is the
    appointment in view, and the command this task's request."""
    turn = "Okay: Ada Brown's filling, on the 24th if there's room. Book it please."
    assert _directives(turn) == ["Book it please."]


def test_a_case_of_what_the_directive_before_names_joins_it() -> None:
    turn = (
        "Every crate over 30 kilos needs a tilt sticker before it leaves the bay. "
        "When it's missing, put the crate back on the rack and tell the shift lead."
    )
    (directive,) = _directives(turn)
    assert directive.startswith("Every crate over 30 kilos") and "tell the shift lead" in directive


def test_a_case_after_a_statement_is_a_directive_of_its_own() -> None:
    turn = "The crates came in late. When it's raining, cover the crates before unloading."
    assert _directives(turn) == ["When it's raining, cover the crates before unloading."]
