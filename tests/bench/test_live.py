"""Live mode end to end: the real openai client against a local OpenAI-wire server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bench.benchkit import scenario_dict, write_scenario
from bench.fake_openai import FakeModel, serve
from bench.recording import Recorder
from dctx.bench import approaches as registry
from dctx.bench.approaches import ApproachSpec
from dctx.bench.checks import check_passes, failed_checks
from dctx.bench.cli import bench_app
from dctx.bench.loader import load_scenarios
from dctx.bench.runner import BenchConfig, run_bench
from dctx.bench.schema import Scenario, Test
from dctx.bench.tools import NO_SUCH_RESULT, ToolAnswerer
from dctx.errors import ConfigError

CALLS = [{"name": "get_financials", "arguments": {"company": "Beta"}}]


@pytest.fixture
def model() -> FakeModel:
    return FakeModel(calls=CALLS)


@pytest.fixture
def url(model: FakeModel, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setenv("DCTX_LLM_MAX_RETRIES", "0")
    with serve(model) as base:
        yield base


@pytest.fixture
def loaded(tmp_path: Path):  # type: ignore[no-untyped-def]
    write_scenario(tmp_path, scenario_dict())
    return load_scenarios(tmp_path)


@pytest.fixture
def recorder() -> Iterator[str]:
    registry.register(ApproachSpec("recorder", "bench.recording:Recorder", "test"))
    Recorder.log.clear()
    yield "recorder"
    registry.REGISTRY.pop("recorder", None)


def live(url: str, approaches: list[str], runs: int = 1) -> BenchConfig:
    spec = f"openai-compatible:fake@{url}"
    return BenchConfig(
        approaches=approaches, mode="live", agent=spec, judge=spec, runs=runs, embedder="hashing"
    )


def test_live_scores_depend_on_what_reaches_the_agent(loaded, url: str, model: FakeModel) -> None:  # type: ignore[no-untyped-def]
    res = run_bench(loaded, live(url, ["ctrl", "in_session"], runs=2))
    ctrl, mem = res.of("ctrl")[0], res.of("in_session")[0]
    # ctrl: the agent never hears about segments -> output_contains "enterprise" fails -> 0
    assert ctrl.run_scores == [0.0, 0.0] and ctrl.score == 0.0 and ctrl.tokens == 0
    assert ctrl.items["no_acme"] == 1.0 and ctrl.items["per_segment"] == 0.0
    # in_session: the seed conversation (with the correction) is in context -> 100
    assert mem.run_scores == [100.0, 100.0] and mem.runs == 2
    assert mem.tokens > 0 and not mem.error and not mem.notes
    # 2 approaches x 2 runs x 2 agent turns; 3 rubric items judged per run
    assert len(model.agent_requests()) == 8
    assert len(model.judge_requests()) == 12
    first = model.agent_requests()[0]
    assert first["tools"][0]["function"]["name"] == "get_financials"
    judged = model.judge_requests()[0]["messages"][-1]["content"]
    assert 'get_financials({"company": "Beta"})' in judged


def test_units_go_in_through_their_channels(
    loaded, url: str, model: FakeModel, recorder: str
) -> None:  # type: ignore[no-untyped-def]
    res = run_bench(loaded, live(url, [recorder]))
    first, second = model.agent_requests()
    # DP0: the user unit is a user message before the query
    assert [m["role"] for m in first["messages"]] == ["system", "user", "user"]
    assert first["messages"][1]["content"].startswith("Report growth per segment?")
    assert first["messages"][2]["content"] == "Summarize Beta Inc's growth."
    # DP1: the system unit is appended to the system prompt for the next call
    assert "After get_financials" not in first["messages"][0]["content"]
    assert second["messages"][0]["content"].endswith(
        "After get_financials: give growth per segment."
    )
    tool_msg = next(m for m in second["messages"] if m["role"] == "tool")
    assert json.loads(tool_msg["content"])["segments"]["enterprise"] == 15  # from test.steps
    observed = [entry for kind, entry in Recorder.log if kind == "observe"]
    assert observed[0][0]["arguments"]["company"] in ("Beta", "MUTATED")
    assert res.of(recorder)[0].score == 100.0


def test_unreadable_verdicts_are_reported(loaded, url: str, model: FakeModel) -> None:  # type: ignore[no-untyped-def]
    model.judge_rule = lambda answer, mode, text: "I cannot decide."
    res = run_bench(loaded, live(url, ["in_session"]))
    r = res.of("in_session")[0]
    assert r.score == 0.0 and set(r.items.values()) == {0.0}
    assert r.notes == "judge gave no usable verdict 3 time(s)"


def test_dead_endpoint_is_an_error_result(loaded, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("DCTX_LLM_MAX_RETRIES", "0")
    res = run_bench(loaded, live("http://127.0.0.1:9/v1", ["ctrl"]))
    assert res.of("ctrl")[0].error and "ProviderError" in res.of("ctrl")[0].error


def test_live_via_cli(tmp_path: Path, url: str) -> None:
    folder = tmp_path / "sc"
    write_scenario(folder, scenario_dict())
    spec = f"openai-compatible:fake@{url}"
    res = CliRunner().invoke(
        bench_app,
        ["-s", str(folder), "--mode", "live", "--agent", spec, "--judge", spec, "--runs", "1",
         "-a", "ctrl", "-a", "in_session", "--embedder", "hashing", "--json", "--jobs", "1"],
    )  # fmt: skip
    assert res.exit_code == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["mode"] == "live"
    assert doc["approaches"]["in_session"]["overall"] == 100.0
    assert doc["approaches"]["ctrl"]["scenarios"][0]["run_scores"] == [0.0]
    assert doc["meta"]["runs"] == 1


def test_anthropic_agent_is_refused(loaded) -> None:  # type: ignore[no-untyped-def]
    cfg = BenchConfig(
        approaches=["ctrl"],
        mode="live",
        agent="anthropic:claude@http://127.0.0.1:9",
        judge="anthropic:claude@http://127.0.0.1:9",
        runs=1,
        embedder="hashing",
    )
    with pytest.raises(ConfigError, match="OpenAI-compatible"):
        run_bench(loaded, cfg)


def test_tool_answers_follow_the_contract() -> None:
    test = Test.model_validate(
        {
            "actor": "a",
            "skill": "s",
            "query": "q",
            "steps": [
                {"call": {"name": "f", "arguments": {"x": 1}}, "result": "one"},
                {"call": {"name": "f", "arguments": {"x": 2}}, "result": "two"},
                {"call": {"name": "g", "arguments": {}}, "result": "gee"},
            ],
            "mocks": [
                {"call": {"name": "f", "arguments": {"x": 9}}, "result": "nine"},
                {"call": {"name": "h"}, "result": "any h"},
            ],
        }
    )
    t = ToolAnswerer(test)
    assert t.answer("f", {"x": 2}) == "two"  # same name and equal arguments first
    assert t.answer("f", {"x": 5}) == "one"  # else the first unused step with that name
    assert t.answer("f", {"x": 9}) == "nine"  # steps used up: a mock with matching arguments
    assert t.answer("f", {"x": 2}) == NO_SUCH_RESULT  # used steps are not reused
    assert t.answer("h", {"anything": True}) == "any h"  # no arguments given: any call
    assert t.answer("h", {}) == "any h"  # mocks can answer again
    assert t.answer("zzz", {}) == json.dumps({"error": "no such result"})
    assert ToolAnswerer(test).answer("g", {"extra": 1}) == "gee"


def test_checks() -> None:
    sc = Scenario.model_validate(
        scenario_dict(
            checks=[
                {"type": "tool_call_max", "tool": "f", "max": 1},
                {"type": "source_not_called", "tool": "f", "arguments": {"src": "old"}},
                {"type": "output_contains", "text": "Enterprise"},
                {"type": "tool_param_check", "tool": "f", "param": "unit", "equals": "usd"},
            ]
        )
    )
    c_max, c_src, c_out, c_param = sc.checks
    good = [("f", {"src": "new", "unit": "usd"}), ("g", {"src": "old"})]
    assert failed_checks(sc.checks, good, "the enterprise segment") == []
    assert not check_passes(c_max, [*good, ("f", {"unit": "usd"})], "")
    assert not check_passes(c_src, [("f", {"src": "old", "k": 1})], "")
    assert not check_passes(c_out, [], "no such word")
    assert not check_passes(c_param, [("f", {"unit": "eur"})], "")
    assert check_passes(c_param, [], "")  # vacuous: no call of the tool
