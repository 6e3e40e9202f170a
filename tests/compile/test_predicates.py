"""Data conditions compiled to predicates over the items of tool results: met when the data
meets them, never by one word of the condition."""

from __future__ import annotations

import json

import pytest

from dctx.compile.conditions import split_condition
from dctx.compile.predicates import compile_predicate, is_value_token
from dctx.memory import Memory
from dctx.models import Predicate, Trigger, TriggerKind
from dctx.retrieve.context import RunContext, data_condition_met

CRASH = "When a pod is in CrashLoopBackOff, first pull its logs before restarting anything."
RUNNING = json.dumps({"pods": [{"name": "web-1", "status": "Running"}]})
CRASHING = json.dumps(
    {
        "pods": [
            {"name": "web-1", "status": "Running"},
            {"name": "web-2", "status": "CrashLoopBackOff"},
        ]
    }
)


def _data_trigger(directive: str) -> Trigger:
    cond = split_condition(directive, [])
    assert cond is not None
    return Trigger(
        TriggerKind.DATA,
        text=cond.text,
        keywords=cond.keywords,
        predicate=compile_predicate(cond.text, cond.keywords),
    )


@pytest.mark.parametrize(
    ("token", "value"),
    [
        ("CrashLoopBackOff", True),
        ("OOMKilled", True),
        ("us_east_1", True),
        ("'gold'", True),
        ("E31", True),
        ("RMAs", False),  # an acronym's plural
        ("USD", False),
        ("Enterprise", False),
        ("pods", False),
    ],
)
def test_value_tokens_are_read_by_shape(token: str, value: bool) -> None:
    assert is_value_token(token) is value


def test_conditions_compile_to_item_predicates() -> None:
    assert _data_trigger(CRASH).predicate == Predicate(terms=["pod"], values=["CrashLoopBackOff"])
    listing = _data_trigger("If a listing has no price, flag it to the catalog team.")
    assert listing.predicate is not None and listing.predicate.absent == ["price"]
    # a class in ordinary words is a state a true/false field may carry, else free text
    soft = _data_trigger("For enterprise clients, cc the account manager.").predicate
    assert soft == Predicate(key=["enterpris"], flag=True, soft=True)


def test_crashloop_condition_needs_a_crashing_pod() -> None:
    trig = _data_trigger(CRASH)
    ctx = RunContext.start("check its pods")
    assert not data_condition_met(trig, ctx)  # the query names pods, not a crashing one
    ctx.add_step("get_pods", {"app": "web"}, RUNNING)
    assert not data_condition_met(trig, ctx)  # a healthy Running pod
    ctx.add_step("get_pods", {"app": "web"}, CRASHING)
    assert data_condition_met(trig, ctx)


def test_a_word_of_the_value_in_prose_does_not_meet_it() -> None:
    trig = _data_trigger(CRASH)
    ctx = RunContext.start("is anything in crashloopbackoff?")
    assert not data_condition_met(trig, ctx)  # a question, not data about a pod
    ctx.add_step("get_events", {}, json.dumps({"note": "no pods in CrashLoopBackOff today"}))
    assert not data_condition_met(trig, ctx)  # prose that mentions it is not a field equal to it


def test_nested_kubernetes_status_meets_it_through_the_call() -> None:
    trig = _data_trigger(CRASH)
    ctx = RunContext.start("why is web down")
    result = {
        "items": [
            {
                "metadata": {"name": "web-2"},
                "status": {
                    "containerStatuses": [{"state": {"waiting": {"reason": "CrashLoopBackOff"}}}]
                },
            }
        ]
    }
    ctx.add_step("kubectl_get", {"resource": "pods"}, json.dumps(result))
    assert data_condition_met(trig, ctx)


def test_absence_needs_a_record_without_the_field() -> None:
    trig = _data_trigger("If a listing has no price, flag it to the catalog team.")
    ctx = RunContext.start("review the new listings")
    ctx.add_step("get_listings", {}, json.dumps({"count": 1, "listings": [{"id": 1, "price": 9}]}))
    assert not data_condition_met(trig, ctx)
    ctx.add_step(
        "get_listings", {}, json.dumps({"count": 1, "listings": [{"id": 2, "title": "x"}]})
    )
    assert data_condition_met(trig, ctx)


def test_devops_rule_fires_on_the_crashing_pod_only(mem: Memory) -> None:
    messages = [
        {"role": "user", "content": "the api pods look unhealthy, restart them"},
        {"role": "assistant", "content": "Restarted the api pods."},
        {"role": "user", "content": f"No - {CRASH[0].lower()}{CRASH[1:]}"},
        {"role": "assistant", "content": "Understood."},
    ]
    mem.capture(messages, actor="lee", skill="devops", conversation_id="c1")
    (rule,) = mem.rules(skill="devops")
    assert rule.trigger.predicate is not None and "CrashLoopBackOff" in rule.text
    run = mem.start(actor="lee", skill="devops", query="check its pods", tools=["get_pods"])
    assert not run.units
    assert not run.observe({"name": "get_pods", "arguments": {"app": "api"}}, RUNNING)
    fired = run.observe({"name": "get_pods", "arguments": {"app": "api"}}, CRASHING)
    assert [u.rule_ids for u in fired] == [[rule.id]]
