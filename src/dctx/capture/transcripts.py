"""Capture agent transcripts from disk, only what is new since the last run.

The store keeps one `TranscriptFile` record per file: its size, mtime and content hash as last
seen, and per session how many messages were captured with a digest of them. A run then:
- skips a file whose size and mtime are unchanged without reading it, and one whose content
  hash is unchanged after reading it;
- captures a session it has not seen;
- for a session that grew (the digest of what was captured still matches), captures only the
  new messages, as a continuation session `<id>#<n>` that starts with the last assistant
  reply before them (text only, no calls), so a correction of that reply keeps its context;
- leaves a session changed in place (the captured part differs now) alone, with a note.
A trailing reply whose tool calls have no result yet (the client is still running them) is
held back until a later run, so a result never arrives in a part without its call.

Each file is captured and recorded in one transaction, so an interrupted run resumes where it
stopped and a re-run adds no support and no evidence. The capture's work (LLM calls,
embedding) runs before that transaction, as for any capture.
"""

from __future__ import annotations

import dataclasses
import getpass
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from dctx.capture.readers import get_reader
from dctx.capture.readers.base import TranscriptReader
from dctx.errors import ConfigError, TraceFormatError
from dctx.models import Message, Session, to_json, utcnow
from dctx.store.base import Store, TranscriptFile

R = TypeVar("R")

# learns from sessions; calls the check inside its write transaction, None if that said False
Capture = Callable[[list[Session], Callable[[], bool]], R | None]


def local_user() -> str:
    """The OS user name: whose transcripts on this machine are (the default actor)."""
    try:
        return getpass.getuser() or "anonymous"
    except (KeyError, OSError):  # no user name in the environment or the password database
        return "anonymous"


@dataclass(slots=True)
class FilePlan:
    """What one run does with one file."""

    path: Path
    sessions: list[Session] = field(default_factory=list)  # to capture
    record: TranscriptFile | None = None  # the file's new record (None: nothing to write)
    notes: list[str] = field(default_factory=list)


@dataclass(slots=True)
class TranscriptReport(Generic[R]):
    """What `capture_transcripts` did: files seen, captured, skipped, and each capture's report."""

    client: str
    roots: list[str]
    files: int = 0
    changed: int = 0  # files with something new
    sessions: int = 0  # sessions (or continuations) captured
    captures: list[R] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file, error) when skipping
    notes: list[str] = field(default_factory=list)


def _digest(messages: Sequence[Message]) -> str:
    return hashlib.sha256(to_json(list(messages)).encode()).hexdigest()


def settled(messages: Sequence[Message]) -> int:
    """How many leading messages are final: all but a trailing reply still waiting for the
    results of its tool calls."""
    answered = {m.tool_call_id for m in messages if m.role == "tool"}
    start = max((i + 1 for i, m in enumerate(messages) if m.role == "user"), default=0)
    for i in range(start, len(messages)):
        msg = messages[i]
        if msg.role == "assistant" and any(c.id not in answered for c in msg.tool_calls):
            return i
    return len(messages)


def _continuation(session: Session, done: int, upto: int) -> Session:
    new = session.messages[done:upto]
    calls = {c.id for m in new if m.role == "assistant" for c in m.tool_calls}
    new = [m for m in new if m.role != "tool" or m.tool_call_id in calls]
    context = next(
        (m for m in reversed(session.messages[:done]) if m.role == "assistant" and m.content),
        None,
    )
    head = [dataclasses.replace(context, tool_calls=[])] if context is not None else []
    return dataclasses.replace(
        session, conversation_id=f"{session.conversation_id}#{done}", messages=head + new
    )


def plan_file(
    reader: TranscriptReader,
    path: Path,
    previous: TranscriptFile | None,
    *,
    actor: str,
    skill: str,
    namespace: str,
) -> FilePlan:
    """Decide what is new in one file (see the module docstring); reads nothing unchanged."""
    plan = FilePlan(path)
    try:
        stat = path.stat()
        if previous and (previous.size, previous.mtime_ns) == (stat.st_size, stat.st_mtime_ns):
            return plan
        sha = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        raise TraceFormatError(f"cannot read the file: {exc}", file=str(path)) from exc
    if previous and previous.sha256 == sha:  # touched, same content
        plan.record = dataclasses.replace(previous, size=stat.st_size, mtime_ns=stat.st_mtime_ns)
        return plan
    marks = dict(previous.sessions) if previous else {}
    for session in reader.read(path, actor=actor, skill=skill, namespace=namespace):
        conv, upto = session.conversation_id, settled(session.messages)
        done, digest = marks.get(conv, (0, _digest([])))
        if _digest(session.messages[:done]) != digest:
            plan.notes.append(
                f"{path}: session {conv!r} changed before message {done}; not captured again"
            )
            continue
        if upto <= done:
            continue
        if done == 0:
            plan.sessions.append(dataclasses.replace(session, messages=session.messages[:upto]))
        else:
            plan.sessions.append(_continuation(session, done, upto))
        marks[conv] = (upto, _digest(session.messages[:upto]))
    plan.record = TranscriptFile(
        namespace=namespace,
        client=reader.name,
        path=str(path),
        actor=actor,
        size=stat.st_size,
        mtime_ns=stat.st_mtime_ns,
        sha256=sha,
        sessions=marks,
        captured_at=utcnow(),
    )
    return plan


def _record(
    store: Store,
    capture: Capture[R],
    plan: FilePlan,
    previous: TranscriptFile | None,
    report: TranscriptReport[R],
) -> bool:
    """Capture a plan's sessions and record the file in the capture's own transaction;
    False (nothing written) if the file's record is no longer `previous`."""
    assert plan.record is not None
    record = plan.record

    def still_current() -> bool:
        now = store.transcript_files(record.namespace, record.client, path=record.path)
        if now.get(record.path) != previous:
            return False
        store.put_transcript_file(record)
        return True

    if not plan.sessions:
        with store.transaction():
            return still_current()
    captured = capture(plan.sessions, still_current)
    if captured is None:
        return False
    report.captures.append(captured)
    return True


def capture_transcripts(
    store: Store,
    capture: Capture[R],
    client: str,
    paths: Sequence[str | Path] = (),
    *,
    actor: str | None = None,
    skill: str | None = None,
    namespace: str = "default",
    skip_malformed: bool = False,
    progress: Callable[[Path, int, int], None] | None = None,
) -> TranscriptReport[R]:
    """Find a client's transcripts under `paths` (default: where the client keeps them) and
    capture what is new in each, one transaction per file. `capture(sessions, still_current)`
    learns from sessions (`Memory._capture`): its work runs before its write transaction,
    inside which it calls `still_current` (which records the file) and writes nothing if
    that says False. A malformed file raises `TraceFormatError` (files before it
    stay captured), or is listed in `skipped` with `skip_malformed`. `progress(file, i, n)` is
    called after each file."""
    reader = get_reader(client)
    roots = [Path(p).expanduser() for p in paths] or [reader.default_root()]
    for root in roots:
        if not root.exists():
            raise ConfigError(
                f"no {client} transcripts at {root}: the path does not exist. Pass the folder "
                f"or file to read: dctx capture --from {client} PATH"
            )
    files = list(dict.fromkeys(p.resolve() for root in roots for p in reader.find(root)))
    report: TranscriptReport[R] = TranscriptReport(client, [str(r) for r in roots], len(files))
    who, skill = actor or local_user(), skill or reader.name
    known = store.transcript_files(namespace, reader.name)
    for i, path in enumerate(files, start=1):
        key = str(path)
        try:
            previous = known.get(key)
            while True:
                plan = plan_file(
                    reader, path, previous, actor=who, skill=skill, namespace=namespace
                )
                if plan.record is None or _record(store, capture, plan, previous, report):
                    break
                # another run recorded the file meanwhile: plan again from its record
                previous = store.transcript_files(namespace, reader.name, path=key).get(key)
        except TraceFormatError as exc:
            if not skip_malformed:
                raise
            report.skipped.append((str(path), str(exc)))
            plan = FilePlan(path)
        report.changed += bool(plan.sessions)
        report.sessions += len(plan.sessions)
        report.notes.extend(plan.notes)
        if progress is not None:
            progress(path, i, len(files))
    return report


__all__ = [
    "FilePlan",
    "TranscriptReport",
    "capture_transcripts",
    "local_user",
    "plan_file",
    "settled",
]
