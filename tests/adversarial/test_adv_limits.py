"""Limits that fail fast (issue 11, item 7): oversized messages and sessions, YAML alias bombs
and oversized request bodies are refused with a typed error before any work or lock; the
work of a capture happens before its write transaction, so readers and other writers are
not held up by it."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from adversarial.conftest import personal_correction
from dctx import Limits, Memory, TraceFormatError
from dctx.providers.hashing import HashingEmbedder
from dctx.server.http import create_app
from dctx.server.schemas import GuidanceRequest
from dctx.server.service import DctxService
from dctx.store.registry import open_store
from dctx.store.sqlite import SQLiteStore
from dctx.validation import DEFAULT_LIMITS
from server.conftest import _start_uvicorn

DEADLOCK_S = 60  # only a hang detector: every wait below ends at once when the code is right


class CountingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> Any:
        self.calls += 1
        return super().embed(texts)


@pytest.fixture
def guarded(url: str, monkeypatch: pytest.MonkeyPatch) -> Memory:
    """A Memory whose store fails the test if a write transaction is opened."""
    memory = Memory(open_store(url), embedder=CountingEmbedder())

    def no_lock() -> Any:
        raise AssertionError("a write transaction was opened")

    monkeypatch.setattr(memory.store, "transaction", no_lock)
    return memory


def test_huge_message_is_rejected_before_any_work_or_lock(guarded: Memory) -> None:
    huge = "x" * (DEFAULT_LIMITS.message_chars + 1)
    embedder = guarded.embedder
    assert isinstance(embedder, CountingEmbedder)
    with pytest.raises(TraceFormatError) as caught:
        guarded.capture([{"role": "user", "content": huge}], actor="alice", skill="fa")
    assert (caught.value.index, caught.value.field) == (0, "content")
    assert f"limit is {DEFAULT_LIMITS.message_chars}" in str(caught.value)
    assert embedder.calls == 0


def test_too_many_messages_are_rejected_before_parsing(guarded: Memory) -> None:
    count = DEFAULT_LIMITS.messages_per_session + 1
    messages = [{"role": "user", "content": "hi"}] * count
    with pytest.raises(TraceFormatError, match=f"limit is {count - 1} per session"):
        guarded.capture(messages, actor="alice", skill="fa")


def test_limits_can_be_raised(url: str) -> None:
    """The limits are configuration, not constants baked into the checks."""
    small = Memory(url, embedder="hashing", limits=Limits(message_chars=10))
    try:
        with pytest.raises(TraceFormatError, match="limit is 10 per message"):
            small.capture([{"role": "user", "content": "x" * 11}], actor="alice", skill="fa")
    finally:
        small.close()


def test_yaml_alias_bomb_fails_at_the_first_alias(mem: Memory, tmp_path: Path) -> None:
    """A small bomb (9^6 leaves, so the test stays cheap even where aliases expand); the real
    ones add levels. The scanner refuses the first alias, so size does not matter."""
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 6):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [{', '.join(['*' + prev] * 9)}]")
    lines.append("sessions: [{conversation_id: s, messages: *f}]")
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(TraceFormatError, match="aliases"):
        mem.capture_file(bomb)
    assert mem.store.count_rows()["sessions"] == 0


def test_yaml_without_aliases_still_loads(mem: Memory, tmp_path: Path) -> None:
    seed = personal_correction()
    trace = tmp_path / "ok.yaml"
    trace.write_text(json.dumps({"sessions": [seed]}), encoding="utf-8")  # JSON is YAML
    assert mem.capture_file(trace).sessions == 1


# --------------------------------------------------------------------------- HTTP body limit


@pytest.fixture
def small_api(mem: Memory) -> Iterator[httpx.Client]:
    server, thread, base = _start_uvicorn(create_app(DctxService(mem), max_body_bytes=2000))
    try:
        with httpx.Client(base_url=base, timeout=60) as client:
            yield client
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_request_body_limit(small_api: httpx.Client, mem: Memory) -> None:
    body = {
        "actor": "alice",
        "skill": "fa",
        "messages": [{"role": "user", "content": "x" * 3000}],
    }
    data = json.dumps(body).encode()
    declared = small_api.post(
        "/v1/default/capture", content=data, headers={"content-type": "application/json"}
    )
    streamed = small_api.post(  # no Content-Length: chunked, counted as it arrives
        "/v1/default/capture",
        content=iter([data[:1000], data[1000:]]),
        headers={"content-type": "application/json"},
    )
    for r in (declared, streamed):
        assert r.status_code == 413, r.text
        assert r.json()["error"]["code"] == "request_too_large"
    assert mem.store.count_rows()["sessions"] == 0
    seed = personal_correction()
    del seed["conversation_id"]
    assert small_api.post("/v1/default/capture", json=seed).status_code == 200


# --------------------------------------------------------------------------- no lock during work


class GateEmbedder(HashingEmbedder):
    """Blocks any embed call whose texts mention GATE until released: a slow work phase."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.release = threading.Event()

    def embed(self, texts: Sequence[str]) -> Any:
        if any("GATE" in t for t in texts):
            self.entered.set()
            assert self.release.wait(DEADLOCK_S)
        return super().embed(texts)


def _slow_capture(mem: Memory) -> tuple[threading.Thread, list[BaseException]]:
    errors: list[BaseException] = []
    messages = [*personal_correction()["messages"], {"role": "user", "content": "GATE"}]

    def work() -> None:
        try:
            mem.capture(messages, actor="alice", skill="fa", conversation_id="slow")
        except BaseException as exc:
            errors.append(exc)

    thread = threading.Thread(target=work)
    thread.start()
    return thread, errors


def test_reads_are_not_blocked_by_a_capture_at_work(url: str) -> None:
    """A guidance read in one thread completes while another thread's capture is inside its
    work phase (embedding); the capture then finishes and its rule is there."""
    gate = GateEmbedder()
    service = DctxService(Memory(open_store(url), embedder=gate))
    thread, errors = _slow_capture(service.memory)
    try:
        assert gate.entered.wait(DEADLOCK_S)
        done: list[Any] = []
        reader = threading.Thread(
            target=lambda: done.append(
                service.guidance(
                    "default", GuidanceRequest(actor="bob", skill="fa", query="Compare margins")
                )
            )
        )
        reader.start()
        reader.join(DEADLOCK_S)
        assert done, "the read waited for the capture"
        assert service.memory.store.count_rows()["sessions"] == 0  # nothing written yet
    finally:
        gate.release.set()
        thread.join(DEADLOCK_S)
        service.close()
    assert not errors
    with Memory(url, embedder="hashing") as after:
        assert [r.actor for r in after.rules()] == ["alice"]


def test_sqlite_write_lock_is_free_during_the_work_phase(tmp_path: Path) -> None:
    """Another process could write (take the SQLite write lock) while a capture embeds."""
    path = tmp_path / "lock.db"
    gate = GateEmbedder()
    mem = Memory(SQLiteStore(path), embedder=gate)
    thread, errors = _slow_capture(mem)
    try:
        assert gate.entered.wait(DEADLOCK_S)
        other = sqlite3.connect(path, timeout=0, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")  # raises "database is locked" if it is held
            other.execute("ROLLBACK")
        finally:
            other.close()
    finally:
        gate.release.set()
        thread.join(DEADLOCK_S)
        mem.close()
    assert not errors


def test_opening_and_reading_take_no_write_lock(tmp_path: Path) -> None:
    """With another connection holding the write lock, a memory still opens and reads."""
    path = tmp_path / "busy.db"
    with Memory(SQLiteStore(path), embedder="hashing") as first:
        seed = personal_correction()
        first.capture(seed["messages"], actor="alice", skill="fa")
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        with Memory(SQLiteStore(path, busy_timeout=0.2), embedder="hashing") as reader:
            run = reader.start(actor="alice", skill="fa", query="Compare margins")
            assert run.units and len(reader.rules()) == 1
    finally:
        writer.execute("ROLLBACK")
        writer.close()


class WatchingLLM:
    """An LLM that notes whether a write transaction is open on its thread when called; it
    answers nonsense, so every step falls back to the deterministic result."""

    id = "watching:test"

    def __init__(self) -> None:
        self.store: SQLiteStore | None = None
        self.inside: list[bool] = []

    def complete(self, system: str, user: str, *, schema: Any = None) -> tuple[str, Any]:
        from dctx.providers.base import Usage

        assert self.store is not None
        self.inside.append(self.store._tx_conn() is not None)
        return "not json", Usage(input_tokens=1, output_tokens=1)


def test_llm_calls_run_before_the_write_transaction(tmp_path: Path) -> None:
    from server.conftest import segment_session

    llm = WatchingLLM()
    store = SQLiteStore(tmp_path / "llm.db")
    llm.store = store
    seed = segment_session()
    with Memory(store, embedder="hashing", llm=llm) as mem:
        report = mem.capture(seed["messages"], actor=seed["actor"], skill=seed["skill"])
    assert report.added  # the deterministic fallback still learned the lesson
    assert llm.inside and not any(llm.inside), "an LLM call ran inside the write transaction"
