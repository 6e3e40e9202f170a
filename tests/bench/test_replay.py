"""Offline replay: decision points, what an approach may see, and isolation."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.benchkit import scenario_dict
from bench.recording import Recorder
from dctx.bench import approaches as registry
from dctx.bench.approaches import ApproachSpec
from dctx.bench.replay import replay
from dctx.bench.schema import Scenario, SeedSession
from dctx.errors import ConfigError, DctxError
from dctx.providers.base import Embedder


@pytest.fixture
def recorder() -> str:
    registry.register(ApproachSpec("recorder", "bench.recording:Recorder", "test"))
    Recorder.log.clear()
    yield "recorder"
    registry.REGISTRY.pop("recorder", None)


def test_decision_points_and_what_the_approach_sees(
    scenario: Scenario, recorder: str, hashing: Embedder
) -> None:
    before = scenario.model_dump()
    dps = replay(scenario, recorder, embedder_factory=lambda: hashing)
    assert len(dps) == len(scenario.test.steps) + 1
    assert [u.channel for u in dps[0]] == ["user"]
    assert [u.channel for u in dps[1]] == ["system"]

    kinds = [k for k, _ in Recorder.log]
    assert kinds == ["init", "capture", "start", "observe", "close"]
    seed = Recorder.log[1][1]
    assert all(isinstance(s, SeedSession) for s in seed)
    assert not any(hasattr(s, "test") or hasattr(s, "expect") for s in seed)
    assert Recorder.log[2][1] == (
        "alice",
        "financial_analyst",
        "Summarize Beta Inc's growth.",
        ["get_financials"],
    )
    call, result = Recorder.log[3][1]
    assert call["name"] == "get_financials"
    assert result == scenario.test.steps[0].result
    # the approach got copies: its vandalism did not reach the scenario
    assert scenario.model_dump() == before


def test_fresh_instance_and_scratch_folder_per_replay(
    scenario: Scenario, recorder: str, hashing: Embedder
) -> None:
    replay(scenario, recorder, embedder_factory=lambda: hashing)
    replay(scenario, recorder, embedder_factory=lambda: hashing)
    dirs = [d for k, d in Recorder.log if k == "init"]
    assert len(dirs) == 2 and dirs[0] != dirs[1]
    assert not any(Path(d).exists() for d in dirs)  # removed after each replay


@pytest.mark.parametrize("approach", ["in_session", "doc_naive", "doc_chunk", "expel", "forge_dc"])
def test_nothing_carries_across_scenarios(approach: str, hashing: Embedder) -> None:
    """A scenario with no seed after one with a seed gets nothing from the first."""
    first = Scenario.model_validate(scenario_dict())
    empty = Scenario.model_validate(scenario_dict(id="fin.recall.empty", seed=[]))
    learned = replay(first, approach, embedder_factory=lambda: hashing)
    assert any(learned), f"{approach} learned nothing from the seed; the check would be void"
    again = replay(empty, approach, embedder_factory=lambda: hashing)
    assert again == [[] for _ in again]


def test_unknown_approach_and_bad_units(scenario: Scenario, hashing: Embedder) -> None:
    with pytest.raises(ConfigError, match="unknown approach"):
        replay(scenario, "nope", embedder_factory=lambda: hashing)
    with pytest.raises(ConfigError, match="cannot load"):
        replay(scenario, "bench.recording:Missing", embedder_factory=lambda: hashing)
    with pytest.raises(DctxError, match="bad unit"):
        replay(scenario, "bench.recording:BadUnits", embedder_factory=lambda: hashing)
