"""Identifier tricks (issue 11, item 3): an actor, skill, namespace or id that is not a clean
name is rejected with a typed error naming the field, at every entry point and on both
backends; names are compared exactly, after NFC normalization."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest
from mcp import Client

from adversarial.conftest import personal_correction
from dctx import InvalidIdentifierError, Memory
from dctx.server.http import create_app
from dctx.server.mcp_server import create_mcp
from dctx.server.service import DctxService
from server.conftest import _start_uvicorn

QUERY = "Compare Halvard Energy and Brightwater on margins."

TRICKS = {
    "trailing NUL": "alice\x00",
    "inner NUL": "ali\x00ce",
    "empty": "",
    "leading space": " alice",
    "trailing space": "alice ",
    "newline": "alice\n",
    "right-to-left override": "al\u202eice",
    "zero-width space": "ali\u200bce",
    "no-break space": "alice\u00a0",
    "DEL": "ali\x7fce",
    "lone surrogate": "alice\ud800",
    "too long": "a" * 201,
}


def _stage1_ids(mem: Memory, **scope: str) -> set[str]:
    run = mem.start(query=QUERY, **{"actor": "alice", "skill": "fa", **scope})
    return {rid for unit in run.units for rid in unit.rule_ids}


def test_alice_gets_her_rule(mem: Memory, alice_rule: str) -> None:
    """The baseline the tricks try to reach."""
    assert alice_rule in _stage1_ids(mem)


@pytest.mark.parametrize("field", ["actor", "skill"])
def test_nul_suffix_does_not_reach_alices_rules(mem: Memory, alice_rule: str, field: str) -> None:
    value = {"actor": "alice\x00", "skill": "fa\x00"}[field]
    with pytest.raises(InvalidIdentifierError) as caught:
        _stage1_ids(mem, **{field: value})
    assert caught.value.field == field and "U+0000" in str(caught.value)


@pytest.mark.parametrize("trick", list(TRICKS), ids=list(TRICKS))
def test_every_python_entry_rejects_the_trick(mem: Memory, trick: str) -> None:
    bad = TRICKS[trick]
    seed = personal_correction()
    calls: dict[str, Any] = {
        "start": lambda: mem.start(actor=bad, skill="fa", query=QUERY),
        "capture": lambda: mem.capture(seed["messages"], actor=bad, skill="fa"),
        "capture skill": lambda: mem.capture(seed["messages"], actor="alice", skill=bad),
        "conversation id": lambda: mem.capture(
            seed["messages"], actor="alice", skill="fa", conversation_id=bad
        ),
        "namespace": lambda: mem.start(actor="alice", skill="fa", query=QUERY, namespace=bad),
        "rules filter": lambda: mem.rules(actor=bad),
        "forget": lambda: mem.forget_actor(bad),
        "rule id": lambda: mem.rule(bad),
    }
    for name, call in calls.items():
        with pytest.raises(InvalidIdentifierError):
            call()
        assert mem.store.count_rows()["sessions"] == 0, name  # nothing was written


def test_memory_namespace_is_checked(url: str) -> None:
    with pytest.raises(InvalidIdentifierError) as caught:
        Memory(url, embedder="hashing", namespace="team\x00")
    assert caught.value.field == "namespace"


def test_retriever_compares_scope_exactly(mem: Memory, alice_rule: str) -> None:
    """The comparison itself, below validation: numpy reads 'alice\\x00' as 'alice' when it
    compares string arrays, so scope masks must not compare names that way."""
    snap = mem.retriever.snapshot("default")
    assert alice_rule in {r.id for r in _visible(mem, snap, "alice")}
    for other in ("alice\x00", "alice\x00\x00", "alic", "Alice"):
        assert alice_rule not in {r.id for r in _visible(mem, snap, other)}


def _visible(mem: Memory, snap: Any, actor: str) -> list[Any]:
    return snap.rules(mem.retriever.visible(snap, skill="fa", actor=actor))


def test_names_are_compared_after_nfc(mem: Memory) -> None:
    """'José' typed composed or decomposed is one actor, on both backends."""
    seed = personal_correction(actor="Jose\u0301")  # e + combining acute
    [rule] = mem.capture(seed["messages"], actor=seed["actor"], skill="fa").added
    assert rule.scope.actor == "Jos\u00e9"
    assert rule.id in _stage1_ids(mem, actor="Jos\u00e9")
    assert [r.id for r in mem.rules(actor="Jose\u0301")] == [rule.id]


# --------------------------------------------------------------------------- HTTP and MCP


@pytest.fixture
def service(mem: Memory) -> DctxService:
    return DctxService(mem)


@pytest.fixture
def api(service: DctxService) -> Iterator[httpx.Client]:
    server, thread, base = _start_uvicorn(create_app(service))
    try:
        with httpx.Client(base_url=base, timeout=60) as client:
            yield client
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_http_rejects_nul_suffixed_names(api: httpx.Client, alice_rule: str) -> None:
    ok = api.post("/v1/default/guidance", json={"actor": "alice", "skill": "fa", "query": QUERY})
    assert alice_rule in {rid for u in ok.json()["units"] for rid in u["rule_ids"]}
    for body in (
        {"actor": "alice\x00", "skill": "fa", "query": QUERY},
        {"actor": "alice", "skill": "fa\x00", "query": QUERY},
    ):
        for path in ("/v1/default/guidance", "/v1/default/runs"):
            r = api.post(path, json=body)
            assert r.status_code == 422, r.text
            error = r.json()["error"]
            assert error["code"] == "validation_error"
            assert error["problems"][0]["loc"][-1] in ("actor", "skill")
            assert "U+0000" in error["problems"][0]["msg"]
    listed = api.get("/v1/default/rules", params={"actor": "alice\x00"})
    assert listed.status_code == 422
    forgotten = api.delete("/v1/default/actors/alice%00")
    assert forgotten.status_code == 422
    assert forgotten.json()["error"] == {
        "code": "invalid_identifier",
        "status": 422,
        "message": forgotten.json()["error"]["message"],
        "field": "actor",
    }
    assert api.get("/v1/default%0A/rules").status_code == 422  # namespace with a newline


def test_mcp_rejects_nul_suffixed_names(service: DctxService, alice_rule: str) -> None:
    async def calls() -> list[Any]:
        async with Client(create_mcp(service)) as client:
            good = await client.call_tool(
                "get_guidance", {"actor": "alice", "skill": "fa", "query": QUERY}
            )
            bad = [
                await client.call_tool("get_guidance", {**args, "query": QUERY})
                for args in (
                    {"actor": "alice\x00", "skill": "fa"},
                    {"actor": "alice", "skill": "fa\x00"},
                )
            ]
            return [good, *bad]

    good, *bad = anyio.run(calls)
    assert alice_rule in {rid for u in good.structured_content["units"] for rid in u["rule_ids"]}
    for result in bad:
        assert result.is_error
        error = json.loads(result.content[0].text)["error"]  # the whole text is the JSON body
        assert error["code"] == "validation_error" and error["status"] == 422
        assert error["problems"][0]["loc"][0] in ("actor", "skill")
