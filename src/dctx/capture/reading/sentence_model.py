"""A logistic regression over one sentence's MiniLM vector and a few features of how it
stands in its turn: the shape of the small sentence readers (the opening-policy reader,
the announcement reader), their weights a `.npz` in `model/` beside a `.json` record."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from dctx.capture.reading.weights import read_weights, write_weights
from dctx.errors import ConfigError
from dctx.providers.base import Embedder
from dctx.text import sentences

MIN_WORDS = 3  # "Book that too." says nothing to read; "Notice by letter." may
TEXT_CHARS = 600  # what MiniLM reads of a sentence
R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class SentenceModel:
    """Weights, standardisation and threshold of a sentence reader."""

    coef: npt.NDArray[np.float32]  # (vector + features,)
    intercept: float
    mean: npt.NDArray[np.float32]
    scale: npt.NDArray[np.float32]
    threshold: float
    embedder_id: str
    meta: dict[str, Any]

    def save(self, folder: Path, name: str, features: tuple[str, ...]) -> None:
        meta = dict(self.meta)
        meta.update(threshold=self.threshold, embedder=self.embedder_id, features=list(features))
        arrays = {"coef": self.coef, "intercept": np.float32(self.intercept)}
        write_weights(folder, name, {**arrays, "mean": self.mean, "scale": self.scale}, meta)

    def probabilities(self, x: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
        """The model's probability for each row of [sentence vector | features]."""
        z = ((x - self.mean) / self.scale).astype(np.float64) @ self.coef.astype(np.float64)
        return 1.0 / (1.0 + np.exp(-(z + self.intercept)))

    def check_embedder(self, embedder: Embedder, what: str) -> None:
        """A ConfigError unless `embedder` gives the vectors the model was trained on."""
        if embedder.id != self.embedder_id:
            raise ConfigError(
                f"the {what} reader was trained on {self.embedder_id} vectors, not {embedder.id}"
            )


def load_sentence_model(
    folder: Path | None, name: str, *, what: str, trainer: str, features: tuple[str, ...]
) -> SentenceModel:
    """Model `name` from `folder` (default: the package's `model/`)."""
    meta, arrays = read_weights(
        folder, name, what=what, trainer=trainer, features_key="features", features=features
    )
    return SentenceModel(
        coef=arrays["coef"],
        intercept=float(arrays["intercept"]),
        mean=arrays["mean"],
        scale=arrays["scale"],
        threshold=float(meta["threshold"]),
        embedder_id=str(meta["embedder"]),
        meta=meta,
    )


def candidates(text: str) -> tuple[list[str], list[int]]:
    """The turn's sentences, and the positions of those long enough to be read."""
    parts = sentences(text)
    return parts, [k for k, part in enumerate(parts) if len(part.split()) >= MIN_WORDS]


def sentence_vectors(embedder: Embedder, said: Sequence[str]) -> npt.NDArray[np.float32]:
    """The MiniLM vector of each sentence, of its first TEXT_CHARS characters."""
    return np.asarray(embedder.embed([s[:TEXT_CHARS] for s in said]), dtype=np.float32)


def reader_over(reader: object, model: SentenceModel, make: Callable[..., R]) -> R | None:
    """A sentence reader made by `make` (each module's own, cached once per process: a cache
    of one object holds no words) over the turn reader's own embedder, when it gives the
    vectors `model` was trained on (the learned reader's MiniLM); None for a reader without
    one (the heuristic reader, a stub in tests)."""
    embedder = getattr(reader, "embedder", None)
    if getattr(embedder, "id", None) != model.embedder_id:
        return None
    return make(embedder)
