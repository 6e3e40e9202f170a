"""A logistic regression over one sentence's MiniLM vector and a few features of how it
stands in its turn: the shape of the small sentence readers (the opening-policy reader,
the announcement reader), their weights a `.npz` in `model/` beside a `.json` record."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from dctx.capture.reading.weights import read_weights, write_weights
from dctx.errors import ConfigError
from dctx.providers.base import Embedder


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


def embedder_of(reader: object, embedder_id: str) -> Any:
    """The turn reader's own embedder (any object the reader holds, hashable: the readers
    are cached per embedder), when it gives the vectors a sentence model was trained on (the
    learned reader's MiniLM); None for a reader without one (the heuristic reader, a stub in
    tests)."""
    embedder = getattr(reader, "embedder", None)
    return embedder if getattr(embedder, "id", None) == embedder_id else None
