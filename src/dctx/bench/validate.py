"""Checks a scenario author runs beyond the schema: rubric `examples` behave as intended.

Positive item: every `good` example satisfies `match`, no `bad` one does. Negative item: no
`good` example trips `forbid`, every `bad` one does.
"""

from __future__ import annotations

from dctx.bench.schema import Scenario
from dctx.bench.scoring import matches


def example_problems(scenario: Scenario) -> list[str]:
    """One line per example that does not behave as its item says (empty: all fine)."""
    out: list[str] = []
    for item in scenario.expect:
        if item.examples is None:
            continue
        pat = item.pattern
        want_good = item.mode == "positive"  # does a good example match the pattern?
        for text in item.examples.good:
            if matches(text, pat) != want_good:
                verb = "does not satisfy match" if want_good else "trips forbid"
                out.append(f"{scenario.id} item {item.id}: good example {verb}: {text!r}")
        for text in item.examples.bad:
            if matches(text, pat) == want_good:
                verb = "satisfies match" if want_good else "does not trip forbid"
                out.append(f"{scenario.id} item {item.id}: bad example {verb}: {text!r}")
    return out
