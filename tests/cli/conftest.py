"""Fixtures for the CLI tests: a runner, a temporary database, and small trace files.

Commands run in-process through Typer's CliRunner against a real SQLite file. The hashing
embedder keeps each command fast (MiniLM would be loaded again by every invocation).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from dctx.cli.main import app

SEGMENT_SESSION: dict[str, Any] = {
    "conversation_id": "kenji-growth",
    "actor": "kenji",
    "skill": "financial_analyst",
    "timestamp": "2026-02-04T11:30:00Z",
    "messages": [
        {"role": "user", "content": "Summarize Tavistock Instruments' growth for FY2025."},
        {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "get_segments",
            "arguments": '{"company": "Tavistock Instruments", "period": "FY2025"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps({"segments": [
            {"name": "Test & Measurement", "revenue": 1011.0, "revenue_prior": 842.6},
            {"name": "Industrial Sensors", "revenue": 631.0, "revenue_prior": 655.7}]})},
        {"role": "assistant", "content": "Tavistock grew FY2025 revenue 9.6% to $1.64B."},
        {"role": "user", "content": "9.6% hides the story. Whenever a company reports segments,"
         " give growth per segment, not just the consolidated number."},
        {"role": "assistant", "content": "T&M grew 20.0% while Industrial Sensors fell 3.8%."},
        {"role": "user", "content": "Exactly."},
    ],
}  # fmt: skip
FORMAT_SESSION: dict[str, Any] = {
    "conversation_id": "kenji-compare",
    "timestamp": "2026-02-05T10:00:00Z",
    "messages": [
        {"role": "user", "content": "Compare Halvard Energy and Brightwater Utilities on margins."},
        {"role": "assistant", "content": "Brightwater's operating margin is 17.0% vs 15.0%."},
        {"role": "user", "content": "I can't scan prose. Always put company comparisons in a "
         "table, one column per company and metrics as rows."},
        {"role": "assistant", "content": "| Metric | Halvard | Brightwater |"},
        {"role": "user", "content": "Great, thanks."},
    ],
}  # fmt: skip


def write_jsonl(path: Path, sessions: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(s) + "\n" for s in sessions), encoding="utf-8")
    return path


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "cli.db"


@pytest.fixture
def cli(db: Path) -> Callable[..., Result]:
    """Invoke `dctx ARGS...` on the temporary database; stdout and stderr are kept apart."""
    runner = CliRunner()

    def invoke(*args: str, env: dict[str, str] | None = None, input: str | None = None) -> Result:
        full_env = {"DCTX_DB": str(db), "DCTX_EMBEDDER": "hashing", "COLUMNS": "200"}
        full_env.update(env or {})
        return runner.invoke(app, list(args), env=full_env, input=input)

    return invoke


@pytest.fixture
def traces(tmp_path: Path) -> Path:
    """One JSONL file: kenji's segment correction, and an actor-less formatting correction."""
    return write_jsonl(tmp_path / "traces.jsonl", [SEGMENT_SESSION, FORMAT_SESSION])


@pytest.fixture
def captured(cli: Callable[..., Result], traces: Path) -> list[dict[str, Any]]:
    """The database after capturing `traces` (FORMAT_SESSION's actor defaults to kenji)."""
    result = cli("capture", "--actor", "kenji", "--skill", "financial_analyst", str(traces))
    assert result.exit_code == 0, result.output
    listed = cli("rules", "--json")
    assert listed.exit_code == 0, listed.output
    rules: list[dict[str, Any]] = json.loads(listed.stdout)
    return rules


def rule_with(rules: list[dict[str, Any]], word: str) -> dict[str, Any]:
    found = [r for r in rules if word in r["text"].lower()]
    assert found, f"no rule mentions {word!r}: {[r['text'] for r in rules]}"
    return found[0]
