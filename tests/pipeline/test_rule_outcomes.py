"""Rules earn their place: a scripted second session changes a delivered rule's status.

Real Memory on both store backends, the offline embedder, no LLM. A run is started for a
conversation (so its deliveries are recorded), then the conversation is captured: what the
user said in it decides how each delivered rule did (compile/outcomes.py).
"""

from __future__ import annotations

from datetime import timedelta

from dctx.memory import Memory
from dctx.models import RuleEventKind, RuleStatus
from dctx.review.stale import parse_time
from pipeline.traces import assistant, call, result, texts, user

SKILL = "financial_analyst"
QUERY = "Summarize Acme Corp's growth."


def session(correction: str) -> list[dict[str, object]]:
    return [
        user(QUERY),
        call("c1", "get_financials", company="Acme Corp"),
        result("c1", {"revenue": [10, 12], "segments": {"enterprise": 7, "smb": 5}}),
        assistant("Acme grew revenue 20% quarter over quarter."),
        user(correction),
        assistant("Understood."),
        user("Thanks, that's all."),
    ]


def seed(mem: Memory, correction: str, actor: str = "alice") -> str:
    mem.capture(session(correction), actor=actor, skill=SKILL, conversation_id="s1")
    [rule] = mem.rules()
    return rule.id


def delivered_then_captured(mem: Memory, conv: str, correction: str, actor: str = "alice") -> str:
    """A run for conversation `conv` is given the rules, then the conversation is captured.
    Returns the run's id."""
    run = mem.start(actor=actor, skill=SKILL, query=QUERY, conversation_id=conv)
    assert run.units, "the seeded rule must be delivered for the test to mean anything"
    mem.capture(session(correction), actor=actor, skill=SKILL, conversation_id=conv)
    return run.id


def kinds(mem: Memory, rule_id: str) -> list[RuleEventKind]:
    return [e.kind for e in mem.outcomes_of(rule_id)]


def test_a_second_session_contradicting_a_delivered_rule_supersedes_it(
    backend_mem: Memory,
) -> None:
    mem = backend_mem
    old = seed(mem, "Always report revenue growth as ARR.")
    run_id = delivered_then_captured(
        mem, "s2", "Actually, report revenue growth as QRR instead of ARR."
    )
    assert mem.rule(old).status is RuleStatus.SUPERSEDED
    events = mem.outcomes_of(old)
    assert [e.kind for e in events] == [
        RuleEventKind.DELIVERED,
        RuleEventKind.CONTRADICTED,
        RuleEventKind.STATUS,
    ]
    delivered, contradicted, status = events
    assert delivered.run_id == contradicted.run_id == run_id
    assert contradicted.conversation_id == "s2" and contradicted.detail["how"] == ["superseded"]
    # the status change names its evidence: the contradiction event
    assert status.detail["from"] == "active" and status.detail["to"] == "superseded"
    assert status.detail["evidence"] == [contradicted.id]
    later = mem.start(actor="alice", skill=SKILL, query=QUERY)
    assert any("QRR" in t for t in texts(later.units))
    assert not any(t.endswith("as ARR.") for t in texts(later.units))


def test_a_member_correcting_against_a_delivered_team_rule_demotes_it_at_once(
    backend_mem: Memory,
) -> None:
    mem = backend_mem
    team = seed(mem, "Company policy: always cite the filing date.")
    assert mem.rule(team).scope.actor is None
    delivered_then_captured(
        mem,
        "s2",
        "No, always cite the period end date instead of the filing date.",
        actor="bob",
    )
    rule = mem.rule(team)
    assert rule.status is RuleStatus.CANDIDATE  # kept, never injected until approved
    assert kinds(mem, team)[-2:] == [RuleEventKind.CONTRADICTED, RuleEventKind.STATUS]
    carol = mem.start(actor="carol", skill=SKILL, query=QUERY)
    assert not any("filing date" in t for t in texts(carol.units))
    mem.approve(team)  # a person disagrees: back, and that change carries its note too
    assert mem.rule(team).status is RuleStatus.ACTIVE
    last = mem.outcomes_of(team)[-1]
    assert last.kind is RuleEventKind.STATUS and last.detail["to"] == "active"


def test_a_mistake_recurring_despite_the_delivered_rule_flags_it(backend_mem: Memory) -> None:
    mem = backend_mem
    rule_id = seed(mem, "Always report revenue growth as ARR.")
    first = delivered_then_captured(mem, "s2", "Always report revenue growth as ARR.")
    assert kinds(mem, rule_id) == [RuleEventKind.DELIVERED, RuleEventKind.RECURRED]
    assert mem.rule(rule_id).flagged_at is None  # once may be chance
    assert mem.flagged() == []
    second = delivered_then_captured(mem, "s3", "Please always report revenue growth as ARR.")
    rule = mem.rule(rule_id)
    assert rule.status is RuleStatus.ACTIVE and rule.flagged_at is not None
    assert [r.id for r in mem.flagged()] == [rule_id]
    flag = mem.outcomes_of(rule_id)[-1]
    assert flag.kind is RuleEventKind.FLAGGED
    assert set(flag.detail["runs"]) == {first, second}
    health = mem.health()
    assert health.counts["flagged"] == 1 and [r.id for r in health.flagged] == [rule_id]
    mem.edit(rule_id, "Report revenue growth as ARR, in the first sentence.")
    assert mem.rule(rule_id).flagged_at is None
    assert kinds(mem, rule_id)[-1] is RuleEventKind.UNFLAGGED


def test_a_delivered_rule_nothing_happened_to_is_quiet(backend_mem: Memory) -> None:
    mem = backend_mem
    rule_id = seed(mem, "Always report revenue growth as ARR.")
    delivered_then_captured(mem, "s2", "Great, thanks! Now can you pull up Globex's filings?")
    assert kinds(mem, rule_id) == [RuleEventKind.DELIVERED, RuleEventKind.QUIET]
    assert mem.rule(rule_id).status is RuleStatus.ACTIVE


def test_a_session_without_recorded_deliveries_changes_nothing(backend_mem: Memory) -> None:
    mem = backend_mem
    old = seed(mem, "Company policy: always cite the filing date.")
    mem.start(actor="bob", skill=SKILL, query=QUERY)  # no conversation id: another run
    mem.capture(
        session("No, always cite the period end date instead of the filing date."),
        actor="bob",
        skill=SKILL,
        conversation_id="s2",
    )
    assert mem.rule(old).status is RuleStatus.ACTIVE  # maintenance's conflict group as before
    assert kinds(mem, old) == [RuleEventKind.DELIVERED]


def test_a_correction_before_a_stage2_delivery_is_not_an_outcome_of_it(mem: Memory) -> None:
    mem.capture(
        session("When a company reports segments, give growth per segment, not the total."),
        actor="alice",
        skill=SKILL,
        conversation_id="s1",
    )
    [rule] = mem.rules()
    run = mem.start(actor="alice", skill=SKILL, query=QUERY, conversation_id="s2")
    assert run.units == []
    units = run.observe(
        {"name": "get_financials", "arguments": {"company": "Beta"}},
        '{"revenue": [20, 21], "segments": {"enterprise": 15, "smb": 6}}',
    )
    assert units and run.decision_point == 1
    # in the captured conversation, the user said it again before that tool result
    mem.capture(
        [
            user(QUERY),
            assistant("Sure."),
            user("When a company reports segments, give growth per segment, not the total."),
            call("c1", "get_financials", company="Beta"),
            result("c1", {"revenue": [20, 21], "segments": {"enterprise": 15, "smb": 6}}),
            assistant("Beta grew 5%, enterprise 8%."),
        ],
        actor="alice",
        skill=SKILL,
        conversation_id="s2",
    )
    assert kinds(mem, rule.id) == [RuleEventKind.DELIVERED, RuleEventKind.QUIET]


def test_a_rule_idle_for_n_days_is_stale_and_archived_only_when_asked(
    backend_mem: Memory,
) -> None:
    mem = backend_mem
    rule_id = seed(mem, "Always report revenue growth as ARR.")
    created = parse_time(mem.rule(rule_id).created_at)
    assert created is not None
    soon, later = created + timedelta(days=10), created + timedelta(days=31)
    assert mem.stale(days=30, now=soon) == []
    [item] = mem.stale(days=30, now=later)
    assert item.rule.id == rule_id and item.last_triggered is None
    assert mem.rule(rule_id).status is RuleStatus.ACTIVE  # listing archives nothing
    [archived] = mem.archive_stale(days=30, now=later)
    assert archived.status is RuleStatus.ARCHIVED
    status = mem.outcomes_of(rule_id)[-1]
    assert status.kind is RuleEventKind.STATUS and "last delivered: never" in status.detail["why"]
    assert mem.start(actor="alice", skill=SKILL, query=QUERY).units == []
    mem.enable(rule_id)
    assert mem.start(actor="alice", skill=SKILL, query=QUERY, conversation_id="s2").units
    delivery = mem.outcomes_of(rule_id)[-1]
    assert delivery.kind is RuleEventKind.DELIVERED
    delivered_at = parse_time(delivery.at)
    assert delivered_at is not None
    # idle time now counts from that delivery, however old the rule is
    assert mem.stale(days=30, now=delivered_at + timedelta(days=10)) == []
    [again] = mem.stale(days=30, now=delivered_at + timedelta(days=31))
    assert again.last_triggered == delivery.at


def test_outcome_tracking_off_records_nothing(mem: Memory) -> None:
    from dctx.compile.outcomes import OutcomePolicy

    quiet = Memory(mem.store, embedder=mem.embedder, outcomes=OutcomePolicy(track=False))
    rule_id = seed(quiet, "Always report revenue growth as ARR.")
    run = quiet.start(actor="alice", skill=SKILL, query=QUERY, conversation_id="s2")
    assert run.units
    quiet.capture(session("Always report revenue growth as ARR."), actor="alice", skill=SKILL,
                  conversation_id="s2")  # fmt: skip
    assert quiet.outcomes_of(rule_id) == []


def test_previews_and_what_ifs_record_nothing(mem: Memory) -> None:
    rule_id = seed(mem, "Always report revenue growth as ARR.")
    why = mem.explain(rule_id, query=QUERY, actor="alice", skill=SKILL)
    assert why["run"]["verdict"]
    assert mem.start(actor="alice", skill=SKILL, query=QUERY, record=False).units
    assert mem.outcomes_of(rule_id) == []


def test_every_status_change_a_capture_makes_carries_its_evidence(backend_mem: Memory) -> None:
    mem = backend_mem
    old = seed(mem, "Always report revenue growth as ARR.")
    mem.capture(  # no run was given the rule: a plain supersession
        session("Actually, report revenue growth as QRR instead of ARR."),
        actor="alice",
        skill=SKILL,
        conversation_id="s2",
    )
    [new] = mem.rules(status=RuleStatus.ACTIVE)
    [status] = mem.outcomes_of(old)
    assert status.kind is RuleEventKind.STATUS and status.actor == "alice"
    assert (status.detail["from"], status.detail["to"]) == ("active", "superseded")
    assert status.detail["by"] == [new.id] and status.conversation_id == "s2"
    [evidence] = mem.store.get_evidence(status.detail["evidence"])
    assert evidence.conversation_id == "s2" and "QRR" in evidence.text
