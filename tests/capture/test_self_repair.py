"""A number corrected as it is typed: the rule says the correction."""

from __future__ import annotations

import pytest

from dctx.capture.self_repair import repaired
from dctx.memory import Memory
from dctx.models import RuleStatus


@pytest.mark.parametrize(
    ("said", "meant"),
    [
        (
            "Late returns of kayaks get a 15% fee. No, 10%. Ask before you charge it.",
            "Late returns of kayaks get a 10% fee. Ask before you charge it.",
        ),
        ("Wetsuit deposit is $30. No, $40, sorry, it went up.", "Wetsuit deposit is $40."),
        ("Hold a booking for 24 hours. Sorry, 48.", "Hold a booking for 48 hours."),
    ],
)
def test_the_corrected_number_stands(said: str, meant: str) -> None:
    assert repaired(said) == meant


@pytest.mark.parametrize(
    "said",
    [
        "No, the paddle goes in the blue rack.",  # a "no" that corrects no number
        "Charge $40. No. That's wrong.",
        "Book it for 3 pm. No, don't.",
        "Kayaks are $25 an hour. No, 10% off for members.",  # another kind of number
    ],
)
def test_nothing_else_is_taken_for_a_repair(said: str) -> None:
    assert repaired(said) == said


def test_capture_keeps_the_corrected_value(mem: Memory) -> None:
    mem.capture(
        [
            {"role": "user", "content": "Book a double kayak for the Okafors on Sunday."},
            {"role": "assistant", "content": "Booked a double kayak for Sunday, deposit $20."},
            {
                "role": "user",
                "content": "From now on, the kayak deposit is $30. No, $35. Fix the booking.",
            },
            {"role": "assistant", "content": "Updated."},
        ],
        actor="ines",
        skill="boathouse",
        conversation_id="c1",
    )
    texts = [r.text for r in mem.rules(status=[RuleStatus.ACTIVE, RuleStatus.CANDIDATE])]
    assert any("$35" in t for t in texts)
    assert not any("$30" in t for t in texts)
