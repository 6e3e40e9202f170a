"""A rule keeps what the rest of its turn says about when it applies: a universal heading
governs every command it lists, a pronoun condition after a command is about that command's
object, and the other branch of a data condition is delivered where the condition is tested."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from compile.signals import correction
from dctx.capture.base import CorrectionSignal
from dctx.capture.reading.base import TurnInput, TurnKind, TurnVerdict
from dctx.compile.corrections import compile_correction
from dctx.memory import Memory
from dctx.models import Rule, RuleStatus, TriggerKind


def _signal(directive: str, *, raw: str | None = None) -> CorrectionSignal:
    return correction(
        directive, query="tidy up the spring catalogue draft", skill="editor", raw=raw
    )


def _only(signal: CorrectionSignal) -> Rule:
    rules = compile_correction(signal).rules
    assert len(rules) == 1, [r.text for r in rules]
    return rules[0]


NAME = "name the nursery that supplied each plant."
HEADED = (
    "Two rules for every catalogue page, always: captions in sentence case, no trailing period. "
    f"And {NAME}"
)


def test_a_universal_heading_governs_the_commands_after_it() -> None:
    later = _only(_signal(NAME, raw=HEADED))
    assert later.trigger.kind is TriggerKind.ALWAYS


def test_without_the_heading_the_same_command_answers_its_request() -> None:
    later = _only(_signal(NAME, raw=f"Captions in sentence case. And {NAME}"))
    assert later.trigger.kind is TriggerKind.QUERY


def test_a_command_before_the_heading_is_not_governed_by_it() -> None:
    raw = f"{NAME.capitalize()} Two more, always: captions in sentence case, no full stops."
    first = _only(_signal(NAME.capitalize(), raw=raw))
    assert first.trigger.kind is TriggerKind.QUERY


def test_a_pronoun_condition_after_the_command_stays_in_its_words() -> None:
    rule = _only(_signal("look up the safety sheet and attach it if it's missing"))
    assert rule.trigger.kind is TriggerKind.QUERY
    assert rule.text == "Look up the safety sheet and attach it if it's missing."


def test_a_leading_pronoun_condition_still_tests_the_data() -> None:
    rule = _only(_signal("if it's flagged fragile, book the padded crate"))
    assert rule.trigger.kind is TriggerKind.DATA


def test_a_trailing_threshold_still_tests_the_data() -> None:
    rule = _only(_signal("report the shrinkage and escalate it if it's over 5%"))
    assert rule.trigger.kind is TriggerKind.DATA
    assert rule.trigger.numeric is not None


HOLD = (
    "Whenever a parcel's record says it contains lithium cells, don't ship it by air: book "
    "ground freight."
)
OTHER_BRANCH = "Parcels without lithium cells, book air freight as normal."
TURN = f"{HOLD} {OTHER_BRANCH}"


class _Sure:
    """Reads one turn as a sure standing correction, every other one as a task."""

    id = "sure"

    def read(self, turns: Sequence[TurnInput]) -> list[TurnVerdict]:
        return [
            TurnVerdict(TurnKind.STANDING, 0.99, by=self.id)
            if t.text == TURN
            else TurnVerdict(TurnKind.TASK, 0.0, by=self.id)
            for t in turns
        ]


def _captured(tmp_path: Path, turn: str) -> list[Rule]:
    messages = [
        {"role": "user", "content": "ship order 4471 to the Leeds customer"},
        {"role": "assistant", "content": "Booked it on the next air freight slot."},
        {"role": "user", "content": turn},
    ]
    with Memory(tmp_path / "m.db", embedder="hashing", reader=_Sure()) as memory:
        memory.capture(messages, actor="ana", skill="dispatch", conversation_id="c1")
        return list(memory.rules(status=RuleStatus.ACTIVE))


def test_the_other_branch_of_a_condition_waits_for_the_condition(tmp_path: Path) -> None:
    rules = {r.text: r for r in _captured(tmp_path, TURN)}
    held = next(r for t, r in rules.items() if "ground freight" in t)
    other = next(r for t, r in rules.items() if "as normal" in t)
    assert held.trigger.kind is TriggerKind.DATA
    assert other.trigger.kind is TriggerKind.DATA
    assert held.trigger.predicate is not None and held.trigger.predicate.flag is True
    # the other branch carries the negated condition, not a copy of it
    assert other.trigger.predicate is not None and other.trigger.predicate.flag is False
    assert other.trigger.predicate.key == held.trigger.predicate.key


EMAIL = "For bulk orders also email the warehouse lead, not the depot; the depot is swamped."
NO_MORE = "Change of plan: we don't email anyone for bulk orders anymore."
INSTEAD = "Just log them in the dispatch sheet."


class _Kinds:
    """Sure of the kind of each turn it is told about; every other turn is a task."""

    id = "kinds"

    def __init__(self, kinds: dict[str, TurnKind]) -> None:
        self.kinds = kinds

    def read(self, turns: Sequence[TurnInput]) -> list[TurnVerdict]:
        return [
            TurnVerdict(
                self.kinds.get(t.text, TurnKind.TASK), 0.99 if t.text in self.kinds else 0.0
            )
            for t in turns
        ]


def _dispatch(turn: str) -> list[dict[str, str]]:
    return [
        {"role": "user", "content": "ship bulk order 4471 to the Leeds customer"},
        {"role": "assistant", "content": "Booked, and I emailed the depot."},
        {"role": "user", "content": turn},
    ]


def test_a_withdrawal_stated_as_a_prohibition_stays_in_its_replacement(tmp_path: Path) -> None:
    turn = f"{NO_MORE} {INSTEAD}"
    reader = _Kinds({EMAIL: TurnKind.STANDING, turn: TurnKind.WITHDRAWAL})
    with Memory(tmp_path / "m.db", embedder="hashing", reader=reader) as memory:
        memory.capture(_dispatch(EMAIL), actor="ana", skill="dispatch", conversation_id="a")
        memory.capture(_dispatch(turn), actor="ana", skill="dispatch", conversation_id="b")
        withdrawn = [r.text for r in memory.rules(status=RuleStatus.WITHDRAWN)]
        active = [r.text for r in memory.rules(status=RuleStatus.ACTIVE)]
    assert len(withdrawn) == 1 and "warehouse lead" in withdrawn[0]
    assert active == ["Don't email anyone for bulk orders anymore; log them in the dispatch sheet."]
