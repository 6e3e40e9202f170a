"""A person fixes a rule's trigger (`Memory.edit(..., trigger=...)`), and `explain` names the
winner of a rule's conflict group for an actor, and why."""

from __future__ import annotations

import json

import pytest

from dctx.errors import ConfigError
from dctx.memory import Memory
from dctx.models import Rule, TriggerKind

CRASHING = json.dumps({"pods": [{"name": "web-2", "status": "CrashLoopBackOff"}]})
RUNNING = json.dumps({"pods": [{"name": "web-1", "status": "Running"}]})


def _turn(correction: str) -> list[dict[str, str]]:
    return [
        {"role": "user", "content": "deploy the api service to the test cluster"},
        {"role": "assistant", "content": "Deployed the api service with kubectl apply."},
        {"role": "user", "content": correction},
        {"role": "assistant", "content": "Understood."},
    ]


def team_rules(mem: Memory) -> dict[str, Rule]:
    """Two team rules that set one parameter to different values: a real conflict."""
    for actor, ns in (("dana", "staging"), ("lee", "qa")):
        mem.capture(
            _turn(f"Team policy: always use --namespace {ns} for test deploys."),
            actor=actor,
            skill="devops",
            conversation_id=f"c-{actor}",
        )
    rules = {r.actor: r for r in mem.rules(skill="devops") if r.actor}
    assert set(rules) == {"dana", "lee"}
    assert rules["dana"].group == rules["lee"].group
    return rules


def test_explain_names_the_winner_and_why(mem: Memory) -> None:
    rules = team_rules(mem)
    dana, lee = rules["dana"], rules["lee"]
    own = mem.explain(lee.id, actor="dana", skill="devops")["conflict"]
    assert own["reason"] == "own_rule" and own["winners"] == [dana.id] and own["lost"]
    assert dana.text in own["summary"] and "dana" in own["summary"]
    tie = mem.explain(dana.id, actor="kim", skill="devops")["conflict"]
    assert tie["reason"] == "abstain" and tie["winners"] == [] and tie["lost"]
    # a third person says what lee said: lee's rule has the majority for everyone else
    mem.capture(
        _turn("Team policy: always use --namespace qa for test deploys."),
        actor="sam",
        skill="devops",
        conversation_id="c-sam",
    )
    most = mem.explain(dana.id, actor="kim", skill="devops")["conflict"]
    assert most["reason"] == "majority" and most["winners"] == [lee.id]
    run = mem.explain(dana.id, actor="kim", skill="devops", query="deploy the api to test")
    assert run["run"]["conflict"]["winners"] == [lee.id]
    assert (
        "majority" in run["run"]["points"][0]["outcome"]
        or "support" in (run["run"]["points"][0]["outcome"])
    )


def test_edit_trigger_to_a_predicate(mem: Memory) -> None:
    mem.capture(
        _turn("Always pull the pod logs first before restarting anything."),
        actor="lee",
        skill="devops",
        conversation_id="c1",
    )
    (rule,) = mem.rules(skill="devops")
    assert rule.trigger.kind is TriggerKind.ALWAYS
    edited = mem.edit(rule.id, trigger="data: a pod is in CrashLoopBackOff")
    assert edited.trigger.kind is TriggerKind.DATA and edited.trigger.predicate is not None
    assert edited.text == rule.text
    event = edited.history[-1]
    assert event["event"] == "trigger_edited" and event["old_trigger"]["kind"] == "always"
    stored = mem.rule(rule.id)
    assert stored.trigger == edited.trigger and stored.history[-1]["event"] == "trigger_edited"
    run = mem.start(actor="lee", skill="devops", query="check its pods")
    assert not run.units  # no longer up front
    assert not run.observe({"name": "get_pods", "arguments": {}}, RUNNING)
    assert [u.rule_ids for u in run.observe({"name": "get_pods", "arguments": {}}, CRASHING)] == [
        [rule.id]
    ]


@pytest.mark.parametrize(
    ("spec", "kind"),
    [
        ("always", TriggerKind.ALWAYS),
        ("query: restarting a deployment", TriggerKind.QUERY),
        ("data: error rate above 5%", TriggerKind.DATA),
        ("tool: restart_pods after get_pods", TriggerKind.TOOL),
    ],
)
def test_every_trigger_form_is_accepted(mem: Memory, spec: str, kind: TriggerKind) -> None:
    mem.capture(
        _turn("Always pull the pod logs first before restarting anything."),
        actor="lee",
        skill="devops",
        conversation_id="c1",
    )
    (rule,) = mem.rules(skill="devops")
    assert mem.edit(rule.id, trigger=spec).trigger.kind is kind


@pytest.mark.parametrize(
    "spec", ["sometimes", "data:", "data: the and of", "tool: a b c", "always: x", "colour: red"]
)
def test_invalid_triggers_are_refused_and_nothing_changes(mem: Memory, spec: str) -> None:
    mem.capture(
        _turn("Always pull the pod logs first before restarting anything."),
        actor="lee",
        skill="devops",
        conversation_id="c1",
    )
    (rule,) = mem.rules(skill="devops")
    with pytest.raises(ConfigError):
        mem.edit(rule.id, trigger=spec)
    assert mem.rule(rule.id).trigger == rule.trigger
    with pytest.raises(ConfigError):
        mem.edit(rule.id)  # nothing to change
