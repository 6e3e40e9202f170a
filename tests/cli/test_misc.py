"""Version, help, configuration from the environment, the bench mount, the demo."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from typer.testing import Result

from dctx import __version__
from dctx.demo.runner import run_demo


def test_version(cli: Callable[..., Result]) -> None:
    assert cli("version").stdout.strip() == f"dctx {__version__}"
    assert json.loads(cli("version", "--json").stdout) == {"version": __version__}


def test_help_teaches_with_examples(cli: Callable[..., Result]) -> None:
    root = cli("--help")
    assert root.exit_code == 0
    for noun in ("capture", "rules", "inject", "forget", "demo", "bench", "version"):
        assert noun in root.stdout
    assert "dctx demo" in root.stdout
    capture = cli("capture", "--help")
    assert "Examples" in capture.stdout and "DCTX_ACTOR" in capture.stdout
    explain = cli("rules", "explain", "--help")
    assert "--step" in explain.stdout


def test_db_option_env_and_root_level(
    cli: Callable[..., Result], traces: Path, tmp_path: Path
) -> None:
    a, b = tmp_path / "a.db", tmp_path / "b.db"
    assert cli("capture", str(traces), env={"DCTX_DB": str(a)}).exit_code == 0
    assert cli("--db", str(b), "capture", str(traces)).exit_code == 0
    assert a.exists() and b.exists()
    from_env = json.loads(cli("rules", "--json", env={"DCTX_DB": str(a)}).stdout)
    from_root = json.loads(cli("--db", str(b), "rules", "--json").stdout)
    assert len(from_env) == len(from_root) > 0
    # the command line beats the environment, at any level
    listed = cli("rules", "--db", str(b), "--json", env={"DCTX_DB": str(tmp_path / "c.db")})
    assert {r["id"] for r in json.loads(listed.stdout)} == {r["id"] for r in from_root}
    shown = cli("--db", str(b), "rules", "show", from_root[0]["id"])
    assert shown.exit_code == 0, shown.output


def test_unknown_embedder_is_a_user_error(
    cli: Callable[..., Result], captured: list[dict[str, Any]]
) -> None:
    result = cli("rules", env={"DCTX_EMBEDDER": "word2vec"})
    assert result.exit_code == 2
    assert "unknown embedder 'word2vec'" in result.stderr


def test_bench_has_perf(cli: Callable[..., Result]) -> None:
    result = cli("bench", "--help")
    assert result.exit_code == 0
    assert "perf" in result.stdout


def test_demo_applies_a_rule_to_another_subject(tmp_path: Path) -> None:
    result = run_demo(str(tmp_path / "demo.db"))
    kinds = {r["trigger"]["kind"] for r in result.rules}
    assert {"always", "data", "tool"} <= kinds
    types = {r["type"] for r in result.rules}
    assert types == {"FORMAT", "CONTENT"}
    captured_text = " ".join(s["query"] for s in result.sessions)
    assert "Corvid" in result.replay["query"] and "Corvid" not in captured_text
    delivered = {
        item["text"]: (p.decision_point, item) for p in result.points for item in p.delivered
    }
    segment_dp, segment = next((v for k, v in delivered.items() if "per segment" in k))
    segments_call = next(p for p in result.points if p.call and p.call["name"] == "get_segments")
    assert segment_dp == segments_call.decision_point
    assert segment["kind"] == "data" and "met" in segment["why"]
    table_dp, _ = next((v for k, v in delivered.items() if "table" in k))
    assert table_dp == 0
    # before the segment data arrived, the same rule was held back, with the reason
    waiting = [
        s for p in result.points[:segment_dp] for s in p.silent if "per segment" in s["text"]
    ]
    assert len(waiting) == segment_dp and all("not met" in s["why"] for s in waiting)
    # the retry with changed arguments in an earlier session reaches the new run in time:
    # a format holds for every call of its tool, so it comes before the first one
    date_dp, date_rule = next(v for k, v in delivered.items() if "YYYY-MM-DD" in k)
    assert date_rule["kind"] == "tool"
    financials_dp = next(
        p.decision_point
        for p in result.points
        if p.call
        and p.call
        == {
            "name": "get_financials",
            "arguments": {"ticker": "CRVD", "period": "FY2025", "compare_to": "FY2024"},
        }
    )
    assert date_dp <= financials_dp
    assert result.seconds < 60


def test_demo_command_prints_what_and_why(cli: Callable[..., Result], tmp_path: Path) -> None:
    result = cli("demo", "--db", str(tmp_path / "d.db"), env={"DCTX_EMBEDDER": ""})
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Compiled rules" in out
    assert "delivered RULE: Whenever a company reports segments" in out
    assert "why: data trigger, met" in out
    assert "Corvid" in out
    listed: list[dict[str, Any]] = json.loads(
        cli("rules", "--json", env={"DCTX_DB": str(tmp_path / "d.db"), "DCTX_EMBEDDER": ""}).stdout
    )
    assert len(listed) >= 4


def test_error_lines_and_exit_codes() -> None:
    from dctx.cli._common import error_line, exit_code
    from dctx.errors import ConfigError, StoreError

    assert exit_code(ConfigError("bad")) == 2
    assert exit_code(StoreError("disk full")) == 1
    assert exit_code(ValueError("boom")) == 1
    assert "DCTX_DB" in error_line(StoreError("disk full"))
    assert "DCTX_DEBUG=1" in error_line(ValueError("boom"))


def test_a_not_found_hint_points_at_rule_ids_only_when_a_rule_is_missing() -> None:
    from dctx.cli._common import error_line
    from dctx.errors import NotFoundError

    assert "dctx rules" in error_line(NotFoundError("no rule 'r9'"))
    missing = error_line(NotFoundError("conversation 'c1' was not captured: capture it first"))
    assert "dctx rules" not in missing


def test_database_that_is_not_sqlite_is_reported(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    bogus = tmp_path / "notes.db"
    bogus.write_text("these are not the tables you are looking for\n" * 200)
    result = cli("rules", env={"DCTX_DB": str(bogus)})
    assert result.exit_code in (1, 2)
    assert result.stderr.startswith("error: ") and "notes.db" in result.stderr
    assert "Traceback" not in result.stderr
