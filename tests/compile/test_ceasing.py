"""A practice the user ended ("stop pasting the raw logs into tickets") holds in every run, as
"never" does; it is not tied to resemblance with the request it was said in."""

from __future__ import annotations

from tests.compile.signals import correction

from dctx.compile.corrections import compile_correction
from dctx.models import TriggerKind


def test_an_ended_practice_applies_to_every_run() -> None:
    for said in (
        "stop pasting the raw oven logs into bake tickets, nobody reads them",
        "pls stop pasting the raw oven logs into bake tickets, nobody reads them",
    ):
        [rule] = compile_correction(
            correction(said, query="The sourdough batch failed again, open a bake ticket.")
        ).rules
        assert rule.trigger.kind is TriggerKind.ALWAYS, said
        assert rule.text.startswith("Stop pasting the raw oven logs"), said
    # stopping a task ends no practice
    [rule] = compile_correction(
        correction(
            "stop the oven and file the bake ticket now",
            query="The sourdough batch failed again, open a bake ticket.",
        )
    ).rules
    assert rule.trigger.kind is TriggerKind.QUERY
