"""`dctx rules --flagged / --stale`, `rules archive`, the outcome history in `rules show`, and
`dctx health`, on a rulebook whose rule was delivered twice and corrected for again."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import Result

from cli.conftest import FORMAT_SESSION
from dctx.memory import Memory
from dctx.store.sqlite import SQLiteStore

QUERY = "Compare Halvard Energy and Brightwater Utilities on margins."


@pytest.fixture
def flagged(db: Path) -> str:
    """kenji's table rule; two runs were given it and kenji had to say it again each time."""
    with Memory(SQLiteStore(db), embedder="hashing") as mem:
        messages = FORMAT_SESSION["messages"]
        mem.capture(messages, actor="kenji", skill="financial_analyst", conversation_id="k1")
        for conv in ("k2", "k3"):
            run = mem.start(actor="kenji", skill="financial_analyst", query=QUERY,
                            conversation_id=conv)  # fmt: skip
            assert run.units
            mem.capture(messages, actor="kenji", skill="financial_analyst", conversation_id=conv)
        [rule] = mem.rules()
        assert rule.flagged_at is not None
        return rule.id


def _json(cli: Callable[..., Result], *args: str) -> Any:
    result = cli(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_flagged_listing_show_and_health(cli: Callable[..., Result], flagged: str) -> None:
    assert [r["id"] for r in _json(cli, "rules", "--flagged")] == [flagged]
    shown = cli("rules", "show", flagged)
    assert shown.exit_code == 0, shown.output
    assert "Outcomes" in shown.stdout and "delivered 2, flagged 1, recurred 2" in shown.stdout
    assert "conversation k3" in shown.stdout and "its mistake kept recurring" in shown.stdout
    explained = _json(cli, "rules", "explain", flagged)
    assert [e["kind"] for e in explained["outcomes"]][-1] == "flagged"
    health = _json(cli, "health")
    assert health["counts"]["active"] == 1 and health["counts"]["flagged"] == 1
    assert health["delivered"] == 1 and health["never_triggered"] == []
    listed = cli("rules")
    assert listed.exit_code == 0 and "active (flagged)" in listed.stdout
    text = cli("health")
    assert text.exit_code == 0 and "flagged 1" in text.stdout and flagged in text.stdout


def test_stale_and_archive(cli: Callable[..., Result], flagged: str) -> None:
    assert _json(cli, "rules", "--stale", "--days", "1") == []  # delivered just now
    nothing = cli("rules", "archive", "--stale", "--yes")
    assert nothing.exit_code == 0 and "No stale rules" in nothing.stdout
    assert cli("rules", "archive").exit_code == 2  # neither ids nor --stale
    assert cli("rules", "--stale", "--flagged").exit_code == 2
    done = cli("rules", "archive", flagged)
    assert done.exit_code == 0 and "archived" in done.stdout
    assert [r["id"] for r in _json(cli, "rules", "--status", "archived")] == [flagged]
    assert _json(cli, "health")["counts"]["archived"] == 1
    last = _json(cli, "rules", "explain", flagged)["outcomes"][-1]
    assert last["kind"] == "status" and last["detail"]["to"] == "archived"
    assert cli("rules", "enable", flagged).exit_code == 0
    assert _json(cli, "health")["counts"]["active"] == 1
