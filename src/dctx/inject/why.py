"""Why a rule would or would not fire at each decision point of a run.

Replays a run with the real `Run` and `Retriever` (so the answer is what injection does, not a
re-implementation of it) and, at each decision point, adds the reasons: is the rule in scope and
active, which trigger kind routes it, is its condition met (which keywords or numbers), how
similar is the query or tool step against the embedder's calibrated floor. Used by
`Memory.explain(rule_id, query=...)`, `dctx rules explain` and the demo.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from dctx.capture.subjects import mask_instances
from dctx.inject.run import Run
from dctx.models import Rule, RuleStatus, TriggerKind
from dctx.providers.base import embed_query
from dctx.retrieve.condition_match import ConditionModel, names_subject
from dctx.retrieve.conflicts import Decision
from dctx.retrieve.context import RunContext, data_condition_met, judge_soft, threshold_fields
from dctx.retrieve.engine import Retriever
from dctx.retrieve.items import judge


@dataclass(slots=True)
class PointCheck:
    """The rule at one decision point (0: before the run; k: after the k-th tool result)."""

    decision_point: int
    where: str  # "before the run" / "after get_segments returned"
    eligible: bool  # passes its trigger test here (before conflicts, top-k and budget)
    condition: str  # what was tested and what was found
    similarity: float | None = None
    floor: float | None = None
    retrieved: bool = False  # returned by the retriever (after conflict resolution)
    delivered: bool = False  # handed to the agent here
    status: str = ""  # delivered | silent | already delivered | blocked
    outcome: str = ""  # one sentence


@dataclass(slots=True)
class Explanation:
    rule_id: str
    text: str
    type: str
    status: str
    trigger: str
    scope: str
    in_scope: bool
    scope_note: str
    points: list[PointCheck] = field(default_factory=list)
    delivered_at: int | None = None
    verdict: str = ""
    conflict: dict[str, Any] | None = None  # its group's resolution for this actor

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def describe_trigger(rule: Rule) -> str:
    """The trigger in words: what has to happen for the rule to be delivered."""
    trig = rule.trigger
    if trig.kind is TriggerKind.ALWAYS:
        return "always: every run in scope, before the first model call"
    if trig.kind is TriggerKind.QUERY:
        return f"query: a query or tool step similar to {trig.text!r}"
    if trig.kind is TriggerKind.DATA:
        if trig.numeric is not None:
            num = trig.numeric
            said = f"data: a field about {'/'.join(num.terms)} {num.op} {num.value:g}"
            if trig.predicate is not None and trig.predicate.unit:
                said += f", or {trig.predicate.describe()}"
            return said
        if trig.excluded:
            return (
                f"data: a field about {trig.keywords or 'the same kind of value'} holds a value "
                f"other than {trig.excluded}"
            )
        if trig.predicate is not None and trig.predicate.soft and not trig.keywords:
            # a negated condition (compile/branches.py): never met by free text
            return f"data: a tool result holds {trig.predicate.describe()}"
        if trig.predicate is not None and trig.predicate.soft:
            return (
                f"data: a tool result holds {trig.predicate.describe()}; where none has such "
                f"a field, the query or a tool step says {trig.text!r} (in its words or others)"
            )
        if trig.predicate is not None:
            return f"data: a tool result holds {trig.predicate.describe()} (or the query says so)"
        if names_subject(rule):
            return f"data: the query or tool data mention every word of {trig.keywords}"
        return f"data: the query or a tool step says {trig.text!r} (in its words or others)"
    when = f"after {trig.after_tool} returns" if trig.after_tool else "up front"
    return f"tool: before calling {trig.tool} ({when})"


def describe_scope(rule: Rule) -> str:
    parts = [f"namespace={rule.scope.namespace}"]
    parts.append(f"skill={rule.scope.skill or '*'}")
    parts.append(f"actor={rule.scope.actor or '*'}")
    if rule.scope.subject:
        parts.append(f"subject={rule.scope.subject}")
    return " ".join(parts)


def free_text_condition(
    rule: Rule, ctx: RunContext, cosine: float | None, model: ConditionModel
) -> tuple[bool, str]:
    """Is a free-text condition met by the latest text (the query, then each step): the
    retriever's own test (condition_match.py) with its cosine and the words seen."""
    stems = ctx.step_stems | ctx.query_stems if ctx.steps else ctx.query_stems
    trig = rule.trigger
    met = cosine is not None and model.met(cosine, trig.text, trig.keywords, stems)
    pred = trig.predicate
    if (
        pred is not None
        and ctx.last_structured
        and (not pred.soft or judge_soft(pred, ctx, latest=True).testable)
    ):
        met = False  # a predicate is judged on the items of a JSON result that it can test
    hits = [k for k in trig.keywords if k in stems]
    sim = "no vector" if cosine is None else f"similarity {cosine:.2f}"
    return met, f"{'met' if met else 'not met'}: {sim}, seen {hits or 'none'} of {trig.keywords}"


def condition_text(rule: Rule, ctx: RunContext) -> tuple[bool, str]:
    """Is a DATA trigger met by what the run has seen, and the evidence either way."""
    trig = rule.trigger
    met = data_condition_met(trig, ctx)
    if trig.numeric is not None:
        seen = [f"{'.'.join(sorted(p))}={v:g}" for p, v in threshold_fields(trig.numeric, ctx)]
        shown = ", ".join(seen[:4]) if seen else "no such field seen yet"
        if trig.predicate is not None and trig.predicate.unit:  # a date window too
            dated = judge(trig.predicate, ctx.items, ctx.now).evidence
            shown += f"; {trig.predicate.describe()}? {', '.join(dated) or 'no such date seen'}"
        return met, f"{'met' if met else 'not met'}: {shown}"
    if trig.excluded:
        seen = [f"{'.'.join(sorted(p))}={v}" for p, v in ctx.strings[-6:]]
        shown = ", ".join(seen) if seen else "no string field seen yet"
        return met, f"{'met' if met else 'not met'}: {shown}"
    if trig.predicate is not None and trig.predicate.soft:
        verdict = judge_soft(trig.predicate, ctx)
        if not verdict.testable:
            return met, (
                f"not tested: no result has a field for {trig.predicate.describe()}; "
                "left to the free-text match"
            )
        fields = ", ".join(verdict.evidence)
        return met, f"{'met' if met else 'not met'}: {trig.predicate.describe()}? {fields}"
    if trig.predicate is not None:
        items = f"{len(ctx.items)} result items seen"
        return met, f"{'met' if met else 'not met'}: {trig.predicate.describe()}? {items}"
    hits = [k for k in trig.keywords if k in ctx.stems]
    return met, f"{'met' if met else 'not met'}: seen {hits or 'none'} of {trig.keywords}"


class _Vectors:
    """Row lookup of a rule's text/trigger vectors in the retriever's current snapshot."""

    def __init__(self, retriever: Retriever, namespace: str) -> None:
        self.snap = retriever.snapshot(namespace)

    def row(self, rule_id: str) -> int | None:
        return self.snap.slot_of(rule_id)

    def trigger_similarity(self, rule_id: str, vec: np.ndarray) -> float | None:
        row = self.row(rule_id)
        if row is None:
            return None
        trigger = np.asarray(self.snap.trigger_vectors[row], dtype=np.float32)
        return float(trigger @ np.asarray(vec, dtype=np.float32))

    def similarity(self, rule_id: str, vec: np.ndarray) -> float | None:
        row = self.row(rule_id)
        if row is None:
            return None
        vec = np.asarray(vec, dtype=np.float32)
        text, trigger = (
            np.asarray(m[row], dtype=np.float32)
            for m in (self.snap.text_vectors, self.snap.trigger_vectors)
        )
        return float(max(trigger @ vec, text @ vec))


def check_point(
    run: Run,
    rule: Rule,
    *,
    dp: int,
    delivered_before: set[str],
    retrieved: set[str],
    lost: str | None = None,
) -> PointCheck:
    """Check `rule` at the run's current decision point (call right after start / observe)."""
    ctx = run.ctx
    last = ctx.tools_called[-1] if ctx.tools_called else None
    where = "before the run" if dp == 0 else f"after {last} returned"
    delivered_now = any(d.decision_point == dp and d.rule.id == rule.id for d in run.deliveries)
    check = PointCheck(dp, where, False, "", retrieved=rule.id in retrieved)
    check.delivered = delivered_now
    kind = rule.trigger.kind
    if kind is TriggerKind.ALWAYS:
        check.eligible = dp == 0
        check.condition = "always applies" if dp == 0 else "always-rules go out before the run"
    elif kind is TriggerKind.TOOL:
        trig = rule.trigger
        if trig.after_tool is None:
            offered = run.tools is None or trig.tool in run.tools
            check.eligible = dp == 0 and offered
            if dp > 0:
                check.condition = "up-front tool rule: goes out before the run"
            elif offered:
                check.condition = f"{trig.tool} is among the run's tools"
            else:
                check.condition = f"{trig.tool} is not among the run's tools {run.tools}"
        else:
            check.eligible = dp > 0 and last == trig.after_tool
            check.condition = (
                f"{trig.after_tool} just returned; {trig.tool} may come next"
                if check.eligible
                else f"waits for {trig.after_tool} to return (last tool: {last or 'none'})"
            )
    elif kind is TriggerKind.DATA:
        check.eligible, check.condition = condition_text(rule, ctx)
        if _free_text(rule):
            text = run.ctx.summaries[-1] if dp > 0 else mask_instances(run.query)  # as Run embeds
            cosine = _Vectors(run.retriever, run.namespace).trigger_similarity(
                rule.id, embed_query(run.embedder, [text])[0]
            )
            free, said = free_text_condition(rule, ctx, cosine, run.retriever.conditions)
            pred = rule.trigger.predicate
            if pred is None or (pred.soft and not judge_soft(pred, ctx).testable):
                check.eligible, check.condition = free, said
            elif free and dp > 0:
                check.eligible, check.condition = True, said
    else:
        _query_check(check, run, rule, dp)
    check.outcome = _outcome(check, rule, delivered_before, lost)
    return check


def _free_text(rule: Rule) -> bool:
    """Judged by the condition model (retrieve/engine.py `View._file`)."""
    trig = rule.trigger
    return (
        trig.numeric is None and bool(trig.keywords) and not trig.excluded
    ) and not names_subject(rule)


def _query_check(check: PointCheck, run: Run, rule: Rule, dp: int) -> None:
    """Similarity of the query (stage 1) or the latest tool step (stage 2) to the rule, with
    the retriever's own pass/fail test."""
    vectors = _Vectors(run.retriever, run.namespace)
    row = vectors.row(rule.id)
    if row is None:
        check.condition = "not in the index of active rules"
        return
    cal = run.retriever.calibration
    if dp == 0:
        vec = embed_query(run.embedder, [mask_instances(run.query)])[0]  # as Run embeds the query
        check.floor = cal.query_floor
        snap = run.retriever.snapshot(run.namespace)
        passed = run.retriever._query_matches(
            run.namespace, snap, [row], vec, run.query, skill=run.skill
        )
        check.eligible = bool(passed)
        label = "query"
    else:
        vec = embed_query(run.embedder, [run.ctx.summaries[-1]])[0]  # as Run.observe embeds it
        check.floor = cal.step_floor
        label = "tool step"
    check.similarity = vectors.similarity(rule.id, vec)
    sim = check.similarity if check.similarity is not None else float("nan")
    if dp > 0:
        check.eligible = sim >= check.floor
    cmp = ">=" if sim >= check.floor else "<"
    check.condition = f"{label} similarity {sim:.2f} {cmp} floor {check.floor:.2f}"
    if check.eligible and sim < check.floor:
        check.condition += " (passes as a conditional rule whose condition the query meets)"


def _outcome(
    check: PointCheck, rule: Rule, delivered_before: set[str], lost: str | None = None
) -> str:
    check.status = "silent"
    if rule.id in delivered_before:
        check.status = "already delivered"
        return "already delivered earlier (a rule is never sent twice in a run)"
    if check.delivered:
        check.status = "delivered"
        return f"delivered: {check.condition}"
    if not check.eligible:
        return f"silent: {check.condition}"
    if not check.retrieved:
        if lost is not None:
            return f"silent: trigger passed, but {lost}"
        return "silent: trigger passed, but it was outranked by other query matches (top-k)"
    return "silent: trigger passed, but the token budget was already used up"


def explain_run(
    mem: Any,
    rules: Sequence[Rule],
    *,
    actor: str,
    skill: str,
    query: str,
    tools: Sequence[str] | None = None,
    steps: Sequence[tuple[dict[str, Any], str]] = (),
    namespace: str | None = None,
) -> tuple[Run, list[Explanation]]:
    """Replay a run (query, then each (call, result) step) and explain each of `rules` at
    every decision point. Returns the finished run and one explanation per rule."""
    ns = namespace or (rules[0].scope.namespace if rules else mem.namespace)
    out = [_explanation(rule, ns, skill=skill, actor=actor) for rule in rules]
    run: Run = mem.start(  # a what-if: nothing is delivered, nothing recorded
        actor=actor, skill=skill, query=query, tools=tools, namespace=ns, record=False
    )
    retriever: Retriever = run.retriever
    losses: list[str | None] = []
    for rule, expl in zip(rules, out, strict=True):
        expl.conflict = explain_conflict(retriever, rule, namespace=ns, skill=skill, actor=actor)
        losses.append(expl.conflict["summary"] if expl.conflict["lost"] else None)
    query_vec = embed_query(run.embedder, [query])[0]
    found = retriever.stage1(
        ns, skill=skill, actor=actor, ctx=run.ctx, query_vec=query_vec, tools=run.tools
    )
    for rule, expl, lost in zip(rules, out, losses, strict=True):
        expl.points.append(
            check_point(run, rule, dp=0, delivered_before=set(), retrieved=_ids(found), lost=lost)
        )
    for call, result in steps:
        before = {d.rule.id for d in run.deliveries}
        run.observe(call, result)
        step_vec = embed_query(run.embedder, [run.ctx.summaries[-1]])[0]
        found = retriever.stage2(
            ns, skill=skill, actor=actor, ctx=run.ctx, step_vec=step_vec, delivered=before
        )
        for rule, expl, lost in zip(rules, out, losses, strict=True):
            expl.points.append(
                check_point(
                    run,
                    rule,
                    dp=run.decision_point,
                    delivered_before=before,
                    retrieved=_ids(found),
                    lost=lost,
                )
            )
    for rule, expl in zip(rules, out, strict=True):
        _finish(expl, rule)
    return run, out


_REASONS = {
    "own_rule": "{actor}'s own rule wins in its group",
    "majority": "the rule with the most support wins in its group ({support})",
    "abstain": "no rule of its group has a majority ({support}), so none is delivered",
}


def explain_conflict(
    retriever: Retriever, rule: Rule, *, namespace: str, skill: str, actor: str
) -> dict[str, Any]:
    """How the rule's conflict group is resolved for `actor`: the winner and why (own rule,
    majority, abstain), or that there is no conflict. `lost` is True when the rule is a member
    the resolution keeps out."""
    decision: Decision = retriever.conflict(namespace, rule.group, skill=skill, actor=actor)
    snap = retriever.snapshot(namespace)
    texts = {w: snap.rule(i) for w in decision.winners if (i := snap.slot_of(w)) is not None}
    lost = rule.id in decision.members and rule.id not in decision.winners
    out: dict[str, Any] = {
        **decision.to_dict(),
        "winner_texts": [texts[w].text for w in decision.winners if w in texts],
        "lost": lost,
    }
    if decision.reason == "no_conflict":
        out["summary"] = "no conflict: no other actor's rule governs the same behaviour"
        return out
    support = ", ".join(f"{texts[m].actor}: {n}" for m, n in decision.support.items() if m in texts)
    why = _REASONS[decision.reason].format(actor=actor, support=support)
    if decision.winners:
        won = "; ".join(f"{w} ({texts[w].text!r} by {texts[w].actor})" for w in decision.winners)
        out["summary"] = f"{'lost' if lost else 'won'}: {why}: {won}"
    else:
        out["summary"] = f"lost: {why}"
    return out


def _explanation(rule: Rule, namespace: str, *, skill: str, actor: str) -> Explanation:
    in_scope = rule.scope.admits(namespace=namespace, skill=skill, actor=actor)
    return Explanation(
        rule_id=rule.id,
        text=rule.text,
        type=rule.type.value,
        status=rule.status.value,
        trigger=describe_trigger(rule),
        scope=describe_scope(rule),
        in_scope=in_scope,
        scope_note="admitted" if in_scope else _scope_miss(rule, namespace, skill, actor),
    )


def _finish(out: Explanation, rule: Rule) -> None:
    blocked = _blocked(out, rule)
    if blocked:
        for point in out.points:
            point.status = "blocked"
            point.outcome = f"silent: {blocked}"
    hit = [p.decision_point for p in out.points if p.delivered]
    out.delivered_at = hit[0] if hit else None
    out.verdict = _verdict(out, rule)


def _ids(rules: Sequence[Rule]) -> set[str]:
    return {r.id for r in rules}


def _scope_miss(rule: Rule, namespace: str, skill: str, actor: str) -> str:
    if rule.scope.namespace != namespace:
        return f"not admitted: the rule is in namespace {rule.scope.namespace!r}"
    if rule.scope.skill is not None and rule.scope.skill != skill:
        return f"not admitted: the rule is for skill {rule.scope.skill!r}, not {skill!r}"
    return f"not admitted: the rule is for actor {rule.scope.actor!r}, not {actor!r}"


def _blocked(out: Explanation, rule: Rule) -> str | None:
    """What keeps the rule out of every run, whatever its trigger says (None: nothing)."""
    if rule.status is not RuleStatus.ACTIVE:
        hint = {
            RuleStatus.DRAFT: f"approve it with: dctx rules approve {rule.id}",
            RuleStatus.CANDIDATE: (
                "a lesson taken from tool output, waiting to recur in other actors' "
                f"conversations; approve it with: dctx rules approve {rule.id}"
            ),
            RuleStatus.DISABLED: f"enable it with: dctx rules enable {rule.id}",
        }.get(rule.status, "only active rules are injected")
        return f"its status is {rule.status.value} ({hint})"
    if not out.in_scope:
        return out.scope_note
    return None


def _verdict(out: Explanation, rule: Rule) -> str:
    blocked = _blocked(out, rule)
    if blocked:
        return f"would NOT fire: {blocked}"
    if out.delivered_at is not None:
        point = out.points[out.delivered_at]
        return f"FIRES at decision point {point.decision_point} ({point.where}): {point.condition}"
    last = out.points[-1]
    return f"would NOT fire in this run: {last.outcome.removeprefix('silent: ')}"
