"""The runner: in-process and process-pool runs agree; failures are reported, not fatal."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.benchkit import scenario_dict, write_scenario
from dctx.bench import approaches as registry
from dctx.bench.approaches import ApproachSpec
from dctx.bench.embedcache import CachedEmbedder
from dctx.bench.loader import load_scenarios
from dctx.bench.runner import BenchConfig, run_bench
from dctx.errors import ConfigError
from dctx.providers.base import Embedder


@pytest.fixture
def loaded(tmp_path: Path):  # type: ignore[no-untyped-def]
    write_scenario(tmp_path, scenario_dict())
    write_scenario(tmp_path, scenario_dict(id="fin.recall.other", dimension="recall", seed=[]))
    return load_scenarios(tmp_path)


@pytest.fixture
def recorder() -> str:
    registry.register(ApproachSpec("recorder", "bench.recording:Recorder", "test"))
    yield "recorder"
    registry.REGISTRY.pop("recorder", None)


def test_pool_matches_in_process(loaded, recorder: str) -> None:  # type: ignore[no-untyped-def]
    names = ["ctrl", "doc_naive", "expel", recorder]
    one = run_bench(loaded, BenchConfig(approaches=names, embedder="hashing", jobs=1))
    seen: list[str] = []
    two = run_bench(
        loaded,
        BenchConfig(approaches=names, embedder="hashing", jobs=2),
        on_result=lambda r: seen.append(f"{r.approach}/{r.scenario}"),
    )
    key = [(r.approach, r.scenario, r.score, r.tokens, r.items) for r in one.results]
    assert key == [(r.approach, r.scenario, r.score, r.tokens, r.items) for r in two.results]
    assert len(seen) == len(names) * 2
    # the recorder says "segment" at DP0 (breaks no_premature, weight 1 of 5) and gives the
    # per-segment directive at DP1 (per_segment, weight 3): 80 on both scenarios
    assert [r.score for r in two.of(recorder)] == [pytest.approx(80.0)] * 2
    assert not two.errors()


def test_failures_are_recorded(loaded) -> None:  # type: ignore[no-untyped-def]
    registry.register(ApproachSpec("broken", "bench.recording:Broken", ""))
    try:
        res = run_bench(loaded, BenchConfig(approaches=["broken", "ctrl"], embedder="hashing"))
    finally:
        registry.REGISTRY.pop("broken")
    assert [r.error for r in res.of("broken")] == ["RuntimeError: boom"] * 2
    assert not any(r.error for r in res.of("ctrl"))


def test_config_errors_stop_the_run(loaded) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match="unknown embedder"):
        run_bench(loaded, BenchConfig(approaches=["doc_naive"], embedder="nope", jobs=2))
    with pytest.raises(ConfigError, match="unknown embedder"):
        run_bench(loaded, BenchConfig(approaches=["doc_naive"], embedder="nope", jobs=1))
    with pytest.raises(ConfigError, match="--jobs"):
        run_bench(loaded, BenchConfig(jobs=0))


def test_embedding_cache_shares_texts(hashing: Embedder) -> None:
    cached = CachedEmbedder(hashing)
    a = cached.embed(["x y", "z", "x y"])
    b = cached.embed(["z"])
    assert cached.misses == 2 and cached.hits == 1  # a repeat within one call embeds once
    assert (a[2] == hashing.embed(["x y"])[0]).all() and (b[0] == a[1]).all()
    assert cached.id == hashing.id and cached.dim == hashing.dim
