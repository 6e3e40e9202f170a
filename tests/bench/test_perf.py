"""Smoke test of the performance benchmark: the output's shape, never its timings."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from dctx.bench.perf import SizeResult, Stat, ratio_table
from dctx.bench.perf_data import SKILLS, synthetic_rules, synthetic_sessions
from dctx.cli.main import app
from dctx.models import TriggerKind

ROOT = Path(__file__).resolve().parents[2]
ARGS = [
    "--sizes",
    "5",
    "--iterations",
    "3",
    "--cold",
    "1",
    "--capture-sessions",
    "6",
    "--embedder",
    "hashing",
    "--json",
]


def _check_shape(result: dict) -> None:  # type: ignore[type-arg]
    (size,) = result["sizes"]
    assert size["rules"] == 5
    for stage in ("stage1", "stage2"):
        assert set(size[stage]) == {"cold", "reload", "new_text", "cached"}
        for stat in size[stage].values():
            assert stat["p50_ms"] > 0 and stat["p95_ms"] >= stat["p50_ms"]
            assert stat["n"] >= 1
    assert [c["mode"] for c in result["capture"]] == ["per_session", "batch"]
    for cap in result["capture"]:
        assert cap["sessions"] == 6 and cap["messages"] > 6 and cap["messages_per_s"] > 0
    assert result["peak_rss_mb"] > 0
    assert 0 < size["peak_rss_mb"] <= result["peak_rss_mb"]
    # a fresh decision-point-only process on the same store (hashing: no model to load)
    assert size["decision_rss_mb"] > 0 and size["decision_models"] == []
    assert result["embedder"] == "hashing-384"
    assert {t["target"] for t in result["targets"]} == {
        "capture_messages_per_s (per_session)",
        "capture_messages_per_s (batch)",
    }


def test_bench_perf_json_shape() -> None:
    result = CliRunner().invoke(app, ["bench", "perf", *ARGS])
    assert result.exit_code == 0, result.output
    _check_shape(json.loads(result.stdout))


def test_wrapper_script_runs() -> None:
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "perf.py"), *ARGS],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    _check_shape(json.loads(proc.stdout))


def test_bad_sizes_is_a_user_error() -> None:
    result = CliRunner().invoke(app, ["bench", "perf", "--sizes", "5,x"])
    assert result.exit_code == 2
    assert "--sizes" in result.stderr


def test_synthetic_rulebook_is_varied_and_deterministic() -> None:
    rules = synthetic_rules(400)
    assert synthetic_rules(400)[123].text == rules[123].text
    assert {r.trigger.kind for r in rules} == set(TriggerKind)
    assert any(r.trigger.numeric for r in rules) and any(r.trigger.after_tool for r in rules)
    assert {r.scope.skill for r in rules} >= set(SKILLS)
    assert len({r.scope.actor for r in rules}) > 10
    assert len({r.id for r in rules}) == 400
    sessions = synthetic_sessions(20)
    roles = {m["role"] for _, _, msgs in sessions for m in msgs}
    assert roles == {"user", "assistant", "tool"}
    assert any("Error" in m.get("content", "") for _, _, msgs in sessions for m in msgs)


def test_ratio_table_is_against_the_500_rule_run() -> None:
    def size(rules: int, ms: float) -> SizeResult:
        stat = Stat(ms, ms, 1)
        return SizeResult(rules, rules, 0.0, {"cold": stat}, {"cold": stat}, peak_rss_mb=ms)

    table = ratio_table([size(5, 1.0), size(500, 2.0), size(5000, 8.0)])
    assert table["stage1 cold p50 ms"] == [0.5, 1.0, 4.0]
    assert table["peak RSS MB"] == [0.5, 1.0, 4.0]
