"""The three prompts: exact text and cache keys snapshotted, schemas strict and in step with
the enums.

Refresh snapshots after an intended prompt change (and bump the prompt's version):
    DCTX_UPDATE_SNAPSHOTS=1 python -m pytest tests/providers/test_llm_prompts.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from dctx.capture.base import Aftermath, CorrectionSignal, SessionContext, ToolPattern
from dctx.capture.reading.llm import AFTERMATH, AftermathOutput, render_aftermath
from dctx.capture.self_assess_llm import (
    SELF_ASSESSMENT,
    SelfAssessmentOutput,
    ToolStep,
    render_self_assessment,
)
from dctx.compile.compiler_llm import COMPILE, CompileOutput, render_compile
from dctx.providers.llm_step import cache_key
from dctx.providers.prompts import PromptSpec

SNAPSHOTS = Path(__file__).parent / "snapshots"
CTX = SessionContext(
    namespace="default",
    conversation_id="s1",
    actor="alice",
    skill="fin",
    timestamp="2026-03-02T09:00:00Z",
)


def _chain() -> list[CorrectionSignal]:
    base: dict[str, Any] = {
        "ctx": CTX,
        "chain": 0,
        "query": "Summarize Acme Corp's growth.",
        "subjects": ["Acme"],
        "subject_keys": {"Acme": "company"},
        "tools_seen": ["get_financials"],
        "last_tool": "get_financials",
    }
    return [
        CorrectionSignal(
            aftermath=Aftermath.CORRECTION,
            directive="give growth per segment, not just the total",
            raw="When a company reports segments, give growth per segment, not just the total.",
            message_index=4,
            situation='user: Summarize Acme Corp\'s growth.\ncall get_financials({"company": '
            '"Acme"})\nresult: {"revenue": [10, 12], "segments": {"enterprise": 7, "smb": 5}}',
            previous_output="Acme grew revenue 20% quarter over quarter.",
            **base,
        ),
        CorrectionSignal(
            aftermath=Aftermath.WITHDRAWAL,
            directive="forget the per-segment thing for SMB",
            raw="Actually, forget the per-segment thing for SMB.",
            message_index=6,
            situation="...",
            previous_output="Enterprise grew 40%, SMB grew 0%.",
            **base,
        ),
    ]


STEPS = [
    ToolStep("scan_vpc", {"vpc": "vpc-0old"}, False, "410 Gone", "unavailable", "s1", 1, [1, 2]),
    ToolStep("list_vpcs", {"account": "acme"}, True, conversation_id="s1", message_index=3),
    ToolStep("scan_vpc", {"vpc": "vpc-0new"}, True, conversation_id="s1", message_index=5),
    ToolStep("get_token", {}, False, "", None, "s2", 1),
]

CASES: dict[str, tuple[PromptSpec, str]] = {
    "aftermath": (
        AFTERMATH,
        render_aftermath("Acme grew revenue 20%.", "Oh, and include USD next to amounts."),
    ),
    "self_assessment": (SELF_ASSESSMENT, render_self_assessment(STEPS)),
    "compile": (COMPILE, render_compile(_chain(), ["get_financials", "get_news"])),
}


def _snapshot_text(prompt: PromptSpec, user: str) -> str:
    return (
        f"# {prompt.name} v{prompt.version}\n"
        f"## system\n{prompt.system}\n"
        f"## user\n{user}\n"
        f"## schema\n{json.dumps(prompt.schema, indent=2)}\n"
    )


@pytest.mark.parametrize("name", sorted(CASES))
def test_prompt_snapshot(name: str) -> None:
    prompt, user = CASES[name]
    text = _snapshot_text(prompt, user)
    path = SNAPSHOTS / f"llm_prompt_{name}.txt"
    if os.environ.get("DCTX_UPDATE_SNAPSHOTS") == "1":
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert path.exists(), f"no snapshot {path.name}: run with DCTX_UPDATE_SNAPSHOTS=1 once"
    assert text == path.read_text(encoding="utf-8"), (
        f"prompt {name!r} changed: review the diff, bump its version, and refresh the snapshot"
    )


def test_cache_keys_snapshot() -> None:
    """A cache key (step, version, LLM id, system text, schema, input) that drifts silently
    turns every cached answer into a miss: the keys of the snapshotted inputs stay fixed."""
    keys = {
        name: cache_key(prompt, "openai:gpt-4o-mini", user)
        for name, (prompt, user) in CASES.items()
    }
    path = SNAPSHOTS / "llm_cache_keys.json"
    if os.environ.get("DCTX_UPDATE_SNAPSHOTS") == "1":
        path.write_text(json.dumps(keys, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    assert path.exists(), f"no snapshot {path.name}: run with DCTX_UPDATE_SNAPSHOTS=1 once"
    assert keys == json.loads(path.read_text(encoding="utf-8")), (
        "a cache key changed: bump the prompt's version if the prompt changed, then refresh"
    )


def _objects(node: Any) -> list[dict[str, Any]]:
    found = []
    if isinstance(node, dict):
        if node.get("type") == "object":
            found.append(node)
        for value in node.values():
            found += _objects(value)
    elif isinstance(node, list):
        for value in node:
            found += _objects(value)
    return found


@pytest.mark.parametrize("prompt", [AFTERMATH, SELF_ASSESSMENT, COMPILE], ids=lambda p: p.name)
def test_schemas_are_strict(prompt: PromptSpec) -> None:
    text = json.dumps(prompt.schema)
    assert "$ref" not in text and "$defs" not in text and '"default"' not in text
    objects = _objects(prompt.schema)
    assert objects
    for obj in objects:
        assert obj["additionalProperties"] is False
        assert obj["required"] == list(obj["properties"])


def test_schema_enums_match_the_library_enums() -> None:
    after = AFTERMATH.schema["properties"]["aftermath"]["enum"]
    assert after == [a.value for a in Aftermath]
    pattern = SELF_ASSESSMENT.schema["properties"]["patterns"]["items"]["properties"]["pattern"]
    # cross-conversation patterns need several conversations; the LLM reads one session's calls
    cross = {ToolPattern.FRUITLESS_LOOKUP, ToolPattern.EMPTY_FALLBACK}
    per_session = [p.value for p in ToolPattern if p not in cross]
    assert pattern["enum"] == per_session
    rule = COMPILE.schema["properties"]["rules"]["items"]["properties"]
    assert rule["type"]["enum"] == ["FORMAT", "CONTENT"]
    assert rule["trigger"]["properties"]["kind"]["enum"] == ["always", "query", "data", "tool"]
    assert {"rule", "type", "trigger", "qualifiers", "group", "drop", "skip"} <= set(rule)


def test_outputs_validate_a_full_example() -> None:
    assert AftermathOutput.model_validate({"aftermath": "one_off"}).value() is Aftermath.ONE_OFF
    out = SelfAssessmentOutput.model_validate(
        {
            "patterns": [
                {
                    "pattern": "auth_refresh",
                    "tool": "t",
                    "directive": "Refresh first.",
                    "failed_args": [{"name": "id", "value": 3}],
                }
            ]
        }
    )
    assert out.patterns[0].failed_args[0].value == "3"  # non-strings kept as JSON text
    with pytest.raises(ValueError):
        CompileOutput.model_validate({"rules": [{"rule": "x", "type": "STYLE"}]})


def test_rendering_clips_long_texts_and_keeps_the_tail() -> None:
    long_output = "start " + "filler " * 2000 + "THE END"
    text = render_aftermath(long_output, "fix it")
    assert "start" in text and "THE END" in text and "[...]" in text
    assert len(text) < 2500


def test_self_assessment_rendering_marks_sessions_and_failures() -> None:
    text = render_self_assessment(STEPS)
    assert text.splitlines()[1:3] == [
        "Session s1:",
        '[0] scan_vpc({"vpc": "vpc-0old"}) -> FAILED (unavailable): 410 Gone',
    ]
    assert "Session s2:" in text and "[3] get_token({}) -> FAILED" in text
