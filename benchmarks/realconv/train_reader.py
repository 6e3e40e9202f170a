"""Train the learned turn reader (src/dctx/capture/reading/model/turns.*) from the labelled
corpus in benchmarks/realconv/data/.

    pip install -e '.[train]'
    python benchmarks/realconv/train_reader.py            # writes the shipped model
    python benchmarks/realconv/train_reader.py --out /tmp/m   # somewhere else
    python benchmarks/realconv/train_reader.py --splits train --cache /tmp/feat  # dev held out

Trained on the train and dev splits (real and synthetic turns). Model selection, the
calibration of the lasting score (Platt) and the admission thresholds come from out-of-fold
predictions on real turns, folds grouped by repository. The test split is never read here;
`dctx bench real` scores it.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import sys
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import average_precision_score
from sklearn.model_selection import GroupKFold

from dctx.bench.realconv.corpus import DEFAULT_DATA, _read, load_corpus
from dctx.capture.reading.base import LASTING, TurnKind
from dctx.capture.reading.features import NAMES
from dctx.capture.reading.learned import Thresholds, TurnModel, feature_matrix
from dctx.providers.embedders import get_embedder

MODEL_DIR = Path(__file__).resolve().parents[2] / "src/dctx/capture/reading/model"
# admission bands, from out-of-fold predictions on real turns: a rule at once where F1 peaks,
# a candidate (kept with evidence, never injected) where F2 peaks (recall weighed 4x)
ACTIVE_BETA = 1.0
CANDIDATE_BETA = 2.0


def _cached_rows(data: Path, splits: list[str], cache: Path, embedder):  # type: ignore[no-untyped-def]
    """_rows of every corpus file, each file's features kept under `cache`."""
    parts = [
        _file_rows(p, split, cache, embedder)
        for p in sorted(data.glob("*.jsonl"))
        for split in splits
    ]
    return tuple(np.concatenate([p[k] for p in parts]) for k in range(4))


def _file_rows(path: Path, split: str, cache: Path, embedder):  # type: ignore[no-untyped-def]
    """_rows of one file's split, kept under `cache` by the file's content hash (MiniLM is
    the slow part; a corpus file that did not change is not read again)."""
    cache.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    dest = cache / f"{path.stem}-{digest}-{split}.npz"
    if not dest.exists():
        x, y, groups, real = _rows([s for s in _read(path) if s.split == split], embedder)
        np.savez(dest, x=x, y=y, groups=groups, real=real)
    with np.load(dest, allow_pickle=False) as d:
        return d["x"], d["y"], d["groups"], d["real"]


def _rows(sessions, embedder):  # type: ignore[no-untyped-def]
    pairs = [(s, lab, t) for s in sessions for lab, t in s.turn_inputs()]
    if not pairs:
        return np.zeros((0, 2 * embedder.dim + 1 + len(NAMES)), np.float32), *(
            np.array([], dtype=k) for k in (str, str, bool)
        )
    x = feature_matrix(embedder, [t for _, _, t in pairs])
    y = np.array([lab.kind.value for _, lab, _ in pairs])
    groups = np.array([_group(s) for s, _, _ in pairs])
    real = np.array([not s.synthetic for s, _, _ in pairs])
    return x, y, groups, real


def _group(session) -> str:  # type: ignore[no-untyped-def]
    """Sessions of one repository stay in one fold, as they do in one split."""
    return str(session.source.get("repo") or session.session_id)


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def _threshold(p: np.ndarray, truth: np.ndarray, beta: float) -> float:
    """The probability that maximises F-beta of lasting turns (beta < 1 weighs precision)."""
    order = np.argsort(-p)
    tp = np.cumsum(truth[order])
    prec = tp / np.arange(1, len(p) + 1)
    rec = tp / max(truth.sum(), 1)
    f = (1 + beta**2) * prec * rec / np.maximum(beta**2 * prec + rec, 1e-9)
    f[:2] = 0.0  # at least three turns picked
    return float(p[order][int(np.argmax(f))])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--out", type=Path, default=MODEL_DIR)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--synthetic-weight", type=float, default=1.0)
    ap.add_argument("--splits", default="train,dev", help="what to train on (never test)")
    ap.add_argument("--cache", type=Path, help="keep the features of each corpus file here")
    args = ap.parse_args(argv)
    splits = [s for s in args.splits.split(",") if s]
    if "test" in splits:
        ap.error("the test split is the evaluation set; train on train and dev only")
    embedder = get_embedder("minilm")
    if args.cache is not None:
        x, y, groups, real = _cached_rows(args.data, splits, args.cache, embedder)
    else:
        x, y, groups, real = _rows(load_corpus(args.data, splits=splits), embedder)
    lasting = np.array([TurnKind(v) in LASTING for v in y])
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6
    xs = (x - mean) / scale
    weight = np.where(real, 1.0, args.synthetic_weight)
    folds = GroupKFold(n_splits=args.folds)
    best = None
    for c in (0.001, 0.003, 0.01, 0.03):
        oof = np.zeros(len(y))
        for tr, te in folds.split(xs, lasting, groups):
            clf = LogisticRegression(C=c, max_iter=3000, class_weight="balanced")
            clf.fit(xs[tr], lasting[tr], sample_weight=weight[tr])
            oof[te] = clf.decision_function(xs[te])
        ap_real = average_precision_score(lasting[real], oof[real])
        ap_all = average_precision_score(lasting, oof, sample_weight=weight)
        print(
            f"C={c}: out-of-fold average precision {ap_all:.3f} (real turns {ap_real:.3f})",
            file=sys.stderr,
        )
        if best is None or ap_real > best[0]:
            best = (ap_real, c, oof)
    assert best is not None
    ap_real, c, oof = best
    platt = LogisticRegression(C=1e6).fit(oof[:, None], lasting, sample_weight=weight)
    a, b = float(platt.coef_[0, 0]), float(platt.intercept_[0])
    p_oof = 1.0 / (1.0 + np.exp(-(a * oof + b)))
    active = _threshold(p_oof[real], lasting[real], ACTIVE_BETA)
    candidate = min(_threshold(p_oof[real], lasting[real], CANDIDATE_BETA), active)
    for name, rows in (("real", real), ("all", np.ones_like(real))):
        for band, t in (("active", active), ("candidate", candidate)):
            picked = rows & (p_oof >= t)
            print(
                f"out-of-fold {name} turns, {band} band (p >= {t:.3f}): precision "
                f"{lasting[picked].mean() if picked.any() else 1:.2f}, recall "
                f"{(picked & lasting).sum() / max((rows & lasting).sum(), 1):.2f}",
                file=sys.stderr,
            )
    final = LogisticRegression(C=c, max_iter=3000, class_weight="balanced")
    final.fit(xs, lasting, sample_weight=weight)
    kinds = LogisticRegression(C=0.01, max_iter=3000, class_weight="balanced")
    kinds.fit(xs, y, sample_weight=weight)
    files = sorted(args.data.glob("*.jsonl"))
    model = TurnModel(
        classes=tuple(TurnKind(cl) for cl in kinds.classes_),
        coef=kinds.coef_.astype(np.float32),
        intercept=kinds.intercept_.astype(np.float32),
        lasting_coef=final.coef_[0].astype(np.float32),
        lasting_intercept=float(final.intercept_[0]),
        mean=mean.astype(np.float32),
        scale=scale.astype(np.float32),
        temperature=1.0,
        platt=(a, b),
        thresholds=Thresholds(active=round(active, 4), candidate=round(candidate, 4)),
        embedder_id=embedder.id,
        meta={
            "version": dt.date.today().isoformat(),
            "trained_on": {f.name: hashlib.sha256(f.read_bytes()).hexdigest()[:16] for f in files},
            "splits": splits,
            "synthetic_weight": args.synthetic_weight,
            "turns": len(y),
            "real_turns": int(real.sum()),
            "real_lasting_turns": int(lasting[real].sum()),
            "C": c,
            "oof_average_precision_real": round(float(ap_real), 4),
            "label_counts": {cl: int((y == cl).sum()) for cl in sorted(set(y))},
        },
    )
    args.out.mkdir(parents=True, exist_ok=True)
    model.save(args.out)
    print(
        f"wrote {args.out}: C={c} AP={ap_real:.3f} active>={active:.3f} "
        f"candidate>={candidate:.3f} ({len(y)} turns, {int(real.sum())} real)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
