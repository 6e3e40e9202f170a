"""A condition about "it" ("if it's too high, don't fire") is about what the command before it
checks: it holds where that command does, not when a result shows some field named "it"."""

from __future__ import annotations

from pathlib import Path

from dctx.models import TriggerKind
from one_turn import active_rules

TURN = (
    "Before you fire any kiln load, check the cone rating against the clay body. "
    "If it's higher than the clay allows, don't fire; tell me the cone and the clay."
)


def test_a_pronoun_condition_holds_where_the_command_before_it_does(tmp_path: Path) -> None:
    rules = active_rules(
        tmp_path,
        TURN,
        task="Fire the glaze load in kiln 2 tonight.",
        reply="Kiln 2 is firing the glaze load at cone 10.",
        actor="mo",
        skill="studio",
    )
    texts = {r.text: r for r in rules}
    check = next(r for t, r in texts.items() if t.startswith("Before you fire"))
    # the case of "it" is read with the command it is a case of (capture: one directive), or
    # compiled apart with that command's trigger; never a DATA trigger on a field named "it"
    branch = next(r for t, r in texts.items() if "If it's higher" in t)
    assert branch.trigger.kind is not TriggerKind.DATA
    assert branch.trigger.kind is check.trigger.kind
    assert branch.trigger.text == check.trigger.text
