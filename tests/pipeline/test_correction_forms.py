"""Forms of standing correction that must become (or remove) the rule that was meant.

Each test captures short sessions through `Memory` and reads the rulebook: a turn that
withdraws and replaces, a verbless standing correction, a partial rollback, a setting changed
again late in a run of corrections, and a revoked instruction.
"""

from __future__ import annotations

from dctx.capture.verbs import IMPERATIVE_VERBS
from dctx.memory import Memory
from dctx.models import Rule, RuleStatus

REPLY = "Done: draft below."


def _capture(mem: Memory, conversation: str, ask: str, *turns: str) -> None:
    messages = [{"role": "user", "content": ask}]
    for turn in turns:
        messages.append({"role": "assistant", "content": REPLY})
        messages.append({"role": "user", "content": turn})
    messages.append({"role": "assistant", "content": "Understood."})
    mem.capture(
        messages,
        actor="ana",
        skill="kitchen",
        conversation_id=conversation,
        timestamp=f"2026-03-{10 + len(mem.rules()):02d}T10:00:00Z",
    )


def _active(mem: Memory) -> list[Rule]:
    return mem.rules(status=RuleStatus.ACTIVE)


def _delivered(mem: Memory, query: str) -> str:
    """The rule texts a new run of the actor starts with."""
    run = mem.start(actor="ana", skill="kitchen", query=query, record=False)
    return "\n".join(r.text for r in run.rules)


def _imperative(text: str) -> bool:
    """Reads as a command: its first word (after an adverb of frequency) is a verb."""
    first = text.split()
    lead = first[1] if first[0].lower() in {"always", "never"} and len(first) > 1 else first[0]
    return lead.lower() in IMPERATIVE_VERBS and text.endswith(".")


def test_withdraw_and_replace_in_one_turn(mem: Memory) -> None:
    _capture(mem, "s1", "Publish the marketing site.", "Always use --region eu-west for the site.")
    _capture(
        mem,
        "s2",
        "Publish the docs site.",
        "forget the eu-west rule; we use the us-east region now",
    )
    active = [r.text for r in _active(mem)]
    assert not any("eu-west" in t for t in active)
    # the replacement keeps the form and reach of the rule it replaces
    assert any("--region us-east" in t for t in active), active
    withdrawn = mem.rules(status=RuleStatus.WITHDRAWN)
    assert [r.text for r in withdrawn] == ["Always use --region eu-west for the site."]
    delivered = _delivered(mem, "Publish the careers site.")
    assert "us-east" in delivered and "eu-west" not in delivered


def test_verbless_standing_corrections_become_one_imperative_rule(mem: Memory) -> None:
    _capture(
        mem,
        "s1",
        "Plan tonight's dinner service.",
        "Allergen check first, always, then the plating.",
    )
    _capture(mem, "s2", "Write the fridge log.", "Celsius temperatures everywhere.")
    _capture(mem, "s3", "Draft the handover note.", "Bullet points, always.")
    active = [r.text for r in _active(mem)]
    assert len(active) == 3, active
    assert all(_imperative(t) for t in active), active
    by_word = {w: [t for t in active if w in t.lower()] for w in ("allergen", "celsius", "bullet")}
    assert all(len(found) == 1 for found in by_word.values()), by_word
    sequence = by_word["allergen"][0].lower()
    assert sequence.index("allergen") < sequence.index("then") < sequence.index("plating")


def test_partial_rollback_leaves_a_scoped_rule(mem: Memory) -> None:
    _capture(mem, "s1", "Write the staff rota.", "24-hour times everywhere.")
    assert any("24-hour" in r.text for r in _active(mem))
    _capture(
        mem,
        "s2",
        "Write the guest welcome letter.",
        "go back to '3pm' style in the guest letters, keep 24-hour times in the rota",
    )
    active = [r.text for r in _active(mem)]
    assert not any("everywhere" in t for t in active), active
    assert any("24-hour" in t and "rota" in t for t in active), active
    assert any("3pm" in t and "letter" in t for t in active), active
    assert all(_imperative(t) for t in active), active
    delivered = _delivered(mem, "Write next week's staff rota.")
    assert "rota" in delivered and "everywhere" not in delivered


def test_later_value_of_the_same_setting_supersedes(mem: Memory) -> None:
    _capture(
        mem,
        "s1",
        "Sync the supplier orders overnight.",
        "Always use --retries 3 when you sync the supplier orders.",
        "Always put the failed orders in a table.",
        "Always mention the total runtime in minutes.",
        "Never reorder stock without asking the head chef.",
        "Actually, always use --retries 5 when you sync the supplier orders.",
    )
    retries = [r.text for r in _active(mem) if "--retries" in r.text]
    assert len(retries) == 1 and "--retries 5" in retries[0], retries
    assert len(_active(mem)) == 4


def test_revoked_instruction_withdraws_the_rule_it_revokes(mem: Memory) -> None:
    _capture(
        mem,
        "s1",
        "Send the rota to the kitchen team.",
        "Always cc the shift lead on rota emails.",
        "Always add the allergy footer to every menu.",
    )
    assert len(_active(mem)) == 2
    _capture(
        mem,
        "s2",
        "Send next week's menu.",
        "stop adding the allergy footer",
        "don't cc the shift lead any more",
    )
    assert _active(mem) == []
    assert _delivered(mem, "Send the rota to the kitchen team.") == ""
    assert not any("footer" in r.text for r in mem.rules(status=RuleStatus.CANDIDATE))
    assert len(mem.rules(status=RuleStatus.WITHDRAWN)) == 2


def test_stop_without_a_rule_to_revoke_is_a_standing_correction(mem: Memory) -> None:
    _capture(
        mem, "s1", "Send next week's menu.", "From now on, stop adding the allergy footer to menus."
    )
    assert any("footer" in r.text for r in _active(mem))
