"""Who a rule is for: a team named inside the rule ("the team mailbox") does not share it;
saying it is for the team does."""

from __future__ import annotations

import pytest

from compile.signals import correction
from dctx.compile.corrections import compile_correction


def _scope_actor(text: str) -> str | None:
    signal = correction(text, query="set up alerts for the billing service", skill="ops")
    (rule,) = compile_correction(signal).rules
    return rule.scope.actor


@pytest.mark.parametrize(
    "text",
    [
        "Send billing alerts to the team mailbox, never to a person.",
        "For stateful services, page the team that owns the service before restarting it.",
        "Add a reviewer from outside the team to every postmortem.",
    ],
)
def test_a_team_named_in_the_rule_keeps_it_personal(text: str) -> None:
    assert _scope_actor(text) == "ana"


@pytest.mark.parametrize(
    "text",
    [
        "For the team: always tag releases with the build date.",
        "This goes for everyone: always tag releases with the build date.",
    ],
)
def test_a_rule_said_for_the_team_is_shared(text: str) -> None:
    assert _scope_actor(text) is None


def test_the_team_marker_leaves_no_dangling_words() -> None:
    signal = correction(
        "Lane rentals are $12 an hour for everyone, not $10.", query="Book lane 3", skill="pool"
    )
    (rule,) = compile_correction(signal).rules
    assert rule.scope.actor is None
    assert rule.text == "Lane rentals are $12 an hour, not $10."
