"""Contract: the per-file record of incremental transcript capture, on every backend."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dctx.store.base import Store, TranscriptFile
from dctx.store.copy import copy_store
from dctx.store.registry import open_store

Dump = Callable[[Store], list[tuple[str, str, Any]]]


def _record(
    path: str, *, actor: str = "ana", namespace: str = "default", n: int = 3
) -> TranscriptFile:
    return TranscriptFile(
        namespace=namespace, client="claude-code", path=path, actor=actor, size=1234,
        mtime_ns=1_767_225_600_123_456_789, sha256="ab" * 32,
        sessions={"s1": (n, "cd" * 32), "s1#4": (2, "ef" * 32)}, captured_at="2026-01-01T00:00:00Z",
    )  # fmt: skip


def test_records_round_trip_and_replace(store: Store) -> None:
    assert store.transcript_files("default", "claude-code") == {}
    first = _record("/home/ana/.claude/projects/p/s1.jsonl")
    store.put_transcript_file(first)
    assert store.transcript_files("default", "claude-code") == {first.path: first}
    grown = _record(first.path, n=7)
    with store.transaction():
        store.put_transcript_file(grown)
    assert store.transcript_files("default", "claude-code")[first.path].sessions["s1"] == (
        7,
        "cd" * 32,
    )
    store.put_transcript_file(_record("/home/ana/.claude/projects/p/s2.jsonl"))
    assert list(store.transcript_files("default", "claude-code", path=first.path)) == [first.path]
    assert store.transcript_files("default", "claude-code", path="/elsewhere") == {}
    assert store.transcript_files("default", "codex") == {}
    assert store.transcript_files("other", "claude-code") == {}
    assert store.count_rows()["transcript_files"] == 2


def test_a_failed_transaction_records_nothing(store: Store) -> None:
    try:
        with store.transaction():
            store.put_transcript_file(_record("/p/s1.jsonl"))
            raise RuntimeError("capture failed")
    except RuntimeError:
        pass
    assert store.transcript_files("default", "claude-code") == {}


def test_forget_actor_and_drop_namespace_remove_the_records(store: Store, dump: Dump) -> None:
    store.put_transcript_file(_record("/p/ana.jsonl"))
    store.put_transcript_file(_record("/p/bo.jsonl", actor="bo"))
    store.put_transcript_file(_record("/p/ana-other.jsonl", namespace="other"))
    assert store.forget_actor("default", "ana")["transcript_files"] == 1
    assert list(store.transcript_files("default", "claude-code")) == ["/p/bo.jsonl"]
    assert not [c for c in dump(store) if c[0] == "transcript_files" and c[2] == "/p/ana.jsonl"]
    assert list(store.transcript_files("other", "claude-code")) == ["/p/ana-other.jsonl"]
    assert store.drop_namespace("other")["transcript_files"] == 1
    assert store.transcript_files("other", "claude-code") == {}


def test_copy_moves_the_records(store: Store) -> None:
    record = _record("/p/s1.jsonl")
    store.put_transcript_file(record)
    target = open_store(":memory:")
    try:
        copy_store(store, target)
        assert target.transcript_files("default", "claude-code") == {record.path: record}
    finally:
        target.close()
