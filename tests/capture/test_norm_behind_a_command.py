"""A statement of what the speaker's side may or must do, right after a command on the same
thing, is that command's reason and scope, not a second rule: "Crop members' faces out of the
photos from now on. We're not supposed to post members' faces on the wall screen." is one rule.

Sentences written for this test at a climbing gym's front desk, a domain no benchmark uses.
"""

from __future__ import annotations

import pytest

from one_turn import directives_of


def _directives(turn: str) -> list[str]:
    return directives_of(
        turn,
        task="post today's bouldering comp photos to the wall screen",
        reply="Posted 14 photos to the wall screen.",
        skill="front_desk",
    )


def test_the_norm_behind_a_command_is_part_of_it() -> None:
    turn = (
        "Please crop members' faces out of the photos from now on. We're not supposed to post "
        "members' faces on the wall screen without a signed release."
    )
    (rule,) = _directives(turn)
    assert rule.startswith("Please crop members' faces")
    assert "wall screen" in rule


@pytest.mark.parametrize(
    "turn",
    [
        # a statement on something else is a rule of its own
        "Please crop members' faces out of the photos from now on. We're not supposed to sell "
        "chalk bags at the desk.",
        # a command, not a statement of the speaker's side
        "Please crop members' faces out of the photos from now on. Never post members' faces "
        "without a release.",
    ],
)
def test_a_second_rule_stays_a_rule(turn: str) -> None:
    assert len(_directives(turn)) == 2
