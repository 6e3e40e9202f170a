"""A loop's guards and deliveries are outcomes of the rules behind them."""

from __future__ import annotations

import json

from dctx.integrations import LoopSession
from dctx.memory import Memory
from dctx.models import RuleEventKind

QUERY = "Where is Globex (GLBX) trading, and is it expensive?"


def test_a_guard_that_corrects_a_call_is_recorded_and_the_capture_matches_the_loop(
    seeded: Memory,
) -> None:
    # what the seed captures recorded (a lesson admitted on its second sighting) is not the loop's
    before = {e.id for r in seeded.rules() for e in seeded.outcomes_of(r.id)}
    session = LoopSession(seeded, actor="ana", skill="analyst", query=QUERY, tools=["get_price"])
    verdict = session.check("get_price", {"ticker": "GLBX", "source": "yahoo_legacy"})
    assert verdict.action == "correct"
    [guarded] = {g.rule_id for g in verdict.guards}
    assert session.check("get_price", {"ticker": "GLBX", "source": "polygon"}).action == "allow"
    session.observe("get_price", verdict.arguments, json.dumps({"pe_ratio": 35}))
    session.capture(
        [
            {"role": "user", "content": QUERY},
            {"role": "assistant", "content": "Expensive: P/E 35, at 40.2 on NASDAQ."},
        ]
    )
    events = [e for r in seeded.rules() for e in seeded.outcomes_of(r.id) if e.id not in before]
    by_rule: dict[str, list[RuleEventKind]] = {}
    for e in events:
        assert e.run_id == session.run.id and e.conversation_id == session.conversation_id
        by_rule.setdefault(e.rule_id, []).append(e.kind)
    # every delivered rule has its delivery; the guarded one its guard and no "quiet"
    assert by_rule[guarded] == [RuleEventKind.DELIVERED, RuleEventKind.GUARD]
    others = [kinds for rid, kinds in by_rule.items() if rid != guarded]
    assert others and all(k == [RuleEventKind.DELIVERED, RuleEventKind.QUIET] for k in others)
    assert {r.id for r in session.run.rules} == set(by_rule)
