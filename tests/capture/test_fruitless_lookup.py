"""A lookup that finds nothing for one kind of request, in several conversations, each done
without it, becomes a rule for that kind of request - and only for it."""

from __future__ import annotations

from typing import Any

from dctx.memory import Memory
from dctx.models import RuleSource, TriggerKind
from pipeline.traces import call, result

NOT_FOUND = {"error": "NOT_FOUND", "message": "No customer account matches this email."}


def _lead_session(email: str, ask: str, *, found_later: bool = False) -> list[dict[str, Any]]:
    found = {"customer_id": "C-1", "plan": "Team"}
    return [
        {"role": "user", "content": f"New lead from the pricing-page form: {email} {ask}"},
        call("c1", "lookup_customer", email=email),
        result("c1", NOT_FOUND),
        *([call("c2", "lookup_customer", email=email), result("c2", found)] if found_later else []),
        call("c3", "get_pricing", plan="Team", seats=12),
        result("c3", {"plan": "Team", "total": 108.0}),
        call("c4", "create_lead", email=email),
        result("c4", {"lead_id": "LD-1"}),
        {"role": "assistant", "content": "Quoted and logged the lead."},
    ]


def _capture(mem: Memory, n: int, **kw: Any) -> None:
    asks = ["asks what 12 seats cost.", "wants a quote for 40 seats.", "asks about seats."]
    for i in range(n):
        mem.capture(
            _lead_session(f"p{i}@example.com", asks[i], **kw),
            actor="lena",
            skill="support",
            conversation_id=f"s{i}",
        )


def test_fruitless_lookup_becomes_a_rule_for_that_kind_of_request(mem: Memory) -> None:
    _capture(mem, 2)
    [rule] = [r for r in mem.rules() if r.source is RuleSource.SELF_ASSESSMENT]
    assert rule.trigger.kind is TriggerKind.DATA
    assert rule.text.startswith("Skip lookup_customer for requests like these")
    assert "get_pricing" in rule.text and "No customer account matches" in rule.text
    lead = mem.start(actor="ana", skill="support", query="New lead from the pricing-page form")
    assert [u.text for u in lead.units] == [f"RULE: {rule.text}"]
    other = mem.start(actor="ana", skill="support", query="Refund order KA-1 for Priya")
    assert other.units == []


def test_once_is_not_a_pattern(mem: Memory) -> None:
    _capture(mem, 1)
    assert [r for r in mem.rules() if r.source is RuleSource.SELF_ASSESSMENT] == []


def test_a_lookup_that_found_it_later_teaches_nothing(mem: Memory) -> None:
    _capture(mem, 2, found_later=True)
    assert not any("Skip lookup_customer" in r.text for r in mem.rules())


def _search_session(product: str, *, kb_has_it: bool) -> list[dict[str, Any]]:
    kb = {"results": [{"title": "Setup"}]} if kb_has_it else {"results": [], "total": 0}
    return [
        {"role": "user", "content": f"How do I pair the {product}?"},
        call("c1", "search_kb", product=product, query="pairing"),
        result("c1", kb),
        call("c2", "search_release_notes", product=product, query="pairing"),
        result("c2", {"results": [{"doc": "launch notes", "text": "Hold the button."}]}),
        {"role": "assistant", "content": "Hold the button for 5 seconds."},
    ]


def test_an_empty_search_answered_elsewhere_twice_is_a_lesson(mem: Memory) -> None:
    for i, product in enumerate(["Hub 2", "Cam Mini"]):
        mem.capture(_search_session(product, kb_has_it=False), actor="pia", skill="support",
                    conversation_id=f"s{i}")  # fmt: skip
    [rule] = [r for r in mem.rules() if r.source is RuleSource.SELF_ASSESSMENT]
    assert rule.text.startswith("When search_kb finds nothing, use search_release_notes")
    assert rule.trigger.kind is TriggerKind.TOOL and rule.trigger.tool == "search_kb"


def test_a_search_that_found_it_teaches_nothing(mem: Memory) -> None:
    for i, product in enumerate(["Hub 2", "Cam Mini"]):
        mem.capture(_search_session(product, kb_has_it=True), actor="pia", skill="support",
                    conversation_id=f"s{i}")  # fmt: skip
    assert [r for r in mem.rules() if r.source is RuleSource.SELF_ASSESSMENT] == []
