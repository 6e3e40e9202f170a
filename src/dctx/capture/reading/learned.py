"""The learned turn reader: a multinomial logistic regression over the shipped MiniLM vector
of the turn, its similarity to the agent output it answers, and structural features.

The weights are a small `.npz` file in `model/` (no pickle), written by
`benchmarks/realconv/train_reader.py` from the labelled corpus in `benchmarks/realconv/data/`;
`model/turns.json` records what it was trained on, its calibration and its thresholds.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from dctx.capture.reading.base import LASTING, TurnInput, TurnKind, TurnVerdict
from dctx.capture.reading.features import NAMES, directive_text, structural
from dctx.capture.reading.weights import read_weights, write_weights
from dctx.errors import ConfigError
from dctx.providers.base import Embedder

MODEL_NAME = "turns"
_SURE = 0.5  # a lasting probability at which the kind model's contrary reading is overruled
_TEXT_CHARS = 1200  # what MiniLM reads of a turn (its window is 256 word pieces)


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Admission: a lasting turn is a rule at once at `active`, a candidate at `candidate`."""

    active: float
    candidate: float


@dataclass(frozen=True, slots=True)
class TurnModel:
    """Weights and calibration of the learned reader."""

    classes: tuple[TurnKind, ...]
    coef: npt.NDArray[np.float32]  # (classes, features): which kind of turn
    intercept: npt.NDArray[np.float32]
    lasting_coef: npt.NDArray[np.float32]  # (features,): does the turn change the rulebook
    lasting_intercept: float
    mean: npt.NDArray[np.float32]
    scale: npt.NDArray[np.float32]
    temperature: float  # of the kind model
    platt: tuple[float, float]  # calibration of the lasting score: sigmoid(a * score + b)
    thresholds: Thresholds
    embedder_id: str
    meta: dict[str, Any]

    def save(self, folder: Path, name: str = MODEL_NAME) -> None:
        arrays = {
            "coef": self.coef,
            "intercept": self.intercept,
            "lasting_coef": self.lasting_coef,
            "lasting_intercept": np.float32(self.lasting_intercept),
            "mean": self.mean,
            "scale": self.scale,
        }
        meta = dict(self.meta)
        meta.update(
            classes=[c.value for c in self.classes],
            temperature=self.temperature,
            platt=list(self.platt),
            thresholds={"active": self.thresholds.active, "candidate": self.thresholds.candidate},
            embedder=self.embedder_id,
            structural_features=list(NAMES),
        )
        write_weights(folder, name, arrays, meta)


def load_model(folder: Path | None = None, name: str = MODEL_NAME) -> TurnModel:
    """The model shipped in the package (or one in `folder`)."""
    meta, arrays = read_weights(
        folder,
        name,
        what="turn-reader",
        trainer="benchmarks/realconv/train_reader.py",
        features_key="structural_features",
        features=NAMES,
    )
    return TurnModel(
        classes=tuple(TurnKind(c) for c in meta["classes"]),
        coef=arrays["coef"],
        intercept=arrays["intercept"],
        lasting_coef=arrays["lasting_coef"],
        lasting_intercept=float(arrays["lasting_intercept"]),
        mean=arrays["mean"],
        scale=arrays["scale"],
        temperature=float(meta["temperature"]),
        platt=(float(meta["platt"][0]), float(meta["platt"][1])),
        thresholds=Thresholds(**meta["thresholds"]),
        embedder_id=str(meta["embedder"]),
        meta=meta,
    )


def feature_matrix(embedder: Embedder, turns: Sequence[TurnInput]) -> npt.NDArray[np.float32]:
    """Rows of [turn vector | similarity to the previous output | structural features |
    vector of the turn's directive sentences]."""
    if not turns:
        return np.zeros((0, 2 * embedder.dim + 1 + len(NAMES)), dtype=np.float32)
    n = len(turns)
    texts = [t.text[:_TEXT_CHARS] for t in turns]
    prev = [t.previous_output[:_TEXT_CHARS] for t in turns]
    said = [directive_text(t)[:_TEXT_CHARS] for t in turns]
    batch = [x if x.strip() else "." for x in texts + prev + said]
    # a third of these repeat (a directive that is the whole turn, the output two turns
    # answer, the "." of every empty one): each distinct text goes through the model once
    distinct = list(dict.fromkeys(batch))
    rows = {text: k for k, text in enumerate(distinct)}
    vecs = np.asarray(embedder.embed(distinct))[[rows[x] for x in batch]]
    own, before, directive = vecs[:n], vecs[n : 2 * n], vecs[2 * n :]
    sim = np.sum(own * before, axis=1, keepdims=True)
    for k, t in enumerate(turns):
        if not t.text.strip():
            own[k] = 0.0
        if not t.previous_output.strip():
            sim[k] = 0.0
        if not said[k]:
            directive[k] = 0.0
    struct = np.stack([structural(t) for t in turns])
    return np.hstack([own, sim, struct, directive]).astype(np.float32)


class LearnedTurnClassifier:
    """TurnClassifier over the shipped weights."""

    def __init__(self, embedder: Embedder | None = None, model: TurnModel | None = None) -> None:
        self.model = model or _shipped_model()
        self.embedder = embedder or _reader_embedder()
        if self.embedder.id != self.model.embedder_id:
            raise ConfigError(
                f"the turn reader was trained on {self.model.embedder_id} vectors, "
                f"not {self.embedder.id}"
            )

    @property
    def id(self) -> str:
        return f"learned:{self.model.meta.get('version', MODEL_NAME)}"

    def scores(
        self, turns: Sequence[TurnInput]
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Kind probabilities (turns x classes) and calibrated lasting probabilities."""
        m = self.model
        x = ((feature_matrix(self.embedder, turns) - m.mean) / m.scale).astype(np.float64)
        logits = (x @ m.coef.T + m.intercept) / m.temperature
        logits = logits - logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        kinds = p / p.sum(axis=1, keepdims=True)
        raw = x @ m.lasting_coef + m.lasting_intercept
        a, b = m.platt
        return kinds, 1.0 / (1.0 + np.exp(-(a * raw + b)))

    def read(self, turns: Sequence[TurnInput]) -> list[TurnVerdict]:
        if not turns:
            return []
        kinds, lasting = self.scores(turns)
        out: list[TurnVerdict] = []
        for turn, row, p_lasting in zip(turns, kinds, lasting, strict=True):
            probs = {c: float(p) for c, p in zip(self.model.classes, row, strict=True)}
            order = np.argsort(-row)
            kind = self.model.classes[int(order[0])]
            if p_lasting >= _SURE and kind not in LASTING:
                # the lasting model decides whether the rulebook changes; the kind model only
                # which of the two it is
                kind = max(LASTING, key=lambda c: probs.get(c, 0.0))
            elif p_lasting < _SURE and kind in LASTING:
                kind = next(
                    c for c in (self.model.classes[int(k)] for k in order) if c not in LASTING
                )
            if not turn.text.strip():
                kind, p_lasting = TurnKind.NOISE, 0.0
            out.append(
                TurnVerdict(kind=kind, p_lasting=float(p_lasting), probs=probs, by="learned")
            )
        return out


@functools.lru_cache(maxsize=1)
def _shipped_model() -> TurnModel:
    return load_model()


@functools.lru_cache(maxsize=1)
def _reader_embedder() -> Embedder:
    from dctx.providers.embedders import get_embedder

    return get_embedder("minilm")
