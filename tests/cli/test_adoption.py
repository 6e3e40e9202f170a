"""What a new user meets first: --version, a mistyped --db, forgetting a stranger, readable
--help placeholders, and one `explain` in the CLI and the Python API."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import Result

import dctx
from cli.conftest import rule_with
from dctx.memory import Memory

STEP_SEGMENTS = 'get_segments {"company": "Corvid"} {"segments": [{"name": "Cloud"}]}'


def test_version_flag(cli: Callable[..., Result]) -> None:
    for flag in ("--version", "-V"):
        result = cli(flag)
        assert result.exit_code == 0
        assert result.stdout.strip() == f"dctx {dctx.__version__}"


@pytest.mark.parametrize(
    "args",
    [
        ["rules"],
        ["rules", "show", "rule_x"],
        ["rules", "explain", "rule_x"],
        ["rules", "export", "out.yaml"],
        ["rules", "disable", "rule_x"],
        ["inject", "--actor", "a", "--skill", "s", "-q", "q"],
        ["forget", "--actor", "a", "--yes"],
    ],
)
def test_commands_on_existing_data_never_create_a_database(
    cli: Callable[..., Result], tmp_path: Path, args: list[str]
) -> None:
    typo = tmp_path / "memroy.db"
    result = cli(*args, "--db", str(typo))
    assert result.exit_code == 2
    assert f"no dctx database at '{typo}'" in result.stderr and "typo" in result.stderr
    assert not typo.exists()


def test_capture_still_creates_the_database(
    cli: Callable[..., Result], db: Path, traces: Path
) -> None:
    assert not db.exists()
    assert cli("capture", str(traces)).exit_code == 0
    assert db.exists()


def test_forget_of_an_unknown_actor_says_nothing_matched(
    cli: Callable[..., Result], captured: list[dict[str, Any]]
) -> None:
    result = cli("forget", "--actor", "nobody", "--yes")
    assert result.exit_code == 0
    assert "Nothing matched actor 'nobody'" in result.stdout and "0 rows deleted" in result.stdout
    as_json = json.loads(cli("forget", "--actor", "nobody", "--yes", "--json").stdout)
    assert as_json["matched"] is False and not any(as_json["deleted"].values())
    known = json.loads(cli("forget", "--actor", "kenji", "--yes", "--json").stdout)
    assert known["matched"] is True


@pytest.mark.parametrize(
    "args", [["rules", "explain", "--help"], ["inject", "--help"], ["capture", "--help"]]
)
def test_help_placeholders_are_names_not_types(cli: Callable[..., Result], args: list[str]) -> None:
    text = cli(*args).stdout
    options = [line for line in text.splitlines() if line.lstrip().startswith("-")]
    assert not [line for line in options if re.search(r"<(str|int|float|list\[str\])>", line)]
    assert "--db PATH|URL" in text


def test_explain_is_one_thing_in_the_cli_and_the_api(
    cli: Callable[..., Result], captured: list[dict[str, Any]], db: Path
) -> None:
    rule_id = rule_with(captured, "segment")["id"]
    plain = json.loads(cli("rules", "explain", rule_id, "--json").stdout)
    run_args = ["-q", "How did Corvid grow?", "--actor", "kenji", "--skill", "financial_analyst"]
    with_run = json.loads(
        cli("rules", "explain", rule_id, *run_args, "--step", STEP_SEGMENTS, "--json").stdout
    )
    with Memory(str(db), embedder="hashing") as mem:
        api_plain = mem.explain(rule_id)
        api_run = mem.explain(
            rule_id,
            query="How did Corvid grow?",
            actor="kenji",
            skill="financial_analyst",
            steps=[({"name": "get_segments", "arguments": {"company": "Corvid"}},
                    '{"segments": [{"name": "Cloud"}]}')],
        )  # fmt: skip
    assert plain == api_plain == json.loads(cli("rules", "show", rule_id, "--json").stdout)
    assert "run" not in plain and plain["evidence"]  # provenance without a run
    assert with_run == api_run
    assert with_run["evidence"] == plain["evidence"]  # provenance with the run
    assert with_run["run"]["delivered_at"] == 1 and with_run["run"]["verdict"].startswith("FIRES")
    text = cli("rules", "explain", rule_id, *run_args, "--step", STEP_SEGMENTS).stdout
    assert "Evidence" in text and "Verdict: FIRES" in text


def test_explain_a_run_needs_its_query(
    cli: Callable[..., Result], captured: list[dict[str, Any]]
) -> None:
    rule_id = rule_with(captured, "segment")["id"]
    result = cli("rules", "explain", rule_id, "--step", STEP_SEGMENTS)
    assert result.exit_code == 2 and "--query" in result.stderr
    result = cli("rules", "explain", rule_id, "--skill", "financial_analyst")
    assert result.exit_code == 2 and "--actor" in result.stderr


def test_explain_for_an_actor_names_its_conflict_resolution(
    cli: Callable[..., Result], captured: list[dict[str, Any]]
) -> None:
    rule_id = rule_with(captured, "segment")["id"]
    info = json.loads(cli("rules", "explain", rule_id, "--actor", "kenji", "--json").stdout)
    assert info["conflict"]["reason"] == "no_conflict" and info["conflict"]["winners"] == [rule_id]
    text = cli("rules", "explain", rule_id, "--actor", "kenji").stdout
    assert "Conflict group" in text and "no conflict" in text
