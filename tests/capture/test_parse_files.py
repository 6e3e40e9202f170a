"""Trace files -> sessions: JSONL, JSON (one or many), YAML seed lists, tau-bench records."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from dctx.capture.parse import load_sessions
from dctx.errors import TraceFormatError

OPENAI = [
    {"role": "user", "content": "Summarize Acme."},
    {"role": "assistant", "content": "Acme grew."},
]
ANTHROPIC = [
    {"role": "user", "content": "Logs?"},
    {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": "t", "name": "logs", "input": {}}],
    },
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "ok"}]},
]


def _session(cid: str, messages: list[Any], **extra: Any) -> dict[str, Any]:
    return {"conversation_id": cid, "actor": "alice", "skill": "fin", "messages": messages, **extra}


def test_jsonl_one_session_per_line_in_either_format(tmp_path: Path) -> None:
    path = tmp_path / "traces.jsonl"
    lines = [
        json.dumps(_session("s1", OPENAI, timestamp="2026-03-02T09:00:00Z", namespace="acme")),
        "",
        json.dumps(_session("s2", ANTHROPIC, system="You are terse.")),
    ]
    path.write_text("\n".join(lines), encoding="utf-8")
    s1, s2 = load_sessions(path)
    assert (s1.conversation_id, s1.namespace, s1.timestamp) == (
        "s1",
        "acme",
        "2026-03-02T09:00:00Z",
    )
    assert s2.namespace == "default" and [m.role for m in s2.messages] == [
        "user",
        "assistant",
        "tool",
    ]
    assert s1.source == str(path) and s1.actor == "alice" and s1.skill == "fin"


def test_json_file_with_one_session_or_a_list(tmp_path: Path) -> None:
    one = tmp_path / "one.json"
    one.write_text(json.dumps(_session("solo", OPENAI)), encoding="utf-8")
    many = tmp_path / "many.json"
    many.write_text(json.dumps([_session("a", OPENAI), _session("b", OPENAI)]), encoding="utf-8")
    assert [s.conversation_id for s in load_sessions(one)] == ["solo"]
    assert [s.conversation_id for s in load_sessions(many)] == ["a", "b"]


def test_seed_lists_in_yaml_read_only_the_seed(tmp_path: Path) -> None:
    scenario = {
        "id": "x",
        "seed": [
            {
                "conversation_id": "s1",
                "actor": "alice",
                "skill": "financial_analyst",
                "timestamp": "2026-03-02T09:00:00Z",
                "messages": OPENAI,
            }
        ],
        "test": {"query": "never read", "steps": "not even valid"},
    }
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(scenario), encoding="utf-8")
    (s,) = load_sessions(path)
    assert (s.conversation_id, s.skill, s.timestamp) == (
        "s1",
        "financial_analyst",
        "2026-03-02T09:00:00Z",
    )


def test_unquoted_yaml_timestamps_become_iso_strings(tmp_path: Path) -> None:
    path = tmp_path / "seed.yml"
    path.write_text(
        "seed:\n  - conversation_id: s1\n    timestamp: 2026-03-02 09:00:00\n"
        "    messages:\n      - {role: user, content: hi}\n",
        encoding="utf-8",
    )
    assert load_sessions(path)[0].timestamp == "2026-03-02T09:00:00Z"


def test_tau_bench_records(tmp_path: Path) -> None:
    traj = [
        {"role": "system", "content": "# Airline Agent Policy"},
        {"role": "user", "content": "Cancel my trip."},
    ]
    records = [
        {"task_id": 3, "trial": 0, "reward": 1.0, "info": {}, "traj": traj},
        {"task_id": 3, "reward": 0.0, "info": {}, "traj": traj},
    ]
    path = tmp_path / "gpt-4o-retail.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    a, b = load_sessions(path)
    assert a.conversation_id == "tau-3-trial-0" and b.conversation_id == "tau-3-trial-1"
    assert (a.actor, a.skill) == ("tau-user", "retail_agent")
    assert a.messages[0].role == "system" and a.messages[0].content.startswith("# Airline")


def test_defaults_fill_records_without_actor_or_skill(tmp_path: Path) -> None:
    path = tmp_path / "bare.jsonl"
    path.write_text(json.dumps({"messages": OPENAI}) + "\n", encoding="utf-8")
    (s,) = load_sessions(path, actor="carol", skill="support", namespace="t1")
    assert (s.actor, s.skill, s.namespace) == ("carol", "support", "t1")
    assert s.conversation_id == "bare:line1"


def test_errors_name_the_file_session_index_and_field(tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    broken_call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{oops"}}
    bad = [*OPENAI, {"role": "assistant", "content": None, "tool_calls": [broken_call]}]
    path.write_text(
        json.dumps(_session("ok", OPENAI)) + "\n" + json.dumps(_session("s9", bad)),
        encoding="utf-8",
    )
    with pytest.raises(TraceFormatError) as info:
        load_sessions(path)
    err = info.value
    assert (err.file, err.session, err.index, err.field) == (
        str(path),
        "s9",
        2,
        "tool_calls[0].function.arguments",
    )


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("x.jsonl", '{"messages": []}\n{nope', "line 2"),
        ("x.json", '[{"conversation_id": "a"}]', "record 0"),
        ("x.json", '{"seed": {"a": 1}}', None),
        ("x.json", "42", None),
        ("x.yaml", "seed: [\n", None),
        ("x.json", '[{"conversation_id": ["a"], "messages": []}]', "record 0"),
        ("x.json", '[{"conversation_id": "a", "actor": 5, "messages": []}]', "record 0"),
    ],
)
def test_bad_files(tmp_path: Path, name: str, text: str, where: str | None) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TraceFormatError) as info:
        load_sessions(path)
    assert info.value.file == str(path) and info.value.session == where


def test_a_missing_file_is_a_trace_format_error(tmp_path: Path) -> None:
    with pytest.raises(TraceFormatError, match="cannot read"):
        load_sessions(tmp_path / "absent.jsonl")
