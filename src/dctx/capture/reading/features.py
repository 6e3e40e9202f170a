"""Structural features of a user turn, beside its MiniLM vector.

They say what the vector cannot: how the turn is built (length, questions, negation, how much
was pasted), whether it points at artifacts of this session (paths, line numbers, ids,
quoted values, which bind a remark to this piece of work), what the client signalled, and
what the deterministic cues of capture/cues.py say of its sentences. The cues stay as
features; the learned weights decide how much each one counts.
"""

from __future__ import annotations

import math
import re

import numpy as np
import numpy.typing as npt

from dctx.capture.cues import SentenceKind, classify_sentence, standing_cue
from dctx.capture.pasted import code_token
from dctx.capture.reading.base import TurnInput
from dctx.capture.verbs import IMPERATIVE_VERBS
from dctx.text import sentences

_NEGATIONS = frozenset("not no never don't dont doesn't won't shouldn't can't nor without".split())
_CONTRAST_OPENERS = frozenset("no nope nah wrong actually instead stop".split())
_TOKEN = re.compile(r"\S+")
_WORD = re.compile(r"[A-Za-z][A-Za-z']*")
_QUOTED = re.compile(r"`[^`]+`|\"[^\"]{1,80}\"|'[^'\s][^']{0,80}'")
_LINE_REF = re.compile(r"\b(?:line|lines|ln|L)\s?\d+\b", re.IGNORECASE)
_PATH = re.compile(r"(?:[\w.-]+/)+[\w.-]+|\b[\w-]+\.(?:[a-z]{1,5})\b")
_KINDS = (
    SentenceKind.DIRECTIVE,
    SentenceKind.REQUEST,
    SentenceKind.ACCEPTANCE,
    SentenceKind.WITHDRAWAL,
    SentenceKind.ONE_OFF,
    SentenceKind.OTHER,
)

NAMES: tuple[str, ...] = (
    "log_words",
    "log_sentences",
    "question",
    "ends_question",
    "pasted_share",
    "interrupted",
    "rejected_tool",
    "first_turn",
    "negation",
    "contrast_opener",
    "standing_cue",
    "imperative_start",
    "second_person",
    "first_person",
    "quoted_values",
    "line_refs",
    "paths",
    "code_tokens",
    "numbers",
    "empty",
    *(f"cue_{k.value}" for k in _KINDS),
    "any_directive",
    "any_withdrawal",
)


def directive_text(turn: TurnInput) -> str:
    """The sentences the cues read as directives or withdrawals ("" when none): the part of a
    long turn a correction lives in, embedded apart so the rest of the turn does not drown it."""
    if not turn.text.strip():
        return ""
    keep = (SentenceKind.DIRECTIVE, SentenceKind.WITHDRAWAL)
    return " ".join(
        p for p in sentences(turn.text) if classify_sentence(p, first_turn=turn.first_turn) in keep
    )


def structural(turn: TurnInput) -> npt.NDArray[np.float32]:
    """The structural feature vector of a turn, in the order of NAMES."""
    text = turn.text
    tokens = _TOKEN.findall(text)
    words = [w.lower() for w in _WORD.findall(text)]
    parts = sentences(text) if text.strip() else []
    kinds = [classify_sentence(p, first_turn=turn.first_turn) for p in parts]
    n = max(len(words), 1)
    first = words[0] if words else ""
    values = [
        math.log1p(len(words)) / 5.0,
        math.log1p(len(parts)) / 3.0,
        float("?" in text),
        float(text.rstrip().endswith("?")),
        turn.pasted_share,
        float(turn.interrupted),
        float(turn.rejected_tool),
        float(turn.first_turn),
        min(sum(w in _NEGATIONS for w in words) / n * 5.0, 1.0),
        float(first in _CONTRAST_OPENERS),
        float(standing_cue(text)),
        float(
            first in IMPERATIVE_VERBS
            or (first == "please" and len(words) > 1 and words[1] in IMPERATIVE_VERBS)
        ),
        float("you" in words or "your" in words),
        float(any(w in ("i", "we", "our", "my") for w in words)),
        min(len(_QUOTED.findall(text)) / 3.0, 1.0),
        min(len(_LINE_REF.findall(text)) / 2.0, 1.0),
        min(len(_PATH.findall(text)) / 3.0, 1.0),
        sum(code_token(t) for t in tokens) / max(len(tokens), 1),
        min(sum(t.strip(".,").isdigit() for t in tokens) / 3.0, 1.0),
        float(not words),
        *(kinds.count(k) / max(len(kinds), 1) for k in _KINDS),
        float(SentenceKind.DIRECTIVE in kinds),
        float(SentenceKind.WITHDRAWAL in kinds),
    ]
    return np.asarray(values, dtype=np.float32)
