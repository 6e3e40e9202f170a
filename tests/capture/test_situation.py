"""The situation of a correction is the request the agent acted on, whatever the reader called
that request: a correction of an action is about what the agent was asked to do."""

from __future__ import annotations

from collections.abc import Sequence

from dctx.capture.corrections import find_corrections
from dctx.capture.reading.base import TurnInput, TurnKind, TurnVerdict
from dctx.models import Message, Session, ToolCall

RULE = "Greenhouse labels: botanical name first, then the common name."
LATER = "Always laminate the labels of outdoor beds."


class ReadsOthersAsOneOff:
    """Sure of the rule; every other turn a one-off fix (not a task), as the learned reader
    reads many short requests."""

    id = "one-off-reader"

    def read(self, turns: Sequence[TurnInput]) -> list[TurnVerdict]:
        return [
            TurnVerdict(TurnKind.STANDING, 0.99, by=self.id)
            if t.text in (RULE, LATER)
            else TurnVerdict(TurnKind.ONE_OFF, 0.01, by=self.id)
            for t in turns
        ]


def _session() -> Session:
    call = ToolCall(id="c1", name="print_label", arguments={"bed": "B4"})
    return Session(
        "s1",
        [
            Message(0, "user", "How many beds are free this week?"),
            Message(1, "assistant", "Three: B2, B4 and B7."),
            Message(2, "user", "ok now print the labels for bed B4"),
            Message(3, "assistant", "", tool_calls=[call]),
            Message(4, "tool", '{"printed": 12}', tool_call_id="c1", tool_name="print_label"),
            Message(5, "assistant", "Printed 12 labels for B4."),
            Message(6, "user", RULE),
        ],
    )


def test_the_request_the_agent_acted_on_is_the_situation() -> None:
    found = find_corrections(_session(), reader=ReadsOthersAsOneOff())
    assert [s.directive for s in found] == [RULE]
    # not the opening question, which the correction has nothing to do with
    assert found[0].query == "ok now print the labels for bed B4"


def test_a_lasting_turn_is_no_request_of_its_own() -> None:
    # the agent reprints after the correction; the next correction is still about printing
    # the labels, not about the correction before it
    session = _session()
    call = ToolCall(id="c2", name="print_label", arguments={"bed": "B4"})
    session.messages.extend(
        [
            Message(7, "assistant", "", tool_calls=[call]),
            Message(8, "tool", '{"printed": 12}', tool_call_id="c2", tool_name="print_label"),
            Message(9, "user", LATER),
        ]
    )
    found = find_corrections(session, reader=ReadsOthersAsOneOff())
    assert [s.directive for s in found] == [RULE, LATER]
    assert found[1].query == "ok now print the labels for bed B4"
