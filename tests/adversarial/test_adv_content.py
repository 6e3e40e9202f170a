"""Bad content (issue 11, item 6): deep nesting, lone surrogates, NUL characters and empty
message lists fail with a TraceFormatError (HTTP 422, CLI exit 2, MCP JSON error) naming the
message and field, write nothing, and behave the same on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client
from typer.testing import CliRunner

from dctx import Memory, TraceFormatError
from dctx.cli.main import app
from dctx.server.http import create_app
from dctx.server.mcp_server import create_mcp
from dctx.server.service import DctxService
from dctx.validation import DEFAULT_LIMITS
from server.conftest import _start_uvicorn


def nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = {"a": value}
    return value


def _call(arguments: Any) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Look it up."},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "lookup", "arguments": arguments},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "ok"},
    ]


def _result(content: str) -> list[dict[str, Any]]:
    return [*_call("{}")[:2], {"role": "tool", "tool_call_id": "c1", "content": content}]


# case -> (messages, message index, field)
CASES: dict[str, tuple[list[dict[str, Any]], int | None, str]] = {
    "500-deep arguments object": (_call(nested(500)), 1, "tool_calls[0].arguments"),
    "500-deep arguments JSON": (_call(json.dumps(nested(500))), 1, "tool_calls[0].arguments"),
    "5000-deep arguments JSON": (
        _call("[" * 5000 + "]" * 5000),
        1,
        "tool_calls[0].function.arguments",
    ),
    "500-deep JSON tool result": (_result(json.dumps(nested(500))), 2, "content"),
    "5000-deep JSON tool result": (_result("[" * 5000 + "]" * 5000), 2, "content"),
    "lone surrogate in content": ([{"role": "user", "content": "hi \ud800"}], 0, "content"),
    "lone surrogate in arguments": (_call({"q": "\udfff"}), 1, "tool_calls[0].arguments"),
    "NUL in content": ([{"role": "user", "content": "before\x00after"}], 0, "content"),
    "NUL in arguments": (_call({"q": "x\x00"}), 1, "tool_calls[0].arguments"),
    "NUL in a tool result": (_result("ok\x00"), 2, "content"),
    "empty message list": ([], None, "messages"),
}


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_python_api(mem: Memory, case: str) -> None:
    messages, index, field = CASES[case]
    with pytest.raises(TraceFormatError) as caught:
        mem.capture(messages, actor="alice", skill="fa", conversation_id="bad")
    assert (caught.value.index, caught.value.field) == (index, field)
    assert caught.value.session == "bad"
    assert mem.store.count_rows()["sessions"] == 0


def test_depth_limit_is_the_documented_one(mem: Memory) -> None:
    """`nesting_depth` levels of objects are accepted; one level more is not."""
    depth = DEFAULT_LIMITS.nesting_depth
    mem.capture(_call(nested(depth)), actor="alice", skill="fa")
    with pytest.raises(TraceFormatError, match=f"deeper than {depth} levels"):
        mem.capture(_call(nested(depth + 1)), actor="alice", skill="fa")


def test_run_steps(mem: Memory) -> None:
    """What a run observes is checked the same way: no RecursionError, no ProviderError."""
    run = mem.start(actor="alice", skill="fa", query="Look it up.")
    for args, result, field in (
        (nested(500), "ok", "arguments"),
        ({}, nested(500), "result"),
        ({}, "[" * 5000 + "]" * 5000, "result"),
        ({}, "bad \ud800", "result"),
    ):
        with pytest.raises(TraceFormatError) as caught:
            run.observe({"name": "lookup", "arguments": args}, result)
        assert caught.value.field == field


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_cli(url: str, tmp_path: Path, case: str) -> None:
    messages, index, _ = CASES[case]
    trace = tmp_path / "bad.jsonl"
    record = {"conversation_id": "bad", "actor": "alice", "skill": "fa", "messages": messages}
    trace.write_text(json.dumps(record) + "\n", encoding="utf-8")
    result = CliRunner().invoke(
        app, ["capture", str(trace)], env={"DCTX_DB": url, "DCTX_EMBEDDER": "hashing"}
    )
    assert result.exit_code == 2, result.output
    assert "unexpected" not in result.stderr and "RecursionError" not in result.stderr
    assert "session 'bad'" in result.stderr and "nothing was written" in result.stderr
    if index is not None:
        assert f"message {index}" in result.stderr


@pytest.fixture
def api(mem: Memory) -> Iterator[httpx.Client]:
    server, thread, base = _start_uvicorn(create_app(DctxService(mem)))
    try:
        with httpx.Client(base_url=base, timeout=60) as client:
            yield client
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.mark.parametrize("case", list(CASES), ids=list(CASES))
def test_http(api: httpx.Client, mem: Memory, case: str) -> None:
    messages, index, field = CASES[case]
    body = {"actor": "alice", "skill": "fa", "messages": messages, "conversation_id": "bad"}
    # json.dumps writes lone surrogates as \\ud800 escapes: valid JSON a client can send
    r = api.post(
        "/v1/default/capture",
        content=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 422, r.text
    error = r.json()["error"]
    if case == "empty message list":  # the request schema itself says min 1 message
        assert error["code"] == "validation_error" and error["problems"][0]["loc"][-1] == "messages"
    else:
        assert error["code"] == "trace_format"
        assert (error.get("index"), error["field"]) == (index, field)
    assert mem.store.count_rows()["sessions"] == 0


# the mcp client refuses to serialize a 500-deep object itself, so it never reaches a server
MCP_CASES = [c for c in CASES if c != "500-deep arguments object"]


@pytest.mark.parametrize("case", MCP_CASES, ids=MCP_CASES)
def test_mcp(mem: Memory, case: str) -> None:
    messages, index, field = CASES[case]

    async def call() -> Any:
        async with Client(create_mcp(DctxService(mem))) as client:
            return await client.call_tool(
                "capture_session", {"actor": "alice", "skill": "fa", "messages": messages}
            )

    result = anyio.run(call)
    assert result.is_error
    error = json.loads(result.content[0].text)["error"]
    assert error["status"] == 422
    if case != "empty message list":
        assert (error["code"], error.get("index"), error["field"]) == ("trace_format", index, field)
    assert mem.store.count_rows()["sessions"] == 0


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda r: r.update(text=r["text"] + " \x00"), "NUL"),
        (lambda r: r.update(text=r["text"] + " \ud800"), "surrogate"),
        (lambda r: r["scope"].update(actor="al\u202eice"), "scope.actor"),
    ],
    ids=["NUL in text", "surrogate in text", "right-to-left override in scope actor"],
)
def test_rule_import(
    mem: Memory, alice_rule: str, url: str, tmp_path: Path, change: Any, said: str
) -> None:
    """`dctx rules import` checks a rule file like a trace: exit 2, nothing written, on
    PostgreSQL too (no 'store unavailable' for a NUL)."""
    env = {"DCTX_DB": url, "DCTX_EMBEDDER": "hashing"}
    exported = tmp_path / "rules.json"
    assert CliRunner().invoke(app, ["rules", "export", str(exported)], env=env).exit_code == 0
    doc = json.loads(exported.read_text(encoding="utf-8"))
    change(doc["rules"][0])
    doc["rules"][0]["id"] = "rule_imported"
    exported.write_text(json.dumps(doc), encoding="utf-8")
    result = CliRunner().invoke(app, ["rules", "import", str(exported)], env=env)
    assert result.exit_code == 2, result.output
    assert said in result.stderr and "rules[0]" in result.stderr
    assert [r.id for r in mem.rules()] == [alice_rule]
