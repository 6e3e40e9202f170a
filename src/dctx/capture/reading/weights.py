"""The shipped weights of the learned readers: a `.npz` of arrays (no pickle) beside a `.json`
record of what they were trained on and which features they read, both in `model/`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt


def read_weights(
    folder: Path | None,
    name: str,
    *,
    what: str,
    trainer: str,
    features_key: str,
    features: Sequence[str],
) -> tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]:
    """The record and arrays of model `name` in `folder` (default: the package's `model/`).
    A missing model, or one trained on other features than the code reads, is a ConfigError
    that says how to train it (`trainer`)."""
    from dctx.errors import ConfigError

    base = folder if folder is not None else Path(str(resources.files(__package__) / "model"))
    npz, meta_file = base / f"{name}.npz", base / f"{name}.json"
    if not npz.exists() or not meta_file.exists():
        raise ConfigError(
            f"{what} model {name!r} not found in {base}; train it with python {trainer}"
        )
    meta = json.loads(meta_file.read_text())
    if list(meta[features_key]) != list(features):
        raise ConfigError(
            f"{what} model in {base} was trained on other features; retrain it with "
            f"python {trainer}"
        )
    with np.load(npz, allow_pickle=False) as arrays:
        return meta, {key: arrays[key] for key in arrays.files}


def write_weights(folder: Path, name: str, arrays: dict[str, Any], meta: dict[str, Any]) -> None:
    """Write model `name` to `folder`: its arrays (as float32) and its record."""
    as_float32: dict[str, Any] = {k: np.asarray(a, dtype=np.float32) for k, a in arrays.items()}
    np.savez_compressed(folder / f"{name}.npz", **as_float32)
    (folder / f"{name}.json").write_text(json.dumps(meta, indent=2) + "\n")
