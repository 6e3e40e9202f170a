"""Capturing transcripts from disk: only what is new, one transaction per file."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from capture.transcript_fixtures import CLAUDE, CODEX
from dctx.capture.readers import get_reader
from dctx.capture.transcripts import plan_file
from dctx.errors import ConfigError, TraceFormatError
from dctx.memory import Memory
from dctx.models import Session
from dctx.store.sqlite import SQLiteStore

REJECTION = CLAUDE / "home-user-rejection-project" / "rejection-claude-001.jsonl"


def _state(mem: Memory) -> tuple[dict[str, int], list[tuple[str, int, list[str]]]]:
    rules = [(r.id, r.support, sorted(r.evidence_ids)) for r in mem.rules()]
    return mem.store.count_rows(), sorted(rules)


def _conversations(mem: Memory) -> list[tuple[str, str, str]]:
    assert isinstance(mem.store, SQLiteStore)
    rows = mem.store._query("SELECT conversation_id, actor, skill FROM sessions ORDER BY 1")
    return [(str(c), str(a), str(s)) for c, a, s in rows]


def test_a_rerun_adds_no_support_and_no_evidence(mem: Memory, tmp_path: Path) -> None:
    root = shutil.copytree(CODEX, tmp_path / "sessions")
    first = mem.capture_transcripts("codex", root, actor="ana")
    assert (first.files, first.changed, first.sessions) == (4, 4, 4)
    assert sum(len(rep.added) for rep in first.captures) > 0  # something was learned
    before = _state(mem)
    again = mem.capture_transcripts("codex", root, actor="ana")
    assert (again.changed, again.sessions, again.captures) == (0, 0, [])
    assert _state(mem) == before
    for path in root.rglob("*.jsonl"):  # touched, not changed
        os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    assert mem.capture_transcripts("codex", root, actor="ana").sessions == 0
    assert _state(mem) == before


def test_a_grown_session_captures_only_its_new_messages(mem: Memory, tmp_path: Path) -> None:
    lines = REJECTION.read_text().splitlines(keepends=True)
    live = tmp_path / "p" / REJECTION.name
    live.parent.mkdir()
    live.write_text("".join(lines[:10]))  # the reply on line 10 still waits for its result
    first = mem.capture_transcripts("claude-code", live, actor="ana")
    assert [rep.messages for rep in first.captures] == [9]
    live.write_text("".join(lines))
    grown = mem.capture_transcripts("claude-code", live, actor="ana")
    # the last reply before the new part (as context, without its calls), then the new part
    assert [rep.messages for rep in grown.captures] == [1 + 3]
    assert [c for c, _, _ in _conversations(mem)] == [
        "rejection-claude-001", "rejection-claude-001#9",
    ]  # fmt: skip
    assert mem.capture_transcripts("claude-code", live, actor="ana").sessions == 0


def test_a_session_changed_in_place_is_noted_not_captured_again(
    mem: Memory, tmp_path: Path
) -> None:
    live = shutil.copy(REJECTION, tmp_path / REJECTION.name)
    mem.capture_transcripts("claude-code", live, actor="ana")
    before = _state(mem)
    text = Path(live).read_text().replace("Help me refactor", "Help me rewrite")
    Path(live).write_text(text)
    report = mem.capture_transcripts("claude-code", live, actor="ana")
    assert report.sessions == 0 and _state(mem) == before
    assert len(report.notes) == 1 and "rejection-claude-001" in report.notes[0]


class _Spy:
    """The Claude Code reader, counting reads."""

    def __init__(self) -> None:
        self.inner = get_reader("claude-code")
        self.name, self.summary, self.reads = self.inner.name, self.inner.summary, 0

    def default_root(self) -> Path:
        return self.inner.default_root()

    def find(self, root: Path) -> list[Path]:
        return self.inner.find(root)

    def read(self, path: Path, **kw: Any) -> list[Session]:
        self.reads += 1
        return self.inner.read(path, **kw)


def test_an_unchanged_file_is_not_parsed(tmp_path: Path) -> None:
    path = Path(shutil.copy(REJECTION, tmp_path / REJECTION.name))
    spy = _Spy()
    kw: dict[str, str] = {"actor": "ana", "skill": "claude-code", "namespace": "default"}
    first = plan_file(spy, path, None, **kw)
    assert first.record is not None and spy.reads == 1
    assert plan_file(spy, path, first.record, **kw).record is None  # size and mtime: not read
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    touched = plan_file(spy, path, first.record, **kw)
    assert spy.reads == 1 and touched.sessions == []  # same hash: not parsed
    assert touched.record is not None and touched.record.mtime_ns == path.stat().st_mtime_ns


def _two_projects(tmp_path: Path) -> tuple[Path, Path]:
    good = Path(shutil.copy(REJECTION, tmp_path / "a" / "good.jsonl"))
    bad = tmp_path / "b" / "bad.jsonl"
    bad.parent.mkdir()
    bad.write_text(REJECTION.read_text().replace('"timestamp":"2025-12-03T10:00:25', "{", 1))
    return good, bad


def test_a_malformed_file_stops_the_run_after_the_files_before_it(
    mem: Memory, tmp_path: Path
) -> None:
    (tmp_path / "a").mkdir()
    good, bad = _two_projects(tmp_path)
    with pytest.raises(TraceFormatError) as info:
        mem.capture_transcripts("claude-code", tmp_path, actor="ana")
    assert (info.value.file, info.value.line) == (str(bad), 5)
    assert list(mem.store.transcript_files("default", "claude-code")) == [str(good)]
    skipping = mem.capture_transcripts("claude-code", tmp_path, actor="ana", skip_malformed=True)
    assert [f for f, _ in skipping.skipped] == [str(bad)] and skipping.sessions == 0
    bad.write_text(REJECTION.read_text().replace("rejection-claude-001", "other-session"))
    assert mem.capture_transcripts("claude-code", tmp_path, actor="ana").sessions == 1


def test_defaults_are_the_os_user_the_client_and_its_own_folder(
    mem: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    with pytest.raises(ConfigError, match=f"no claude-code transcripts at {tmp_path}"):
        mem.capture_transcripts("claude-code")
    shutil.copytree(CLAUDE, tmp_path / "claude" / "projects")
    monkeypatch.setattr("getpass.getuser", lambda: "tester")
    report = mem.capture_transcripts("claude-code")
    assert report.roots == [str(tmp_path / "claude" / "projects")]
    assert report.sessions == report.files == len(list(CLAUDE.rglob("*.jsonl")))
    assert {(a, s) for _, a, s in _conversations(mem)} == {("tester", "claude-code")}


def test_forgetting_the_actor_forgets_what_was_read(mem: Memory, tmp_path: Path) -> None:
    live = shutil.copy(REJECTION, tmp_path / REJECTION.name)
    mem.capture_transcripts("claude-code", live, actor="ana")
    mem.forget_actor("ana")
    assert mem.store.transcript_files("default", "claude-code") == {}
    assert mem.capture_transcripts("claude-code", live, actor="ana").sessions == 1


def test_a_file_another_run_captured_meanwhile_is_planned_again(
    mem: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    live = shutil.copy(REJECTION, tmp_path / REJECTION.name)
    mem.capture_transcripts("claude-code", live, actor="ana")
    before = _state(mem)
    real = mem.store.transcript_files

    def stale(namespace: str, client: str, *, path: str | None = None) -> dict[str, Any]:
        # the list read before the run: as if the other run had not finished yet
        return real(namespace, client, path=path) if path else {}

    monkeypatch.setattr(mem.store, "transcript_files", stale)
    report = mem.capture_transcripts("claude-code", live, actor="ana")
    assert report.sessions == 0 and _state(mem) == before


class _WatchingLLM:
    """Notes whether a write transaction is open on its thread when called; answers nonsense,
    so every step falls back to the deterministic result."""

    id = "watching:test"

    def __init__(self, store: SQLiteStore) -> None:
        self.store = store
        self.inside: list[bool] = []

    def complete(self, system: str, user: str, *, schema: Any = None) -> tuple[str, Any]:
        from dctx.providers.base import Usage

        self.inside.append(self.store._tx_conn() is not None)
        return "not json", Usage(input_tokens=1, output_tokens=1)


def test_llm_calls_of_a_transcript_capture_run_before_its_write_transaction(
    tmp_path: Path,
) -> None:
    live = shutil.copy(REJECTION, tmp_path / REJECTION.name)
    store = SQLiteStore(tmp_path / "llm.db")
    llm = _WatchingLLM(store)
    with Memory(store, embedder="hashing", llm=llm) as mem:
        report = mem.capture_transcripts("claude-code", live, actor="ana")
        assert report.sessions == 1 and store.transcript_files("default", "claude-code")
    assert llm.inside and not any(llm.inside), "an LLM call ran inside the write transaction"
