"""Live-agent mode: a real LLM agent runs the test query; an LLM judge scores the rubric.

Per run: a fresh approach captures the seed; its DP0 units go in through their channels
(`user` units as user messages before the query, `system` units appended to the system
prompt); the agent calls the scenario's tools, answered from `test.steps` / `test.mocks`;
after each tool result the approach is asked again (DPk) and new `system` units are appended
to the system prompt for the next model call (new `user` units follow the tool results as a
user message). The judge scores every rubric item against the final answer and the calls;
any failing programmatic check forces the run's score to 0. Runs are averaged.
"""

from __future__ import annotations

import copy
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from dctx.bench.agent import ChatAgent
from dctx.bench.approaches import ApproachContext, build
from dctx.bench.approaches._trace import decode_arguments
from dctx.bench.checks import failed_checks
from dctx.bench.judge import judge_item
from dctx.bench.replay import checked_units
from dctx.bench.results import ScenarioResult
from dctx.bench.schema import Scenario
from dctx.bench.scoring import injected_tokens, weighted_score
from dctx.bench.tools import ToolAnswerer
from dctx.models import Unit
from dctx.providers.base import LLM

if TYPE_CHECKING:
    from dctx.bench.runner import Resources

SKILL_PROMPT = (
    "You are an AI agent working as a {skill} for the user. Use the tools to gather the data "
    "you need, then answer the user's request directly and completely."
)


@dataclass(slots=True)
class LiveRun:
    """What one live run did and how it scored."""

    answer: str
    calls: list[tuple[str, dict[str, Any]]]
    delivered: list[list[Unit]]
    items: dict[str, float]
    failed_checks: list[str]
    score: float
    judge_failures: int = 0
    requests: list[int] = field(default_factory=list)  # messages per model call


def skill_prompt(scenario: Scenario) -> str:
    return SKILL_PROMPT.format(skill=scenario.test.skill.replace("_", " "))


def _with_units(system: str, units: list[Unit]) -> str:
    extra = [u.text for u in units if u.channel == "system"]
    return "\n\n".join([system, *extra]) if extra else system


def run_once(
    scenario: Scenario,
    approach: str,
    *,
    agent: ChatAgent,
    judge: LLM,
    embedder_factory: Any,
    llm: LLM | None = None,
    max_turns: int = 12,
    options: dict[str, Any] | None = None,
) -> LiveRun:
    """One live run of `approach` on `scenario` (fresh memory, fresh mocked tools)."""
    test = scenario.test
    tools = [t.openai_schema() for t in scenario.tools]
    answerer = ToolAnswerer(test)
    calls: list[tuple[str, dict[str, Any]]] = []
    answer = ""
    sizes: list[int] = []
    with tempfile.TemporaryDirectory(prefix="dctx-live-") as tmp:
        ctx = ApproachContext(
            workdir=Path(tmp),
            embedder_factory=embedder_factory,
            llm=llm,
            options=dict(options or {}),
        )
        memory = build(approach, ctx)
        try:
            memory.capture([s.model_copy(deep=True) for s in scenario.seed])
            units = checked_units(
                memory.start(test.actor, test.skill, test.query, scenario.tool_names()), approach
            )
            delivered = [units]
            system = _with_units(skill_prompt(scenario), units)
            convo: list[dict[str, Any]] = [
                {"role": "user", "content": u.text} for u in units if u.channel == "user"
            ]
            convo.append({"role": "user", "content": test.query})
            for _ in range(max_turns):
                messages = [{"role": "system", "content": system}, *convo]
                sizes.append(len(messages))
                reply = agent.step(messages, tools)
                if not reply.tool_calls:
                    answer = reply.content
                    break
                convo.append(
                    {
                        "role": "assistant",
                        "content": reply.content or None,
                        "tool_calls": reply.tool_calls,
                    }
                )
                late_user: list[Unit] = []
                for tc in reply.tool_calls:
                    name = tc["function"]["name"]
                    args = decode_arguments(tc["function"]["arguments"])
                    calls.append((name, args))
                    result = answerer.answer(name, args)
                    convo.append({"role": "tool", "tool_call_id": tc["id"], "content": result})
                    new = checked_units(
                        memory.observe({"name": name, "arguments": copy.deepcopy(args)}, result),
                        approach,
                    )
                    delivered.append(new)
                    system = _with_units(system, new)
                    late_user += [u for u in new if u.channel == "user"]
                convo += [{"role": "user", "content": u.text} for u in late_user]
                answer = reply.content
        finally:
            memory.close()
    return _score_run(scenario, judge, answer, calls, delivered, sizes)


def _score_run(
    scenario: Scenario,
    judge: LLM,
    answer: str,
    calls: list[tuple[str, dict[str, Any]]],
    delivered: list[list[Unit]],
    sizes: list[int],
) -> LiveRun:
    items: dict[str, float] = {}
    failures = 0
    for item in scenario.expect:
        verdict = judge_item(judge, scenario.test.query, calls, answer, item)
        if verdict is None:
            failures += 1
        items[item.id] = 1.0 if verdict else 0.0
    failed = failed_checks(scenario.checks, calls, answer)
    score = 0.0 if failed else weighted_score(scenario.expect, items)
    return LiveRun(answer, calls, delivered, items, failed, score, failures, sizes)


def run_live(scenario: Scenario, approach: str, res: Resources) -> ScenarioResult:
    """`res.config.runs` live runs of one pair, averaged."""
    from dctx.providers.llm import resolve_llm

    cfg = res.config
    assert cfg.agent and cfg.judge  # BenchConfig.validate() guarantees both
    agent = res.cached("agent", lambda: ChatAgent(cfg.agent or ""))
    judge = res.cached("judge", lambda: resolve_llm(cfg.judge or ""))
    runs = [
        run_once(
            scenario,
            approach,
            agent=agent,
            judge=judge,
            embedder_factory=res.embedder,
            llm=res.llm(),
            max_turns=cfg.max_turns,
            options=cfg.options,
        )
        for _ in range(cfg.runs)
    ]
    n = len(runs)
    return ScenarioResult(
        scenario=scenario.id,
        dimension=scenario.dimension,
        domain=scenario.domain,
        approach=approach,
        score=sum(r.score for r in runs) / n,
        tokens=sum(injected_tokens(r.delivered) for r in runs) / n,
        units=sum(sum(len(dp) for dp in r.delivered) for r in runs) / n,
        items={it.id: sum(r.items[it.id] for r in runs) / n for it in scenario.expect},
        runs=n,
        run_scores=[r.score for r in runs],
        notes=_notes(runs),
        delivered=(
            [[{"channel": u.channel, "text": u.text} for u in dp] for dp in runs[-1].delivered]
            if cfg.keep_units
            else None
        ),
    )


def _notes(runs: list[LiveRun]) -> str | None:
    """Judge failures are reported (not hidden as 'no'); failed checks are part of scoring."""
    bad = sum(r.judge_failures for r in runs)
    return f"judge gave no usable verdict {bad} time(s)" if bad else None
