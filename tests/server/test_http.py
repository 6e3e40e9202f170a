"""The HTTP API against a running server (uvicorn on a free port), with a real httpx client."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from server.conftest import (
    SEGMENTS_RESULT,
    LiveServer,
    get_json,
    segment_session,
    table_correction,
)


@pytest.fixture
def api(live: LiveServer) -> Any:
    with httpx.Client(base_url=live.url, timeout=30) as client:
        yield client


def _capture(api: httpx.Client, ns: str, body: dict[str, Any]) -> dict[str, Any]:
    r = api.post(f"/v1/{ns}/capture", json=body)
    assert r.status_code == 200, r.text
    out: dict[str, Any] = r.json()
    return out


def test_health_and_openapi(api: httpx.Client) -> None:
    health = get_json(api, "/health")
    assert health["status"] == "ok" and health["store"] == "sqlite"
    assert health["embedder"].startswith("hashing")
    schema = get_json(api, "/openapi.json")
    paths = set(schema["paths"])
    assert "/v1/{namespace}/capture" in paths
    assert "/v1/{namespace}/rules/{rule_id}/approve" in paths
    assert "ErrorBody" in schema["components"]["schemas"]


def test_capture_then_rules_crud(api: httpx.Client) -> None:
    learned = _capture(api, "acme", segment_session())
    assert learned["sessions"] == 1 and learned["corrections"] == 1
    assert learned["reader"]  # names what read the turns (the server's reader, or its LLM)
    [rule] = learned["added"]
    assert "per segment" in rule["text"] and rule["scope"]["namespace"] == "acme"
    rid = rule["id"]
    base = f"/v1/acme/rules/{rid}"

    listed = get_json(api, "/v1/acme/rules", params={"actor": "kenji", "status": "active"})
    assert [r["id"] for r in listed] == [rid]
    assert get_json(api, base)["text"] == rule["text"]

    edited = api.patch(base, json={"text": "Give growth per segment whenever segments exist."})
    assert edited.status_code == 200
    assert edited.json()["text"] == "Give growth per segment whenever segments exist."
    assert edited.json()["history"][-1]["old_text"] == rule["text"]

    assert api.post(f"{base}/disable").json()["status"] == "disabled"
    assert get_json(api, "/v1/acme/rules", params={"status": "active"}) == []
    assert api.post(f"{base}/enable").json()["status"] == "active"
    assert api.post(f"{base}/approve").json()["status"] == "active"
    refused = api.post(f"{base}/reject")  # only a candidate or a draft can be rejected
    assert refused.status_code == 409
    assert "dctx rules disable" in refused.json()["error"]["message"]

    why = get_json(api, f"{base}/explain")
    assert why["rule"]["id"] == rid
    assert any("per segment" in e["text"] for e in why["evidence"])
    assert why["evidence"][0]["conversation_id"] == "kenji-growth"

    assert api.delete(base).status_code == 204
    gone = api.get(base)
    assert gone.status_code == 404 and gone.json()["error"]["code"] == "not_found"


def test_edit_trigger_and_explain_for_an_actor(api: httpx.Client) -> None:
    [rule] = _capture(api, "acme", segment_session())["added"]
    base = f"/v1/acme/rules/{rule['id']}"
    edited = api.patch(base, json={"trigger": "data: a pod is in CrashLoopBackOff"})
    assert edited.status_code == 200, edited.text
    body = edited.json()
    assert body["text"] == rule["text"]
    assert body["trigger"]["predicate"]["values"] == ["CrashLoopBackOff"]
    assert body["history"][-1]["event"] == "trigger_edited"
    bad = api.patch(base, json={"trigger": "sometimes"})
    assert bad.status_code == 400 and "always" in bad.json()["error"]["message"]
    assert api.patch(base, json={}).status_code == 422  # neither text nor trigger
    assert get_json(api, base)["trigger"]["predicate"]["values"] == ["CrashLoopBackOff"]
    why = get_json(api, f"{base}/explain", params={"actor": "kenji", "skill": "financial_analyst"})
    assert why["conflict"]["reason"] == "no_conflict" and why["conflict"]["winners"] == [rule["id"]]
    assert get_json(api, f"{base}/explain")["conflict"] is None


def test_runs_deliver_stage1_then_stage2_once(api: httpx.Client) -> None:
    _capture(api, "acme", segment_session())
    assert api.post("/v1/acme/corrections", json=table_correction()).status_code == 200
    start = api.post(
        "/v1/acme/runs",
        json={
            "actor": "kenji",
            "skill": "financial_analyst",
            "query": "Compare Corvid and Sable Networks on FY2025 margins",
        },
    )
    assert start.status_code == 200, start.text
    run = start.json()
    assert "table" in run["messages"][0]["content"] and run["units"][0]["channel"] == "user"
    assert "per segment" not in run["messages"][0]["content"]  # waits for segment data
    observe = f"/v1/acme/runs/{run['run_id']}/observe"
    quiet = api.post(observe, json={"tool": "get_financials", "result": {"revenue": 1.0}})
    assert quiet.status_code == 200 and quiet.json()["units"] == []
    step = {"tool": "get_segments", "arguments": {"company": "Corvid"}, "result": SEGMENTS_RESULT}
    hit = api.post(observe, json=step).json()
    assert hit["decision_point"] == 2
    assert [u["channel"] for u in hit["units"]] == ["system"]
    assert "per segment" in hit["units"][0]["text"] and "per segment" in hit["system"]
    again = api.post(observe, json=step).json()
    assert again["units"] == []  # never delivered twice
    assert get_json(api, "/health")["open_runs"] == 1
    # a run is bound to its namespace
    assert api.post(f"/v1/other/runs/{run['run_id']}/observe", json=step).status_code == 404
    assert api.delete(f"/v1/acme/runs/{run['run_id']}").status_code == 204
    ended = api.post(observe, json=step)
    assert ended.status_code == 404 and "start a new run" in ended.json()["error"]["message"]


def test_stateless_guidance_matches_the_run(api: httpx.Client) -> None:
    _capture(api, "acme", segment_session())
    body = {
        "actor": "kenji",
        "skill": "financial_analyst",
        "query": "How did Corvid grow?",
        "steps": [{"tool": "get_segments", "arguments": {}, "result": SEGMENTS_RESULT}],
    }
    out = api.post("/v1/acme/guidance", json=body).json()
    assert out["units"] == [] and out["messages"] == []
    assert out["steps"][0]["decision_point"] == 1
    assert out["latest"] == out["steps"][0]["units"]
    assert "per segment" in out["latest"][0]["text"]
    assert get_json(api, "/health")["open_runs"] == 0  # nothing kept


def test_malformed_capture_is_422_and_writes_nothing(api: httpx.Client, live: LiveServer) -> None:
    _capture(api, "acme", segment_session())
    before = live.service.memory.store.count_rows()
    session = segment_session()
    session["messages"][2] = {"role": "tool", "tool_call_id": "c1", "content": 42}
    r = api.post("/v1/acme/capture", json=session)
    assert r.status_code == 422
    err = r.json()["error"]
    assert err["code"] == "trace_format" and err["index"] == 2 and err["field"] == "content"
    assert "message 2" in err["message"]
    assert "Traceback" not in r.text
    assert live.service.memory.store.count_rows() == before


@pytest.mark.parametrize(
    ("method", "path", "body", "where"),
    [
        ("post", "/v1/acme/capture", {"actor": "a", "skill": "s"}, "messages"),
        ("post", "/v1/acme/capture", {"actor": " ", "skill": "s", "messages": [{}]}, "actor"),
        (
            "post",
            "/v1/bad%20ns/capture",
            {"actor": "a", "skill": "s", "messages": [{}]},
            "namespace",
        ),
        ("post", "/v1/acme/guidance", {"actor": "a", "skill": "s", "query": "q", "x": 1}, "x"),
        ("patch", "/v1/acme/rules/r1", {"text": "   "}, "text"),
        (
            "post",
            "/v1/acme/runs",
            {"actor": "a", "skill": "s", "query": "q", "token_budget": 0},
            "token_budget",
        ),
    ],
)
def test_bad_requests_are_typed_422(
    api: httpx.Client, method: str, path: str, body: dict[str, Any], where: str
) -> None:
    r = api.request(method, path, json=body)
    assert r.status_code == 422, r.text
    err = r.json()["error"]
    assert err["code"] == "validation_error"
    assert any(where in [str(p) for p in prob["loc"]] for prob in err["problems"])
    assert where in err["message"]


def test_not_json_body_is_422(api: httpx.Client) -> None:
    r = api.post(
        "/v1/acme/capture", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert r.status_code == 422 and r.json()["error"]["code"] == "validation_error"


def test_two_namespaces_never_share_rules(api: httpx.Client) -> None:
    a = _capture(api, "tenant-a", segment_session())["added"][0]["id"]
    assert api.post("/v1/tenant-b/corrections", json=table_correction()).status_code == 200
    run_query = {
        "actor": "kenji",
        "skill": "financial_analyst",
        "query": "Compare Corvid and Sable Networks on FY2025 growth",
        "steps": [{"tool": "get_segments", "result": SEGMENTS_RESULT}],
    }
    in_a = api.post("/v1/tenant-a/guidance", json=run_query).json()
    in_b = api.post("/v1/tenant-b/guidance", json=run_query).json()
    texts_a = " ".join(u["text"] for u in in_a["units"] + in_a["latest"])
    texts_b = " ".join(u["text"] for u in in_b["units"] + in_b["latest"])
    assert "per segment" in texts_a and "table" not in texts_a
    assert "table" in texts_b and "per segment" not in texts_b
    # ids of one tenant are invisible to the other, for every rule operation
    assert [r["id"] for r in get_json(api, "/v1/tenant-b/rules")] != [a]
    for method, suffix in [
        ("get", ""),
        ("get", "/explain"),
        ("post", "/disable"),
        ("patch", ""),
        ("delete", ""),
    ]:
        kw: dict[str, Any] = {"json": {"text": "x y"}} if method == "patch" else {}
        r = api.request(method, f"/v1/tenant-b/rules/{a}{suffix}", **kw)
        assert r.status_code == 404, (method, suffix, r.text)
    assert get_json(api, f"/v1/tenant-a/rules/{a}")["status"] == "active"
    # forgetting kenji in tenant-b leaves tenant-a alone
    forgot = api.delete("/v1/tenant-b/actors/kenji").json()
    assert forgot["deleted"]["rules"] == 1
    assert get_json(api, "/v1/tenant-b/rules") == []
    assert [r["id"] for r in get_json(api, "/v1/tenant-a/rules")] == [a]


def test_actor_and_skill_scope_within_a_namespace(api: httpx.Client) -> None:
    _capture(api, "acme", segment_session())
    step = [{"tool": "get_segments", "result": SEGMENTS_RESULT}]
    other_skill = api.post(
        "/v1/acme/guidance",
        json={
            "actor": "kenji",
            "skill": "customer_support",
            "query": "How did Corvid grow?",
            "steps": step,
        },
    ).json()
    assert other_skill["latest"] == [] and other_skill["units"] == []


def test_api_key(live_keyed: LiveServer) -> None:
    with httpx.Client(base_url=live_keyed.url, timeout=30) as anon:
        assert anon.get("/health").status_code == 200  # liveness needs no key
        r = anon.get("/v1/default/rules")
        assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized"
        wrong = anon.get("/v1/default/rules", headers={"X-API-Key": "k-124"})
        assert wrong.status_code == 401
        right = anon.get("/v1/default/rules", headers={"X-API-Key": "k-123"})
        assert right.status_code == 200 and right.json() == []
        for path in ("/openapi.json", "/docs", "/redoc"):  # the schema is behind the key too
            hidden = anon.get(path)
            assert hidden.status_code == 401 and hidden.json()["error"]["code"] == "unauthorized"
            assert anon.get(path, headers={"X-API-Key": "k-123"}).status_code == 200
        schema = anon.get("/openapi.json", headers={"X-API-Key": "k-123"}).json()
        assert "APIKeyHeader" in schema["components"]["securitySchemes"]


def test_concurrent_requests_are_served(api: httpx.Client, live: LiveServer) -> None:
    """Captures and guidance from many threads at once: all succeed, every rule lands once."""
    from concurrent.futures import ThreadPoolExecutor

    def work(i: int) -> int:
        with httpx.Client(base_url=live.url, timeout=60) as client:
            if i % 2:
                body = {**table_correction(actor=f"actor{i}")}
                return client.post("/v1/acme/corrections", json=body).status_code
            query = {"actor": "kenji", "skill": "financial_analyst", "query": f"Compare {i}"}
            return client.post("/v1/acme/guidance", json=query).status_code

    with ThreadPoolExecutor(max_workers=8) as pool:
        codes = list(pool.map(work, range(16)))
    assert codes == [200] * 16
    rules = get_json(api, "/v1/acme/rules")
    assert sorted(r["actor"] for r in rules) == sorted(f"actor{i}" for i in range(1, 16, 2))


def test_capture_timestamp_is_validated_and_kept(api: httpx.Client, live: LiveServer) -> None:
    bad = {**segment_session(), "timestamp": "last tuesday"}
    r = api.post("/v1/acme/capture", json=bad)
    assert r.status_code == 422 and "timestamp" in r.json()["error"]["message"]
    rule = _capture(api, "acme", {**segment_session(), "timestamp": "2026-02-04T12:30:00+01:00"})
    why = get_json(api, f"/v1/acme/rules/{rule['added'][0]['id']}/explain")
    assert why["evidence"][0]["timestamp"] == "2026-02-04T11:30:00Z"


def test_recapture_is_a_noop_and_other_content_under_the_id_is_409(
    api: httpx.Client, live: LiveServer
) -> None:
    _capture(api, "acme", segment_session())
    before = live.service.memory.store.count_rows()
    again = _capture(api, "acme", segment_session())
    assert again["added"] == [] and again["unchanged"] == ["kenji-growth"]
    session = segment_session()
    session["messages"][-1] = {"role": "user", "content": "Hm, not quite."}
    r = api.post("/v1/acme/capture", json=session)
    assert r.status_code == 409, r.text
    err = r.json()["error"]
    assert err["code"] == "conflict" and "'kenji-growth'" in err["message"]
    assert live.service.memory.store.count_rows() == before


@pytest.mark.parametrize(("path", "library"), [("/docs", "swagger"), ("/redoc", "redoc")])
def test_docs_page_works_offline(api: httpx.Client, path: str, library: str) -> None:
    """/docs and /redoc reference only this server's own assets (no CDN), and they are served."""
    import re

    page = api.get(path)
    assert page.status_code == 200 and library in page.text.lower()
    urls = re.findall(r"""(?:src|href)=["']([^"']+)["']""", page.text)
    urls += re.findall(r"""url: ?["']([^"']+)["']""", page.text)
    urls += re.findall(r"""spec-url=["']([^"']+)["']""", page.text)
    assert urls and all(u.startswith("/") for u in urls), urls  # nothing from another host
    for url in urls:
        r = api.get(url)
        assert r.status_code == 200 and r.content, url
    assert "SwaggerUIBundle" in api.get("/docs-assets/swagger-ui-bundle.js").text
