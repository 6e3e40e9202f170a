"""The LLM and embedder providers through the command line and the benchmark: `dctx capture
--llm` / DCTX_LLM, `dctx reembed`, the store's embedder check, and `dctx bench --llm`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner, Result

from bench.benchkit import scenario_dict, write_scenario
from dctx.bench.cli import bench_app
from dctx.cli.main import app
from dctx.cli.reembed import reembed
from dctx.errors import ConfigError, EmbedderMismatchError
from dctx.memory import Memory
from dctx.models import RuleStatus
from dctx.providers.embedders import get_embedder
from dctx.providers.fakes import FakeEmbedder
from dctx.providers.openai_embedder import OpenAIEmbedder
from dctx.store.sqlite import SQLiteStore
from providers.step_model import (
    SEGMENT_RULE,
    StepModel,
    compiled,
    llm_requests,
    reported,
    step_of,
)
from providers.test_llm_pipeline import TRACE
from providers.wire_server import EMBEDDINGS, Reply, Request, WireServer, openai_error

runner = CliRunner()


def dctx(db: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    full = {"DCTX_DB": str(db), "COLUMNS": "200", "DCTX_LLM": "", **(env or {})}
    return runner.invoke(app, list(args), env=full)


def trace_file(tmp_path: Path, conversation_id: str = "s1") -> Path:
    session = {
        "conversation_id": conversation_id,
        "actor": "alice",
        "skill": "fin",
        "messages": TRACE,
    }
    path = tmp_path / f"trace-{conversation_id}.jsonl"
    path.write_text(json.dumps(session) + "\n", encoding="utf-8")
    return path


# --------------------------------------------------------------------------- capture --llm


@pytest.mark.parametrize("how", ["option", "env"])
def test_capture_with_llm_reports_rules_and_usage(
    srv: WireServer, tmp_path: Path, how: str
) -> None:
    StepModel().install(srv)
    spec = f"openai:gpt-4o-mini@{srv.openai_url}"
    db = tmp_path / "m.db"
    args = ["capture", "--embedder", "hashing", "--json", str(trace_file(tmp_path))]
    if how == "option":
        res = dctx(db, *args[:1], "--llm", spec, *args[1:])
    else:
        res = dctx(db, *args, env={"DCTX_LLM": spec})
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert SEGMENT_RULE in [r["text"] for r in doc["added"]]
    llm_in, llm_out = reported(llm_requests(srv))
    assert doc["usage"]["llm_input_tokens"] == llm_in > 0
    assert doc["usage"]["llm_output_tokens"] == llm_out
    # aftermath for the opening request and both unsure turns, assess, compile
    assert doc["usage"]["llm_calls"] == 5

    text = dctx(db, "capture", "--llm", spec, str(trace_file(tmp_path)))
    assert text.exit_code == 0, text.output
    assert "'s1' was captured before: skipped" in text.stdout  # a re-capture is a no-op
    assert "LLM:" not in text.stdout  # and asks no model
    # the same turns in another conversation reuse the cached answers (self-assessment is
    # asked again: what it is sent names the conversation)
    text = dctx(db, "capture", "--llm", spec, str(trace_file(tmp_path, "s2")))
    assert text.exit_code == 0, text.output
    assert "LLM: 1 calls" in text.stdout and "4 answers from the cache" in text.stdout


def test_capture_rejects_a_bad_llm_spec(tmp_path: Path) -> None:
    res = dctx(tmp_path / "m.db", "capture", "--llm", "gpt-4o", str(trace_file(tmp_path)))
    assert res.exit_code == 2
    assert "provider:model" in res.stderr
    assert not (tmp_path / "m.db").exists() or _rows(tmp_path / "m.db")["rules"] == 0


def _rows(db: Path) -> dict[str, int]:
    store = SQLiteStore(db)
    try:
        rows: dict[str, int] = store.count_rows()
        return rows
    finally:
        store.close()


# --------------------------------------------------------------------------- embedders


def test_get_embedder_routes_provider_specs(srv: WireServer) -> None:
    emb = get_embedder(f"openai-compatible:emb@{srv.openai_url}")
    assert isinstance(emb, OpenAIEmbedder) and emb.dim == 8
    assert emb.id == f"openai-compatible:emb@{srv.openai_url}"
    assert get_embedder(emb.id).id == emb.id  # a store's recorded id resolves back
    vec = emb.embed(["hello"])
    assert vec.shape == (1, 8) and abs(float(np.linalg.norm(vec[0])) - 1.0) < 1e-5
    with pytest.raises(ConfigError, match="unknown embedder"):
        get_embedder("anthropic:claude-x")  # no embeddings endpoint


def _vectors(db: Path) -> dict[tuple[str, str], np.ndarray]:
    store = SQLiteStore(db)
    try:
        rows = store._query("SELECT owner, kind, data FROM vectors")
    finally:
        store.close()
    return {(o, k): np.frombuffer(d, dtype=np.float32) for o, k, d in rows}


def _capture(db: Path, embedder: Any) -> None:
    with Memory(SQLiteStore(db), embedder=embedder) as mem:
        mem.capture(TRACE, actor="alice", skill="fin", conversation_id="s1")


def test_reembed_round_trip_and_mismatch_error(srv: WireServer, tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    _capture(db, "hashing")
    before = _vectors(db)
    spec = f"openai-compatible:emb@{srv.openai_url}"

    res = dctx(db, "reembed", "--embedder", spec, "--json")
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert (out["old"], out["new"]) == ("hashing-384", spec)
    after = _vectors(db)
    assert set(after) == set(before) and len(after) == 2 * out["rules"] + 2 * out["nodes"]
    assert {v.size for v in after.values()} == {8}

    # the store now refuses the old embedder, and the error names the fix
    with pytest.raises(EmbedderMismatchError, match="dctx reembed --embedder hashing-384"):
        Memory(SQLiteStore(db), embedder="hashing")
    res = dctx(db, "capture", "--embedder", "hashing", str(trace_file(tmp_path)))
    assert res.exit_code == 1 and "dctx reembed --embedder hashing-384" in res.stderr

    emb = get_embedder(spec)
    with Memory(SQLiteStore(db), embedder=spec) as mem:  # works with the new embedder
        index = mem.store.rule_index("default", list(RuleStatus))
        expected = emb.embed([r.text for r in index.rules])
        assert np.allclose(index.text_vectors, expected, atol=1e-5)

    # and back: hashing again, vectors equal to the ones the first capture made
    res = dctx(db, "reembed", "--embedder", "hashing")
    assert res.exit_code == 0, res.output
    assert "Re-embedded" in res.stdout
    back = _vectors(db)
    assert set(back) == set(before)
    assert all(np.allclose(back[k], before[k], atol=1e-5) for k in before)
    with Memory(SQLiteStore(db), embedder="hashing") as mem:
        run = mem.start(actor="alice", skill="fin", query="Summarize Beta's growth for 2024-Q4.")
        assert run.rules  # retrieval works on the re-embedded store


def test_reembed_function_with_fake_embedder_and_progress(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    _capture(db, "hashing")
    store = SQLiteStore(db)
    seen: list[tuple[int, int]] = []
    try:
        fake = FakeEmbedder(32)
        report = reembed(store, fake, on_progress=lambda d, t: seen.append((d, t)))
        assert store.embedder_id() == "fake-bow-32"
        assert report.rules == len(store.list_rules()) > 0 and report.nodes > 0
    finally:
        store.close()
    total = 2 * report.rules + report.nodes
    assert seen[0] == (0, total) and seen[-1] == (total, total)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_failed_reembed_leaves_the_store_as_it_was(srv: WireServer, tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    _capture(db, "hashing")
    before = _vectors(db)
    spec = f"openai-compatible:emb@{srv.openai_url}"
    srv.respond(EMBEDDINGS, _probe_only(srv))
    res = dctx(db, "reembed", "--embedder", spec)
    assert res.exit_code == 1 and "error:" in res.stderr
    store = SQLiteStore(db)
    try:
        assert store.embedder_id() == "hashing-384"
    finally:
        store.close()
    after = _vectors(db)
    assert set(after) == set(before) and all(np.array_equal(after[k], before[k]) for k in before)


def _probe_only(srv: WireServer) -> Any:
    from providers.wire_server import embeddings_responder

    ok = embeddings_responder(8)

    def respond(request: Request) -> Reply:
        if request.json["input"] == ["dimension probe"]:
            return ok(request)
        return openai_error(400, "input too long")

    return respond


# --------------------------------------------------------------------------- bench --llm


@pytest.fixture
def scenarios(tmp_path: Path) -> Path:
    root = tmp_path / "scenarios"
    write_scenario(root / "fin", scenario_dict())
    return root


def test_bench_llm_reaches_forge_dc_and_reports_usage(srv: WireServer, scenarios: Path) -> None:
    rule = "Give growth for each reported segment, not only the total."
    StepModel(answers={"compile": {"rules": [compiled(rule)]}}).install(srv)
    spec = f"openai:gpt-4o-mini@{srv.openai_url}"
    base = ["--scenarios", str(scenarios), "-a", "forge_dc", "--embedder", "hashing", "-j", "1"]
    res = runner.invoke(bench_app, [*base, "--llm", spec, "--json", "--units"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    forge = doc["approaches"]["forge_dc"]
    # the seed's correction turn is one the reader is unsure of, so the model reads it too
    assert sorted({step_of(r) for r in llm_requests(srv)}) == ["aftermath", "compile"]
    llm_in, llm_out = reported(llm_requests(srv))
    assert forge["usage"]["llm_input_tokens"] == llm_in > 0
    assert forge["usage"]["llm_output_tokens"] == llm_out
    delivered = [u["text"] for dp in forge["scenarios"][0]["delivered"] for u in dp]
    assert any(rule in t for t in delivered)  # the LLM-compiled rule was injected
    assert doc["meta"]["llm"] == spec

    md = runner.invoke(bench_app, [*base, "--llm", spec])
    assert md.exit_code == 0, md.output
    assert "LLM and embedding cost" in md.stdout and f"{llm_in:,}" in md.stdout

    plain = runner.invoke(bench_app, [*base, "--json"])
    assert plain.exit_code == 0, plain.output
    assert "usage" not in json.loads(plain.stdout)["approaches"]["forge_dc"]


def test_bench_counts_the_expel_critic_tokens(srv: WireServer, scenarios: Path) -> None:
    StepModel().install(srv)  # the critic's prompt is none of dctx's steps: it gets "{}"
    spec = f"openai:gpt-4o-mini@{srv.openai_url}"
    res = runner.invoke(
        bench_app,
        ["--scenarios", str(scenarios), "-a", "expel", "--embedder", "hashing", "-j", "1",
         "--llm", spec, "--json"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    usage = json.loads(res.stdout)["approaches"]["expel"]["usage"]
    critic = [r for r in llm_requests(srv) if step_of(r) == "other"]
    assert len(critic) == 1  # one seed session
    assert (usage["llm_calls"], usage["llm_input_tokens"]) == (1, 1)


# --------------------------------------------------------------------------- bench real --llm


def test_bench_real_llm_overrules_the_reader_and_reports_usage(
    srv: WireServer, tmp_path: Path
) -> None:
    from bench.realconv_kit import write_corpus

    data = write_corpus(tmp_path / "data")
    base = ["real", "--data", str(data), "--split", "test", "--reader", "heuristic", "--json"]
    offline = runner.invoke(bench_app, base)
    assert offline.exit_code == 0, offline.output
    assert json.loads(offline.stdout)["rules_stored"] >= 1  # the keyword reader keeps the linter

    StepModel(answers={"aftermath": {"aftermath": "one_off"}}).install(srv)
    spec = f"openai:gpt-4o-mini@{srv.openai_url}"
    res = runner.invoke(bench_app, [*base, "--llm", spec])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    calls = len(llm_requests(srv))
    asked = [r for r in llm_requests(srv) if step_of(r) == "aftermath"]
    assert len(asked) == 5  # every user turn, opening requests too (the keyword reader is unsure)
    assert doc["rules_stored"] == 0  # the model read each one as a one-off, and its word stands
    assert doc["llm"] == spec
    assert doc["llm_usage"]["llm_calls"] == len(llm_requests(srv))
    assert doc["llm_usage"]["llm_input_tokens"] == reported(llm_requests(srv))[0]

    md = runner.invoke(bench_app, [*base[:-1], "--llm", spec])
    assert md.exit_code == 0, md.output
    assert f"| LLM {spec} | {calls} calls" in md.stdout


def test_bench_real_rejects_a_bad_llm_spec_before_any_work(tmp_path: Path) -> None:
    from bench.realconv_kit import write_corpus

    data = write_corpus(tmp_path / "data")
    res = runner.invoke(bench_app, ["real", "--data", str(data), "--llm", "nosuch:model"])
    assert res.exit_code != 0
    assert "unknown LLM provider 'nosuch'" in res.stderr
