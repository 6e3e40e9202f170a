"""Deployment defaults (issue 11, item 8), with a real HTTP client against uvicorn: without an
API key only local Host / Origin names are served (no DNS rebinding, no cross-site posts);
with a key, the key guards everything, the schema and docs included."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from dctx.memory import Memory
from dctx.server.http import create_app
from dctx.server.service import DctxService
from dctx.server.transport_guard import host_allowed
from dctx.store.sqlite import SQLiteStore
from server.conftest import _start_uvicorn


@pytest.fixture
def service(tmp_path: object) -> Iterator[DctxService]:
    svc = DctxService(Memory(SQLiteStore(":memory:"), embedder="hashing"))
    yield svc
    svc.close()


def _serve(service: DctxService, **options: object) -> Iterator[httpx.Client]:
    server, thread, base = _start_uvicorn(create_app(service, **options))  # type: ignore[arg-type]
    try:
        with httpx.Client(base_url=base, timeout=30) as client:
            yield client
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture
def open_api(service: DctxService) -> Iterator[httpx.Client]:
    yield from _serve(service, allowed_hosts=["dctx.proxy.internal"])


@pytest.fixture
def keyed_api(service: DctxService) -> Iterator[httpx.Client]:
    yield from _serve(service, api_key="k-1")


def test_rebinding_host_is_refused_without_a_key(open_api: httpx.Client) -> None:
    port = open_api.base_url.port
    assert open_api.get("/v1/default/rules").status_code == 200  # Host: 127.0.0.1:PORT
    for host in (f"localhost:{port}", "[::1]", "dctx.proxy.internal", "10.0.0.7:80"):
        assert open_api.get("/v1/default/rules", headers={"Host": host}).status_code == 200
    for path in ("/v1/default/rules", "/docs", "/openapi.json", "/health"):
        r = open_api.get(path, headers={"Host": f"attacker.example:{port}"})
        assert r.status_code == 403, path
        assert r.json()["error"]["code"] == "forbidden_host"


def test_cross_site_origin_is_refused_without_a_key(open_api: httpx.Client) -> None:
    body = {"actor": "a", "skill": "s", "query": "hello there"}
    local = open_api.post(
        "/v1/default/guidance", json=body, headers={"Origin": "http://localhost:3000"}
    )
    assert local.status_code == 200
    for origin in ("http://attacker.example", "null", "https://localhost.attacker.example"):
        r = open_api.post("/v1/default/guidance", json=body, headers={"Origin": origin})
        assert r.status_code == 403, origin
        assert r.json()["error"]["code"] == "forbidden_host"


def test_with_a_key_the_key_decides(keyed_api: httpx.Client) -> None:
    evil = {"Host": "attacker.example"}
    assert keyed_api.get("/v1/default/rules", headers=evil).status_code == 401
    assert keyed_api.get("/openapi.json", headers=evil).status_code == 401
    ok = keyed_api.get("/openapi.json", headers={**evil, "X-API-Key": "k-1"})
    assert ok.status_code == 200 and ok.json()["info"]["title"] == "dctx"


@pytest.mark.parametrize(
    ("host", "ok"),
    [
        ("localhost", True),
        ("LOCALHOST.:8765", True),
        ("127.0.0.1:1", True),
        ("[::1]:8765", True),
        ("192.168.1.20", True),
        ("localhost.attacker.example", False),
        ("127.0.0.1.nip.io", False),
        ("", False),
    ],
)
def test_host_names(host: str, ok: bool) -> None:
    assert host_allowed(host, ()) is ok
