"""`dctx bench` through typer's CliRunner, on a tiny scenario folder written here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bench.benchkit import scenario_dict, write_scenario
from dctx.bench import approaches as registry
from dctx.bench.approaches import ApproachSpec
from dctx.bench.cli import bench_app

runner = CliRunner()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    root = tmp_path / "scenarios"
    write_scenario(root / "fin", scenario_dict())
    other = scenario_dict(id="cs.recall.tiny_cc", dimension="recall", domain="customer_support")
    other["test"]["query"] = "Reply to ticket 42."
    write_scenario(root / "cs", other)
    return root


def _run(*args: str) -> tuple[int, str, str]:
    res = runner.invoke(bench_app, list(args))
    return res.exit_code, res.stdout, res.stderr


def test_json_document_on_stdout(folder: Path) -> None:
    code, out, _ = _run(
        "--scenarios", str(folder), "-a", "ctrl", "-a", "doc_naive", "-a", "expel",
        "--embedder", "hashing", "--jobs", "1", "--json",
    )  # fmt: skip
    assert code == 0
    doc = json.loads(out)  # stdout holds exactly one JSON document
    assert doc["scenarios"] == 2
    assert list(doc["approaches"]) == ["ctrl", "doc_naive", "expel"]
    ctrl = doc["approaches"]["ctrl"]
    assert ctrl["overall"] == pytest.approx(40.0)  # only the two negative items (1+1 of 5)
    assert ctrl["efficacy"] is None and ctrl["tokens"] == 0
    ids = [s["id"] for s in doc["approaches"]["expel"]["scenarios"]]
    assert ids == ["cs.recall.tiny_cc", "fin.conditional_activation.tiny_growth"]
    assert doc["approaches"]["doc_naive"]["tokens"] > 0
    assert doc["meta"]["embedder"] == "hashing"


def test_filters_units_and_markdown(folder: Path) -> None:
    code, out, _ = _run(
        "-s", str(folder), "-a", "in_session", "-d", "recall", "--embedder", "hashing",
        "--json", "--units",
    )  # fmt: skip
    assert code == 0
    rows = json.loads(out)["approaches"]["in_session"]["scenarios"]
    assert [r["id"] for r in rows] == ["cs.recall.tiny_cc"]
    assert rows[0]["delivered"][0][0]["channel"] == "user"
    code, out, _ = _run("-s", str(folder), "-a", "ctrl", "--id", "fin.*", "--embedder", "hashing")
    assert code == 0
    assert out.startswith("# DC-Bench results (delivery)")
    assert "`fin.conditional_activation.tiny_growth`" in out and "tiny_cc" not in out


def test_out_folder(folder: Path, tmp_path: Path) -> None:
    out_dir = tmp_path / "report"
    code, out, err = _run(
        "-s", str(folder), "-a", "ctrl", "-a", "doc_chunk", "--embedder", "hashing",
        "--out", str(out_dir),
    )  # fmt: skip
    assert code == 0
    assert out == ""
    assert {p.name for p in out_dir.iterdir()} == {"report.md", "results.json", "chart.png"}
    assert "wrote" in err


def test_process_pool(folder: Path) -> None:
    code, out, _ = _run(
        "-s", str(folder), "-a", "ctrl", "-a", "doc_naive", "--embedder", "hashing",
        "--jobs", "2", "--json",
    )  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    assert len(doc["approaches"]["doc_naive"]["scenarios"]) == 2


def test_approaches_may_be_given_as_one_comma_list(folder: Path) -> None:
    code, out, _ = _run(
        "-s", str(folder), "-a", "doc_naive, ctrl", "-a", "expel", "--embedder", "hashing",
        "--jobs", "1", "--json",
    )  # fmt: skip
    assert code == 0
    assert list(json.loads(out)["approaches"]) == ["doc_naive", "ctrl", "expel"]


def test_list_and_validate(folder: Path, tmp_path: Path) -> None:
    code, out, _ = _run("list", "--scenarios", str(folder), "--json")
    assert code == 0
    data = json.loads(out)
    assert [s["id"] for s in data["scenarios"]] == [
        "cs.recall.tiny_cc",
        "fin.conditional_activation.tiny_growth",
    ]
    assert "forge_dc" in data["approaches"]
    code, out, _ = _run("validate", str(folder))
    assert code == 0 and "2 scenario(s) loaded, 0 example problem(s)" in out
    bad = scenario_dict()
    bad["expect"][0]["examples"]["bad"].append("Report how each segment grew.")
    write_scenario(tmp_path / "bad", bad)
    code, out, err = _run("validate", str(tmp_path / "bad"))
    assert code == 1
    assert "bad example satisfies match" in err


def test_scenarios_given_before_the_subcommand_apply_to_it(folder: Path) -> None:
    code, out, _ = _run("-s", str(folder), "validate")
    assert code == 0 and "2 scenario(s) loaded" in out
    code, out, _ = _run("--scenarios", str(folder), "list")
    assert code == 0 and "2 scenario(s);" in out


def test_user_errors_exit_2_with_the_fix(folder: Path, tmp_path: Path) -> None:
    code, _, err = _run("-s", str(folder), "-a", "nope")
    assert code == 2 and "unknown approach 'nope'" in err
    code, _, err = _run("-s", str(folder), "--mode", "live", "-a", "ctrl")
    assert code == 2 and "--agent and --judge" in err
    code, _, err = _run("-s", str(folder), "-d", "recall", "--id", "fin.*")
    assert code == 2 and "no scenario matched" in err
    broken = tmp_path / "broken"
    path = write_scenario(broken, scenario_dict(dimension="vibes"))
    code, _, err = _run("-s", str(broken), "-a", "ctrl")
    assert code == 2 and path.name in err and "dimension" in err


def test_failed_pairs_exit_1(folder: Path) -> None:
    registry.register(ApproachSpec("broken", "bench.recording:Broken", "fails in capture"))
    try:
        code, out, err = _run(
            "-s", str(folder), "-a", "ctrl", "-a", "broken", "--embedder", "hashing", "--json",
            "--jobs", "1",
        )  # fmt: skip
    finally:
        registry.REGISTRY.pop("broken")
    assert code == 1
    doc = json.loads(out)
    assert doc["approaches"]["broken"]["errors"] == 2
    assert doc["approaches"]["broken"]["scenarios"][0]["error"] == "RuntimeError: boom"
    assert doc["approaches"]["ctrl"]["errors"] == 0
    assert "2 scenario run(s) failed" in err
