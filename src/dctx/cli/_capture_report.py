"""What a capture learned, as JSON and for people (shared by trace files and --from)."""

from __future__ import annotations

from typing import Any

from dctx.cli._render import print_rules
from dctx.models import Rule
from dctx.providers.usage import UsageTotals

_TOTALS = ("sessions", "messages", "corrections", "withdrawals", "tool_signals")


def capture_summary(reports: list[Any]) -> dict[str, Any]:
    """The JSON form of what some captures learned (summed)."""
    out: dict[str, Any] = {}
    out.update({key: sum(getattr(rep, key) for rep in reports) for key in _TOTALS})
    out["added"] = [r.to_dict() for rep in reports for r in rep.added]
    out["changed"] = [r.to_dict() for rep in reports for r in rep.changed]
    out["log"] = [line for rep in reports for line in rep.log]
    out["usage"] = sum((rep.usage for rep in reports), UsageTotals()).to_dict()
    out["reader"] = next((rep.reader for rep in reports if rep.reader), "")
    return out


def print_capture(out: Any, reports: list[Any], *, files: int) -> None:
    """What some captures learned, for people."""
    added: list[Rule] = [r for rep in reports for r in rep.added]
    changed: list[Rule] = [r for rep in reports for r in rep.changed]
    total = {key: sum(getattr(rep, key) for rep in reports) for key in _TOTALS}
    usage = sum((rep.usage for rep in reports), UsageTotals())
    out.print(
        f"Captured {total['sessions']} sessions ({total['messages']} messages) from "
        f"{files} file{'s' if files != 1 else ''}: "
        f"{total['corrections']} corrections, {total['withdrawals']} withdrawals, "
        f"{total['tool_signals']} tool-call patterns."
    )
    if usage.llm_calls or usage.cache_hits or usage.embedding_tokens:
        out.print(_usage_line(usage), markup=False)
    if added:
        print_rules(out, added, f"Learned {len(added)} new rules:")
        reader = next((rep.reader for rep in reports if rep.reader), "")
        if reader and not reader.startswith("llm:"):
            out.print(_offline_note(reader), markup=False)
    if changed:
        print_rules(out, changed, f"Changed {len(changed)} existing rules:")
    for rep in reports:
        for line in rep.log:
            out.print(f"  {line}", markup=False)
    if not added and not changed:
        out.print("Nothing new to learn from these sessions.")


def _offline_note(reader: str) -> str:
    """Why offline rules need a look: the offline reader keeps many wrong rules on real
    sessions (README, "Real conversations"), and what to do about it."""
    return (
        f"Read offline by {reader}, no LLM: on real sessions many of the rules it keeps are "
        "wrong. Look them over (dctx rules list; dctx rules disable ID), capture with --review "
        "to approve each one, or let an LLM read the turns: --llm openai:MODEL or "
        "--llm anthropic:MODEL."
    )


def _usage_line(u: UsageTotals) -> str:
    """Cost accounting (paper, Table 4): what the LLM and embedder spent on this capture."""
    line = (
        f"LLM: {u.llm_calls} calls, {u.llm_input_tokens:,} input + {u.llm_output_tokens:,} "
        f"output tokens ({u.cache_hits} answers from the cache"
    )
    if u.fallbacks:
        line += f", {u.fallbacks} steps fell back to the deterministic path"
    line += f"); embedding: {u.embedding_tokens:,} tokens."
    return line


__all__ = ["capture_summary", "print_capture"]
