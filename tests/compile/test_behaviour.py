"""Behaviour identity: two rules conflict only when they govern the same slot with
incompatible values; rules that share words but govern different things never suppress
each other."""

from __future__ import annotations

from dctx.compile.behaviour import amounts, contradicts, identity, resets
from dctx.memory import Memory
from dctx.models import Rule, RuleSource, RuleStatus, RuleType, Scope, Trigger, TriggerKind


def _rule(text: str, actor: str = "a") -> Rule:
    return Rule(
        id=f"rule_{abs(hash((text, actor)))}",
        text=text,
        type=RuleType.CONTENT,
        trigger=Trigger(TriggerKind.ALWAYS, text=text),
        scope=Scope(skill="devops"),
        source=RuleSource.CORRECTION,
        actor=actor,
        group="g",
    )


def _turn(correction: str) -> list[dict[str, str]]:
    return [
        {"role": "user", "content": "deploy the api service"},
        {"role": "assistant", "content": "Deployed the api service with kubectl apply."},
        {"role": "user", "content": correction},
        {"role": "assistant", "content": "Understood."},
    ]


def test_identity_reads_flags_and_assignments() -> None:
    assert identity("Always use --namespace staging for test deploys.").settings == {
        "namespace": "staging"
    }
    assert identity('Call get_price with `source`="polygon".').settings == {"source": "polygon"}
    assert identity("Never scale deployments without a change ticket.").settings == {}


def test_same_parameter_conflicts_only_on_another_value() -> None:
    staging = _rule("Always use --namespace staging for test deploys.", "dana")
    qa = _rule("Always use --namespace qa for test deploys.", "lee")
    again = _rule("Use --namespace staging when deploying tests.", "lee")
    assert contradicts(staging, qa, similarity=0.2)
    assert not contradicts(staging, again, similarity=0.99)


def test_a_parameter_and_an_action_are_different_slots() -> None:
    staging = _rule("Always use --namespace staging for test deploys.", "dana")
    scaling = _rule(
        "Never scale deployments in production namespaces without a change ticket.", "lee"
    )
    # however similar the words, a rule that sets --namespace does not contradict one that
    # does not set it and says something else
    assert not contradicts(staging, scaling, similarity=0.6)
    worded = _rule("Use the qa namespace for test deploys.", "lee")
    assert contradicts(staging, worded, similarity=0.75)  # names the parameter, same behaviour


def test_different_parameters_never_conflict() -> None:
    a = _rule("Always pass --replicas 3 for web deploys.", "dana")
    b = _rule("Always pass --namespace web for web deploys.", "lee")
    assert not contradicts(a, b, similarity=0.95)


def test_devops_team_safety_rule_reaches_every_actor(mem: Memory) -> None:
    """The issue's case: dana's namespace rule and the team's scaling rule were one conflict
    group, so dana (who owned the other rule) never got the team's safety rule."""
    mem.capture(
        _turn("Always use --namespace staging for test deploys."),
        actor="dana",
        skill="devops",
        conversation_id="c1",
    )
    mem.capture(
        _turn(
            "Team policy: never scale deployments in production namespaces without a change ticket."
        ),
        actor="lee",
        skill="devops",
        conversation_id="c2",
    )
    rules = {r.actor: r for r in mem.rules(skill="devops")}
    assert set(rules) == {"dana", "lee"}
    assert rules["dana"].group != rules["lee"].group
    safety = rules["lee"].text
    for actor in ("dana", "lee", "kim"):
        run = mem.start(actor=actor, skill="devops", query="scale the web deployment")
        delivered = " ".join(u.text for u in run.units)
        assert safety in delivered, actor
    dana = mem.start(actor="dana", skill="devops", query="scale the web deployment")
    assert rules["dana"].text in " ".join(u.text for u in dana.units)
    # explain says there is no conflict for dana
    why = mem.explain(rules["lee"].id, actor="dana", skill="devops")
    assert why["conflict"]["reason"] == "no_conflict" and not why["conflict"]["lost"]


def test_two_actors_setting_one_parameter_differently_still_conflict(mem: Memory) -> None:
    mem.capture(
        _turn("Always use --namespace staging for test deploys."),
        actor="dana",
        skill="devops",
        conversation_id="c1",
    )
    mem.capture(
        _turn("Always use --namespace qa for test deploys."),
        actor="lee",
        skill="devops",
        conversation_id="c2",
    )
    rules = {r.actor: r for r in mem.rules(skill="devops")}
    assert rules["dana"].group == rules["lee"].group


def test_setting_another_parameter_does_not_supersede(mem: Memory) -> None:
    """A person's second rule about another parameter of the same command is a second rule,
    not a replacement of the first ("from now on" lowered the bar for replacing)."""
    mem.capture(
        _turn("Always pass --replicas 3 when you deploy web services."),
        actor="dana",
        skill="devops",
        conversation_id="c1",
    )
    mem.capture(
        _turn("From now on, always pass --namespace web when you deploy web services."),
        actor="dana",
        skill="devops",
        conversation_id="c2",
    )
    rules = mem.rules(skill="devops")
    assert len(rules) == 2 and all(r.status.value == "active" for r in rules)
    assert len({r.group for r in rules}) == 2


def test_a_replacement_in_words_restates_the_parameter_it_names() -> None:
    from dctx.compile.behaviour import restate

    old = "Always use --namespace staging for test deploys."
    assert (
        restate(old, "Use the qa namespace now.") == "Always use --namespace qa for test deploys."
    )
    assert restate("Set timeout=30 on health checks.", "make the timeout 60") == (
        "Set timeout=60 on health checks."
    )
    assert restate(old, "Use the blue theme.") is None  # names no parameter of the rule
    assert restate(old, "Use --namespace qa.") is None  # sets it itself: a rule of its own


def test_setting_a_parameter_again_is_never_a_duplicate() -> None:
    from dctx.compile.behaviour import resets

    assert resets(
        _rule("Always use --retries 3 for syncs."), _rule("Always use --retries 5 for syncs.")
    )
    assert not resets(_rule("Use --retries 3."), _rule("Use --retries 3 always."))
    assert not resets(_rule("Use --retries 3."), _rule("Use --timeout 5."))


def test_devops_withdraw_and_replace_in_one_turn_learns_the_new_namespace(mem: Memory) -> None:
    """The issue's case: "forget the staging rule; we use the qa namespace now" withdrew the
    old rule and learned nothing about qa."""
    mem.capture(
        _turn("Always use --namespace staging for test deploys."),
        actor="dana",
        skill="devops",
        conversation_id="c1",
        timestamp="2026-03-01T10:00:00Z",
    )
    mem.capture(
        _turn("forget the staging rule; we use the qa namespace now"),
        actor="dana",
        skill="devops",
        conversation_id="c2",
        timestamp="2026-03-02T10:00:00Z",
    )
    active = [r.text for r in mem.rules(skill="devops", status=RuleStatus.ACTIVE)]
    assert active == ["Always use --namespace qa for test deploys."]
    withdrawn = [r.text for r in mem.rules(skill="devops", status=RuleStatus.WITHDRAWN)]
    assert withdrawn == ["Always use --namespace staging for test deploys."]
    run = mem.start(actor="dana", skill="devops", query="deploy the api to test", record=False)
    delivered = "\n".join(r.text for r in run.rules)
    assert "--namespace qa" in delivered and "staging" not in delivered


def test_a_new_amount_is_never_a_duplicate() -> None:
    old = _rule("Lane rentals are $12 an hour.")
    assert resets(old, _rule("Lane rentals are $14 an hour now, not $12."))
    assert not resets(old, _rule("Lane rentals are $12 an hour, every lane."))
    # the value a rule says it replaces is not a value it sets
    assert amounts("Rush is 30% now, up from 25%.") == {"%": frozenset({"30"})}
