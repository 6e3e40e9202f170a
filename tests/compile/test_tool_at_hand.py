"""A correction that says how to use a tool the agent called holds wherever that tool is at
hand (a TOOL trigger), not only on requests that resemble the one it was said on; one that
names nothing the agent's tools act on stays with its request.

Sessions written for this test (a seed bank's mail-outs), in no benchmark's domain."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dctx.memory import Memory
from dctx.models import Rule, RuleStatus, TriggerKind
from stub_reader import SureOf


def _rules(tmp_path: Path, turn: str) -> list[Rule]:
    call = {
        "id": "c1",
        "type": "function",
        "function": {
            "name": "ship_parcel",
            "arguments": json.dumps({"order": "SB-118", "service": "letter"}),
        },
    }
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "ok now send SB-118 out to the Okafors"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": '{"tracking": "LT-5531"}'},
        {"role": "assistant", "content": "SB-118 is on its way as a letter."},
        {"role": "user", "content": turn},
    ]
    with Memory(tmp_path / "m.db", embedder="hashing", reader=SureOf(turn)) as memory:
        memory.capture(messages, actor="tess", skill="mailroom", conversation_id="c1")
        return memory.rules(status=RuleStatus.ACTIVE)


@pytest.mark.parametrize(
    ("turn", "kind", "tool"),
    [
        # names what `ship_parcel` acts on: wherever that tool is at hand
        (
            "parcels: weigh it first and pick the service from the weight.",
            TriggerKind.TOOL,
            "ship_parcel",
        ),
        # names nothing the agent's tools act on: with the request it was said on
        ("put a thank-you card in with the seeds.", TriggerKind.QUERY, None),
        # a condition on the agent's own call of a tool it used: before that call
        (
            "Whenever you do ship, put the tracking number in the order notes.",
            TriggerKind.TOOL,
            "ship_parcel",
        ),
        # a light verb names no action of its own: a condition on what is seen
        ("When you get a bounce, put the order on hold.", TriggerKind.DATA, None),
    ],
)
def test_where_a_correction_holds_follows_what_it_names(
    tmp_path: Path, turn: str, kind: TriggerKind, tool: str | None
) -> None:
    rules = _rules(tmp_path, turn)
    assert len(rules) == 1
    assert rules[0].trigger.kind is kind
    assert rules[0].trigger.tool == tool
