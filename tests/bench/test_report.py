"""Report rendering: the paper's tables, the no-regression check, the JSON document, the chart."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from dctx.bench.report import (
    dumps,
    json_document,
    no_regression,
    render_markdown,
    table_dimensions,
    table_scenarios,
    table_tokens,
    write_chart,
    write_outputs,
)
from dctx.bench.results import BenchResult, ScenarioResult


def R(sid: str, dim: str, approach: str, score: float, tokens: float = 0) -> ScenarioResult:
    return ScenarioResult(
        scenario=sid,
        dimension=dim,
        domain="financial_analyst",
        approach=approach,
        score=score,
        tokens=tokens,
        units=1 if tokens else 0,
        items={"a": score / 100},
    )


@pytest.fixture
def result() -> BenchResult:
    rows = [
        R("fin.recall.a", "recall", "ctrl", 0),
        R("fin.recall.b", "recall", "ctrl", 100),
        R("fin.exception.c", "exception", "ctrl", 100),
        R("fin.recall.a", "recall", "doc_naive", 100, 300),
        R("fin.recall.b", "recall", "doc_naive", 50, 500),
        R("fin.exception.c", "exception", "doc_naive", 0, 100),
        R("fin.recall.a", "recall", "forge_dc", 100, 20),
        R("fin.recall.b", "recall", "forge_dc", 100, 0),
        R("fin.exception.c", "exception", "forge_dc", 100, 0),
    ]
    return BenchResult(
        mode="delivery",
        approaches=["ctrl", "doc_naive", "forge_dc"],
        results=rows,
        seconds=1.5,
        meta={"tokenizer": "regex", "embedder": "hashing"},
    )


def test_dimension_table(result: BenchResult) -> None:
    lines = table_dimensions(result).splitlines()
    assert lines[0] == "| Dimension | `ctrl` | `doc_naive` | `forge_dc` |"
    assert lines[2] == "| Exception (1) | **100** | 0 | **100** |"  # paper order: exception first
    assert lines[3] == "| Recall (2) | 50 | 75 | **100** |"
    assert lines[4] == "| **Overall (3)** | 67 | 50 | **100** |"


def test_token_table(result: BenchResult) -> None:
    lines = table_tokens(result).splitlines()
    assert lines[2] == "| `ctrl` | 0 | — |"
    assert lines[3] == "| `doc_naive` | 300 | 66.7% |"  # 3 injected, 2 score > 0
    assert lines[4] == "| `forge_dc` | 7 | 100.0% |"


def test_scenario_table(result: BenchResult) -> None:
    lines = table_scenarios(result).splitlines()
    assert lines[2] == "| Exception | `fin.exception.c` | ✓ | 0 | ✓ |"
    assert lines[3] == "| Recall | `fin.recall.a` | 0 | ✓ | ✓ |"
    assert lines[4] == "| Recall | `fin.recall.b` | ✓ | 50 | ✓ |"


def test_no_regression(result: BenchResult) -> None:
    check = no_regression(result)
    assert check["ctrl_passes"] == ["fin.exception.c", "fin.recall.b"]
    assert check["failures"] == {
        "doc_naive": ["fin.exception.c", "fin.recall.b"],
        "forge_dc": [],
    }
    assert check["passes"] is True
    result.results[-1].score = 80.0
    assert no_regression(result)["passes"] is False
    result.approaches = ["doc_naive", "forge_dc"]
    assert no_regression(result)["checked"] is False


def test_markdown_has_every_section(result: BenchResult) -> None:
    md = render_markdown(result)
    for heading in (
        "# DC-Bench results",
        "by dimension",
        "tokens and efficacy",
        "No regression",
        "Per-scenario",
    ):
        assert heading in md
    assert "No-regression for `forge_dc` holds." in md
    result.results[0].error = "RuntimeError: boom"
    md = render_markdown(result)
    assert "## Errors" in md and "RuntimeError: boom" in md
    assert "| Recall | `fin.recall.a` | err |" in md


def test_json_document_shape(result: BenchResult) -> None:
    doc = json.loads(dumps(result))
    assert doc == json.loads(json.dumps(json_document(result)))
    assert doc["mode"] == "delivery" and doc["scenarios"] == 3
    assert set(doc["approaches"]) == {"ctrl", "doc_naive", "forge_dc"}
    naive = doc["approaches"]["doc_naive"]
    assert naive["overall"] == pytest.approx(50.0)
    assert naive["dimensions"] == {"exception": 0.0, "recall": 75.0}
    assert naive["tokens"] == pytest.approx(300.0)
    assert naive["efficacy"] == pytest.approx(2 / 3)
    assert doc["approaches"]["ctrl"]["efficacy"] is None
    row = naive["scenarios"][0]
    assert {"id", "dimension", "score", "tokens"} <= set(row)
    assert row["id"] == "fin.exception.c" and row["tokens"] == 100


def test_chart_and_outputs(result: BenchResult, tmp_path: Path) -> None:
    paths, notes = write_outputs(result, tmp_path / "out")
    assert notes == []
    names = sorted(p.name for p in paths)
    assert names == ["chart.png", "report.md", "results.json"]
    assert (tmp_path / "out" / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "![compliance](chart.png)" in (tmp_path / "out" / "report.md").read_text()
    assert json.loads((tmp_path / "out" / "results.json").read_text())["scenarios"] == 3


def test_chart_skipped_without_matplotlib(
    result: BenchResult, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import fails like a missing extra
    note = write_chart(result, tmp_path / "c.png")
    assert note is not None and "dctx[plot]" in note
    assert not (tmp_path / "c.png").exists()
    paths, notes = write_outputs(result, tmp_path / "o")
    assert [p.name for p in paths] == ["report.md", "results.json"] and notes == [note]
