"""Score turn-reader models on the real turns of the dev split, for model selection.

    python benchmarks/realconv/train_reader.py --splits train --cache /tmp/feat --out /tmp/m
    python benchmarks/realconv/check_reader.py --cache /tmp/feat /tmp/m shipped

Each model's lasting score is ranked against the labels of every real dev turn: average
precision, the best precision at a recall of 0.25 / 0.5 / 0.75, and precision and recall at the
model's own admission bands. A model trained on dev (the shipped one is) is also scored on the
dev turns of files it was not trained on, the only honest comparison for it. Only train_reader
with --splits train gives a model whose dev numbers mean anything. The test split is never read.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import numpy.typing as npt
from sklearn.metrics import average_precision_score
from train_reader import _file_rows

from dctx.bench.realconv.corpus import DEFAULT_DATA
from dctx.capture.reading.base import LASTING, TurnKind
from dctx.capture.reading.learned import TurnModel, load_model
from dctx.providers.embedders import get_embedder


def _precision_at(
    truth: npt.NDArray[np.bool_], score: npt.NDArray[np.float64], recall: float
) -> float:
    order = np.argsort(-score)
    tp = np.cumsum(truth[order])
    prec, rec = tp / np.arange(1, len(score) + 1), tp / max(truth.sum(), 1)
    return float(prec[rec >= recall].max()) if (rec >= recall).any() else 0.0


def _line(model: TurnModel, x: npt.NDArray[np.float32], truth: npt.NDArray[np.bool_]) -> str:
    raw = ((x - model.mean) / model.scale).astype(np.float64) @ model.lasting_coef
    raw = raw + model.lasting_intercept
    a, b = model.platt
    p = 1.0 / (1.0 + np.exp(-(a * raw + b)))
    parts = [
        f"{int(truth.sum())}/{len(truth)} lasting",
        f"AP {average_precision_score(truth, raw):.3f}",
    ]
    parts += [f"P@R{r} {_precision_at(truth, raw, r):.2f}" for r in (0.25, 0.5, 0.75)]
    for band, t in (("active", model.thresholds.active), ("candidate", model.thresholds.candidate)):
        picked = p >= t
        precision = truth[picked].mean() if picked.any() else 0.0
        parts.append(
            f"{band} p>={t:.3f}: {int(picked.sum())} picked, P {precision:.2f} "
            f"R {(picked & truth).sum() / max(truth.sum(), 1):.2f}"
        )
    return "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("models", nargs="+", help="model folders, or 'shipped'")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--cache", type=Path, required=True, help="features, as train_reader --cache")
    args = ap.parse_args(argv)
    embedder = get_embedder("minilm")
    rows = {
        p.name: _file_rows(p, "dev", args.cache, embedder)
        for p in sorted(args.data.glob("*.jsonl"))
    }
    for name in args.models:
        model = load_model(None if name == "shipped" else Path(name))
        seen = (
            set(model.meta.get("trained_on", {}))
            if "dev" in model.meta.get("splits", [])
            else set()
        )
        for label, files in (("all dev", set(rows)), ("dev not trained on", set(rows) - seen)):
            chosen = [rows[f] for f in sorted(files) if len(rows[f][0])]
            if not chosen or (label != "all dev" and not seen):
                continue
            x = np.concatenate([c[0] for c in chosen])
            truth = np.array(
                [TurnKind(v) in LASTING for v in np.concatenate([c[1] for c in chosen])]
            )
            real = np.concatenate([c[3] for c in chosen])
            print(f"{name} [{label}, real turns]: {_line(model, x[real], truth[real])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
