"""Rows of the `rule_events` table, shared by both backends (only placeholders differ).

A rule event is one dated fact about a rule: a delivery, how it went, a status change and
its evidence (`models.RuleEvent`). `detail` is JSON text of ids, indexes and scores; it never
holds what a user said (that stays in `evidence`, which `forget_actor` already purges). Its
lists may name other events' runs and evidence (a flag lists the runs the mistake recurred
in): `scrub_details` takes a forgotten actor's ids out of the events that stay.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from dctx.models import RuleEvent, RuleEventKind

EVENT_COLUMNS = (
    "id",
    "namespace",
    "rule_id",
    "kind",
    "at",
    "run_id",
    "conversation_id",
    "actor",
    "decision_point",
    "detail",
)


def event_row(event: RuleEvent) -> tuple[Any, ...]:
    return (
        event.id,
        event.namespace,
        event.rule_id,
        RuleEventKind(event.kind).value,
        event.at,
        event.run_id,
        event.conversation_id,
        event.actor,
        event.decision_point,
        json.dumps(event.detail, ensure_ascii=False, sort_keys=True),
    )


def event_from_row(row: Sequence[Any]) -> RuleEvent:
    return RuleEvent(
        id=row[0],
        namespace=row[1],
        rule_id=row[2],
        kind=RuleEventKind(row[3]),
        at=row[4],
        run_id=row[5],
        conversation_id=row[6],
        actor=row[7],
        decision_point=None if row[8] is None else int(row[8]),
        detail=json.loads(row[9]),
    )


LISTED = ("runs", "evidence", "by")  # the detail fields that list ids of other records
LISTING = ("recurred", "contradicted", "quiet", "status", "flagged", "unflagged")  # kinds


def scrub_details(rows: Sequence[tuple[str, str]], dead: set[str]) -> list[tuple[str, str]]:
    """(detail, id) for each event (id, detail) of `rows` whose lists named a `dead` id,
    rewritten without it."""
    out: list[tuple[str, str]] = []
    for event_id, raw in rows:
        detail = json.loads(raw)
        changed = False
        for field in LISTED:
            listed = detail.get(field)
            if isinstance(listed, list) and dead.intersection(map(str, listed)):
                detail[field] = [v for v in listed if str(v) not in dead]
                changed = True
        if changed:
            out.append((json.dumps(detail, ensure_ascii=False, sort_keys=True), event_id))
    return out


def insert_sql(ph: str) -> str:
    """Insert one event; a second delivery / outcome of a rule in one run is ignored (the
    `rule_events_once` index of the migrations)."""
    return (
        f"INSERT INTO rule_events ({', '.join(EVENT_COLUMNS)}) "
        f"VALUES ({', '.join([ph] * len(EVENT_COLUMNS))}) ON CONFLICT DO NOTHING"
    )


def select_sql(
    ph: str,
    in_list: str,
    namespace: str,
    *,
    rule_ids: Sequence[str] | None,
    runs: Sequence[str] | None,
    kinds: Sequence[RuleEventKind] | None,
    as_list: Any,
) -> tuple[str, list[Any]]:
    """The statement reading a namespace's events, oldest first. `in_list` is the backend's
    "IN one list parameter" fragment and `as_list` turns a sequence into that parameter;
    `runs` matches a run id or a conversation id."""
    clauses, params = [f"namespace = {ph}"], [namespace]
    if rule_ids is not None:
        clauses.append(f"rule_id {in_list}")
        params.append(as_list(list(rule_ids)))
    if runs is not None:
        clauses.append(f"(run_id {in_list} OR conversation_id {in_list})")
        params += [as_list(list(runs)), as_list(list(runs))]
    if kinds is not None:
        clauses.append(f"kind {in_list}")
        params.append(as_list([RuleEventKind(k).value for k in kinds]))
    columns = ", ".join(EVENT_COLUMNS)
    sql = f"SELECT {columns} FROM rule_events WHERE {' AND '.join(clauses)} ORDER BY at, seq"
    return sql, params


def summary_sql(ph: str) -> str:
    """Per rule and kind of a namespace: how many events, and the latest one's `at`."""
    return (
        "SELECT rule_id, kind, count(*), max(at) FROM rule_events "
        f"WHERE namespace = {ph} GROUP BY rule_id, kind ORDER BY rule_id, kind"
    )


def tally(rows: Sequence[Sequence[Any]]) -> dict[str, dict[RuleEventKind, tuple[int, str]]]:
    out: dict[str, dict[RuleEventKind, tuple[int, str]]] = {}
    for rule_id, kind, count, last in rows:
        out.setdefault(rule_id, {})[RuleEventKind(kind)] = (int(count), str(last))
    return out


__all__ = [
    "EVENT_COLUMNS",
    "LISTING",
    "event_from_row",
    "event_row",
    "insert_sql",
    "scrub_details",
    "select_sql",
    "summary_sql",
    "tally",
]
