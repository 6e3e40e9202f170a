"""Load the labelled corpus: one JSON session per line, user turns labelled.

    {"session_id", "client", "split": "train|dev|test", "source": {...license, url},
     "synthetic": false, "turns": [{"role": "user|assistant", "text", "label", "standing",
     "rule"}]}

Splits are by session (by repository for real sources), so no conversation is in two.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from dctx.capture.reading.base import TurnInput, TurnKind
from dctx.capture.turns import user_turn_inputs
from dctx.errors import TraceFormatError
from dctx.models import Message, Session

DEFAULT_DATA = Path("benchmarks/realconv/data")


@dataclass(frozen=True, slots=True)
class LabelledTurn:
    session_id: str
    index: int  # message index in the session
    raw: str
    kind: TurnKind
    rule: str | None  # what a good memory stores (STANDING), or what is withdrawn


@dataclass(slots=True)
class LabelledSession:
    session_id: str
    split: str
    synthetic: bool
    client: str
    source: dict[str, object]
    messages: list[Message] = field(default_factory=list)
    labels: dict[int, LabelledTurn] = field(default_factory=dict)

    def to_session(self, *, actor: str = "user", skill: str = "agent") -> Session:
        return Session(
            conversation_id=self.session_id,
            messages=list(self.messages),
            actor=actor,
            skill=skill,
            source=str(self.source.get("url") or self.session_id),
        )

    def turn_inputs(self) -> list[tuple[LabelledTurn, TurnInput]]:
        """Each labelled user turn with what the reader sees of it in capture."""
        return [
            (self.labels[msg.index], turn)
            for msg, turn in user_turn_inputs(self.to_session())
            if msg.index in self.labels
        ]


def load_corpus(
    data: Path = DEFAULT_DATA, *, splits: Iterable[str] | None = None, synthetic: bool = True
) -> list[LabelledSession]:
    """Every session of every `*.jsonl` file under `data`, filtered by split."""
    wanted = set(splits) if splits is not None else None
    if not data.is_dir():
        raise TraceFormatError(f"{data}: no labelled corpus here (expected *.jsonl files)")
    out: list[LabelledSession] = []
    for path in sorted(data.glob("*.jsonl")):
        for session in _read(path):
            if wanted is not None and session.split not in wanted:
                continue
            if session.synthetic and not synthetic:
                continue
            out.append(session)
    return out


def _read(path: Path) -> Iterator[LabelledSession]:
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            yield _session(raw)
        except (ValueError, KeyError, TypeError) as exc:
            raise TraceFormatError(f"{path}:{lineno}: not a labelled session ({exc})") from exc


def _session(raw: dict[str, object]) -> LabelledSession:
    sid = str(raw["session_id"])
    session = LabelledSession(
        session_id=sid,
        split=str(raw.get("split", "train")),
        synthetic=bool(raw.get("synthetic", False)),
        client=str(raw.get("client", "")),
        source=dict(raw.get("source") or {}),  # type: ignore[call-overload]
    )
    turns = raw["turns"]
    assert isinstance(turns, list)
    for index, turn in enumerate(turns):
        role = str(turn["role"])
        text = str(turn.get("text") or "")
        if role not in ("user", "assistant"):
            raise ValueError(f"turn {index}: role {role!r}")
        session.messages.append(Message(index=index, role=role, content=text))  # type: ignore[arg-type]
        if role == "user" and turn.get("label"):
            rule = turn.get("rule")
            session.labels[index] = LabelledTurn(
                session_id=sid,
                index=index,
                raw=text,
                kind=TurnKind(str(turn["label"])),
                rule=str(rule) if rule else None,
            )
    return session
