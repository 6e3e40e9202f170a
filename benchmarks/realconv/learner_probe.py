"""Probe: do other learners or token-level MiniLM features read real turns better?

The shipped reader is a logistic regression over the reader's features (turn and directive
vectors, similarity to the previous output, structural features; capture/reading/learned.py).
This probe trains alternatives on the train split and ranks the real dev turns, as
check_reader.py does: the same regression, the regression with two token-level poolings of the
turn added (max over word pieces, mean of its first eleven pieces, where "no,", "always",
"can you" sit), gradient boosting over a PCA of the vectors, and a one-layer MLP. It writes no
model; finetune_probe.py is the same question for fine-tuning MiniLM itself.

    pip install -e '.[train]'
    python benchmarks/realconv/learner_probe.py --cache /tmp/probe   # ~15 min the first time

The test split is never read.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import numpy.typing as npt
from check_reader import _precision_at
from sklearn.decomposition import PCA
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import average_precision_score
from sklearn.neural_network import MLPClassifier

from dctx.bench.realconv.corpus import DEFAULT_DATA, load_corpus
from dctx.capture.reading.base import LASTING
from dctx.capture.reading.learned import feature_matrix
from dctx.providers.embedders import get_embedder
from dctx.providers.minilm import MiniLMEmbedder

_TEXT_CHARS = 1200
_OPENING_PIECES = 12  # [CLS] and the first eleven word pieces


def token_poolings(embedder: MiniLMEmbedder, texts: list[str]) -> npt.NDArray[np.float32]:
    """Rows of [max over word pieces | mean of the opening pieces] of MiniLM's token states."""
    session, tokenizer = embedder._ensure_loaded(False)
    out = np.zeros((len(texts), 2 * embedder.dim), np.float32)
    for start in range(0, len(texts), 16):
        batch = texts[start : start + 16]
        enc = tokenizer.encode_batch(batch)
        ids = np.asarray([e.ids for e in enc], np.int64)
        mask = np.asarray([e.attention_mask for e in enc], np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in embedder._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        (hidden,) = session.run(["last_hidden_state"], feeds)
        opening = mask.copy()
        opening[:, 0] = 0
        opening[:, _OPENING_PIECES:] = 0
        w = opening[:, :, None].astype(np.float32)
        out[start : start + len(batch), : embedder.dim] = np.where(
            mask[:, :, None].astype(bool), hidden, -1e9
        ).max(axis=1)
        out[start : start + len(batch), embedder.dim :] = (hidden * w).sum(1) / np.maximum(
            w.sum(1), 1.0
        )
    return out


def split_rows(
    data: Path, split: str, cache: Path, embedder: MiniLMEmbedder
) -> dict[str, np.ndarray]:
    dest = cache / f"{split}.npz"
    if not dest.exists():
        pairs = [
            (s, lab, t) for s in load_corpus(data, splits=[split]) for lab, t in s.turn_inputs()
        ]
        turns = [t for _, _, t in pairs]
        cache.mkdir(parents=True, exist_ok=True)
        np.savez(
            dest,
            x=feature_matrix(embedder, turns),
            tokens=token_poolings(embedder, [t.text[:_TEXT_CHARS] or "." for t in turns]),
            lasting=np.array([lab.kind in LASTING for _, lab, _ in pairs]),
            real=np.array([not s.synthetic for s, _, _ in pairs]),
        )
    with np.load(dest) as d:
        return {k: d[k] for k in d.files}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--cache", type=Path, required=True, help="features are kept here")
    args = ap.parse_args(argv)
    embedder = get_embedder("minilm")
    assert isinstance(embedder, MiniLMEmbedder)
    train = split_rows(args.data, "train", args.cache, embedder)
    dev = split_rows(args.data, "dev", args.cache, embedder)
    y, truth, real = train["lasting"], dev["lasting"], dev["real"]

    def line(name: str, score: npt.NDArray[np.float64]) -> None:
        t, s = truth[real], score[real]
        print(
            f"{name:34s} AP {average_precision_score(t, s):.3f}  "
            + "  ".join(f"P@R{r} {_precision_at(t, s, r):.2f}" for r in (0.25, 0.5))
        )

    def scaled(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        mean, scale = a.mean(0), a.std(0) + 1e-6
        return (a - mean) / scale, (b - mean) / scale

    print(f"real dev turns: {int(real.sum())}, lasting {int(truth[real].sum())}")
    for name, a, b in (
        ("reader features", train["x"], dev["x"]),
        (
            "+ token poolings",
            np.hstack([train["x"], train["tokens"]]),
            np.hstack([dev["x"], dev["tokens"]]),
        ),
    ):
        xa, xb = scaled(a, b)
        for c in (0.001, 0.003, 0.01):
            clf = LogisticRegression(C=c, max_iter=3000, class_weight="balanced").fit(xa, y)
            line(f"logistic, {name}, C={c}", clf.decision_function(xb))
    xa, xb = scaled(train["x"], dev["x"])
    dim = embedder.dim
    turn_pca = PCA(64, random_state=0).fit(xa[:, :dim])
    said_pca = PCA(32, random_state=0).fit(xa[:, -dim:])

    def reduced(z: np.ndarray) -> np.ndarray:
        return np.hstack(
            [turn_pca.transform(z[:, :dim]), z[:, dim:-dim], said_pca.transform(z[:, -dim:])]
        )

    for depth in (3, 6):
        boost = HistGradientBoostingClassifier(
            max_depth=depth,
            learning_rate=0.05,
            max_iter=300,
            class_weight="balanced",
            l2_regularization=1.0,
            random_state=0,
        ).fit(reduced(xa), y)
        line(f"gradient boosting, depth {depth}", boost.predict_proba(reduced(xb))[:, 1])
    for alpha in (1.0, 10.0):
        mlp = MLPClassifier(hidden_layer_sizes=(64,), alpha=alpha, max_iter=400, random_state=0)
        line(f"MLP 64, alpha {alpha}", mlp.fit(xa, y).predict_proba(xb)[:, 1])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
