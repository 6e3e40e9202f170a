"""The baselines behave as the paper (and the ExpeL report) describe them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.benchkit import scenario_dict
from dctx.bench import approaches as registry
from dctx.bench.approaches import ApproachContext
from dctx.bench.approaches._trace import chunk, segments, turns
from dctx.bench.approaches.doc_chunk import DocChunk, correction_rates
from dctx.bench.approaches.doc_naive import TOP_K, DocNaive
from dctx.bench.approaches.expel import ExpeL, InsightPool, Op, parse_ops
from dctx.bench.approaches.in_session import InSession
from dctx.bench.loader import load_scenarios
from dctx.bench.replay import replay
from dctx.bench.schema import Scenario, SeedSession
from dctx.providers.base import Embedder
from dctx.providers.fakes import ScriptedLLM


def ctx(tmp_path: Path, embedder: Embedder, llm: Any = None) -> ApproachContext:
    return ApproachContext(workdir=tmp_path, embedder_factory=lambda: embedder, llm=llm)


def session(cid: str, messages: list[dict[str, Any]], actor: str = "alice") -> SeedSession:
    return SeedSession(
        conversation_id=cid,
        actor=actor,
        skill="financial_analyst",
        timestamp="2026-03-01T10:00:00Z",
        messages=messages,
    )


def call(cid: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    fn = {"name": name, "arguments": json.dumps(args)}
    return {"role": "assistant", "tool_calls": [{"id": cid, "type": "function", "function": fn}]}


def result(cid: str, content: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": cid, "content": content}


def test_registry_is_data() -> None:
    assert registry.names()[:8] == [
        "ctrl",
        "in_session",
        "doc_naive",
        "doc_chunk",
        "expel",
        "hybrid_raw",
        "lucid_dc",
        "forge_dc",
    ]
    for spec in registry.REGISTRY.values():
        assert callable(registry.resolve(spec.target))


def test_chunks_split_at_tool_call_boundaries(scenario: Scenario) -> None:
    ts = turns(scenario.seed[0].messages)
    segs = segments(ts)
    assert [t.role for t in segs[0]] == ["user"]
    assert segs[1][0].calls and segs[1][0].calls[0][0] == "get_financials"
    assert segs[1][1].tool_name == "get_financials"
    long = [{"role": "user", "content": f"message number {i} " * 20} for i in range(30)]
    parts = chunk(turns(long), max_tokens=100)
    assert len(parts) > 1 and sum(len(p) for p in parts) == 30


def test_in_session_keeps_each_conversation(scenario: Scenario, tmp_path: Path, hashing) -> None:
    a = InSession(ctx(tmp_path, hashing))
    seeds = [*scenario.seed, session("s2", [{"role": "user", "content": "Other talk."}])]
    a.capture(seeds)
    units = a.start("alice", "financial_analyst", "q", [])
    assert [u.channel for u in units] == ["user", "user"]
    assert "give growth per segment" in units[0].text
    assert "Tool get_financials returned" in units[0].text
    assert a.observe({"name": "x", "arguments": {}}, "r") == []


def test_doc_naive_top_k_system_chunks(tmp_path: Path, hashing) -> None:
    msgs: list[dict[str, Any]] = [{"role": "user", "content": "Review the vendors."}]
    for i in range(8):
        msgs += [call(f"c{i}", "lookup", {"vendor": f"v{i}"}), result(f"c{i}", f"vendor v{i} ok")]
    msgs += [{"role": "user", "content": "Always cite the invoice number for refunds."}]
    a = DocNaive(ctx(tmp_path, hashing))
    a.capture([session("s1", msgs)])
    units = a.start("alice", "financial_analyst", "How do I handle a refund invoice?", [])
    assert len(units) == TOP_K
    assert all(u.channel == "system" and u.text.startswith("Relevant past context:") for u in units)
    assert "invoice number" in units[0].text  # the best BM25 + cosine match comes first
    assert a.observe({"name": "lookup", "arguments": {}}, "r") == []


def test_doc_chunk_annotates_drops_filler_and_reads_out_rates(
    scenario: Scenario, tmp_path: Path, hashing
) -> None:
    a = DocChunk(ctx(tmp_path, hashing))
    a.capture(scenario.seed)
    units = a.start("alice", "financial_analyst", "Summarize Beta Inc's growth.", [])
    texts = [u.text for u in units]
    assert texts[0].startswith("Correction rates by action")
    assert "get_financials 1/1 (100%)" in texts[0]
    precedent = next(t for t in texts if t.startswith("Precedent:"))
    assert "correction: yes" in precedent and "tools: get_financials" in precedent
    assert "aftermath: correction, acceptance" in precedent
    assert "give growth per segment" in precedent
    assert not any("Good, thanks." in t for t in texts)  # filler dropped
    assert all(u.channel == "system" for u in units)


def test_correction_rates_count_uses_and_following_corrections(scenario: Scenario) -> None:
    ts = turns(scenario.seed[0].messages)
    clean = turns(
        [
            {"role": "user", "content": "Summarize Gamma."},
            call("c9", "get_financials", {"company": "Gamma"}),
            result("c9", "{}"),
            {"role": "assistant", "content": "Gamma grew."},
            {"role": "user", "content": "Perfect, thanks."},
        ]
    )
    assert correction_rates([ts, clean]) == {"get_financials": (1, 2)}


def test_insight_pool_operation_semantics() -> None:
    pool = InsightPool(max_rules=3)
    pool.apply(Op("ADD", None, "a"))
    pool.apply(Op("ADD", None, "b"))
    assert pool.rules == [("a", 2), ("b", 2)]
    pool.apply(Op("AGREE", 1, "b"))
    assert pool.rules == [("b", 3), ("a", 2)]  # sorted by count
    pool.apply(Op("EDIT", 1, "a2"))
    assert pool.rules == [("b", 3), ("a2", 3)]
    pool.apply(Op("REMOVE", 1, ""))
    assert pool.rules == [("b", 3), ("a2", 2)]  # REMOVE need not withdraw at once
    pool.apply(Op("ADD", None, "c"))
    assert pool.full
    pool.apply(Op("ADD", None, "d"))  # a full list takes no ADD
    assert [t for t, _ in pool.rules] == ["b", "a2", "c"]
    pool.apply(Op("REMOVE", 0, ""))  # -3 when full
    assert pool.rules == [("a2", 2), ("c", 2)]
    pool.apply(Op("AGREE", 7, "out of range"))
    assert pool.rules == [("a2", 2), ("c", 2)]
    assert pool.render() == "1. a2\n2. c"


def test_parse_ops() -> None:
    text = "ADD 3: Use tables.\n- EDIT 1: Always cite ids.\nREMOVE: no number\nnonsense\nAGREE 2: x"
    ops = parse_ops(text)
    assert [(o.kind, o.index, o.text) for o in ops] == [
        ("ADD", None, "Use tables."),
        ("EDIT", 0, "Always cite ids."),
        ("AGREE", 1, "x"),
    ]


def _correction_session(cid: str, text: str) -> SeedSession:
    return session(
        cid,
        [
            {"role": "user", "content": "Summarize Delta's growth."},
            {"role": "assistant", "content": "Delta grew 10%."},
            {"role": "user", "content": text},
        ],
    )


def test_expel_deterministic_critic(tmp_path: Path, hashing) -> None:
    rule = "When a company reports segments, give growth per segment."
    a = ExpeL(ctx(tmp_path, hashing))
    a.capture([_correction_session("s1", rule), _correction_session("s2", rule)])
    assert a.pool.rules == [(rule, 3)]  # ADD (2) then AGREE (+1)
    a.capture([_correction_session("s3", "Forget the segment rule, never mind.")])
    assert a.pool.rules == [(rule, 2)]  # REMOVE -1
    failing = session(
        "s4",
        [
            {"role": "user", "content": "Quote for Beta."},
            call("c1", "get_quote", {"ticker": "beta"}),
            {"role": "tool", "tool_call_id": "c1", "content": '{"error": "unknown ticker"}'},
            call("c2", "get_quote", {"ticker": "BETA"}),
            result("c2", '{"price": 3}'),
            {"role": "assistant", "content": "Beta trades at 3."},
        ],
    )
    a.capture([failing])
    lessons = [t for t, _ in a.pool.rules if "get_quote" in t]
    assert len(lessons) == 1 and '"BETA"' in lessons[0] and "unknown ticker" in lessons[0]
    units = a.start("bob", "financial_analyst", "anything", [])
    assert len(units) == 1 and units[0].channel == "system"
    assert units[0].text.splitlines()[1].startswith("1. ")


def test_expel_llm_critic_and_fallback(tmp_path: Path, hashing) -> None:
    llm = ScriptedLLM(["ADD 1: Always give growth per segment.", "REMOVE 1: gone"])
    a = ExpeL(ctx(tmp_path, hashing, llm))
    a.capture([_correction_session("s1", "Use segments."), _correction_session("s2", "x")])
    assert a.pool.rules == [("Always give growth per segment.", 1)]
    assert "Existing rules:\n1. Always give growth per segment." in llm.calls[1].user
    assert "Past conversation:" in llm.calls[0].user
    # no scripted answer left: the critic falls back to the deterministic path
    a.capture([_correction_session("s3", "Always cite the source of every number.")])
    assert any("cite the source" in t for t, _ in a.pool.rules)


def test_forge_dc_units_do_not_depend_on_node_vectors(hashing) -> None:
    """forge_dc skips node embeddings by default; the delivered units must be identical."""
    picked = [Scenario.model_validate(scenario_dict())]
    picked += [ls.scenario for ls in load_scenarios()][:4]
    for sc in picked:
        fast = replay(sc, "forge_dc", embedder_factory=lambda: hashing)
        full = replay(
            sc, "forge_dc", embedder_factory=lambda: hashing, options={"embed_nodes": True}
        )
        assert [[(u.channel, u.text) for u in dp] for dp in fast] == [
            [(u.channel, u.text) for u in dp] for dp in full
        ], sc.id


@pytest.mark.parametrize(
    "name", ["doc_naive", "doc_chunk", "expel", "hybrid_raw", "lucid_dc", "forge_dc"]
)
def test_approaches_learn_the_tiny_correction(name: str, scenario: Scenario, hashing) -> None:
    dps = replay(scenario, name, embedder_factory=lambda: hashing)
    assert any("segment" in u.text.lower() for dp in dps for u in dp)
