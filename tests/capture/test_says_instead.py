"""A rejection that names, without a verb, what to use instead of what the prohibition after
it rules out ("nope - metric units. never use feet or inches") keeps what to use: the
prohibition alone would say what not to do and lose what was asked for."""

from __future__ import annotations

from pathlib import Path

import pytest

from dctx.grammar import names_without_verb
from one_turn import active_rules


def _texts(tmp_path: Path, turn: str) -> list[str]:
    rules = active_rules(
        tmp_path,
        turn,
        task="Draft the spec sheet for the oak bench.",
        reply="Draft: 6 ft long, 18 in high.",
        actor="lu",
        skill="workshop",
    )
    return [r.text for r in rules]


def test_what_to_use_instead_is_kept(tmp_path: Path) -> None:
    texts = _texts(tmp_path, "nope - metric units. never use feet or inches in the spec sheets.")
    assert any(t.startswith("Use metric units") for t in texts)
    assert any("never use feet or inches" in t.lower() for t in texts)


def test_without_a_rejection_the_phrase_is_not_a_rule(tmp_path: Path) -> None:
    texts = _texts(tmp_path, "metric units. never use feet or inches in the spec sheets.")
    assert not any(t.startswith("Use metric units") for t in texts)


@pytest.mark.parametrize(
    ("fragment", "names"),
    [("metric units", True), ("bn and m.", True), ("that was wrong", False), ("good", False)],
)
def test_names_without_verb(fragment: str, names: bool) -> None:
    assert names_without_verb(fragment) is names
