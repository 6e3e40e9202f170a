"""Forget means forgotten on SQLite (issue 11, item 10): after `forget_actor`, in a process that
keeps the memory open, neither the database file nor its -wal / -shm files hold the actor's
text or vectors (secure_delete zeroes freed cells; the WAL is checkpointed and truncated)."""

from __future__ import annotations

from pathlib import Path

from adversarial.conftest import personal_correction
from dctx.memory import Memory
from dctx.store.sqlite import SQLiteStore
from store.scan import on_disk

NEEDLE = b"zqxjvmark"  # a prefix of the marker word, so its FTS stem matches too


def test_forget_actor_leaves_no_trace_on_disk(tmp_path: Path) -> None:
    path = tmp_path / "forget.db"
    store = SQLiteStore(path)
    mem = Memory(store, embedder="hashing")
    alice = personal_correction()
    alice["messages"][-1]["content"] += " Label it zqxjvmarker so I can find it."
    mem.capture(alice["messages"], actor="alice", skill="fa", conversation_id="alice-1")
    for i in range(3):  # other people's data stays, and keeps the file busy
        bob = personal_correction(actor=f"bob{i}")
        mem.capture(bob["messages"], actor=f"bob{i}", skill="fa", conversation_id=f"bob-{i}")
    vectors = [
        blob
        for (blob,) in store._query(
            "SELECT v.data FROM vectors v JOIN nodes n ON n.id = v.owner WHERE n.actor = 'alice'"
        )
    ]
    assert vectors and any(NEEDLE in data for data in on_disk(path).values())

    mem.forget_actor("alice")

    kept = {blob for (blob,) in store._query("SELECT data FROM vectors")}
    vectors = [v for v in vectors if v not in kept]  # bob said the same words in places
    assert vectors
    files = on_disk(path)  # the memory is still open: a long-running process
    assert files[path.name + "-wal"] == b""  # truncated, not just checkpointed
    for name, data in files.items():
        assert NEEDLE not in data, f"{name} still holds alice's text"
        assert NEEDLE.upper() not in data.upper(), f"{name} still holds alice's text"
        for blob in vectors:
            assert blob not in data, f"{name} still holds one of alice's vectors"
    assert {r.actor for r in mem.rules()} == {"bob0", "bob1", "bob2"}
    mem.close()
