"""Shared by `dctx rules` and `dctx health`: the stale-days option and how a rule's outcome
history is printed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any

import typer
from rich.console import Console

DaysOption = Annotated[
    int | None,
    typer.Option(
        "--days",
        envvar="DCTX_STALE_DAYS",
        min=1,
        help="Idle days after which a rule is stale (default 90).",
        show_default=False,
    ),
]

_SHOWN = ("how", "by", "message_index", "tool", "action", "from", "to", "why", "runs", "channel")


def describe_event(event: dict[str, Any]) -> str:
    """One line per rule event: when, what, where (run, conversation, decision point), why."""
    where = []
    if event.get("conversation_id"):
        where.append(f"conversation {event['conversation_id']}")
    if event.get("run_id") and event["run_id"] != event.get("conversation_id"):
        where.append(f"run {event['run_id']}")
    if event.get("decision_point") is not None:
        where.append(f"dp {event['decision_point']}")
    if event.get("actor"):
        where.append(f"actor {event['actor']}")
    detail = event.get("detail") or {}
    said = [f"{k}={_short(detail[k])}" for k in _SHOWN if detail.get(k) not in (None, [], "")]
    if detail.get("evidence"):
        said.append(f"evidence={_short(detail['evidence'])}")
    place = f" ({', '.join(where)})" if where else ""
    tail = f"  {', '.join(said)}" if said else ""
    return f"{event['at']}  {event['kind']}{place}{tail}"


def _short(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value)


def print_outcomes(out: Console, events: Sequence[dict[str, Any]], counts: dict[str, int]) -> None:
    out.print("\n[bold]Outcomes[/bold]")
    if not events:
        out.print("  (never delivered to a recorded run)")
        return
    out.print("  " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items())), markup=False)
    for event in events:
        out.print(f"  {describe_event(event)}", markup=False)


__all__ = ["DaysOption", "describe_event", "print_outcomes"]
