"""A command split from a compound one stays with it when it names too little to be a rule
alone: "do a dry run and show me the output" is one rule, not one rule and a dropped part."""

from __future__ import annotations

from tests.compile.signals import correction

from dctx.compile.corrections import compile_correction


def _texts(directive: str) -> list[str]:
    signal = correction(directive, query="Publish the new price list to the shop.")
    return [r.text for r in compile_correction(signal).rules]


def test_a_thin_step_stays_with_the_command_before_it() -> None:
    texts = _texts("before any price change goes live, preview the page and show me the output")
    assert len(texts) == 1 and "show me the output" in texts[0], texts
    assert "preview the page" in texts[0]


def test_a_thin_step_first_stays_with_the_command_after_it() -> None:
    texts = _texts("never make one yourself, ask the pricing desk for a new price code")
    assert len(texts) == 1 and texts[0].startswith("Never make one yourself")


def test_commands_that_each_name_a_behaviour_are_still_two_rules() -> None:
    texts = _texts("round prices to whole euros and list the VAT rate beside each price")
    assert len(texts) == 2, texts


def test_a_step_on_what_the_part_before_found_stays_with_it() -> None:
    texts = _texts(
        "before you publish any price change, pull up the supplier's sheet and check their "
        "minimum prices, and leave out anything below them"
    )
    assert len(texts) == 1, texts
    assert "supplier's sheet" in texts[0] and "minimum prices" in texts[0]
