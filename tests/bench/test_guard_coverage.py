"""Guard coverage in `dctx bench`: which tool checks the guards of forge_dc's rules enforce."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import TypeAdapter

from bench.benchkit import scenario_dict
from dctx.bench.guard_coverage import coverage, enforces
from dctx.bench.report import guard_coverage, json_document, render_markdown
from dctx.bench.results import BenchResult
from dctx.bench.runner import BenchConfig, Resources, run_pair
from dctx.bench.schema import Check, Scenario
from dctx.guards import Guard, GuardKind
from dctx.providers.base import Embedder

CHECK: TypeAdapter[Check] = TypeAdapter(Check)


def check(**data: Any) -> Check:
    return CHECK.validate_python(data)


FORBID_OLD = Guard(GuardKind.PARAM_FORBIDDEN, "quote", "r", "feed", "old", instead="new")
EQUALS_USD = Guard(GuardKind.PARAM_EQUALS, "fx", "r", "to", "USD")
NO_LEGACY = Guard(GuardKind.TOOL_FORBIDDEN, "legacy", "r")


@pytest.mark.parametrize(
    ("guards", "data", "expected"),
    [
        (
            [FORBID_OLD],
            {"type": "source_not_called", "tool": "quote", "arguments": {"feed": "old"}},
            True,
        ),
        (
            [FORBID_OLD],
            {"type": "source_not_called", "tool": "quote", "arguments": {"feed": "iex"}},
            False,
        ),
        (
            [FORBID_OLD],
            {"type": "tool_param_check", "tool": "quote", "param": "feed", "equals": "new"},
            False,
        ),
        (
            [EQUALS_USD],
            {"type": "tool_param_check", "tool": "fx", "param": "to", "equals": "usd"},
            True,
        ),
        (
            [EQUALS_USD],
            {"type": "tool_param_check", "tool": "fx", "param": "to", "equals": "EUR"},
            False,
        ),
        (
            [EQUALS_USD],
            {"type": "source_not_called", "tool": "fx", "arguments": {"to": "EUR"}},
            True,
        ),
        ([NO_LEGACY], {"type": "tool_call_max", "tool": "legacy", "max": 0}, True),
        ([NO_LEGACY], {"type": "tool_call_max", "tool": "other", "max": 0}, False),
        ([NO_LEGACY], {"type": "output_contains", "text": "legacy"}, False),
        ([], {"type": "tool_call_max", "tool": "legacy", "max": 0}, False),
    ],
)
def test_enforces_only_what_the_guards_imply(
    guards: list[Guard], data: dict[str, Any], expected: bool
) -> None:
    assert enforces(guards, check(**data)) is expected


def test_coverage_counts_tool_checks_and_wrong_fires() -> None:
    checks = [
        check(type="source_not_called", tool="quote", arguments={"feed": "old"}),
        check(type="tool_call_max", tool="quote", max=3),
        check(type="output_contains", text="x"),
    ]
    reference = [("quote", {"feed": "new"}), ("legacy", {})]
    cov = coverage(checks, [FORBID_OLD, NO_LEGACY], reference)
    assert cov["checks"] == 2 and len(cov["enforced"]) == 1
    assert json.loads(cov["enforced"][0])["type"] == "source_not_called"
    assert cov["reference_fires"] == 1  # the reference run's call of `legacy`


def _call(cid: str, feed: str) -> dict[str, Any]:
    args = json.dumps({"symbol": "ABC", "feed": feed})
    return {"id": cid, "type": "function", "function": {"name": "quote", "arguments": args}}


def _session(cid: str, actor: str) -> dict[str, Any]:
    return {
        "conversation_id": cid,
        "actor": actor,
        "skill": "analyst",
        "timestamp": f"2026-01-0{cid[-1]}T10:00:00Z",
        "messages": [
            {"role": "user", "content": "Quote ABC please."},
            {"role": "assistant", "tool_calls": [_call("a1", "old")]},
            {
                "role": "tool",
                "tool_call_id": "a1",
                "is_error": True,
                "content": '{"error": "the old feed is retired"}',
            },
            {"role": "assistant", "tool_calls": [_call("a2", "new")]},
            {"role": "tool", "tool_call_id": "a2", "content": '{"price": 5}'},
            {"role": "assistant", "content": "ABC is at 5."},
            {"role": "user", "content": "thanks"},
        ],
    }


def test_bench_reports_guard_coverage_line(hashing: Embedder) -> None:
    data = scenario_dict(
        id="t.implicit_learning.feed",
        dimension="implicit_learning",
        tools=[
            {
                "name": "quote",
                "parameters": {
                    "type": "object",
                    "properties": {"symbol": {"type": "string"}, "feed": {"type": "string"}},
                },
            }
        ],
        seed=[_session("s1", "ann"), _session("s2", "bob")],
        test={
            "actor": "cy",
            "skill": "analyst",
            "query": "Quote XYZ.",
            "steps": [
                {
                    "call": {"name": "quote", "arguments": {"symbol": "XYZ", "feed": "new"}},
                    "result": '{"price": 7}',
                }
            ],
        },
        checks=[
            {"type": "source_not_called", "tool": "quote", "arguments": {"feed": "old"}},
            {"type": "tool_param_check", "tool": "quote", "param": "symbol", "equals": "XYZ"},
        ],
    )
    scenario = Scenario.model_validate(data)
    res = Resources(
        BenchConfig(approaches=["forge_dc", "ctrl"], embedder="hashing"), embedder_override=hashing
    )
    forge = run_pair(scenario, "forge_dc", res)
    ctrl = run_pair(scenario, "ctrl", res)
    assert ctrl.guards is None  # only approaches that compile guards are counted
    assert forge.guards is not None
    assert forge.guards["checks"] == 2 and forge.guards["reference_fires"] == 0
    assert [json.loads(c)["type"] for c in forge.guards["enforced"]] == ["source_not_called"]

    result = BenchResult(mode="delivery", approaches=["forge_dc", "ctrl"], results=[forge, ctrl])
    cov = guard_coverage(result)["forge_dc"]
    assert (cov["enforced"], cov["checks"], cov["partly_enforced"]) == (1, 2, [scenario.id])
    md = render_markdown(result)
    assert "## Guard coverage (tool checks)" in md
    assert "would have enforced 1 of 2 tool checks" in md
    assert json_document(result)["approaches"]["forge_dc"]["guard_coverage"]["enforced"] == 1
    assert "guard_coverage" not in json_document(result)["approaches"]["ctrl"]
