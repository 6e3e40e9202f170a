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


NO = "no."
CONTRAST = "rather than retyping the whole address, fix only the wrong field."
WHY = "the courier hates relabels."
COMMAND = "and add the parcel number to the note."
MIXED = f"{NO} {CONTRAST} {WHY} {COMMAND}"


def test_beside_a_command_a_statement_read_as_more_lasting_is_kept_too() -> None:
    reader = _Scored({MIXED: 0.8, NO: 0.05, CONTRAST: 0.55, WHY: 0.35, COMMAND: 0.4})
    signals = find_corrections(_session(MIXED), reader=reader)  # type: ignore[arg-type]
    said = [s.directive.lower() for s in signals]
    assert any(d.startswith("rather than retyping") for d in said)
    assert any("parcel number" in d for d in said)
    assert not any("courier" in d for d in said)  # a reason ranked below the command


def test_a_turn_that_quoted_material_is_not_read_by_sentence() -> None:
    pasted = f"{TURN}\n\n```\nERROR 42: caption service unavailable\n```"
    reader = _Scored({CONVENTION: 0.45})
    reader.p.update({t.text: 0.6 for t in _own_words(pasted)})
    assert find_corrections(_session(pasted), reader=reader) == []  # type: ignore[arg-type]


def _own_words(turn: str) -> list[TurnInput]:
    from dctx.capture.turns import user_turn_inputs

    return [t for _, t in user_turn_inputs(_session(turn))][-1:]  # type: ignore[arg-type]
