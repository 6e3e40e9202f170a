"""`dctx bench losses`: each failed rubric item is placed at the stage its words went missing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from bench.benchkit import scenario_dict, write_scenario
from dctx.bench.cli import bench_app
from dctx.bench.losses import HeldRule, Stage, attribute, tally, trace_losses
from dctx.bench.schema import Scenario
from dctx.bench.scoring import score_delivery
from dctx.models import RuleStatus, Unit
from dctx.providers.embedders import get_embedder


def _item(item_id: str, words: str, **extra: Any) -> dict[str, Any]:
    mode = extra.pop("mode", "positive")
    key = "match" if mode == "positive" else "forbid"
    return {
        "id": item_id,
        "mode": mode,
        "weight": extra.pop("weight", 1),
        "text": f"About {words}.",
        "by": extra.pop("by", "final"),
        key: {"all": [words]},
    }


def _scenario() -> Scenario:
    return Scenario.model_validate(
        scenario_dict(
            expect=[
                _item("never", "zanzibar"),
                _item("unread", "thanks"),
                _item("lost", "not just the total", weight=3),
                _item("inactive", "per segment"),
                _item("undelivered", "table"),
                _item("late", "enterprise", by="start"),
                _item("forbidden", "acme", mode="negative"),
                _item("met", "smb"),
            ]
        )
    )


def test_each_failed_item_is_placed_at_its_stage() -> None:
    held = [
        # the correction turn (message 4 of s1) gave a rule without "not just the total"
        HeldRule("Give growth per segment.", RuleStatus.CANDIDATE, frozenset({("s1", 4)})),
        HeldRule("Use a table.", RuleStatus.ACTIVE, frozenset()),
    ]
    dps = [
        [],
        [Unit("Enterprise and SMB separately.", "user"), Unit("Acme grew 20%.", "user")],
    ]
    found = {x.item: x for x in attribute(_scenario(), dps, held)}
    assert {k: x.stage for k, x in found.items()} == {
        "never": Stage.NEVER_SAID,
        "unread": Stage.TURN_NOT_READ,
        "lost": Stage.WORDS_LOST,
        "inactive": Stage.RULE_NOT_ACTIVE,
        "undelivered": Stage.NOT_DELIVERED,
        "late": Stage.DELIVERED_LATE,
        "forbidden": Stage.FORBIDDEN_DELIVERED,
    }  # "met" was delivered in time: not a loss
    assert found["unread"].turn == "Good, thanks."
    assert found["lost"].turn.startswith("When a company reports segments")
    assert found["lost"].rules == ["Give growth per segment."]
    assert found["inactive"].rules == ["[candidate] Give growth per segment."]
    assert found["late"].rules == ["Enterprise and SMB separately."]
    assert found["forbidden"].rules == ["Acme grew 20%."]
    counts = tally(list(found.values()))
    assert list(counts) == [s.value for s in Stage]  # pipeline order
    assert counts["words_lost"] == {"items": 1, "weight": 3}


def test_a_replay_loses_exactly_the_items_its_score_fails() -> None:
    scenario = Scenario.model_validate(scenario_dict())
    embedder = get_embedder("hashing")
    found = trace_losses(scenario, embedder_factory=lambda: embedder)
    # the same replay, scored: the failed items and the traced ones are the same set
    from dctx.bench.replay import replay

    dps = replay(scenario, "forge_dc", embedder_factory=lambda: embedder)
    failed = {k for k, v in score_delivery(scenario, dps).items.items() if v < 1.0}
    assert {x.item for x in found} == failed


runner = CliRunner()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    data = scenario_dict()
    data["expect"].append(_item("never_said_here", "zanzibar", weight=2))
    write_scenario(tmp_path / "fin", data)
    return tmp_path


def test_cli_json_counts_every_lost_item(folder: Path) -> None:
    res = runner.invoke(bench_app, ["losses", "-s", str(folder), "--embedder", "hashing", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["scenarios"] == 1
    stages = doc["stages"]
    assert sum(c["items"] for c in stages.values()) == len(doc["items"])
    lost = {x["item"]: x["stage"] for x in doc["items"]}
    assert lost["never_said_here"] == "never_said"
    assert stages["never_said"]["weight"] >= 2


def test_cli_table_and_approach_without_memory(folder: Path) -> None:
    res = runner.invoke(bench_app, ["losses", "-s", str(folder), "--embedder", "hashing"])
    assert res.exit_code == 0, res.output
    assert "never_said" in res.stdout and "fin.conditional_activation.tiny_growth" in res.stdout
    res = runner.invoke(bench_app, ["losses", "-s", str(folder), "-a", "ctrl"])
    assert res.exit_code != 0
    assert "keeps no dctx Memory" in res.output
