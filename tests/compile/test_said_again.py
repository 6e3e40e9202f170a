"""A turn that only says "same with X" is the earlier command, for X instead of its old case."""

from __future__ import annotations

import dataclasses

from tests.compile.signals import correction

from dctx.compile.corrections import compile_correction


def test_the_earlier_command_is_compiled_for_the_new_case() -> None:
    signal = dataclasses.replace(
        correction("same for anything marked fragile", query="Ship the pottery orders."),
        extends="if a parcel is over 30 kg, book the freight van\nprint the packing slip",
    )
    texts = [r.text for r in compile_correction(signal).rules]
    # the command that had a case is said again for the new one; the other was about that run
    assert texts == ["For anything marked fragile, book the freight van."]


def test_without_an_earlier_case_every_command_is_said_again() -> None:
    signal = dataclasses.replace(
        correction("same with the gift boxes", query="Ship the pottery orders."),
        extends="always wrap the mugs in two layers of paper",
    )
    texts = [r.text for r in compile_correction(signal).rules]
    assert texts == ["For the gift boxes, always wrap the mugs in two layers of paper."]
