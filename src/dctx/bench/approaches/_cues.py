"""Aftermath classification for the baselines: the same deterministic sentence classifier
dctx's capture layer uses (paper, section 4: shared by every approach except doc_naive)."""

from __future__ import annotations

import re
from typing import Literal

from dctx.capture.cues import SentenceKind, classify_sentence, strip_filler, turn_aftermath
from dctx.text import sentences

Aftermath = Literal["correction", "acceptance", "new_request", "withdrawal", "one_off"]

_ACK = re.compile(
    r"\s*(understood|sure|got it|ok|okay|will do|noted|thanks|of course|you're welcome|"
    r"happy to help)\b",
    re.IGNORECASE,
)


def classify(text: str, *, first_turn: bool = False) -> Aftermath:
    """What a user turn is: correction, acceptance, new request, withdrawal or one-off."""
    kinds = [classify_sentence(s, first_turn=first_turn) for s in sentences(text)]
    value: Aftermath = turn_aftermath(kinds).value
    return value


def directive(text: str) -> str:
    """The directive / withdrawal sentences of a user turn, filler stripped (the whole turn
    when none is found)."""
    picked = [
        strip_filler(s)
        for s in sentences(text)
        if classify_sentence(s) in (SentenceKind.DIRECTIVE, SentenceKind.WITHDRAWAL)
    ]
    return " ".join(p for p in picked if p) or text.strip()


def is_filler(role: str, text: str, has_calls: bool) -> bool:
    """Conversational filler: a short acceptance from the user, or a short acknowledgement
    from the assistant with no tool call."""
    words = len(text.split())
    if role == "user":
        return words <= 12 and classify(text) == "acceptance"
    if role == "assistant" and not has_calls:
        return words <= 10 and bool(_ACK.match(text))
    return False
