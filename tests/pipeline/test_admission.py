"""Admission on evidence: a correction the reader is unsure of is a candidate (stored with its
evidence, never injected) until the lesson recurs in another session."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from dctx.capture.reading.base import TurnInput, TurnKind, TurnVerdict
from dctx.capture.reading.learned import Thresholds
from dctx.compile.admission import DEFAULT_ADMISSION, Admission
from dctx.errors import ConfigError, ConflictError
from dctx.memory import Memory
from dctx.models import RuleStatus
from dctx.store.sqlite import SQLiteStore
from pipeline.traces import assistant, user

SKILL = "coder"
CORRECTION = "Use pnpm instead of npm for installs."


@dataclass
class _Model:
    thresholds: Thresholds


class FixedReader:
    """Reads the one correction as lasting with a fixed probability, everything else not."""

    id = "fixed"

    def __init__(self, p: float) -> None:
        self.p = p
        self.model = _Model(Thresholds(active=0.8, candidate=0.4))

    def read(self, turns: Sequence[TurnInput]) -> list[TurnVerdict]:
        return [
            TurnVerdict(TurnKind.STANDING, self.p)
            if t.text == CORRECTION
            else TurnVerdict(TurnKind.TASK, 0.0)
            for t in turns
        ]


def _session(mem: Memory, conv: str, when: str = "2026-03-01T09:00:00Z") -> None:
    mem.capture(
        [
            user("Install the deps."),
            assistant("I ran npm install."),
            user(CORRECTION),
            assistant("Done with pnpm."),
        ],
        actor="ana",
        skill=SKILL,
        conversation_id=conv,
        timestamp=when,
    )


def _other_work(mem: Memory, conv: str, when: str) -> None:
    mem.capture(
        [user("Bump the version."), assistant("Bumped to 2.1.")],
        actor="ana",
        skill=SKILL,
        conversation_id=conv,
        timestamp=when,
    )


def _mem(
    tmp_path: Path, p: float, embedder: object, admission: Admission = DEFAULT_ADMISSION
) -> Memory:
    return Memory(
        SQLiteStore(tmp_path / "m.db"),
        embedder=embedder,  # type: ignore[arg-type]
        reader=FixedReader(p),
        admission=admission,
    )


def test_a_sure_reading_is_a_rule_at_once(tmp_path: Path, embedder: object) -> None:
    mem = _mem(tmp_path, 0.9, embedder)
    _session(mem, "s1")
    [rule] = mem.rules()
    assert rule.status is RuleStatus.ACTIVE
    assert mem.start(actor="ana", skill=SKILL, query="Install the deps.").units


def test_an_unsure_reading_is_a_candidate_never_injected(tmp_path: Path, embedder: object) -> None:
    mem = _mem(tmp_path, 0.5, embedder)
    _session(mem, "s1")
    [rule] = mem.rules(status=RuleStatus.CANDIDATE)
    assert rule.evidence_ids  # kept with its evidence
    assert mem.rules(status=RuleStatus.ACTIVE) == []
    assert mem.start(actor="ana", skill=SKILL, query="Install the deps.").units == []


def test_a_candidate_that_recurs_in_another_session_is_admitted(
    tmp_path: Path, embedder: object
) -> None:
    mem = _mem(tmp_path, 0.5, embedder)
    _session(mem, "s1")
    _session(mem, "s2")
    [rule] = mem.rules()
    assert rule.status is RuleStatus.ACTIVE and rule.support == 2
    assert any(h.get("event") == "admitted" for h in rule.history)


def test_below_the_candidate_band_nothing_is_stored(tmp_path: Path, embedder: object) -> None:
    mem = _mem(tmp_path, 0.2, embedder)
    _session(mem, "s1")
    assert mem.rules(status=list(RuleStatus)) == []


def test_a_candidate_nothing_confirms_expires_on_the_sessions_clock(
    tmp_path: Path, embedder: object
) -> None:
    mem = _mem(tmp_path, 0.5, embedder, Admission(candidate_days=30))
    _session(mem, "s1", when="2026-03-01T09:00:00Z")
    _other_work(mem, "s2", when="2026-03-20T09:00:00Z")  # 19 days later: still waiting
    assert [r.status for r in mem.rules(status=list(RuleStatus))] == [RuleStatus.CANDIDATE]
    _other_work(mem, "s3", when="2026-04-15T09:00:00Z")  # 45 days after it was last seen
    [rule] = mem.rules(status=list(RuleStatus))
    assert rule.status is RuleStatus.EXPIRED
    assert rule.history[-1]["event"] == "expired"
    [status] = [e for e in mem.outcomes_of(rule.id) if e.kind.value == "status"]
    assert status.detail["to"] == "expired" and status.detail["evidence"] == rule.evidence_ids
    _session(mem, "s4", when="2026-04-16T09:00:00Z")  # said again: a new candidate, not revived
    statuses = sorted(r.status.value for r in mem.rules(status=list(RuleStatus)))
    assert statuses == ["candidate", "expired"]


def test_a_candidate_seen_again_in_time_does_not_expire(tmp_path: Path, embedder: object) -> None:
    mem = _mem(tmp_path, 0.5, embedder, Admission(candidate_days=30))
    _session(mem, "s1", when="2026-03-01T09:00:00Z")
    _session(mem, "s2", when="2026-03-25T09:00:00Z")
    _other_work(mem, "s3", when="2026-04-15T09:00:00Z")
    [rule] = mem.rules(status=list(RuleStatus))
    assert rule.status is RuleStatus.ACTIVE


def test_candidates_never_expire_when_candidate_days_is_none(
    tmp_path: Path, embedder: object
) -> None:
    mem = _mem(tmp_path, 0.5, embedder, Admission(candidate_days=None))
    _session(mem, "s1", when="2026-03-01T09:00:00Z")
    _other_work(mem, "s2", when="2029-03-01T09:00:00Z")
    assert [r.status for r in mem.rules(status=list(RuleStatus))] == [RuleStatus.CANDIDATE]


def test_candidate_days_must_be_positive() -> None:
    with pytest.raises(ConfigError, match="candidate_days"):
        Admission(candidate_days=0)


def test_a_person_rejects_a_candidate_and_it_is_never_injected(
    tmp_path: Path, embedder: object
) -> None:
    mem = _mem(tmp_path, 0.5, embedder)
    _session(mem, "s1")
    [candidate] = mem.rules(status=RuleStatus.CANDIDATE)
    rejected = mem.reject(candidate.id)
    assert rejected.status is RuleStatus.DISABLED
    assert rejected.history[-1]["note"] == "rejected in review"
    assert mem.start(actor="ana", skill=SKILL, query="Install the deps.").units == []


def test_only_a_candidate_or_a_draft_can_be_rejected(tmp_path: Path, embedder: object) -> None:
    mem = _mem(tmp_path, 0.9, embedder)
    _session(mem, "s1")
    [active] = mem.rules()
    with pytest.raises(ConflictError, match="dctx rules disable"):
        mem.reject(active.id)
