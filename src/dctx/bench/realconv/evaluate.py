"""Score capture on labelled real conversations: what a memory stores, and what it injects.

- detection: does the turn reader take a turn as lasting (a standing correction or a
  withdrawal)? Precision and recall against the labels, at the candidate and active bands.
- stored rules: every session of the split is captured, oldest first, into one memory (one
  actor per source repository, as one person works in it); a rule is right when the message
  it came from is labelled lasting, and its text right when it means the labelled rule
  (MiniLM cosine >= TEXT_MATCH). Recall: labelled lasting turns that gave a rule.
- replay: before each session, `start()` with its first request; how many stage-1 units a
  new session receives, and how large the rulebook grows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from dctx.bench.realconv.corpus import DEFAULT_DATA, LabelledSession, load_corpus
from dctx.capture.pasted import read_user_turn
from dctx.capture.reading.base import LASTING, TurnClassifier
from dctx.capture.reading.default import bands_for
from dctx.errors import ConfigError
from dctx.models import RuleSource, RuleStatus

TEXT_MATCH = 0.6
SKILL = "coding-agent"


@dataclass(slots=True)
class PR:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    def row(self) -> dict[str, Any]:
        return {
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "precision": round(self.precision, 3),
            "recall": round(self.recall, 3),
        }


@dataclass(slots=True)
class RealConvReport:
    split: str
    reader: str
    sessions: int = 0
    user_turns: int = 0
    lasting_turns: int = 0
    detection_candidate: PR = field(default_factory=PR)
    detection_active: PR = field(default_factory=PR)
    rules_stored: int = 0  # correction rules written, any status
    rules_active: int = 0  # of those, admitted (active now, or admitted then replaced)
    rules_candidate: int = 0
    stored_right_turn: int = 0  # rules whose message is labelled lasting
    active_right_turn: int = 0
    stored_right_text: int = 0  # ... and whose text means the labelled rule
    recall_any: float = 0.0  # lasting turns with a rule (candidate or active)
    recall_active: float = 0.0  # lasting turns with an admitted rule
    units_per_session: float = 0.0  # stage-1 units a new session receives, on average
    sessions_with_units: int = 0
    rulebook_active: int = 0  # active rules at the end of the replay
    rulebook_candidate: int = 0
    false_rules: list[str] = field(default_factory=list)  # stored rule texts on wrong turns
    llm: str = ""  # the LLM capture consulted, if any
    llm_usage: dict[str, int] = field(default_factory=dict)  # its calls, tokens, fallbacks

    @property
    def stored_precision(self) -> float:
        return self.stored_right_turn / self.rules_stored if self.rules_stored else 1.0

    @property
    def active_precision(self) -> float:
        return self.active_right_turn / self.rules_active if self.rules_active else 1.0

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["detection_candidate"] = self.detection_candidate.row()
        out["detection_active"] = self.detection_active.row()
        out["stored_precision"] = round(self.stored_precision, 3)
        out["active_precision"] = round(self.active_precision, 3)
        return out


def evaluate(
    memory_factory: Callable[[], Any],
    *,
    data: Path = DEFAULT_DATA,
    split: str = "test",
    reader: TurnClassifier | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> RealConvReport:
    """Run the benchmark on one split (real sessions only; synthetic turns never count)."""
    from dctx.capture.reading.default import default_reader

    reader = reader or default_reader()
    sessions = load_corpus(data, splits=[split], synthetic=False)
    if not sessions:
        found = sorted({s.split for s in load_corpus(data, synthetic=False)})
        raise ConfigError(
            f"{data}: no real labelled sessions in split {split!r}; the splits here are "
            f"{', '.join(found) or 'none'} (choose one with --split)"
        )
    report = RealConvReport(split=split, reader=reader.id, sessions=len(sessions))
    _detection(sessions, reader, report)
    memory = memory_factory()
    units = 0
    for k, session in enumerate(sessions):
        actor = _actor(session)
        first = next((m.content for m in session.messages if m.role == "user"), "")
        run = memory.start(
            actor=actor, skill=SKILL, query=read_user_turn(first).text or ".", record=False
        )
        units += len(run.units)
        report.sessions_with_units += bool(run.units)
        memory.capture_sessions([session.to_session(actor=actor, skill=SKILL)])
        if progress is not None:
            progress(k + 1, len(sessions))
    report.units_per_session = round(units / max(len(sessions), 1), 3)
    _stored(sessions, memory, report)
    return report


def _actor(session: LabelledSession) -> str:
    repo = str(session.source.get("repo") or session.session_id)
    return repo.replace("/", "-")[:100]


def _detection(
    sessions: Sequence[LabelledSession], reader: TurnClassifier, report: RealConvReport
) -> None:
    admit = bands_for(reader)
    pairs = [p for s in sessions for p in s.turn_inputs()]
    verdicts = reader.read([t for _, t in pairs])
    report.user_turns = len(pairs)
    for (label, _), verdict in zip(pairs, verdicts, strict=True):
        truth = label.kind in LASTING
        report.lasting_turns += truth
        for band, pr in (
            (admit.candidate, report.detection_candidate),
            (admit.active, report.detection_active),
        ):
            said = verdict.p_lasting >= band
            pr.tp += said and truth
            pr.fp += said and not truth
            pr.fn += truth and not said


def _stored(sessions: Sequence[LabelledSession], memory: Any, report: RealConvReport) -> None:
    labels = {(s.session_id, i): lab for s in sessions for i, lab in s.labels.items()}
    rules = [r for r in memory.rules(status=list(RuleStatus)) if r.source is RuleSource.CORRECTION]
    covered_any: set[tuple[str, int]] = set()
    covered_active: set[tuple[str, int]] = set()
    pairs: list[tuple[str, str]] = []
    for rule in rules:
        evidence = memory.store.get_evidence(rule.evidence_ids)
        keys = [(e.conversation_id, e.message_index) for e in evidence]
        hits = [k for k in keys if k in labels and labels[k].kind in LASTING]
        admitted = rule.status is not RuleStatus.CANDIDATE
        report.rules_stored += 1
        report.rules_active += admitted
        report.rules_candidate += not admitted
        if hits:
            report.stored_right_turn += 1
            report.active_right_turn += admitted
            covered_any.update(hits)
            if admitted:
                covered_active.update(hits)
            gold = labels[hits[0]].rule
            if gold:
                pairs.append((rule.text, gold))
        else:
            report.false_rules.append(rule.text)
    if pairs:
        vecs = memory.embedder.embed([a for a, _ in pairs] + [b for _, b in pairs])
        n = len(pairs)
        sims = np.sum(np.asarray(vecs[:n]) * np.asarray(vecs[n:]), axis=1)
        report.stored_right_text = int((sims >= TEXT_MATCH).sum())
    lasting = [k for k, lab in labels.items() if lab.kind in LASTING]
    report.recall_any = round(len(covered_any) / max(len(lasting), 1), 3)
    report.recall_active = round(len(covered_active) / max(len(lasting), 1), 3)
    report.rulebook_active = sum(r.status is RuleStatus.ACTIVE for r in rules)
    report.rulebook_candidate = sum(r.status is RuleStatus.CANDIDATE for r in rules)
