"""A rule drops the name of what a session was about only when a tool call said what it is
(company=..., customer=...); a name seen only in the user's words is part of the rule."""

from __future__ import annotations

from pathlib import Path

from tests.compile.signals import correction

from dctx.compile.corrections import compile_correction
from dctx.memory import Memory
from dctx.models import Message, RuleSource, RuleStatus, Session, ToolCall, TriggerKind
from stub_reader import SureOf


def _rules(tmp_path: Path, messages: list[Message], correction: str) -> list[str]:
    with Memory(tmp_path / "m.db", embedder="hashing", reader=SureOf(correction)) as memory:
        memory.capture_sessions([Session(conversation_id="c1", messages=messages, actor="ann")])
        rules = memory.rules(status=list(RuleStatus))
        return [r.text for r in rules if r.source is RuleSource.CORRECTION]


def test_a_name_a_tool_call_identified_is_generalised(tmp_path: Path) -> None:
    correction = "Always show Brightwater Ltd's revenue by region."
    messages = [
        Message(index=0, role="user", content="Summarise Brightwater Ltd's quarter."),
        Message(
            index=1,
            role="assistant",
            content="",
            tool_calls=[
                ToolCall(id="t1", name="get_report", arguments={"company": "Brightwater Ltd"})
            ],
        ),
        Message(
            index=2,
            role="tool",
            content='{"revenue": 10}',
            tool_name="get_report",
            tool_call_id="t1",
        ),
        Message(index=3, role="assistant", content="Revenue was 10."),
        Message(index=4, role="user", content=correction),
    ]
    (text,) = _rules(tmp_path, messages, correction)
    assert "Brightwater" not in text and "the company" in text


def test_a_name_seen_only_in_text_stays_in_the_rule(tmp_path: Path) -> None:
    correction = "From now on, Pantry Pal should ask about allergies before it suggests a recipe."
    messages = [
        Message(index=0, role="user", content="Help me build Pantry Pal, my recipe assistant."),
        Message(index=1, role="assistant", content="Here is a first version of Pantry Pal."),
        Message(index=2, role="user", content=correction),
    ]
    (text,) = _rules(tmp_path, messages, correction)
    assert "Pantry Pal" in text and "the subject" not in text


def test_a_fact_stated_of_one_subject_holds_for_that_subject_only() -> None:
    query = "Fire the glaze batch in north-kiln tonight."
    [fact] = compile_correction(
        correction(
            "north-kiln's top temperature is 1280 degrees, don't ever fire it above that",
            query=query,
            subjects=["north-kiln"],
        )
    ).rules
    assert fact.scope.subject == "north-kiln"
    assert fact.trigger.kind is TriggerKind.DATA
    assert fact.trigger.keywords == ["north-kiln"]  # named whole: "kiln" names other kilns too
    # naming the subject in a command is an example of a practice, not a fact of it
    [practice] = compile_correction(
        correction(
            "check north-kiln's thermocouple before every firing",
            query=query,
            subjects=["north-kiln"],
        )
    ).rules
    assert practice.scope.subject is None
