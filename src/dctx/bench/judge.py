"""The live-mode LLM judge: one yes/no JSON verdict per rubric item."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from dctx.bench.schema import Item
from dctx.providers.base import LLM
from dctx.providers.structured import extract_json

JUDGE_SYSTEM = """You evaluate one run of an AI agent against one rubric item.
You get the user's request, the tool calls the agent made (name and arguments, in order) and \
the agent's final answer. A positive item is satisfied when the run shows the described \
behavior. A negative item guards against a bad behavior: it is satisfied when that bad \
behavior did not happen. Judge only what the run shows. Reply with JSON: \
{"answer": "yes" or "no", "reason": "<one sentence>"}; "yes" means the item is satisfied."""

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "answer": {"type": "string", "enum": ["yes", "no"]},
        "reason": {"type": "string"},
    },
    "required": ["answer"],
}


def judge_prompt(
    query: str, calls: Sequence[tuple[str, dict[str, Any]]], answer: str, item: Item
) -> str:
    lines = [
        f"{i}. {name}({json.dumps(args, sort_keys=True)})"
        for i, (name, args) in enumerate(calls, 1)
    ]
    return (
        f"User request:\n{query}\n\n"
        f"Tool calls:\n{chr(10).join(lines) or '(none)'}\n\n"
        f"Final answer:\n{answer or '(empty)'}\n\n"
        f"Rubric item ({item.mode}): {item.text}"
    )


def _verdict(obj: dict[str, Any]) -> bool:
    value = str(obj.get("answer", "")).strip().lower()
    if value not in ("yes", "no"):
        raise ValueError("answer must be 'yes' or 'no'")
    return value == "yes"


def judge_item(
    judge: LLM,
    query: str,
    calls: Sequence[tuple[str, dict[str, Any]]],
    answer: str,
    item: Item,
    *,
    retries: int = 1,
) -> bool | None:
    """True/False per the judge; None when it gave no usable verdict after `retries` more
    tries. A provider failure raises ProviderError (a dead judge must not read as "no")."""
    prompt = judge_prompt(query, calls, answer, item)
    for _ in range(retries + 1):
        text, _usage = judge.complete(JUDGE_SYSTEM, prompt, schema=VERDICT_SCHEMA)
        try:
            obj = extract_json(text)
            if isinstance(obj, dict):
                return _verdict(obj)
        except ValueError:
            pass
    return None
