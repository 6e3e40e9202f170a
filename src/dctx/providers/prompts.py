"""What every LLM step's prompt is made of: a PromptSpec, a strict schema, lenient output
models, and the helpers that lay out its input.

The steps themselves live beside their deterministic twins: the turn reader's
(capture/reading/llm.py), the self-assessment's (capture/self_assess_llm.py) and the
compiler's (compile/compiler_llm.py); each builds its PromptSpec from these pieces.

Each output is a pydantic model; its schema is derived from the model in the strict form that
OpenAI's `json_schema` mode, Anthropic's structured outputs and llama.cpp's grammars all accept
(every property required, nullable where optional, no extra properties, `$ref`s inlined).
Validation is lenient where a small model tends to slip (missing lists, extra keys).
Rendered texts are snapshotted by tests/providers/test_llm_prompts.py: edit a prompt, bump
its version (it is part of the cache key) and update the snapshot in the same change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

__all__ = ["LenientOutput", "PromptSpec", "block", "clip", "none_to_list", "strict_schema"]


class LenientOutput(BaseModel):
    """Base of the steps' output models: keys the model added are ignored."""

    model_config = ConfigDict(extra="ignore")


def none_to_list(value: Any) -> Any:
    """A `field_validator(mode="before")` body: a null list reads as an empty one."""
    return [] if value is None else value


def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema in strict form: refs inlined, all properties required,
    additionalProperties false, no titles or defaults (descriptions kept for the model)."""
    raw = model.model_json_schema()
    defs = raw.pop("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(x) for x in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node:
            return walk(defs[node["$ref"].rsplit("/", 1)[-1]])
        out = {k: walk(v) for k, v in node.items() if k not in ("title", "default", "properties")}
        if isinstance(node.get("properties"), dict):
            out["properties"] = {name: walk(sub) for name, sub in node["properties"].items()}
        if out.get("type") == "object" and "properties" in out:
            out["required"] = list(out["properties"])
            out["additionalProperties"] = False
        return out

    schema: dict[str, Any] = walk(raw)
    schema["title"] = model.__name__  # names the json_schema response format
    return schema


@dataclass(frozen=True, slots=True)
class PromptSpec:
    name: str
    version: int  # part of the cache key: bump on any change of system text or schema
    system: str
    output: type[BaseModel]
    schema: dict[str, Any]


def clip(text: str, limit: int) -> str:
    """Keep the head and tail of a long text (the tail is often the decisive part)."""
    text = text.strip()
    if len(text) <= limit:
        return text
    head = limit * 2 // 3
    return f"{text[:head]} [...] {text[len(text) - (limit - head) :]}"


def block(label: str, text: str) -> str:
    return f"{label}:\n<<<\n{text}\n>>>"
