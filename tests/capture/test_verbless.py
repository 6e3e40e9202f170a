"""Verbless standing corrections are spelled out as the imperative they mean; fragments that
describe, thank or ask are not."""

from __future__ import annotations

import pytest

from dctx.capture.cues import ceases, continues, prohibits
from dctx.capture.verbless import as_imperative, with_lone_adverbs


@pytest.mark.parametrize(
    ("said", "meant"),
    [
        ("Kilograms, always.", "Always use kilograms."),
        ("Serif fonts everywhere.", "Use serif fonts everywhere."),
        ("never tabs", None),  # opens with a command word already: not verbless
        ("Always oat milk.", "Always use oat milk."),
        (
            "Proofs first, always, then the print run.",
            "Always do proofs first, then the print run.",
        ),
        ("Same crash every time.", None),
        ("Thanks, always a pleasure.", None),
        ("Lovely as always!", None),
        ("Is it always this slow?", None),
        ("It always rounds down.", None),
        ("Oat milk, always, just for today.", None),
        # a topic before a colon names what the fragment is about, and stays in front of it
        (
            "glaze crates: batch numbers on the lid, always.",
            "Glaze crates: always use batch numbers on the lid.",
        ),
        # a noun's possessive is no verb; a contraction is
        ("The buyer's own currency, always.", "Always use the buyer's own currency."),
        ("That's how it goes, always.", None),
        # a topic whose value is one thing against another states the topic's convention
        ("seed packets: paper, not plastic.", "Seed packets: use paper, not plastic."),
        ("seed packets: paper, never plastic.", "Seed packets: use paper, never plastic."),
        ("seed packets: paper, never wrap them.", None),  # "never wrap them" commands
        ("paper, not plastic.", None),  # no topic: an answer to a question, maybe this once
        ("the blue one, not the red", None),
        (
            "invoices: net weight plus the tare in the buyer's own units, always",
            "Invoices: always use net weight plus the tare in the buyer's own units.",
        ),
        # a relative clause only says which things are meant: no verb of the fragment's own
        (
            "Always 20 kg on anything we ship abroad.",
            "Always use 20 kg on anything we ship abroad.",
        ),
        (
            "Always the cold room for whatever comes in frozen.",
            "Always use the cold room for whatever comes in frozen.",
        ),
        ("Always check what we ship abroad.", None),  # a command of its own
    ],
)
def test_verbless_fragments(said: str, meant: str | None) -> None:
    assert as_imperative(said) == meant


@pytest.mark.parametrize(
    ("said", "meant"),
    [
        # a replacement named without a verb means "use ... instead"; why or where is kept
        (
            "Linen napkins instead, the paper ones blow off the terrace.",
            "Use linen napkins instead, the paper ones blow off the terrace.",
        ),
        ("the copper pans instead", "Use the copper pans instead."),
        ("Linen napkins instead?", None),  # asks
        ("Instead, fold the napkins.", None),  # a command follows: nothing elided
        ("We fold them instead.", None),  # a clause, not a fragment
        ("Linen napkins instead, just this once.", None),
    ],
)
def test_a_verbless_replacement_means_use_it_instead(said: str, meant: str | None) -> None:
    assert as_imperative(said) == meant


def test_commands_that_end_keep_or_forbid_a_practice() -> None:
    assert ceases("please stop adding the watermark")
    assert not ceases("stop the deploy")  # ends a task, not a practice
    assert continues("keep the rest")
    assert not continues("we use the blue theme now")
    assert prohibits("Never add the watermark.")
    assert prohibits("Do not add the watermark.")
    assert not prohibits("Always add the watermark.")


def test_a_lone_standing_adverb_makes_the_fragment_before_it_standing() -> None:
    parts = with_lone_adverbs(["Grams, not ounces.", "Always.", "The scale reads both."])
    assert [as_imperative(p) for p in parts] == ["Always use grams, not ounces.", None]


def test_a_verbless_frequency_sentence_says_how_often_the_one_before_holds() -> None:
    parts = with_lone_adverbs(
        ["Weigh every parcel before labelling.", "Every time, even for a single envelope."]
    )
    assert parts == ["Weigh every parcel before labelling, every time, even for a single envelope."]


def test_a_frequency_sentence_with_its_own_clause_stands_alone() -> None:
    said = ["Weigh every parcel.", "Every time you open a sack, count the envelopes."]
    assert with_lone_adverbs(said) == said  # its own command ("count"), not a how-often
    said = ["Weigh every parcel.", "Each time it rains the scale drifts."]
    assert with_lone_adverbs(said) == said  # a clause: a statement, not a how-often


def test_a_command_that_opens_with_always_is_not_a_how_often() -> None:
    said = ["Weigh every parcel.", "Always photograph the label of every parcel."]
    assert with_lone_adverbs(said) == said


def test_a_verbless_contrast_completes_the_verbless_sentence_before_it() -> None:
    assert with_lone_adverbs(["Paint: matte.", "Never gloss.", "The clients hate shine."]) == [
        "Paint: matte, never gloss.",
        "The clients hate shine.",
    ]
    assert with_lone_adverbs(["Short answers.", "Not essays."]) == ["Short answers, not essays."]


@pytest.mark.parametrize(
    "said",
    [
        ["Paint: matte.", "Never use gloss."],  # a command of its own
        ["Paint it matte.", "Never gloss."],  # the sentence before is a command
        ["That was wrong.", "Never again."],  # the sentence before is a clause
    ],
)
def test_a_contrast_joins_only_a_verbless_sentence(said: list[str]) -> None:
    assert with_lone_adverbs(said) == said


def test_a_frequency_head_before_a_reason_makes_the_sentence_before_standing() -> None:
    parts = with_lone_adverbs(
        [
            "Weigh the parcels with the packaging removed.",
            "Every time, please: the couriers bill on the net weight.",
        ]
    )
    assert parts == [
        "Weigh the parcels with the packaging removed, every time.",
        "the couriers bill on the net weight.",
    ]


def test_a_longer_verbless_spell_out_with_a_lone_adverb_is_standing() -> None:
    (part,) = with_lone_adverbs(
        [
            "Refund notes: two lines at most, and the store credit code in every single one.",
            "Always.",
        ]
    )
    assert as_imperative(part) == (
        "Refund notes: always use two lines at most, and the store credit code in every single one."
    )


@pytest.mark.parametrize(
    ("said", "meant"),
    [
        (
            [
                "Ticket 88 has 40 seats.",
                "Anything over 30 seats gets a second usher.",
                "That's the standard from now on.",
            ],
            [
                "Ticket 88 has 40 seats.",
                "Anything over 30 seats gets a second usher, that's the standard from now on.",
            ],
        ),
        # no look-ahead marker: a remark on what happened, not a practice
        (["It crashed.", "That is never fun."], ["It crashed.", "That is never fun."]),
        # a question before it is none of the person's practices
        (
            ["Is that it?", "This is what I want from now on."],
            ["Is that it?", "This is what I want from now on."],
        ),
        # its own subject: a sentence of its own
        (
            ["Seat them by the window.", "The menu is new from now on."],
            ["Seat them by the window.", "The menu is new from now on."],
        ),
    ],
)
def test_a_remark_that_the_sentence_before_stands_joins_it(
    said: list[str], meant: list[str]
) -> None:
    """ "That's the standard from now on." says nothing apart from the sentence before; with
    it, the sentence before is the standing correction."""
    assert with_lone_adverbs(said) == meant
