"""Forgetting an actor takes their conversations out of the shared cross-conversation counts
(store/ledgers.py: "use B instead of A", values a tool worked with, recurring failures),
and only theirs: every cell of every table on each backend, and the SQLite file with its
-wal and -shm, hold none of their conversation ids, name or words afterwards, while the
other actor's counts stay and still admit lessons. A replacement lesson their conversations
admitted loses that support (issue #12)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dctx.memory import Memory
from dctx.models import RuleSource, RuleStatus
from dctx.store.sqlite import SQLiteStore
from pipeline.traces import assistant, call, result, user
from store.scan import Dump, hits, on_disk, still_held

SKILL = "realty"
GONE, KEPT = "xenia_kowalczyk", "yusuf"
PHRASE = "quetzalfeed"  # a listings feed only xenia named
LESSON = (
    "Use zoning_state_lookup instead of zoning_county_lookup; "
    "zoning_county_lookup failed where zoning_state_lookup worked."
)


def _zoning(parcel: str, feed: str, *, county_ok: bool = False) -> list[dict[str, Any]]:
    """A listing read from `feed` (works: the feed is a value get_listing worked with), then
    the county zoning service; when it fails, the state's service answers."""
    county = {"parcel": parcel, "zone": "R-2"} if county_ok else "Error: county layer refused"
    steps = [
        user(f"What is parcel {parcel} zoned as? Read it from the {feed} listings."),
        call("c1", "get_listing", parcel=parcel, feed=feed),
        result("c1", {"parcel": parcel, "price": 410000}),
        call("c2", "zoning_county_lookup", parcel=parcel),
        result("c2", county),
    ]
    if not county_ok:
        steps += [
            call("c3", "zoning_state_lookup", parcel=parcel),
            result("c3", {"parcel": parcel, "zone": "R-2"}),
        ]
    return [*steps, assistant("It is zoned R-2.")]


def _capture(mem: Memory, actor: str, conv: str, feed: str, **kw: Any) -> None:
    mem.capture(_zoning("12-004", feed, **kw), actor=actor, skill=SKILL, conversation_id=conv)


def _lessons(mem: Memory) -> list[Any]:
    return [
        r
        for r in mem.rules(status=list(RuleStatus))
        if r.source is RuleSource.SELF_ASSESSMENT and r.text == LESSON
    ]


def test_forget_takes_only_their_conversations_out_of_every_table(
    memory: Memory, dump: Dump
) -> None:
    _capture(memory, KEPT, "yusuf-conv-1", "mainfeed")
    _capture(memory, GONE, "xenia-conv-1", PHRASE)
    _capture(memory, GONE, "xenia-conv-2", PHRASE)
    [rule] = _lessons(memory)
    assert rule.status is RuleStatus.ACTIVE
    store = memory.store
    gone = {GONE, "xenia-conv-1", "xenia-conv-2", PHRASE}
    for needle in gone:
        assert hits(dump, store, {needle}), needle  # the scan sees each before

    memory.forget_actor(GONE)

    assert hits(dump, store, gone) == []
    # yusuf's conversation is still counted, in the shared cache (not only in his rows)
    assert [t for t, _, _ in hits(dump, store, {"yusuf-conv-1"}) if t == "cache"]
    # ... and still works: one more failure of his admits the lesson on his two alone
    _capture(memory, KEPT, "yusuf-conv-2", "mainfeed")
    [rule] = _lessons(memory)
    assert rule.status is RuleStatus.ACTIVE
    sources = {e["conversation_id"] for e in memory.explain(rule.id)["evidence"]}
    assert sources <= {"yusuf-conv-1", "yusuf-conv-2"} and "yusuf-conv-2" in sources


def test_a_lesson_their_conversations_admitted_is_a_candidate_again(memory: Memory) -> None:
    _capture(memory, KEPT, "yusuf-conv-1", "mainfeed")
    _capture(memory, GONE, "xenia-conv-1", PHRASE)
    _capture(memory, GONE, "xenia-conv-2", PHRASE)
    [rule] = _lessons(memory)
    assert rule.status is RuleStatus.ACTIVE

    counts = memory.forget_actor(GONE)

    [after] = _lessons(memory)
    assert after.id == rule.id and after.status is RuleStatus.CANDIDATE
    assert counts["rules_demoted"] == 1
    run = memory.start(actor="omar", skill=SKILL, query="Zoning of 77-310?", tools=["x"])
    assert LESSON not in [u.text for u in run.units]


def test_support_of_forgotten_conversations_is_not_counted_again(memory: Memory) -> None:
    """Conversation ids JSON would escape (non-ASCII) are found as well."""
    _capture(memory, GONE, "xénia-1", PHRASE)
    _capture(memory, GONE, "xénia-2", PHRASE)
    assert [r.status for r in _lessons(memory)] == [RuleStatus.ACTIVE]
    memory.forget_actor(GONE)
    assert _lessons(memory) == []

    _capture(memory, KEPT, "yusuf-conv-1", "mainfeed")

    [rule] = _lessons(memory)
    assert rule.status is RuleStatus.CANDIDATE and rule.support == 1


def test_the_sqlite_file_and_its_wal_hold_nothing_of_theirs(tmp_path: Path) -> None:
    path = tmp_path / "forget.db"
    mem = Memory(SQLiteStore(path), embedder="hashing")
    _capture(mem, KEPT, "yusuf-conv-1", "mainfeed")
    for i in range(1, 4):
        _capture(mem, GONE, f"xenia-conv-{i}", PHRASE)
    _capture(mem, KEPT, "yusuf-conv-2", "mainfeed", county_ok=True)  # A works: counted too
    needles = [n.encode() for n in (GONE, "xenia-conv-", PHRASE)]
    assert all(any(n in data for data in on_disk(path).values()) for n in needles)

    mem.forget_actor(GONE)

    assert still_held(path, needles) == []  # still open: a long-running process
    assert b"yusuf-conv-1" in on_disk(path)[path.name]  # his counts stay
    mem.close()


def test_a_deleted_rule_leaves_the_sqlite_file_its_wal_and_the_text_index(
    tmp_path: Path,
) -> None:
    """A person's delete is a forget of the rule: its text was only ever the rule's (edited to
    words nobody said), and after the delete neither the file, the WAL nor the full-text
    index holds it, in a process that keeps the memory open."""
    path = tmp_path / "delete.db"
    mem = Memory(SQLiteStore(path), embedder="hashing")
    for i in range(1, 4):
        _capture(mem, KEPT, f"yusuf-conv-{i}", "mainfeed")
    [rule] = _lessons(mem)
    mem.edit(rule.id, "Ask the vrindavax desk before any zoning lookup.")
    mem.edit(rule.id, "Ask the plumtreble desk before any zoning lookup.")
    assert mem.search("vrindavax") == [] and mem.search("plumtreble")
    needles = [b"vrindavax", b"plumtreble"]
    assert all(any(n in data for data in on_disk(path).values()) for n in needles)

    mem.delete(rule.id)

    assert still_held(path, needles) == []
    assert b"yusuf-conv-1" in on_disk(path)[path.name]  # the conversation stays
    mem.close()


def test_a_ledger_keeps_a_window_not_every_conversation(
    mem: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tool once replaced that then works in every conversation: its ledger keeps the
    latest MAX_ENTRIES of them, and drops the tool once no replacement is left in it."""
    from dctx.store import ledgers

    monkeypatch.setattr(ledgers, "MAX_ENTRIES", 3)
    key = ledgers.ledger_key("replacements", "default", SKILL, "zoning_county_lookup")
    _capture(mem, KEPT, "yusuf-conv-0", "mainfeed")
    for i in range(1, 3):
        _capture(mem, KEPT, f"yusuf-conv-{i}", "mainfeed", county_ok=True)
    [entries] = json.loads(mem.store.cache_get(key) or "{}").values()
    assert [c for c, _ in entries] == ["yusuf-conv-0", "yusuf-conv-1", "yusuf-conv-2"]
    _capture(mem, KEPT, "yusuf-conv-3", "mainfeed", county_ok=True)
    assert json.loads(mem.store.cache_get(key) or "{}") == {}
    ok = ledgers.ledger_key("toolok", "default", SKILL, "get_listing")
    [entries] = json.loads(mem.store.cache_get(ok) or "{}").values()
    assert [c for c, _ in entries] == ["yusuf-conv-1", "yusuf-conv-2", "yusuf-conv-3"]
