"""A topic named before a colon stays in the rule's words; framing before a colon does not."""

from __future__ import annotations

from tests.compile.signals import correction

from dctx.compile.corrections import compile_correction


def _texts(directive: str, *, query: str, raw: str | None = None) -> list[str]:
    return [r.text for r in compile_correction(correction(directive, query=query, raw=raw)).rules]


def test_a_topic_head_is_kept_as_the_rule_s_topic() -> None:
    texts = _texts(
        "Kiln schedules in general: forty minutes is the shortest firing. Anything shorter, "
        "mark it amber on the board",
        query="Plan tomorrow's kiln schedules for the studio.",
    )
    assert texts == [
        "Kiln schedules in general: forty minutes is the shortest firing. Anything shorter, "
        "mark it amber on the board."
    ]


def test_a_topic_opening_the_turn_governs_a_later_sentence() -> None:
    texts = _texts(
        "label the crate with its batch number and ship that",
        query="Pack the glaze crates for the fair.",
        raw="oh, glaze crates: batch, not colour. label the crate with its batch number and "
        "ship that. the fair lost two last spring",
    )
    assert texts == ["Glaze crates: label the crate with its batch number and ship that."]


def test_only_a_head_that_names_what_the_conversation_is_about_is_kept() -> None:
    query = "Pack the glaze crates for the fair and write the glaze notes."
    kept = {
        "Glaze crates": "Glaze crates: label every crate with its batch number.",
        # a person, a clause, a time, or words the conversation never used: framing
        "Two things for my glaze notes": "Label every crate with its batch number.",
        "Before I forget": "Label every crate with its batch number.",
        "This is for everyone": "Label every crate with its batch number.",
        "Before the fair": "Label every crate with its batch number.",
        "Change of plan": "Label every crate with its batch number.",
    }
    for head, expected in kept.items():
        texts = _texts(f"{head}: label every crate with its batch number", query=query)
        assert texts == [expected], head


def test_a_head_a_pronoun_stands_for_is_a_topic_whatever_the_conversation_was_about() -> None:
    # "one" means a mailing list: the head is its antecedent, though the request never said it
    texts = _texts(
        "mailing lists: never set one up yourself, ask the comms office",
        query="Send the rota to the volunteers.",
    )
    assert texts == [
        "Mailing lists: never set one up yourself.",
        "Mailing lists: ask the comms office.",
    ]


def test_framing_before_a_colon_is_not_made_a_topic_by_a_later_pronoun() -> None:
    texts = _texts(
        "Change of plan: we print the rota now. Volunteers get it on paper, hand them a copy",
        query="Send the rota to the volunteers.",
    )
    assert all(not t.startswith("Change of plan") for t in texts), texts


def test_one_as_a_number_does_not_make_framing_a_topic() -> None:
    texts = _texts(
        "Heads up: one of the kilns runs hot, check its thermocouple before each firing",
        query="Plan tomorrow's kiln schedules for the studio.",
    )
    assert all(not t.startswith("Heads up") for t in texts), texts


def test_a_head_written_as_code_is_a_topic_whatever_the_conversation_was_about() -> None:
    # a tool or a key the request never named: framing is never written as code
    texts = _texts(
        "kiln_log on site: use one line per firing",
        query="ok, a few things I keep fixing",
    )
    assert texts == ["Kiln_log on site: use one line per firing."]


def test_a_kind_named_in_the_plural_before_a_command_is_its_topic() -> None:
    # an ice rink's front desk: the request never spoke of parties, the head says which cases
    texts = _texts(
        "Birthday parties: use the small rink, never the main one",
        query="Book the Okafors for Saturday at 2.",
    )
    assert texts == ["Birthday parties: use the small rink and never the main one."]


def test_a_plural_head_before_a_statement_or_a_numbered_head_is_framing() -> None:
    # before a statement with a subject of its own, or "two things", the head is framing
    texts = _texts(
        "Two things: use the small rink for parties",
        query="Book the Okafors for Saturday at 2.",
    )
    assert all(not t.startswith("Two things") for t in texts), texts
