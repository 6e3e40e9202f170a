"""hybrid_raw and lucid_dc: the typed-graph approaches behave as the paper describes them."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

from dctx.bench import approaches as registry
from dctx.bench.approaches import ApproachContext
from dctx.bench.approaches._graph import GraphMemory, RunTrace, to_session
from dctx.bench.approaches.hybrid_raw import HybridRaw
from dctx.bench.approaches.lucid_dc import HEADER, LucidDC
from dctx.bench.loader import load_scenarios
from dctx.bench.replay import replay
from dctx.bench.schema import Scenario, SeedSession
from dctx.capture.self_assess import assess
from dctx.compile.tool_rules import compile_tool_signal
from dctx.models import EdgeType, EvidenceKind, Unit
from dctx.providers.base import Embedder

GRAPH_APPROACHES = ["hybrid_raw", "lucid_dc"]


def ctx(tmp_path: Path, embedder: Embedder) -> ApproachContext:
    return ApproachContext(workdir=tmp_path, embedder_factory=lambda: embedder)


def call(cid: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    fn = {"name": name, "arguments": json.dumps(args)}
    return {"role": "assistant", "tool_calls": [{"id": cid, "type": "function", "function": fn}]}


def result(cid: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": cid, "content": content}


def session(
    cid: str, messages: list[dict[str, Any]], skill: str = "financial_analyst"
) -> SeedSession:
    return SeedSession(
        conversation_id=cid,
        actor="alice",
        skill=skill,
        timestamp="2026-03-01T10:00:00Z",
        messages=messages,
    )


# A session with a retry-then-succeed tool pattern (self-assessment material) and no correction.
RETRY = session(
    "s-retry",
    [
        {"role": "user", "content": "Quote for Gamma."},
        call("q1", "get_quote", {"ticker": "gamma"}),
        {"role": "tool", "tool_call_id": "q1", "content": '{"error": "unknown ticker gamma"}'},
        call("q2", "get_quote", {"ticker": "GAMMA"}),
        result("q2", '{"price": 3}'),
        {"role": "assistant", "content": "Gamma trades at 3."},
    ],
)


def directives(seed: list[SeedSession]) -> list[str]:
    """What the self-assessment layers make of a seed (the expected MANDATORY lines)."""
    out: list[str] = []
    for signal in assess([to_session(s) for s in seed]):
        compiled = compile_tool_signal(signal)
        if compiled is not None and compiled[0].text not in out:
            out.append(compiled[0].text)
    return out


def texts(dps: list[list[Unit]]) -> list[str]:
    return [u.text for dp in dps for u in dp]


@functools.cache
def _bundled() -> dict[str, Scenario]:
    return {ls.scenario.id: ls.scenario for ls in load_scenarios()}


def bundled(scenario_id: str) -> Scenario:
    return _bundled()[scenario_id].model_copy(deep=True)


def test_registered() -> None:
    for name in GRAPH_APPROACHES:
        assert name in registry.names()
        assert callable(registry.resolve(registry.spec(name).target))


def test_capture_writes_typed_graph_with_raw_correction(
    scenario: Scenario, tmp_path: Path, hashing: Embedder
) -> None:
    graph = GraphMemory(tmp_path, hashing)
    try:
        graph.capture(scenario.seed)
        said = scenario.seed[0].messages[4]["content"]
        kinds = {n.kind for n in graph.nodes}
        assert kinds == {"user", "assistant", "tool_call"}
        assert set(graph.vectors) == {n.id for n in graph.nodes}  # node + accumulated vectors
        edges = [e for n in graph.nodes for e in graph.store.edges(src=n.id)]
        informed = [e for e in edges if e.type is EdgeType.INFORMED_BY]
        assert {e.type for e in edges} >= {EdgeType.LED_TO, EdgeType.INFORMED_BY}
        [evidence] = graph.store.get_evidence(list({e.dst for e in informed}))
        assert evidence.kind is EvidenceKind.CORRECTION and evidence.text == said  # raw words
        sources = {n.id: n for n in graph.store.get_nodes([e.src for e in informed])}
        # the decision it corrected, and the tool call whose result that decision read
        assert sorted(n.kind for n in sources.values()) == ["assistant", "tool_call"]
        assert any("Acme grew revenue 20%" in n.text for n in sources.values())
    finally:
        graph.close()


def test_sessions_of_an_actor_are_chained(
    scenario: Scenario, tmp_path: Path, hashing: Embedder
) -> None:
    later = session("s2", [{"role": "user", "content": "Summarize Gamma."}])
    later.timestamp = "2026-03-05T10:00:00Z"
    graph = GraphMemory(tmp_path, hashing)
    try:
        graph.capture([later, *scenario.seed])  # any order in, time order in the graph
        followed = [e for e in graph.store.edges() if e.type is EdgeType.FOLLOWED_BY]
        assert [(e.src.rsplit(":", 1)[1], e.dst.rsplit(":", 1)[1]) for e in followed] == [
            ("s1", "s2")
        ]
    finally:
        graph.close()


def test_hybrid_raw_delivers_raw_correction_with_the_decision(
    scenario: Scenario, hashing: Embedder
) -> None:
    dps = replay(scenario, "hybrid_raw", embedder_factory=lambda: hashing)
    assert all(u.channel == "system" for dp in dps for u in dp)
    readout, precedent = dps[0]
    assert readout.text.startswith("Correction rates by action")
    assert "get_financials 1/1 (100%)" in readout.text
    assert precedent.text.startswith("Past correction from alice (2026-03-02):")
    assert "Agent: assistant: Acme grew revenue 20%" in precedent.text
    assert scenario.seed[0].messages[4]["content"] in precedent.text  # as said, not compiled
    assert "RULE" not in precedent.text and HEADER not in precedent.text
    assert dps[1] == []  # the chain was delivered at DP0 and stays in context


def test_per_tool_lookup_follows_informed_by(
    scenario: Scenario, tmp_path: Path, hashing: Embedder
) -> None:
    graph = GraphMemory(tmp_path, hashing)
    try:
        graph.capture(scenario.seed)
        test = scenario.test
        step = test.steps[0]
        trace = RunTrace(hashing, actor=test.actor, skill=test.skill, query=test.query)
        vec, acc = trace.step(step.call.model_dump(), step.result)
        found = graph.informed_by(skill=test.skill, tool=step.call.name, step=vec, run=acc)
        assert [c.key[0] for c in found] == ["s1"]
        assert "give growth per segment" in found[0].render()
        # no stored call of another tool, and no memory for another skill
        assert graph.informed_by(skill=test.skill, tool="get_news", step=vec, run=acc) == []
        assert graph.informed_by(skill="support", tool=step.call.name, step=vec, run=acc) == []
    finally:
        graph.close()


def test_hybrid_raw_never_includes_self_assessment(
    scenario: Scenario, tmp_path: Path, hashing: Embedder
) -> None:
    seed = [*scenario.seed, RETRY]
    lessons = directives(seed)
    assert lessons and any("get_quote" in t for t in lessons)  # there is something to leave out
    a = HybridRaw(ctx(tmp_path, hashing))
    try:
        a.capture(seed)
        units = a.start("alice", "financial_analyst", "Quote and growth for Beta.", [])
        units += a.observe({"name": "get_quote", "arguments": {"ticker": "beta"}}, '{"price": 1}')
    finally:
        a.close()
    assert units
    joined = "\n".join(u.text for u in units)
    assert HEADER not in joined
    assert not any(lesson in joined for lesson in lessons)


def test_lucid_dc_puts_tool_rules_under_mandatory_header(
    scenario: Scenario, tmp_path: Path, hashing: Embedder
) -> None:
    seed = [*scenario.seed, RETRY]
    lessons = directives(seed)
    a = LucidDC(ctx(tmp_path, hashing))
    try:
        a.capture(seed)
        units = a.start("alice", "financial_analyst", "Summarize Beta Inc's growth.", [])
    finally:
        a.close()
    first, *rest = units
    assert first.channel == "system"
    header, *lines = first.text.splitlines()
    assert header == HEADER
    assert lines == [f"{i}. {t}" for i, t in enumerate(lessons, 1)]
    # the rest is exactly hybrid_raw's delivery: raw corrections, no tool rules
    assert rest and all(HEADER not in u.text for u in rest)
    assert not any(lesson in u.text for u in rest for lesson in lessons)
    assert any("give growth per segment" in u.text for u in rest)


def test_lucid_dc_scopes_tool_rules_to_the_skill(tmp_path: Path, hashing: Embedder) -> None:
    other = RETRY.model_copy(update={"skill": "customer_support"})
    a = LucidDC(ctx(tmp_path, hashing))
    try:
        a.capture([other])
        assert a.start("alice", "financial_analyst", "Quote for Beta.", []) == []
        assert a.start("alice", "customer_support", "Quote for Beta.", [])[0].text.startswith(
            HEADER
        )
    finally:
        a.close()


@pytest.mark.parametrize("name", GRAPH_APPROACHES)
def test_bundled_chain_is_delivered_raw(name: str, hashing: Embedder) -> None:
    sc = bundled("fin.conditional_activation.class_chain")
    dps = replay(sc, name, embedder_factory=lambda: hashing)
    assert len(dps) == len(sc.test.steps) + 1
    said = [m["content"] for m in sc.seed[0].messages if m["role"] == "user"]
    units = [u for dp in dps for u in dp if u.text.startswith("Past correction from tomas")]
    assert units  # the correction is delivered, in the user's own words
    assert any(s in u.text for u in units for s in said[1:])
    assert not any(u.text.startswith(HEADER) for dp in dps for u in dp)  # no tool patterns


def test_bundled_self_assessment_reaches_lucid_dc_only(hashing: Embedder) -> None:
    sc = bundled("cs.implicit_learning.auth_retry")
    lessons = directives(sc.seed)
    assert lessons
    lucid = texts(replay(sc, "lucid_dc", embedder_factory=lambda: hashing))
    raw = texts(replay(sc, "hybrid_raw", embedder_factory=lambda: hashing))
    assert lucid[0] == HEADER + "\n" + "\n".join(f"{i}. {t}" for i, t in enumerate(lessons, 1))
    assert lucid[1:] == raw
    assert not any(HEADER in t or any(x in t for x in lessons) for t in raw)


@pytest.mark.parametrize("name", GRAPH_APPROACHES)
@pytest.mark.parametrize(
    "scenario_id", ["cs.scope_precision.cross_skill", "fin.exception.no_persist"]
)
def test_silent_without_a_relevant_correction(
    name: str, scenario_id: str, hashing: Embedder
) -> None:
    """Another skill's corrections and one-off requests give these approaches nothing to say."""
    dps = replay(bundled(scenario_id), name, embedder_factory=lambda: hashing)
    assert dps and all(dp == [] for dp in dps)
