"""`dctx rules`: list, show, edit, status changes, delete, export/import, explain."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import Result

from cli.conftest import rule_with

SEGMENTS = json.dumps({"segments": [{"name": "Data Center", "revenue": 2985.0}]})
STEP_SEGMENTS = f'get_segments {{"company": "Corvid"}} {SEGMENTS}'
STEP_FINANCIALS = 'get_financials {"company": "Corvid"} {"revenue": 4410.0, "currency": "USD"}'


def _rules(cli: Callable[..., Result], *args: str) -> list[dict[str, Any]]:
    result = cli("rules", "--json", *args)
    assert result.exit_code == 0, result.output
    out: list[dict[str, Any]] = json.loads(result.stdout)
    return out


def test_list_json_and_filters(cli: Callable[..., Result], captured: list[dict[str, Any]]) -> None:
    assert {r["actor"] for r in captured} == {"kenji"}
    segment = rule_with(captured, "segment")
    assert segment["trigger"]["keywords"] == ["segment"]
    assert segment["scope"]["skill"] == "financial_analyst"
    assert _rules(cli, "--actor", "someone-else") == []
    assert len(_rules(cli, "--status", "active")) == len(captured)
    assert _rules(cli, "--status", "disabled") == []


def test_list_table(cli: Callable[..., Result], captured: list[dict[str, Any]]) -> None:
    result = cli("rules")
    assert result.exit_code == 0
    for rule in captured:
        assert rule["id"] in result.stdout


def test_show_gives_provenance(cli: Callable[..., Result], captured: list[dict[str, Any]]) -> None:
    rule = rule_with(captured, "segment")
    result = cli("rules", "show", rule["id"])
    assert result.exit_code == 0, result.output
    assert "kenji" in result.stdout
    assert "kenji-growth" in result.stdout  # session
    assert "message 4" in result.stdout  # the correcting user message
    assert "9.6% hides the story" in result.stdout  # what was said
    info = json.loads(cli("rules", "show", rule["id"], "--json").stdout)
    (evidence,) = info["evidence"]
    assert evidence["conversation_id"] == "kenji-growth"
    assert evidence["message_index"] == 4
    assert evidence["timestamp"] == "2026-02-04T11:30:00Z"


def test_edit_disable_enable_delete(
    cli: Callable[..., Result], captured: list[dict[str, Any]]
) -> None:
    rule_id = rule_with(captured, "table")["id"]
    assert cli("rules", "edit", rule_id, "Show company comparisons as a table.").exit_code == 0
    info = json.loads(cli("rules", "show", rule_id, "--json").stdout)["rule"]
    assert info["text"] == "Show company comparisons as a table."
    assert info["history"][-1]["old_text"].startswith("Always put company comparisons")

    assert cli("rules", "disable", rule_id).exit_code == 0
    assert [r["id"] for r in _rules(cli, "--status", "disabled")] == [rule_id]
    assert cli("rules", "enable", rule_id).exit_code == 0
    assert _rules(cli, "--status", "disabled") == []

    assert cli("rules", "delete", rule_id).exit_code == 0
    assert rule_id not in {r["id"] for r in _rules(cli)}
    gone = cli("rules", "show", rule_id)
    assert gone.exit_code == 2
    assert "dctx rules" in gone.stderr


def test_approve_draft(cli: Callable[..., Result], traces: Path) -> None:
    assert cli("capture", "--review", str(traces)).exit_code == 0
    drafts = _rules(cli, "--status", "draft")
    assert drafts
    assert cli("rules", "approve", drafts[0]["id"]).exit_code == 0
    assert drafts[0]["id"] in {r["id"] for r in _rules(cli, "--status", "active")}


def test_reject_draft_and_refuse_to_reject_an_active_rule(
    cli: Callable[..., Result], traces: Path
) -> None:
    assert cli("capture", "--review", str(traces)).exit_code == 0
    first, *_ = _rules(cli, "--status", "draft")
    assert cli("rules", "reject", first["id"]).exit_code == 0
    assert first["id"] in {r["id"] for r in _rules(cli, "--status", "disabled")}
    assert cli("rules", "enable", first["id"]).exit_code == 0
    refused = cli("rules", "reject", first["id"])
    assert refused.exit_code == 2
    assert "dctx rules disable" in refused.stderr


def test_edit_with_empty_text_is_refused(
    cli: Callable[..., Result], captured: list[dict[str, Any]]
) -> None:
    result = cli("rules", "edit", captured[0]["id"], "   ")
    assert result.exit_code == 2
    assert "empty" in result.stderr


def test_edit_trigger(cli: Callable[..., Result], captured: list[dict[str, Any]]) -> None:
    rule_id = rule_with(captured, "segment")["id"]
    spec = "data: a pod is in CrashLoopBackOff"
    result = cli("rules", "edit", rule_id, "--trigger", spec)
    assert result.exit_code == 0, result.output
    assert "CrashLoopBackOff" in result.stdout
    info = json.loads(cli("rules", "show", rule_id, "--json").stdout)["rule"]
    assert info["trigger"]["predicate"]["values"] == ["CrashLoopBackOff"]
    assert info["text"].startswith("Whenever a company reports segments")  # text kept
    assert info["history"][-1]["event"] == "trigger_edited"
    assert info["history"][-1]["old_trigger"]["keywords"] == ["segment"]


@pytest.mark.parametrize("spec", ["sometimes", "data: the of", "tool: a b c"])
def test_edit_trigger_refuses_what_it_cannot_check(
    cli: Callable[..., Result], captured: list[dict[str, Any]], spec: str
) -> None:
    rule_id = rule_with(captured, "segment")["id"]
    result = cli("rules", "edit", rule_id, "--trigger", spec)
    assert result.exit_code == 2
    assert "trigger" in result.stderr or "condition" in result.stderr
    info = json.loads(cli("rules", "show", rule_id, "--json").stdout)["rule"]
    assert info["trigger"]["keywords"] == ["segment"]
    assert cli("rules", "edit", rule_id).exit_code == 2  # nothing to change


def test_export_import_round_trip(
    cli: Callable[..., Result], captured: list[dict[str, Any]], tmp_path: Path
) -> None:
    cli("rules", "disable", captured[0]["id"])
    out = tmp_path / "rules.json"
    assert cli("rules", "export", str(out)).exit_code == 0
    doc = json.loads(out.read_text())
    assert doc["format"] == "dctx-rules" and len(doc["rules"]) == len(captured)
    assert all(r["provenance"]["evidence"] for r in doc["rules"])

    other = tmp_path / "other.db"
    result = cli("rules", "import", str(out), env={"DCTX_DB": str(other)})
    assert result.exit_code == 0, result.output
    copied = {r["id"]: r for r in _rules_in(cli, other)}
    assert copied.keys() == {r["id"] for r in captured}
    assert copied[captured[0]["id"]]["status"] == "disabled"
    for rule in captured[1:]:
        assert copied[rule["id"]]["text"] == rule["text"]
    shown = cli("rules", "show", captured[1]["id"], "--json", env={"DCTX_DB": str(other)})
    assert json.loads(shown.stdout)["evidence"][0]["actor"] == "kenji"


def _rules_in(cli: Callable[..., Result], db: Path) -> list[dict[str, Any]]:
    result = cli("rules", "--json", env={"DCTX_DB": str(db)})
    assert result.exit_code == 0, result.output
    out: list[dict[str, Any]] = json.loads(result.stdout)
    return out


def test_import_refuses_a_bad_file_and_writes_nothing(
    cli: Callable[..., Result], captured: list[dict[str, Any]], tmp_path: Path
) -> None:
    out = tmp_path / "rules.json"
    cli("rules", "export", str(out))
    doc = json.loads(out.read_text())
    del doc["rules"][-1]["trigger"]
    out.write_text(json.dumps(doc))
    other = tmp_path / "other.db"
    result = cli("rules", "import", str(out), env={"DCTX_DB": str(other)})
    assert result.exit_code == 2
    assert f"rules[{len(doc['rules']) - 1}]" in result.stderr
    assert _rules_in(cli, other) == []


def test_explain_fires_at_the_data_step(
    cli: Callable[..., Result], captured: list[dict[str, Any]]
) -> None:
    rule_id = rule_with(captured, "segment")["id"]
    result = cli(
        "rules",
        "explain",
        rule_id,
        "--query",
        "How did Corvid grow?",
        "--actor",
        "kenji",
        "--skill",
        "financial_analyst",
        "--step",
        STEP_FINANCIALS,
        "--step",
        STEP_SEGMENTS,
        "--json",
    )
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout)["run"]
    assert info["in_scope"] is True
    assert info["delivered_at"] == 2
    statuses = [p["status"] for p in info["points"]]
    assert statuses == ["silent", "silent", "delivered"]
    assert "segment" in info["points"][2]["condition"]
    assert info["verdict"].startswith("FIRES at decision point 2")


def test_explain_says_why_not(cli: Callable[..., Result], captured: list[dict[str, Any]]) -> None:
    rule_id = rule_with(captured, "segment")["id"]
    other_actor = cli(
        "rules",
        "explain",
        rule_id,
        "-q",
        "How did Corvid grow?",
        "--actor",
        "maria",
        "--skill",
        "financial_analyst",
        "--step",
        STEP_SEGMENTS,
    )
    assert other_actor.exit_code == 0, other_actor.output
    assert "would NOT fire" in other_actor.stdout
    assert "for actor 'kenji'" in other_actor.stdout
    no_data = cli(
        "rules",
        "explain",
        rule_id,
        "-q",
        "How did Corvid grow?",
        "--actor",
        "kenji",
        "--skill",
        "financial_analyst",
        "--step",
        STEP_FINANCIALS,
        "--json",
    )
    info = json.loads(no_data.stdout)["run"]
    assert info["delivered_at"] is None
    assert "not met" in info["verdict"]


def test_negated_condition_is_shown_and_explained(
    cli: Callable[..., Result], tmp_path: Path
) -> None:
    from cli.conftest import write_jsonl

    session = {
        "conversation_id": "aylin-1",
        "actor": "aylin",
        "skill": "support",
        "timestamp": "2026-02-19T13:40:00Z",
        "messages": [
            {"role": "user", "content": "Refund order KA-1 and draft the confirmation."},
            {"role": "assistant", "content": "Refunded 219.00 to the customer."},
            {
                "role": "user",
                "content": "Whenever the order currency isn't USD, write the amount with the "
                "ISO code, like EUR 219.00.",
            },
        ],
    }
    traces = write_jsonl(tmp_path / "neg.jsonl", [session])
    assert cli("capture", str(traces)).exit_code == 0
    listed = json.loads(cli("rules", "--json").stdout)
    rule = rule_with(listed, "iso code")
    assert rule["trigger"]["excluded"] == ["USD"]
    table = cli("rules")
    assert "not USD" in table.stdout

    def explain(result: str) -> dict[str, Any]:
        step = 'get_order {"order_id": "KA-2"} ' + result
        out = cli(
            "rules", "explain", rule["id"], "-q", "Refund order KA-2",
            "--actor", "aylin", "--skill", "support", "--step", step, "--json",
        )  # fmt: skip
        assert out.exit_code == 0, out.output
        info: dict[str, Any] = json.loads(out.stdout)["run"]
        return info

    assert explain('{"currency": "EUR", "total": 219.0}')["delivered_at"] == 1
    usd = explain('{"currency": "USD", "total": 219.0}')
    assert usd["delivered_at"] is None
    assert (
        usd["points"][1]["condition"].startswith("not met")
        and "=USD" in usd["points"][1]["condition"]
    )
