"""Fixtures for the server tests: real servers on 127.0.0.1 free ports, real clients.

The HTTP API runs under uvicorn in a thread (so tests can also read the store directly);
`dctx serve` / `dctx mcp` run as subprocesses where the CLI itself is under test. The hashing
embedder keeps startup fast and matches what the subprocesses use.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from dctx.memory import Memory
from dctx.server.http import create_app
from dctx.server.service import DctxService
from dctx.store.sqlite import SQLiteStore

DCTX = str(Path(sys.executable).parent / "dctx")
ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LiveServer:
    url: str
    service: DctxService


def _start_uvicorn(app: Any) -> tuple[uvicorn.Server, threading.Thread, str]:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    return server, thread, f"http://127.0.0.1:{port}"


@pytest.fixture
def service(tmp_path: Path) -> Iterator[DctxService]:
    svc = DctxService(Memory(SQLiteStore(tmp_path / "server.db"), embedder="hashing"))
    yield svc
    svc.close()


def _live(service: DctxService, api_key: str | None) -> Iterator[LiveServer]:
    server, thread, url = _start_uvicorn(create_app(service, api_key=api_key))
    try:
        yield LiveServer(url, service)
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture
def live(service: DctxService) -> Iterator[LiveServer]:
    """The HTTP API without auth."""
    yield from _live(service, None)


@pytest.fixture
def live_keyed(service: DctxService) -> Iterator[LiveServer]:
    """The HTTP API with API key 'k-123'."""
    yield from _live(service, "k-123")


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            out = proc.stdout.read().decode() if proc.stdout else ""
            raise RuntimeError(f"server exited with {proc.returncode}: {out}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


@pytest.fixture
def spawn(tmp_path: Path) -> Iterator[Any]:
    """Start `dctx ARGS...` (a server) in a subprocess; stopped at teardown."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(*args: str, port: int, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        full_env = {**os.environ, "DCTX_EMBEDDER": "hashing"}
        full_env.pop("DCTX_API_KEY", None)
        full_env.update(env or {})
        proc = subprocess.Popen(
            [DCTX, *args],
            cwd=tmp_path,
            env=full_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        procs.append(proc)
        wait_for_port(port, proc)
        return proc

    yield start
    for proc in procs:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def segment_session() -> dict[str, Any]:
    """A correction that compiles to a DATA rule: per-segment growth when segments appear."""
    return {
        "actor": "kenji",
        "skill": "financial_analyst",
        "conversation_id": "kenji-growth",
        "timestamp": "2026-02-04T11:30:00Z",
        "messages": [
            {"role": "user", "content": "Summarize Tavistock Instruments' growth for FY2025."},
            {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {
                "name": "get_segments",
                "arguments": '{"company": "Tavistock Instruments", "period": "FY2025"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": '{"segments": [{"name": "T&M", '
             '"revenue": 1011.0, "revenue_prior": 842.6}, {"name": "Sensors", "revenue": 631.0, '
             '"revenue_prior": 655.7}]}'},
            {"role": "assistant", "content": "Tavistock grew FY2025 revenue 9.6% to $1.64B."},
            {"role": "user", "content": "9.6% hides the story. Whenever a company reports "
             "segments, give growth per segment, not just the consolidated number."},
            {"role": "assistant", "content": "T&M grew 20.0% while Sensors fell 3.8%."},
            {"role": "user", "content": "Exactly."},
        ],
    }  # fmt: skip


def table_correction(actor: str = "kenji") -> dict[str, Any]:
    """A correction that compiles to an always-on FORMAT rule (delivered at stage 1)."""
    return {
        "actor": actor,
        "skill": "financial_analyst",
        "query": "Compare Halvard Energy and Brightwater Utilities on margins.",
        "answer": "Brightwater's operating margin is 17.0% vs Halvard's 15.0%.",
        "correction": "I can't scan prose. Always put company comparisons in a table, one "
        "column per company and metrics as rows.",
    }


SEGMENTS_RESULT = {"segments": [{"name": "Defense", "revenue": 610.0, "revenue_prior": 480.2}]}


def run_example(name: str, env: dict[str, str], *args: str) -> str:
    """Execute examples/NAME as a user would; return its stdout (fails on a non-zero exit)."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name), *args],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def get_json(client: httpx.Client, path: str, **kw: Any) -> Any:
    r = client.get(path, **kw)
    assert r.status_code == 200, r.text
    return r.json()
