"""Small trace builders for pipeline tests (OpenAI chat format)."""

from __future__ import annotations

import json
from typing import Any


def call(cid: str, name: str, **args: Any) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": cid,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(args)},
            }
        ],
    }


def result(cid: str, payload: Any) -> dict[str, Any]:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return {"role": "tool", "tool_call_id": cid, "content": text}


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def assistant(text: str) -> dict[str, Any]:
    return {"role": "assistant", "content": text}


def texts(units: list[Any]) -> list[str]:
    return [u.text for u in units]
