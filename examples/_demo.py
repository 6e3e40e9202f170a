"""Shared demo data for the integration examples: three earlier sessions to learn from, one tool.

Sessions 1 and 3: `get_price` failed on the retired `yahoo_legacy` source and worked on
`polygon` (dctx learns a tool rule from the structure of the calls once it has seen it in two
conversations, and compiles a guard from it).
Session 2: the analyst corrected the answer's format and asked for a flag on high P/E ratios
(a stage-1 rule, and a stage-2 rule that fires only once a tool result shows P/E above 30).
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any

from dctx import Memory

QUERY = "Where is Globex (GLBX) trading, and is it expensive?"


def _call(call_id: str, args: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": "get_price", "arguments": json.dumps(args)},
    }


def _retired_feed(name: str, ticker: str, price: float) -> list[dict[str, Any]]:
    """A session where the retired feed failed and polygon had the quote."""
    return [
        {"role": "user", "content": f"Where is {name} ({ticker}) trading?"},
        {
            "role": "assistant",
            "tool_calls": [_call("c1", {"ticker": ticker, "source": "yahoo_legacy"})],
        },
        {
            "role": "tool",
            "tool_call_id": "c1",
            "is_error": True,
            "content": '{"error": "the yahoo_legacy feed was retired"}',
        },
        {
            "role": "assistant",
            "tool_calls": [_call("c2", {"ticker": ticker, "source": "polygon"})],
        },
        {
            "role": "tool",
            "tool_call_id": "c2",
            "content": json.dumps({"ticker": ticker, "price": price, "pe_ratio": 14}),
        },
        {"role": "assistant", "content": f"{name} trades at {price}."},
        {"role": "user", "content": "thanks"},
    ]


SEED: list[tuple[str, list[dict[str, Any]]]] = [
    ("demo-s1", _retired_feed("Initech", "INTC2", 12.5)),
    (
        "demo-s2",
        [
            {"role": "user", "content": "How does Hooli look today?"},
            {"role": "assistant", "content": "Hooli trades at 88 with a P/E of 45."},
            {
                "role": "user",
                "content": "Always put the numbers in a table. And when the P/E "
                "ratio is above 30, flag the stock as expensive.",
            },
            {"role": "assistant", "content": "Understood."},
        ],
    ),
    ("demo-s3", _retired_feed("Umbrella", "UMBR", 7.75)),
]


def open_memory() -> Memory:
    """The demo memory: DCTX_DB (default: a temporary file), seeded on first use."""
    path = os.environ.get("DCTX_DB") or os.path.join(tempfile.mkdtemp(), "memory.db")
    mem = Memory(path, embedder=os.environ.get("DCTX_EMBEDDER") or None)
    if not mem.rules(actor="ana", skill="analyst"):
        for conversation_id, messages in SEED:
            mem.capture(messages, actor="ana", skill="analyst", conversation_id=conversation_id)
    return mem


def get_price(ticker: str, source: str = "polygon") -> dict[str, Any]:
    """The demo tool. A real one would call a market-data API."""
    if source == "yahoo_legacy":
        return {"error": "the yahoo_legacy feed was retired"}
    return {"ticker": ticker, "source": source, "price": 40.2, "pe_ratio": 35}


PRICE_PARAMS = {
    "type": "object",
    "properties": {
        "ticker": {"type": "string"},
        "source": {"type": "string", "enum": ["yahoo_legacy", "polygon"]},
    },
    "required": ["ticker"],
}
OPENAI_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_price",
            "description": "Quote for a ticker.",
            "parameters": PRICE_PARAMS,
        },
    }
]
ANTHROPIC_TOOLS = [
    {"name": "get_price", "description": "Quote for a ticker.", "input_schema": PRICE_PARAMS}
]


def report(text: str, outcomes: list[Any], units: list[Any]) -> None:
    print("answer:", text)
    for o in outcomes:
        print(f"tool {o.tool} {json.dumps(o.arguments)} -> {o.status}")
    for u in units:
        print(f"rule ({u.channel}): {u.text}")
