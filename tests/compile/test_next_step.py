"""A command right after a conditioned one, naming nothing of when it holds, is the next
step of the same case: "if a batch reads above the limit, hold it. call the supplier and
log the lot number" calls the supplier for that batch, not before every run."""

from __future__ import annotations

from pathlib import Path

from dctx.models import Rule, TriggerKind
from one_turn import active_rules

COND = "if the delivery note says DAMAGED, reject the pallet."
STEP = "take a photo of the wrapping and email the carrier."


def _rules(tmp_path: Path, turn: str) -> dict[str, Rule]:
    said = active_rules(
        tmp_path,
        turn,
        task="check in this morning's deliveries at dock 3",
        reply="Checked in four pallets; one note said DAMAGED.",
        actor="ana",
        skill="goods_in",
    )
    return {r.text: r for r in said}


def _with(rules: dict[str, Rule], words: str) -> Rule:
    return next(r for t, r in rules.items() if words in t)


def test_the_next_command_holds_in_the_same_case(tmp_path: Path) -> None:
    rules = _rules(tmp_path, f"{COND} {STEP}")
    refuse, step = _with(rules, "reject the pallet"), _with(rules, "photo of the wrapping")
    assert refuse.trigger.kind is TriggerKind.DATA
    assert step.trigger.kind is TriggerKind.DATA
    assert step.trigger.keywords == refuse.trigger.keywords
    assert step.text.lower().startswith("if the delivery note says damaged, take a photo")


def test_a_next_command_that_says_when_it_holds_stands_alone(tmp_path: Path) -> None:
    rules = _rules(tmp_path, f"{COND} always take a photo of the wrapping of every pallet.")
    assert _with(rules, "photo of the wrapping").trigger.kind is not TriggerKind.DATA


def test_only_the_command_right_after_the_condition_follows_it(tmp_path: Path) -> None:
    turn = f"{COND} always check the pallet count against the note. {STEP}"
    rules = _rules(tmp_path, turn)
    assert _with(rules, "pallet count").trigger.kind is not TriggerKind.DATA
    assert _with(rules, "photo of the wrapping").trigger.kind is not TriggerKind.DATA
