"""A replacement lesson whose old tool works again (capture/replacements.py `Reversal`).

"Use B instead of A" was learned from conversations where A failed and B worked. A later
conversation where A worked is evidence against it: when the net support falls below the
threshold the lesson is demoted to CANDIDATE (kept, never injected, back when the failures
recur or with `approve`); otherwise it stays active and is flagged for a person to review.
Each change is a STATUS or FLAGGED rule event naming the conversation where A worked.

Forgetting takes conversations out of the counts: `unsupported` lists the live lessons the
kept conversations no longer admit, for `Memory.forget_actor` to demote.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from dctx.capture.base import ToolPattern
from dctx.capture.replacements import MIN_REPLACEMENT_SESSIONS, Reversal, standing
from dctx.compile.maintain import same_scope
from dctx.compile.tool_rules import compile_tool_signal
from dctx.models import Rule, RuleEvent, RuleEventKind, RuleSource, RuleStatus, utcnow
from dctx.store.base import Store

_LIVE = (RuleStatus.ACTIVE, RuleStatus.DRAFT)


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def _target(rules: Sequence[Rule], reversal: Reversal) -> list[Rule]:
    """The stored, live rules that say what the reversal's lesson says."""
    compiled = compile_tool_signal(reversal.lesson)
    if compiled is None:
        return []
    lesson, _ = compiled
    return [
        r
        for r in rules
        if r.group == lesson.group
        and r.status in _LIVE
        and same_scope(r.scope, lesson.scope)
        and _norm(r.text) == _norm(lesson.text)
    ]


def apply_reversals(
    rules: Sequence[Rule], reversals: Sequence[Reversal]
) -> tuple[list[Rule], list[RuleEvent]]:
    """Demote or flag the live lessons the reversals are about; the changed rules and events."""
    changed: dict[str, Rule] = {}
    events: list[RuleEvent] = []
    for reversal in reversals:
        for rule in _target(rules, reversal):
            why = (
                f"{reversal.lesson.tool} worked in conversation {reversal.conversation_id}: "
                f"replaced in {reversal.support}, worked in {reversal.against} since"
            )
            now = utcnow()
            if reversal.net < MIN_REPLACEMENT_SESSIONS:
                was = rule.status
                rule.status = RuleStatus.CANDIDATE
                rule.updated_at = now
                rule.history.append(
                    {"at": now, "event": "status", "from": was.value, "to": "candidate",
                     "note": why, "conversation": reversal.conversation_id}
                )  # fmt: skip
                kind = RuleEventKind.STATUS
                detail: dict[str, Any] = {
                    "from": was.value,
                    "to": "candidate",
                    "why": why,
                    "evidence": [],
                }
            elif rule.flagged_at is None:
                rule.flagged_at = now
                rule.history.append({"at": now, "event": "flagged", "note": why})
                kind = RuleEventKind.FLAGGED
                detail = {"why": why, "runs": [], "evidence": []}
            else:
                continue
            changed[rule.id] = rule
            events.append(
                RuleEvent(
                    rule_id=rule.id,
                    kind=kind,
                    namespace=rule.scope.namespace,
                    conversation_id=reversal.conversation_id,
                    actor=reversal.lesson.ctx.actor,
                    detail=detail,
                )
            )
    return list(changed.values()), events


def unsupported(store: Store, rules: Sequence[Rule]) -> list[tuple[Rule, str]]:
    """The live replacement lessons among `rules` whose net support in the store's ledger is
    below the threshold, each with why; one a person made active stays."""
    out: list[tuple[Rule, str]] = []
    for rule in rules:
        if rule.status not in _LIVE or rule.source is not RuleSource.SELF_ASSESSMENT:
            continue
        if f":{_DEAD}:" not in rule.group:  # compile/tool_rules.py: tool:A:pattern:detail
            continue
        if any(h.get("event") == "status" and h.get("to") == "active" for h in rule.history):
            continue  # approved or enabled by a person
        records = [json.loads(e.text) for e in store.get_evidence(rule.evidence_ids)]
        record = next((r for r in records if r.get("pattern") == _DEAD), None)
        if record is None:
            continue
        net = standing(store, rule.scope.namespace, rule.scope.skill or "", record)
        if net < MIN_REPLACEMENT_SESSIONS:
            why = f"the conversations kept give it a net support of {net}"
            out.append((rule, why))
    return out


_DEAD = ToolPattern.DEAD_SOURCE.value

__all__ = ["apply_reversals", "unsupported"]
