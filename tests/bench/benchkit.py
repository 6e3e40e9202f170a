"""Helpers for the DC-Bench tests: a tiny hand-written scenario (the contract's example)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import yaml


def _call(cid: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    fn = {"name": name, "arguments": json.dumps(args)}
    return {"role": "assistant", "tool_calls": [{"id": cid, "type": "function", "function": fn}]}


SEGMENT_SCENARIO: dict[str, Any] = {
    "id": "fin.conditional_activation.tiny_growth",
    "dimension": "conditional_activation",
    "domain": "financial_analyst",
    "description": "Per-segment growth once segment data is seen.",
    "tools": [
        {
            "name": "get_financials",
            "description": "Quarterly financials for a company.",
            "parameters": {
                "type": "object",
                "properties": {"company": {"type": "string"}},
                "required": ["company"],
            },
        }
    ],
    "seed": [
        {
            "conversation_id": "s1",
            "actor": "alice",
            "skill": "financial_analyst",
            "timestamp": "2026-03-02T09:00:00Z",
            "messages": [
                {"role": "user", "content": "Summarize Acme Corp's growth."},
                _call("c1", "get_financials", {"company": "Acme"}),
                {
                    "role": "tool",
                    "tool_call_id": "c1",
                    "content": '{"revenue": [10, 12], "segments": {"enterprise": 7, "smb": 5}}',
                },
                {"role": "assistant", "content": "Acme grew revenue 20% quarter over quarter."},
                {
                    "role": "user",
                    "content": "When a company reports segments, give growth per segment, "
                    "not just the total.",
                },
                {"role": "assistant", "content": "Understood. Enterprise grew 17%, SMB 25%."},
                {"role": "user", "content": "Good, thanks."},
            ],
        }
    ],
    "test": {
        "actor": "alice",
        "skill": "financial_analyst",
        "query": "Summarize Beta Inc's growth.",
        "steps": [
            {
                "call": {"name": "get_financials", "arguments": {"company": "Beta"}},
                "result": '{"revenue": [20, 21], "segments": {"enterprise": 15, "smb": 6}}',
            }
        ],
    },
    "expect": [
        {
            "id": "per_segment",
            "mode": "positive",
            "weight": 3,
            "text": "Reports growth separately for each reported segment.",
            "by": "final",
            "match": {"all": ["segment"], "any": ["growth", "grew"]},
            "examples": {
                "good": ["Give growth per segment.", "Report how each segment grew."],
                "bad": ["Report total revenue only."],
            },
        },
        {
            "id": "no_premature",
            "mode": "negative",
            "weight": 1,
            "text": "Does not apply the segment rule before segment data is seen.",
            "by": "start",
            "forbid": {"all": ["segment"]},
            "examples": {"good": ["Use a table."], "bad": ["Break growth down by segment."]},
        },
        {
            "id": "no_acme",
            "mode": "negative",
            "weight": 1,
            "text": "Does not carry Acme's numbers over.",
            "forbid": {"any": ["Acme"]},
        },
    ],
    "checks": [{"type": "output_contains", "text": "enterprise"}],
}


def scenario_dict(**overrides: Any) -> dict[str, Any]:
    data = copy.deepcopy(SEGMENT_SCENARIO)
    data.update(copy.deepcopy(overrides))
    return data


def write_scenario(folder: Path, data: dict[str, Any], name: str | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (name or f"{data['id'].rsplit('.', 1)[-1]}.yaml")
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path
