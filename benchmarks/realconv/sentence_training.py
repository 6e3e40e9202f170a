"""What the sentence readers' trainers share (train_policies.py, train_announcements.py): a
balanced logistic regression over standardised [sentence vector | features] rows, its
out-of-fold predictions (folds grouped, so no session or workplace is in two), the threshold
where F0.5 peaks on them (precision weighs twice: a sentence read wrongly is a wrong rule, or
a rule that reaches the wrong people) and the counts at a threshold."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold, cross_val_predict

from dctx.capture.reading.sentence_model import SentenceModel


def fit(x: np.ndarray, y: np.ndarray, groups: np.ndarray, c: float):  # type: ignore[no-untyped-def]
    """The fitted learner, its standardisation and its out-of-fold probabilities."""
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
    xz = (x - mean) / scale
    learner = LogisticRegression(C=c, max_iter=5000, class_weight="balanced")
    oof = cross_val_predict(
        learner, xz, y, groups=groups, cv=GroupKFold(n_splits=5), method="predict_proba"
    )[:, 1]
    return learner.fit(xz, y), mean, scale, oof


def f_half_threshold(y: np.ndarray, p: np.ndarray, *, lowest: float, floor: float = 0.0) -> float:
    """Where F0.5 peaks from `lowest` up (the higher threshold of a tie), or `floor`."""
    best, at = -1.0, lowest
    for t in np.arange(lowest, 0.99, 0.01):
        sel = p >= t
        tp = float((sel & (y == 1)).sum())
        precision, recall = tp / max(sel.sum(), 1), tp / max(y.sum(), 1)
        score = 1.25 * precision * recall / max(0.25 * precision + recall, 1e-9)
        if score >= best:
            best, at = score, float(t)
    return round(max(at, floor), 2)


def counts_at(y: np.ndarray, p: np.ndarray, t: float, positives: str) -> dict[str, Any]:
    """How many rows the threshold selects, how many of them are right, of how many."""
    sel = p >= t
    return {
        "selected": int(sel.sum()),
        "right": int((sel & (y == 1)).sum()),
        positives: int(y.sum()),
    }


def sentence_model(  # type: ignore[no-untyped-def]
    learner,
    mean: np.ndarray,
    scale: np.ndarray,
    threshold: float,
    embedder_id: str,
    meta: dict[str, Any],
) -> SentenceModel:
    """The fitted learner as the shipped model type."""
    return SentenceModel(
        coef=learner.coef_[0].astype(np.float32),
        intercept=float(learner.intercept_[0]),
        mean=mean.astype(np.float32),
        scale=scale.astype(np.float32),
        threshold=threshold,
        embedder_id=embedder_id,
        meta=meta,
    )


def write_model(model: SentenceModel, out: Path, name: str, features: tuple[str, ...]) -> None:
    """Save `model` as the shipped model `name` in `out` and print its record."""
    model.save(out, name, features)
    print(json.dumps({**model.meta, "threshold": model.threshold}, indent=2))
