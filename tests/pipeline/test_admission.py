"""Admission on evidence: a correction the reader is unsure of is a candidate (stored with its
evidence, never injected) until the lesson recurs in another session."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from dctx.capture.reading.base import TurnInput, TurnKind, TurnVerdict
from dctx.capture.reading.learned import Thresholds
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


def _session(mem: Memory, conv: str) -> None:
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
    )


def _mem(tmp_path: Path, p: float, embedder: object) -> Memory:
    return Memory(SQLiteStore(tmp_path / "m.db"), embedder=embedder, reader=FixedReader(p))  # type: ignore[arg-type]


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
