"""A configured classifier (an LLM) decides every turn the reader does not rule out: the
opening request too, and the reader's surest turns, whose readings are mostly wrong on real
conversations."""

from __future__ import annotations

from dctx.capture.base import Aftermath
from dctx.capture.corrections import find_corrections
from dctx.models import Message, Session
from stub_reader import SureOf

OPENING = "From now on, label every invoice with its cost centre."
LATER = "Always attach the delivery note to the shipment record."


class Decides:
    """A classifier that gives one answer and remembers what it was asked."""

    def __init__(self, answer: Aftermath) -> None:
        self.answer = answer
        self.asked: list[str] = []

    def classify(self, previous_output: str, user_text: str) -> Aftermath | None:
        self.asked.append(user_text)
        return self.answer


def session() -> Session:
    return Session(
        "c1",
        [
            Message(0, "user", OPENING),
            Message(1, "assistant", "Done: three invoices labelled."),
            Message(2, "user", LATER),
            Message(3, "assistant", "Attached."),
        ],
    )


def test_without_a_classifier_the_surest_readings_stand() -> None:
    found = find_corrections(session(), reader=SureOf(OPENING, LATER))
    assert {s.message_index for s in found} == {0, 2}


def test_the_classifier_is_asked_about_the_opening_request_and_the_surest_turns() -> None:
    asked = Decides(Aftermath.NEW_REQUEST)
    found = find_corrections(session(), classifier=asked, reader=SureOf(OPENING, LATER))
    assert asked.asked == [OPENING, LATER]
    assert found == []  # its reading of both as requests stands


def test_a_correction_the_classifier_confirms_is_admitted_at_once() -> None:
    found = find_corrections(
        session(), classifier=Decides(Aftermath.CORRECTION), reader=SureOf(OPENING, LATER)
    )
    assert {s.message_index for s in found} == {0, 2}
    assert not any(s.candidate for s in found)
