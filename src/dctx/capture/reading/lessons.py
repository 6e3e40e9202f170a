"""Which sentences of a turn read as lasting carry its lesson.

A standing correction mixes the lesson with the case at hand, the reason and the fix: "No,
stop booking sweeps without looking at the appliance. Pellet stoves get the vacuum kit, not the
rods, and those visits run an hour longer. Rebook Mrs Okoro for the afternoon." The sentence
cues read a command by its verb, so a lesson said as a statement, or with a verb people also
give tasks with ("compare", "watch", "put"), was left out of the rule while the turn was
admitted and the fix of the case kept. Which sentence carries the lesson is a reading of language,
so it is learned: the opening-policy reader's shape (a logistic regression over the
sentence's MiniLM vector and how it stands in the turn), trained by
`benchmarks/realconv/train_lessons.py` on the sentences of standing corrections of the
labelled corpus (real and synthetic, the rule spans or rule text saying which sentences hold
the lesson) and of `data_scope/scope_reach.jsonl`'s train workplaces. `model/lessons.json`
records its out-of-fold scores and its threshold.

Capture asks it only about a reply the turn reader admitted, and only to add sentences the
cues did not read as commands: whether the turn lasts stays the turn reader's decision, so a
turn it rules out stores nothing more than before.
"""

from __future__ import annotations

import functools
from pathlib import Path

from dctx.capture.reading.policies import FEATURES, feature_matrix
from dctx.capture.reading.sentence_model import (
    SentenceModel,
    candidates,
    load_sentence_model,
    reader_over,
)
from dctx.providers.base import Embedder

MODEL_NAME = "lessons"


def load_lesson_model(folder: Path | None = None, name: str = MODEL_NAME) -> SentenceModel:
    """The model shipped in the package (or one in `folder`)."""
    return load_sentence_model(
        folder,
        name,
        what="lesson",
        trainer="benchmarks/realconv/train_lessons.py",
        features=FEATURES,
    )


class LessonReader:
    """Reads which sentences of an admitted reply carry its lasting lesson."""

    def __init__(self, embedder: Embedder, model: SentenceModel | None = None) -> None:
        self.model = model or _shipped_model()
        self.embedder = embedder
        self.model.check_embedder(embedder, "lesson")

    def lessons(self, text: str) -> set[str]:
        """The sentences of `text` (as `dctx.text.sentences` cuts them) the model reads as
        carrying the lesson."""
        parts, picked = candidates(text)
        if len(picked) < 2:  # a one-sentence turn is its lesson: nothing to choose
            return set()
        p = self.model.probabilities(feature_matrix(self.embedder, parts, picked, opening=False))
        return {parts[k] for k, q in zip(picked, p, strict=True) if q >= self.model.threshold}


def lesson_reader_for(reader: object) -> LessonReader | None:
    """The lesson reader over the turn reader's own embedder, if it has the right one."""
    return reader_over(reader, _shipped_model(), _reader)


@functools.lru_cache(maxsize=1)  # one reader over the turn reader's one embedder
def _reader(embedder: Embedder) -> LessonReader:
    return LessonReader(embedder)


@functools.lru_cache(maxsize=1)
def _shipped_model() -> SentenceModel:
    return load_lesson_model()
