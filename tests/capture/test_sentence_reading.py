"""A turn the reader admits but in which the cues find no command: the sentences the reader
reads as lasting on their own carry its lesson (conventions said as statements or without a
verb), and the others (reasons, chatter) do not."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from dctx.capture.corrections import find_corrections
from dctx.capture.cues import SentenceKind, classify_sentence
from dctx.capture.parse import parse_messages
from dctx.capture.reading.base import TurnInput, TurnKind, TurnVerdict


@dataclass(frozen=True)
class _Thresholds:
    active: float = 0.3
    candidate: float = 0.2


@dataclass(frozen=True)
class _Model:
    thresholds: _Thresholds = _Thresholds()


class _Scored:
    """A reader with calibrated bands (active 0.3, candidate 0.2) and a fixed p per text."""

    id = "scored"
    model = _Model()

    def __init__(self, p: Mapping[str, float]) -> None:
        self.p = dict(p)

    def read(self, turns: Sequence[TurnInput]) -> list[TurnVerdict]:
        out = []
        for t in turns:
            p = self.p.get(t.text, 0.01)
            kind = TurnKind.STANDING if p >= 0.3 else TurnKind.INFORMATION
            out.append(TurnVerdict(kind, p, by=self.id))
        return out


CONVENTION = "photo captions: sentence case, no trailing period."
REASON = "the print shop's layout tool chokes on the dots."
TURN = f"hm. {CONVENTION} {REASON}"


def _session(turn: str) -> object:
    return parse_messages(
        [
            {"role": "user", "content": "caption the six garden shots for the autumn catalogue"},
            {
                "role": "assistant",
                "content": "Done: 'Late Roses In The Walled Garden.' and more.",
            },
            {"role": "user", "content": turn},
        ],
        conversation_id="c1",
        actor="ines",
        skill="catalogue",
    )


def test_the_cues_find_no_command_in_the_turn() -> None:
    # the premise: without the sentence reader, this turn yields nothing
    for s in ("hm.", CONVENTION, REASON):
        assert classify_sentence(s) is not SentenceKind.DIRECTIVE


def test_an_admitted_turn_keeps_the_sentence_read_as_lasting_alone() -> None:
    reader = _Scored({TURN: 0.6, CONVENTION: 0.45, REASON: 0.1})
    signals = find_corrections(_session(TURN), reader=reader)  # type: ignore[arg-type]
    assert [s.directive for s in signals] == [CONVENTION]
    assert not signals[0].candidate  # the turn itself was admitted as active


def test_no_sentence_lasting_alone_keeps_nothing() -> None:
    reader = _Scored({TURN: 0.6, CONVENTION: 0.15, REASON: 0.1})
    assert find_corrections(_session(TURN), reader=reader) == []  # type: ignore[arg-type]


def test_a_turn_below_the_candidate_band_is_not_read_by_sentence() -> None:
    reader = _Scored({TURN: 0.1, CONVENTION: 0.9, REASON: 0.1})
    assert find_corrections(_session(TURN), reader=reader) == []  # type: ignore[arg-type]
