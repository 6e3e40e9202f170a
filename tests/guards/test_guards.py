"""Guards: compiled conservatively from rule text, checked against proposed calls."""

from __future__ import annotations

from typing import Any

import pytest

from dctx.guards import Guard, GuardChecker, GuardKind, compile_guards, rule_guards
from dctx.memory import Memory
from dctx.models import Rule, RuleSource, RuleType, Scope, Trigger, TriggerKind


def rule(
    text: str,
    *,
    tool: str | None = None,
    quals: tuple[str, ...] = (),
    source: RuleSource = RuleSource.MANUAL,
    support: int = 1,
) -> Rule:
    return Rule(
        id="rule_x",
        text=text,
        type=RuleType.CONTENT,
        trigger=Trigger(kind=TriggerKind.TOOL if tool else TriggerKind.QUERY, tool=tool),
        scope=Scope(),
        source=source,
        actor=None,
        group="g",
        qualifiers=list(quals),
        support=support,
    )


def kinds(text: str, **kw: Any) -> list[dict[str, Any]]:
    tools = kw.pop("tools", None)
    return [g.to_dict() for g in rule_guards(rule(text, **kw), tools=tools)]


@pytest.mark.parametrize(
    ("text", "tool", "expected"),
    [
        (
            'When calling escalate, use `team`="billing_ops" instead of "tier2".',
            "escalate",
            [("param_forbidden", "team", "tier2", "billing_ops")],
        ),
        (
            "When calling get_segments, always pass `fiscal_year` (e.g. fiscal_year=2025).",
            "get_segments",
            [("param_required", "fiscal_year", None, None)],
        ),
        (
            "When calling fx, keep `amount` at or below 5; set `strict` to true.",
            "fx",
            [("param_equals", "strict", True, None)],
        ),
        (
            "Always call create_ticket with queue=platform_eng.",
            None,
            [("param_equals", "queue", "platform_eng", None)],
        ),
        (
            'Avoid calling get_x with source="old".',
            None,
            [("param_forbidden", "source", "old", None)],
        ),
        ("Avoid calling get_x; it keeps failing.", None, [("tool_forbidden", None, None, None)]),
        (
            "Use polygon_api instead of yahoo_api.",
            None,
            [("tool_forbidden", None, None, "polygon_api")],
        ),
        (  # why, after a semicolon, is no part of the constraint
            "Use polygon_api instead of yahoo_api; yahoo_api failed where polygon_api worked.",
            None,
            [("tool_forbidden", None, None, "polygon_api")],
        ),
        ("Never call search_kb.", None, [("tool_forbidden", None, None, None)]),
    ],
)
def test_clear_constraints_compile(
    text: str, tool: str | None, expected: list[tuple[Any, ...]]
) -> None:
    got = [
        (g["kind"], g.get("param"), g.get("value"), g.get("instead"))
        for g in kinds(text, tool=tool)
    ]
    assert got == expected


@pytest.mark.parametrize(
    "text",
    [
        "When calling get_financials, format `period` as YYYY-Qn.",  # a shape, not a value
        "Never call search_kb unless the customer asks.",  # hedged
        "Put the numbers in a table.",  # no tool
        "Call refund before calling escalate.",  # plain words, no tool list: not tool names
        "Prefer polygon_api over yahoo_api where possible.",
        'When calling get_price, use `source`="polygon" instead of the default.',
    ],
)
def test_vague_or_toolless_rules_compile_to_nothing(text: str) -> None:
    assert kinds(text) == []


def test_plain_word_tools_count_when_the_run_lists_them() -> None:
    got = kinds("Call refund before calling escalate.", tools=["refund", "escalate"])
    assert got == [
        {"kind": "call_before", "tool": "escalate", "rule_id": "rule_x", "first": "refund"}
    ]
    assert kinds("Never call search_kb.", tools=["lookup"]) == []  # not one of the run's tools


def test_qualifier_prefix_is_stripped() -> None:
    text = "For enterprise customers, never call search_kb."
    assert kinds(text, quals=("For enterprise customers",))[0]["kind"] == "tool_forbidden"


def test_inferred_order_needs_repeated_evidence() -> None:
    text = "Call list_channels before calling get_conversation."
    assert kinds(text, source=RuleSource.SELF_ASSESSMENT, support=1) == []
    assert kinds(text, source=RuleSource.SELF_ASSESSMENT, support=2)[0]["first"] == "list_channels"
    assert kinds(text, source=RuleSource.CORRECTION)[0]["kind"] == "call_before"


def test_guard_json_round_trip_and_dedup() -> None:
    r = rule('When calling t_x, use `k`="b" instead of "a".', tool="t_x")
    (g,) = compile_guards([r, r])
    assert Guard.from_dict(g.to_dict()) == g
    assert 'use "b"' in g.describe()


def test_checker_corrects_rejects_and_tracks_order() -> None:
    checker = GuardChecker(
        [
            Guard(
                GuardKind.PARAM_FORBIDDEN, "get_price", "r1", "source", "yahoo", instead="polygon"
            ),
            Guard(GuardKind.PARAM_EQUALS, "convert", "r2", "to", "USD"),
            Guard(GuardKind.CALL_BEFORE, "refund", "r3", first="lookup"),
            Guard(GuardKind.PARAM_REQUIRED, "segments", "r4", "year"),
            Guard(GuardKind.TOOL_FORBIDDEN, "legacy_api", "r5", instead="new_api"),
        ]
    )
    proposed = {"ticker": "A", "source": "YAHOO"}
    v = checker.check("get_price", proposed)
    assert v.action == "correct" and v.arguments["source"] == "polygon"
    assert proposed["source"] == "YAHOO"  # the proposal itself is untouched
    assert checker.check("get_price", {"source": "iex"}).action == "allow"
    assert checker.check("convert", {"to": "usd"}).action == "allow"  # loose equality
    assert checker.check("convert", {"to": "EUR"}).arguments["to"] == "USD"
    assert checker.check("segments", {"year": 2025}).action == "allow"
    missing = checker.check("segments", {})
    assert missing.action == "reject" and "must pass year" in missing.message
    blocked = checker.check("legacy_api", {})
    assert blocked.action == "reject" and "new_api" in blocked.message
    assert checker.check("refund", {"id": 1}).action == "reject"
    checker.executed("lookup")
    assert checker.check("refund", {"id": 1}).action == "allow"
    assert checker.check("other", {"source": "yahoo"}).action == "allow"


def test_guards_follow_the_rule_lifecycle(mem: Memory) -> None:
    """Guards come from the rules a run delivers: disabling the rule drops its guard."""
    import json

    calls = [
        {
            "id": "c1",
            "type": "function",
            "function": {
                "name": "get_px",
                "arguments": json.dumps({"t": "A", "source": "old_feed"}),
            },
        },
    ]
    retry = [
        {
            "id": "c2",
            "type": "function",
            "function": {
                "name": "get_px",
                "arguments": json.dumps({"t": "A", "source": "new_feed"}),
            },
        },
    ]
    for conversation in ("p1", "p2"):  # a replaced source is a lesson from two conversations
        mem.capture(
            [
                {"role": "user", "content": "price of A?"},
                {"role": "assistant", "tool_calls": calls},
                {
                    "role": "tool",
                    "tool_call_id": "c1",
                    "is_error": True,
                    "content": '{"error": "feed retired"}',
                },
                {"role": "assistant", "tool_calls": retry},
                {"role": "tool", "tool_call_id": "c2", "content": '{"price": 3}'},
                {"role": "assistant", "content": "A is at 3."},
            ],
            actor="u",
            skill="s",
            conversation_id=conversation,
        )
    run = mem.start(actor="u", skill="s", query="price of B?", tools=["get_px"])
    (g,) = compile_guards(run.rules, tools=["get_px"])
    assert (g.kind, g.param, g.value, g.instead) == (
        GuardKind.PARAM_FORBIDDEN,
        "source",
        "old_feed",
        "new_feed",
    )
    mem.disable(g.rule_id)
    run = mem.start(actor="u", skill="s", query="price of B?", tools=["get_px"])
    assert compile_guards(run.rules, tools=["get_px"]) == []
