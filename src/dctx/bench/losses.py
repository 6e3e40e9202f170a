"""Where a memory lost each rubric item it failed: `dctx bench losses`.

A failed positive item was lost at one stage of Capture -> Store -> Retrieve -> Inject: no seed
turn says its words (the lesson is implicit, or said in other words); a turn says them and no
rule came from that turn (the turn reader or the sentence cues passed it by); a rule came from
that turn without the item's words (the wrong sentence, or words lost in compiling); a rule
says them and is not active (a candidate waiting for recurrence or approval); an active rule
says them and was never delivered (its trigger did not fire, or retrieval ranked it out); or it
was delivered after the item's deadline. A failed negative item is one a unit said what the
item forbids. The stage is read off the item's own `match` pattern, as the scorer reads units,
so a count says where to look, not why: the words of a rule can differ from the rubric's and
still mean it.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dctx.bench.replay import replay
from dctx.bench.schema import Item, Scenario
from dctx.bench.scoring import deadline, item_satisfied, matches
from dctx.errors import ConfigError
from dctx.models import RuleStatus, Unit
from dctx.providers.base import Embedder


class Stage(enum.StrEnum):
    """The stage a failed item was lost at, in pipeline order."""

    NEVER_SAID = "never_said"
    TURN_NOT_READ = "turn_not_read"
    WORDS_LOST = "words_lost"
    RULE_NOT_ACTIVE = "rule_not_active"
    NOT_DELIVERED = "not_delivered"
    DELIVERED_LATE = "delivered_late"
    FORBIDDEN_DELIVERED = "forbidden_delivered"


@dataclass(frozen=True, slots=True)
class HeldRule:
    """A rule the memory held after capture, and the seed turns it came from."""

    text: str
    status: RuleStatus
    turns: frozenset[tuple[str, int]]  # (conversation id, message index)


@dataclass(frozen=True, slots=True)
class ItemLoss:
    scenario: str
    item: str
    mode: str
    weight: int
    stage: Stage
    turn: str = ""  # the last seed turn that says the item's words
    rules: list[str] = field(default_factory=list)  # rules of that turn, or that say the words

    def to_dict(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario,
            "item": self.item,
            "mode": self.mode,
            "weight": self.weight,
            "stage": self.stage.value,
            "turn": self.turn,
            "rules": list(self.rules),
        }


def _user_turns(scenario: Scenario) -> list[tuple[tuple[str, int], str]]:
    """Every user turn of the seed with its (conversation id, message index)."""
    out: list[tuple[tuple[str, int], str]] = []
    for session in scenario.seed:
        for index, message in enumerate(session.messages):
            content = message.get("content") if message.get("role") == "user" else None
            if isinstance(content, str) and content.strip():
                out.append(((session.conversation_id, index), content))
    return out


def attribute(
    scenario: Scenario, dps: Sequence[Sequence[Unit]], held: Sequence[HeldRule]
) -> list[ItemLoss]:
    """The stage each failed item of one replay (`dps`: units of DP0..DPn) was lost at."""
    n = len(scenario.test.steps)
    turns = _user_turns(scenario)
    out: list[ItemLoss] = []
    for item in scenario.expect:
        if item_satisfied(item, dps, n):
            continue
        out.append(_lost(scenario.id, item, dps, held, turns))
    return out


def _lost(
    scenario_id: str,
    item: Item,
    dps: Sequence[Sequence[Unit]],
    held: Sequence[HeldRule],
    turns: Sequence[tuple[tuple[str, int], str]],
) -> ItemLoss:
    def loss(stage: Stage, turn: str = "", rules: Sequence[str] = ()) -> ItemLoss:
        return ItemLoss(scenario_id, item.id, item.mode, item.weight, stage, turn, list(rules))

    pattern = item.pattern
    if item.mode == "negative":
        said = [u.text for dp in dps for u in dp if matches(u.text, pattern)]
        return loss(Stage.FORBIDDEN_DELIVERED, rules=said[:3])
    if any(matches(u.text, pattern) for dp in dps for u in dp):
        late = deadline(item.by, len(dps) - 1)
        said = [u.text for dp in dps[late + 1 :] for u in dp if matches(u.text, pattern)]
        return loss(Stage.DELIVERED_LATE, rules=said[:3])
    saying = [r for r in held if matches(r.text, pattern)]
    active = [r.text for r in saying if r.status is RuleStatus.ACTIVE]
    if active:
        return loss(Stage.NOT_DELIVERED, rules=active)
    if saying:
        return loss(Stage.RULE_NOT_ACTIVE, rules=[f"[{r.status.value}] {r.text}" for r in saying])
    where = [(key, text) for key, text in turns if matches(text, pattern)]
    if not where:
        return loss(Stage.NEVER_SAID)
    key, text = where[-1]
    from_turn = [r.text for r in held if key in r.turns]
    if from_turn:
        return loss(Stage.WORDS_LOST, text, from_turn)
    return loss(Stage.TURN_NOT_READ, text)


def trace_losses(
    scenario: Scenario,
    *,
    embedder_factory: Callable[[], Embedder],
    approach: str = "forge_dc",
    options: dict[str, Any] | None = None,
) -> list[ItemLoss]:
    """Replay `approach` (one built on dctx's `Memory`) on `scenario` and attribute every
    item it failed."""
    held: list[HeldRule] = []

    def keep(system: Any) -> None:
        mem = getattr(system, "mem", None)
        if mem is None:
            raise ConfigError(
                f"approach {approach!r} keeps no dctx Memory; losses are traced for approaches "
                "built on one (forge_dc and its variants)"
            )
        for rule in mem.rules(status=list(RuleStatus)):
            evidence = mem.store.get_evidence(rule.evidence_ids)
            turns = frozenset((e.conversation_id, e.message_index) for e in evidence)
            held.append(HeldRule(rule.text, rule.status, turns))

    dps = replay(
        scenario, approach, embedder_factory=embedder_factory, options=options, inspect=keep
    )
    return attribute(scenario, dps, held)


def tally(losses: Sequence[ItemLoss]) -> dict[str, dict[str, int]]:
    """Items and rubric weight lost at each stage, in pipeline order."""
    out: dict[str, dict[str, int]] = {}
    for stage in Stage:
        mine = [x for x in losses if x.stage is stage]
        if mine:
            out[stage.value] = {"items": len(mine), "weight": sum(x.weight for x in mine)}
    return out
