"""A turn that takes back one of its speaker's rules revokes it however the turn reader reads
the turn ("Drop the photo from my listings.", a one-off fix to the reader), and nothing else
the speaker takes away does."""

from __future__ import annotations

from pathlib import Path

import pytest

from dctx.capture.revocations import revocation
from dctx.memory import Memory
from dctx.models import RuleStatus
from stub_reader import SureOf

_RULE = "Put the agent's photo at the top of my listings from now on."
_DROP = "Drop the agent's photo from my listings. Buyers thought it looked like an ad."


def test_taking_away_what_a_rule_adds_revokes_it() -> None:
    assert revocation(_DROP, ["Price every listing in euros.", _RULE]) == (
        "Drop the agent's photo from my listings."
    )


@pytest.mark.parametrize(
    ("turn", "rules"),
    [
        # about something else the speaker has no rule for
        ("Drop the floor plan from this brochure.", [_RULE]),
        # the rule itself takes the same thing away: doing it again revokes nothing
        ("Remove the unused imports.", ["Always sort imports and remove unused ones."]),
        # a question, and a one-off
        ("Should I drop the agent's photo from my listings?", [_RULE]),
        ("Drop the agent's photo from my listings just this once.", [_RULE]),
        # asks for more, takes nothing away
        ("Put the agent's phone number on my listings too.", [_RULE]),
    ],
)
def test_nothing_else_revokes_it(turn: str, rules: list[str]) -> None:
    assert revocation(turn, rules) is None


def _capture(memory: Memory, messages: list[dict[str, str]], cid: str, when: str) -> None:
    memory.capture(messages, actor="ines", skill="listings", conversation_id=cid, timestamp=when)


def test_a_session_that_opens_by_taking_a_rule_back_revokes_it(tmp_path: Path) -> None:
    with Memory(tmp_path / "m.db", embedder="hashing", reader=SureOf(_RULE)) as memory:
        _capture(
            memory,
            [
                {"role": "user", "content": "list the flat on Quay Street"},
                {"role": "assistant", "content": "Listed."},
                {"role": "user", "content": _RULE},
                {"role": "assistant", "content": "Will do."},
            ],
            "c1",
            "2026-03-01T09:00:00Z",
        )
        # weeks later, the first words of a new session: a first turn is never read as a
        # correction, and the reader reads this one as a task
        _capture(
            memory,
            [{"role": "user", "content": _DROP}, {"role": "assistant", "content": "Done."}],
            "c2",
            "2026-04-01T09:00:00Z",
        )
        assert [r.text for r in memory.rules(status=RuleStatus.ACTIVE)] == [
            "Drop the agent's photo from my listings."
        ]
        assert [r.text for r in memory.rules(status=RuleStatus.WITHDRAWN)] == [
            "Put the agent's photo at the top of my listings."
        ]
