"""A sentence that only marks a one-off ("Don't make a habit of it.") marks the directive
before it: "Waive the fee anyway. Don't make a habit of it." teaches nothing for good, while
"Do it for this one" applies the rule before it here too and takes nothing back."""

from __future__ import annotations

import pytest

from dctx.capture.cues import SentenceKind, classify_sentence
from one_turn import directives_of


def _directives(turn: str) -> list[str]:
    return directives_of(
        turn,
        task="renew Ms Adebayo's loans, they're two days late",
        reply="Renewed; I added the late fee of 0.40.",
        skill="circulation",
    )


@pytest.mark.parametrize(
    "marker", ["Don't make a habit of it.", "Just this once.", "This time only."]
)
def test_a_bare_one_off_marker_takes_the_directive_before_it(marker: str) -> None:
    turn = f"She's volunteered here for years. Waive the late fee anyway. {marker}"
    assert _directives(turn) == []


def test_a_marker_that_asks_for_the_rule_here_keeps_it() -> None:
    turn = "For loans over a week late, always call the member first. Do it for this one"
    assert [d.rstrip(".") for d in _directives(turn)] == [
        "For loans over a week late, always call the member first"
    ]


def test_a_one_off_with_words_of_its_own_leaves_the_directive_before_it() -> None:
    turn = "Always print the receipt. Skip the fee just for this one."
    assert _directives(turn) == ["Always print the receipt."]


def test_a_command_about_this_one_is_a_one_off() -> None:
    # "on this one", as "for this one": the case in hand, not every case
    turn = "Waive the late fee on this one: the return box was jammed. Always print the receipt."
    assert _directives(turn) == ["Always print the receipt."]


def test_a_marker_with_a_reason_after_its_colon_still_marks_the_directive_before_it() -> None:
    turn = "Waive the late fee for her. Just her, just this once: her card was stolen in May."
    assert _directives(turn) == []


def test_a_marker_with_a_command_after_its_colon_marks_nothing_before_it() -> None:
    turn = "Always print the receipt. Just this once: email it to her as well."
    assert [d.rstrip(".") for d in _directives(turn)] == ["Always print the receipt"]


@pytest.mark.parametrize(
    "turn",
    [
        "Please stamp the due date on every slip, today and for good.",
        "Stamp the due date on every slip, this week and from now on.",
        "One thing for all of today and after: every slip gets the due date stamped.",
    ],
)
def test_a_marker_joined_to_a_standing_one_says_when_the_practice_starts(turn: str) -> None:
    assert classify_sentence(turn) is SentenceKind.DIRECTIVE
    assert len(_directives(turn)) == 1
    assert "due date" in _directives(turn)[0]


@pytest.mark.parametrize(
    "sentence",
    [
        "Stamp the due date on her slips today.",
        "Skip the stamp today and send the slips tomorrow.",  # joined to nothing standing
        "Just this once and never again: skip the stamp.",  # one case all the same
    ],
)
def test_a_marker_alone_or_exclusive_is_a_one_off(sentence: str) -> None:
    assert classify_sentence(sentence) is SentenceKind.ONE_OFF
