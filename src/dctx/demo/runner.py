"""Run the main job on the bundled example, offline, in a few seconds.

1. capture three sessions of a financial-analyst agent (human corrections, tool failures);
2. list the compiled rules with their type, trigger and scope;
3. replay a run about ANOTHER company and record, at each decision point, which rules were
   delivered and why (trigger kind, condition met), and why the others stayed silent.

Node vectors are skipped (`embed_nodes=False`): injection does not use them and embedding
every accumulated context would take most of the demo's time.
"""

from __future__ import annotations

import importlib.resources
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from dctx.inject.why import Explanation, describe_trigger, explain_run
from dctx.memory import Memory
from dctx.models import Rule, RuleStatus
from dctx.store.registry import open_store

SESSIONS_FILE = "sessions.yaml"
REPLAY_FILE = "replay.yaml"


@dataclass(slots=True)
class Point:
    """One decision point of the replayed run."""

    decision_point: int
    where: str
    call: dict[str, Any] | None
    result: str | None
    delivered: list[dict[str, str]] = field(default_factory=list)  # rule_id, text, why
    silent: list[dict[str, str]] = field(default_factory=list)  # not yet delivered: why not


@dataclass(slots=True)
class DemoResult:
    db: str
    embedder: str
    captured: dict[str, int]
    sessions: list[dict[str, Any]]
    rules: list[dict[str, Any]]
    replay: dict[str, Any]
    points: list[Point]
    stage1_messages: list[dict[str, Any]]
    system: str
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def data_text(name: str) -> str:
    return importlib.resources.files("dctx.demo").joinpath("data", name).read_text("utf-8")


def run_demo(db: str | None = None, *, embedder: str | None = None) -> DemoResult:
    """Run the demo on `db` (a fresh temporary database when None)."""
    if db is not None:
        return _run(db, embedder)
    with tempfile.TemporaryDirectory(prefix="dctx-demo-") as tmp:
        return _run(str(Path(tmp) / "demo.db"), embedder)


def _run(db: str, embedder: str | None) -> DemoResult:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="dctx-demo-data-") as tmp:
        trace = Path(tmp) / SESSIONS_FILE
        trace.write_text(data_text(SESSIONS_FILE), encoding="utf-8")
        store = open_store(db)
        try:
            spec = embedder or store.embedder_id() or "auto"
            mem = Memory(store, embedder=spec, embed_nodes=False)
        except BaseException:
            store.close()
            raise
        with mem:
            report = mem.capture_file(trace)
            sessions = [_session_summary(s) for s in yaml.safe_load(trace.read_text())["sessions"]]
            replay = yaml.safe_load(data_text(REPLAY_FILE))
            rules = mem.rules(status=RuleStatus.ACTIVE)
            steps = [(s["call"], s["result"]) for s in replay["steps"]]
            run, explanations = explain_run(
                mem,
                rules,
                actor=replay["actor"],
                skill=replay["skill"],
                query=replay["query"],
                tools=replay["tools"],
                steps=steps,
            )
            points = _points(explanations, steps)
            return DemoResult(
                db=db,
                embedder=mem.embedder.id,
                captured={
                    "sessions": report.sessions,
                    "messages": report.messages,
                    "corrections": report.corrections,
                    "tool_signals": report.tool_signals,
                    "rules_added": len(report.added),
                },
                sessions=sessions,
                rules=[{**r.to_dict(), "trigger_text": describe_trigger(r)} for r in rules],
                replay={k: replay[k] for k in ("actor", "skill", "query", "tools")},
                points=points,
                stage1_messages=run.messages,
                system=run.system,
                seconds=round(time.perf_counter() - started, 2),
            )


def _session_summary(raw: dict[str, Any]) -> dict[str, Any]:
    messages = raw["messages"]
    calls = [c["function"]["name"] for m in messages for c in m.get("tool_calls") or []]
    users = [m["content"] for m in messages if m["role"] == "user"]
    return {
        "conversation_id": raw["conversation_id"],
        "actor": raw["actor"],
        "timestamp": raw["timestamp"],
        "query": users[0] if users else "",
        "tool_calls": calls,
        "messages": len(messages),
    }


def _points(
    explanations: list[Explanation], steps: list[tuple[dict[str, Any], str]]
) -> list[Point]:
    points: list[Point] = []
    for dp in range(len(steps) + 1):
        call, result = steps[dp - 1] if dp else (None, None)
        where = explanations[0].points[dp].where if explanations else ""
        point = Point(dp, where, call, result)
        for expl in explanations:
            check = expl.points[dp]
            if check.delivered:
                point.delivered.append(
                    {
                        "rule_id": expl.rule_id,
                        "text": expl.text,
                        "kind": _kind(expl),
                        "why": check.condition,
                    }
                )
            elif expl.delivered_at is None or expl.delivered_at > dp:
                point.silent.append(
                    {
                        "rule_id": expl.rule_id,
                        "text": expl.text,
                        "kind": _kind(expl),
                        "why": check.outcome.removeprefix("silent: "),
                    }
                )
        points.append(point)
    return points


def _kind(expl: Explanation) -> str:
    return expl.trigger.split(":", 1)[0]


def rule_of(data: dict[str, Any]) -> Rule:
    return Rule.from_dict({k: v for k, v in data.items() if k != "trigger_text"})
