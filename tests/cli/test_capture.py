"""`dctx capture`: learning from trace files, and refusing malformed ones without writing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from typer.testing import Result

from cli.conftest import FORMAT_SESSION, SEGMENT_SESSION, rule_with, write_jsonl
from dctx.store.registry import open_store


def _rows(db: Path) -> dict[str, int]:
    store = open_store(str(db))
    try:
        return store.count_rows()
    finally:
        store.close()


def test_capture_prints_what_was_learned(cli: Callable[..., Result], traces: Path) -> None:
    result = cli("capture", "--actor", "kenji", "--skill", "financial_analyst", str(traces))
    assert result.exit_code == 0, result.output
    assert "Captured 2 sessions" in result.stdout
    assert "Learned" in result.stdout
    assert "give growth per segment" in result.stdout
    # no LLM: the output says which offline reader kept these rules and how to check them
    assert "Read offline by learned:" in result.stdout
    assert "--review" in result.stdout and "--llm" in result.stdout


def test_capture_json_reports_rules_and_defaults(cli: Callable[..., Result], traces: Path) -> None:
    result = cli(
        "capture", "--actor", "kenji", "--skill", "financial_analyst", "--json", str(traces)
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["sessions"] == 2
    assert report["messages"] == len(SEGMENT_SESSION["messages"]) + len(FORMAT_SESSION["messages"])
    assert report["corrections"] >= 2
    segment = rule_with(report["added"], "segment")
    assert segment["trigger"]["kind"] == "data"
    table = rule_with(report["added"], "table")
    # FORMAT_SESSION names no actor or skill: the command-line defaults fill them in
    assert table["actor"] == "kenji"
    assert table["scope"]["skill"] == "financial_analyst"
    assert table["type"] == "FORMAT"
    assert report["reader"].startswith("learned:")


def test_capture_review_mode_adds_drafts(cli: Callable[..., Result], traces: Path) -> None:
    result = cli("capture", "--review", "--json", str(traces))
    assert result.exit_code == 0, result.output
    statuses = {r["status"] for r in json.loads(result.stdout)["added"]}
    assert statuses == {"draft"}


def test_malformed_trace_exits_2_names_file_and_message_and_writes_nothing(
    cli: Callable[..., Result], tmp_path: Path, db: Path
) -> None:
    good = write_jsonl(tmp_path / "good.jsonl", [SEGMENT_SESSION])
    broken_session = json.loads(json.dumps(FORMAT_SESSION))
    broken_session["messages"][2] = {"role": "tool", "tool_call_id": "nope", "content": "x"}
    bad = write_jsonl(tmp_path / "bad.jsonl", [broken_session])
    result = cli("capture", str(good), str(bad))
    assert result.exit_code == 2
    assert "bad.jsonl" in result.stderr
    assert "message 2" in result.stderr
    assert "kenji-compare" in result.stderr
    assert "tool_call_id" in result.stderr
    assert "nothing was written" in result.stderr
    assert result.stderr.count("\n") == 1  # one line, no traceback
    rows = _rows(db)
    assert rows["sessions"] == 0 and rows["rules"] == 0  # good.jsonl was rolled back too


def test_invalid_json_line_names_the_line(cli: Callable[..., Result], tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text(json.dumps(SEGMENT_SESSION) + "\n{not json\n", encoding="utf-8")
    result = cli("capture", str(path))
    assert result.exit_code == 2
    assert "broken.jsonl" in result.stderr and "line 2" in result.stderr


def test_missing_trace_file_is_a_user_error(cli: Callable[..., Result], tmp_path: Path) -> None:
    result = cli("capture", str(tmp_path / "absent.jsonl"))
    assert result.exit_code == 2
    assert "trace file not found" in result.stderr


def test_debug_shows_the_traceback(cli: Callable[..., Result], tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text("{not json\n", encoding="utf-8")
    result = cli("capture", str(path), env={"DCTX_DEBUG": "1"})
    assert result.exit_code == 2
    assert "Traceback (most recent call last)" in result.stderr
    assert "TraceFormatError" in result.stderr
