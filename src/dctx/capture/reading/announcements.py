"""Whether a turn announces a decision that changes how everyone works.

"Council changed it last night: no down payment for residential", "the directors approved
new rush pricing, effective now", "the district rolled it back": the speaker passes on a
decision the organisation (or an authority over it) made, so the rule it sets
is the team's, not the speaker's own preference, and it reaches every colleague who works
the same skill. "Three customers complained it felt pushy" tells of the past too, and is
only the reason for a preference. Which is which is a reading of language, so it is
learned: a logistic regression over each sentence's MiniLM vector and whether it tells of the
past or asks, trained by `benchmarks/realconv/train_announcements.py` on sentences written
for it in workplaces no benchmark uses (`benchmarks/realconv/data_scope/announced.jsonl`) and
sentences of real coding sessions; `model/announced.json` records its held-out precision and
its threshold. A sentence it takes must also tell of the past, as the parser reads it: alone,
the model takes many a rule stated in the present for news of one. A decision announced
without a verb ("New from finance this morning: ..."), or whose first verb is not in the past
("Forget the deposit: the partners have scrapped it"), is not read.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from dctx.capture.reading.sentence_model import (
    SentenceModel,
    candidates,
    load_sentence_model,
    reader_over,
    sentence_vectors,
)
from dctx.grammar import tells_of_the_past
from dctx.providers.base import Embedder

MODEL_NAME = "announced"
FEATURES: tuple[str, ...] = ("tells_of_the_past", "question", "log_words")


def load_announcement_model(folder: Path | None = None, name: str = MODEL_NAME) -> SentenceModel:
    """The model shipped in the package (or one in `folder`)."""
    return load_sentence_model(
        folder,
        name,
        what="announcement",
        trainer="benchmarks/realconv/train_announcements.py",
        features=FEATURES,
    )


def readable(text: str) -> list[str]:
    """The turn's sentences long enough to be read."""
    parts, picked = candidates(text)
    return [parts[k] for k in picked]


def feature_matrix(embedder: Embedder, parts: Sequence[str]) -> npt.NDArray[np.float32]:
    """Rows of [sentence vector | features], one per sentence."""
    if not parts:
        return np.zeros((0, embedder.dim + len(FEATURES)), dtype=np.float32)
    vecs = sentence_vectors(embedder, parts)
    rows = [
        [float(tells_of_the_past(p)), float("?" in p), math.log1p(len(p.split()))] for p in parts
    ]
    return np.hstack([vecs, np.asarray(rows, dtype=np.float32)]).astype(np.float32)


class AnnouncementReader:
    """Reads whether a turn passes on a decision of the organisation."""

    def __init__(self, embedder: Embedder, model: SentenceModel | None = None) -> None:
        self.model = model or _shipped_model()
        self.embedder = embedder
        self.model.check_embedder(embedder, "announcement")

    def probabilities(self, text: str) -> list[tuple[str, float]]:
        """Each sentence read, with the probability that it announces a decision."""
        parts = readable(text)
        x = feature_matrix(self.embedder, parts)
        if not len(x):
            return []
        return [(s, float(p)) for s, p in zip(parts, self.model.probabilities(x), strict=True)]

    def announces(self, text: str) -> bool:
        """Does a sentence of the turn announce a decision: the model reads it so, and it
        tells of the past (a decision made: "the district rolled it back"), which a rule
        stated in the present ("Downgrades go through immediately") does not?"""
        return any(
            p >= self.model.threshold and tells_of_the_past(s) for s, p in self.probabilities(text)
        )


def announcement_reader_for(reader: object) -> AnnouncementReader | None:
    """The announcement reader over the turn reader's own embedder, if it has the right one."""
    return reader_over(reader, _shipped_model(), _reader)


@functools.lru_cache(maxsize=1)  # one reader over the turn reader's one embedder
def _reader(embedder: Embedder) -> AnnouncementReader:
    return AnnouncementReader(embedder)


@functools.lru_cache(maxsize=1)
def _shipped_model() -> SentenceModel:
    return load_announcement_model()
