"""Which sentences of a session's opening request state a standing policy.

People open a session with the case to do and, often before it, a policy that holds beyond
it: "Outage credits, since everyone keeps asking: $10 flat when the outage ran over 4 hours.
A-5488120 was in last Tuesday's, check it." Read as a whole the turn is a task request (the
turn reader gives such turns p 0.02-0.1), so the policy was lost. Which sentence is policy
and which is the case is a reading of language, so it is learned: a logistic regression over
each sentence's MiniLM vector and how it stands in the turn (whether it or another sentence
names a case, carries a quantity, states something generally, tells of the past, asks; where
it stands; the kind the sentence cues give it). The weights are a small `.npz` in `model/`,
written by `benchmarks/realconv/train_policies.py` from the opening turns of the labelled
corpus (real sessions and synthetic ones in domains no benchmark uses); `model/policies.json`
records what it was trained on, how it scores out of fold and its threshold, set for
precision: a case sentence taken for policy is a wrong rule delivered in every later session.

Capture asks it only about an opening request that the turn reader does not admit.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from dctx.capture.cues import SentenceKind, classify_sentence, strip_filler
from dctx.capture.reading.sentence_model import (
    SentenceModel,
    candidates,
    load_sentence_model,
    reader_over,
    sentence_vectors,
)
from dctx.capture.revisions import quantities
from dctx.capture.subjects import mask_instances, mask_names
from dctx.grammar import speaks_of_any_case, states_generally, tells_of_the_past
from dctx.providers.base import Embedder

MODEL_NAME = "policies"
FEATURES: tuple[str, ...] = (
    "names_a_case",
    "quantity",
    "states_generally",
    "speaks_of_any_case",
    "tells_of_the_past",
    "question",
    "position",
    "last",
    "another_names_a_case",
    "log_words",
    "log_sentences",
    *(f"cue_{kind.value}" for kind in SentenceKind),
)


def load_policy_model(folder: Path | None = None, name: str = MODEL_NAME) -> SentenceModel:
    """The model shipped in the package (or one in `folder`)."""
    return load_sentence_model(
        folder,
        name,
        what="opening-policy",
        trainer="benchmarks/realconv/train_policies.py",
        features=FEATURES,
    )


def feature_matrix(
    embedder: Embedder, parts: Sequence[str], picked: Sequence[int], *, opening: bool = True
) -> npt.NDArray[np.float32]:
    """Rows of [sentence vector | features] for the `picked` sentences of a turn; `opening`:
    the session's first turn, whose sentences the cues read as a request unless marked
    standing (the lesson reader reads replies with the same features)."""
    if not picked:
        return np.zeros((0, embedder.dim + len(FEATURES)), dtype=np.float32)
    vecs = sentence_vectors(embedder, [parts[k] for k in picked])
    cases = [_names_a_case(part) for part in parts]
    rows = [_features(parts, k, cases, opening) for k in picked]
    return np.hstack([vecs, np.asarray(rows, dtype=np.float32)]).astype(np.float32)


def _features(parts: Sequence[str], k: int, cases: Sequence[bool], opening: bool) -> list[float]:
    sentence, n = parts[k], len(parts)
    kind = classify_sentence(sentence, first_turn=opening)
    return [
        float(cases[k]),
        float(bool(quantities(sentence))),
        float(states_generally(sentence)),
        float(speaks_of_any_case(sentence)),
        float(tells_of_the_past(sentence)),
        float("?" in sentence),
        k / max(n - 1, 1),
        float(k == n - 1),
        float(any(c for j, c in enumerate(cases) if j != k)),
        math.log1p(len(sentence.split())),
        math.log1p(n),
        *(float(kind is other) for other in SentenceKind),
    ]


def _names_a_case(sentence: str) -> bool:
    """The sentence names a person, a thing or an identifier ("Mrs. Baptiste, R-19950")."""
    return mask_instances(mask_names(sentence)) != sentence


class PolicyReader:
    """Reads which sentences of an opening request state a standing policy."""

    def __init__(self, embedder: Embedder, model: SentenceModel | None = None) -> None:
        self.model = model or _shipped_model()
        self.embedder = embedder
        self.model.check_embedder(embedder, "opening-policy")

    def probabilities(self, text: str) -> list[tuple[str, float]]:
        """Each sentence read, with the probability that it states a standing policy."""
        parts, picked = candidates(text)
        x = feature_matrix(self.embedder, parts, picked)
        if not len(x):
            return []
        p = self.model.probabilities(x)
        return [(parts[k], float(q)) for k, q in zip(picked, p, strict=True)]

    def policies(self, text: str) -> list[str]:
        """The sentences the model reads as policy, in turn order, fillers stripped."""
        return [strip_filler(s) for s, p in self.probabilities(text) if p >= self.model.threshold]


def policy_reader_for(reader: object) -> PolicyReader | None:
    """The opening-policy reader over the turn reader's own embedder, if it has the right one."""
    return reader_over(reader, _shipped_model(), _reader)


@functools.lru_cache(maxsize=1)  # one reader over the turn reader's one embedder
def _reader(embedder: Embedder) -> PolicyReader:
    return PolicyReader(embedder)


@functools.lru_cache(maxsize=1)
def _shipped_model() -> SentenceModel:
    return load_policy_model()
