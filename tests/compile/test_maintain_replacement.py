"""A turn that names what it replaces supersedes the actor's older rule."""

from __future__ import annotations

import numpy as np
from tests.compile.signals import correction

from dctx.compile.corrections import compile_correction
from dctx.compile.maintain import Rulebook
from dctx.memory import Memory
from dctx.models import Rule, RuleStatus
from dctx.providers.hashing import HashingEmbedder

ASK = "Write a reply to {who}: they ask if payslips can be emailed as PDFs."


def _session(who: str, correction: str) -> list[dict[str, str]]:
    return [
        {"role": "user", "content": ASK.format(who=who)},
        {"role": "assistant", "content": "Hi, yes they can. Best, Support"},
        {"role": "user", "content": correction},
    ]


def test_named_replacement_supersedes_however_it_is_worded(mem: Memory) -> None:
    mem.capture(
        _session("Oakhaven Dental", "Sign off with 'Cheers, the Juniper team', a bit warmer."),
        actor="rowan",
        skill="support",
        conversation_id="s1",
        timestamp="2026-01-13T10:00:00Z",
    )
    mem.capture(
        _session(
            "Castellan Freight",
            "hmm, Cheers is too casual for B2B customers. Make it 'Kind regards' instead.",
        ),
        actor="rowan",
        skill="support",
        conversation_id="s2",
        timestamp="2026-02-02T10:00:00Z",
    )
    active = [r.text for r in mem.rules(status=RuleStatus.ACTIVE)]
    assert not any("Cheers" in t for t in active)
    assert any("Kind regards" in t for t in active)


def test_another_actor_naming_it_does_not_supersede(mem: Memory) -> None:
    mem.capture(
        _session("Oakhaven Dental", "Sign off with 'Cheers, the Juniper team', a bit warmer."),
        actor="rowan",
        skill="support",
        conversation_id="s1",
        timestamp="2026-01-13T10:00:00Z",
    )
    mem.capture(
        _session("Castellan Freight", "Cheers is too casual. Make it 'Kind regards' instead."),
        actor="ines",
        skill="support",
        conversation_id="s2",
        timestamp="2026-02-02T10:00:00Z",
    )
    texts = {r.text: r.status.value for r in mem.rules()}
    assert any("Cheers" in t and s == "active" for t, s in texts.items())


def test_a_command_to_go_back_says_what_to_do() -> None:
    from dctx.compile.phrasing import imperative, split_directives

    assert (
        imperative("go back to offering refunds on late orders") == "Offer refunds on late orders."
    )
    assert imperative("switch back to the old letterhead") == "Use the old letterhead."
    assert split_directives(
        "go back to the old letterhead in invoices, keep the new one in quotes"
    ) == [
        "go back to the old letterhead in invoices",
        "keep the new one in quotes",
    ]
    assert split_directives("For refunds, use the old letterhead") == [
        "For refunds, use the old letterhead"
    ]


def test_commands_side_by_side_stay_one_when_a_later_one_replaces_the_first() -> None:
    from dctx.compile.phrasing import split_directives

    # "instead" replaces what the command before takes away: one practice, one rule
    said = "scratch the courtesy call for late orders, send a text instead"
    assert split_directives(said) == [said]


def _tuning_rule(text: str, conversation: str = "c1") -> Rule:
    rule = compile_correction(correction(text, query="Book the tuning.")).rules[0]
    rule.conversation_id, rule.evidence_ids = conversation, [f"ev-{conversation}"]
    return rule


def _rulebook(*rules: Rule) -> Rulebook:
    embedder = HashingEmbedder()
    book = Rulebook([], np.zeros((0, embedder.dim), dtype=np.float32), embedder)
    for rule in rules:
        book.add(rule)
    return book


def test_an_unsure_reading_replaces_only_the_same_setting() -> None:
    # a rule that may be a one-off (read by the opening-policy reader alone) names the old
    # rule's words and says "rather than": it is added beside it, not in its place
    book = _rulebook(_tuning_rule("Always quote a tuning from the rate card."))
    raw = "Quote 180 rather than the usual rate for this tuning, the keys are sticky."
    book.add(_tuning_rule(raw, "c2"), raw=raw, replaces=False)
    assert [r.status for r in book.rules] == [RuleStatus.ACTIVE, RuleStatus.ACTIVE]
    # the same parameter set to another value is the same setting however it was read
    book = _rulebook(_tuning_rule("Always book tunings with --pitch 440."))
    book.add(_tuning_rule("Book tunings with --pitch 442.", "c2"), replaces=False)
    assert [r.status for r in book.rules] == [RuleStatus.SUPERSEDED, RuleStatus.ACTIVE]


def test_a_word_ending_like_a_filler_keeps_its_letters() -> None:
    from dctx.compile.phrasing import imperative

    assert imperative("Cancel the tasting and rebook.") == "Cancel the tasting and rebook."
    assert imperative("Log it in the kiln logbook.") == "Log it in the kiln logbook."
    assert imperative("Book the kiln for Friday, ok?") == "Book the kiln for Friday."
