"""`dctx inject` and `dctx forget`."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from typer.testing import Result

from cli.test_rules import STEP_FINANCIALS, STEP_SEGMENTS


def test_inject_stage1_and_steps(
    cli: Callable[..., Result], captured: list[dict[str, Any]]
) -> None:
    result = cli(
        "inject",
        "--actor",
        "kenji",
        "--skill",
        "financial_analyst",
        "-q",
        "Compare Corvid and Sable Networks on FY2025 margins",
        "--step",
        STEP_FINANCIALS,
        "--step",
        STEP_SEGMENTS,
        "--json",
    )
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    user, assistant = out["stage1"]["messages"]
    assert user["role"] == "user" and "company comparisons in a table" in user["content"]
    assert assistant["role"] == "assistant"
    assert "segment" not in user["content"]  # the data rule waits for segment data
    first, second = out["steps"]
    assert first["tool"] == "get_financials" and first["units"] == []  # silent
    assert [u["channel"] for u in second["units"]] == ["system"]
    assert "per segment" in second["units"][0]["text"]
    assert "per segment" in out["system"]


def test_inject_plain_output_and_silence(
    cli: Callable[..., Result], captured: list[dict[str, Any]]
) -> None:
    result = cli(
        "inject",
        "--actor",
        "someone-new",
        "--skill",
        "financial_analyst",
        "-q",
        "Hello",
        "--step",
        STEP_FINANCIALS,
    )
    assert result.exit_code == 0, result.output
    assert "silent: no rule applies before the run" in result.stdout
    assert "silent: nothing new applies" in result.stdout


def test_inject_bad_step_is_a_user_error(cli: Callable[..., Result]) -> None:
    result = cli(
        "inject", "--actor", "a", "--skill", "s", "-q", "q", "--step", 'get_x {"a": } result'
    )
    assert result.exit_code == 2
    assert "--step 1" in result.stderr and "JSON" in result.stderr


def test_forget_deletes_the_actor(
    cli: Callable[..., Result], captured: list[dict[str, Any]]
) -> None:
    result = cli("forget", "--actor", "kenji", "--yes", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["actor"] == "kenji"
    assert out["deleted"]["rules"] == len(captured)
    assert out["deleted"]["sessions"] == 2
    listed = cli("rules", "--json")
    assert json.loads(listed.stdout) == []


def test_forget_asks_first(cli: Callable[..., Result], captured: list[dict[str, Any]]) -> None:
    result = cli("forget", "--actor", "kenji", input="n\n")
    assert result.exit_code == 1
    assert len(json.loads(cli("rules", "--json").stdout)) == len(captured)
    table = cli("forget", "--actor", "kenji", input="y\n")
    assert table.exit_code == 0, table.output
    assert "rules" in table.stdout


def test_forget_requires_actor(cli: Callable[..., Result]) -> None:
    result = cli("forget", "--yes")
    assert result.exit_code == 2
    assert "--actor" in result.output
