"""A faster copy of the shipped MiniLM for query and step texts, derived once per machine.

The shipped model keeps int8 weights that onnxruntime expands to float32 when it loads them,
so every forward pass is float32 matrix products. Decision points embed a new step text each
time, and that pass is almost all of their cost. Dynamic quantization (weights int8 per
output channel, activations quantized to int8 on each call) runs the same network about
twice as fast on CPUs with int8 dot-product instructions, and its vectors stay within about
0.01 cosine of the exact ones: close enough to compare a step with rules embedded exactly,
so stored vectors remain the model's own and nothing is re-embedded.

The derived file is built from the verified model (a few seconds), kept in the user's cache
directory under a name that carries the source hash, this recipe and the onnxruntime
version, and checked against a sidecar sha256 before each use: a truncated or altered file
is rebuilt, never run. Building needs the `onnx` package; without it (or when the build
fails) callers use the exact model.
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
from pathlib import Path

from dctx.cache_dir import default_cache_dir

__all__ = ["RECIPE", "default_cache_dir", "fast_model_path"]

log = logging.getLogger("dctx")

#: How the derived model is made; change it to make every cached copy stale.
RECIPE = "dynamic-int8-per-channel-1"


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _target(cache_dir: Path, source_sha: str) -> Path:
    import onnxruntime as ort

    return cache_dir / f"minilm-{source_sha[:16]}-{RECIPE}-ort{ort.__version__}.onnx"


def fast_model_path(source: Path, source_sha: str, cache_dir: Path) -> Path | None:
    """The derived model for `source` (verified to hash to `source_sha`), built if absent or
    damaged; None when it cannot be built here (the caller then uses the exact model)."""
    try:
        target = _target(cache_dir, source_sha)
        sidecar = target.with_suffix(".sha256")
        if target.is_file() and sidecar.is_file():
            if sidecar.read_text(encoding="ascii").strip() == sha256_file(target):
                return target
            log.warning("rebuilding %s: its sha256 does not match %s", target, sidecar)
        return _build(source, target, sidecar)
    except ImportError:
        log.info("onnx is not installed: step and query texts use the exact MiniLM")
    except Exception as exc:  # any failure here only costs speed, never correctness
        log.warning(
            "could not derive the fast MiniLM in %s (%s); using the exact one", cache_dir, exc
        )
    return None


def _build(source: Path, target: Path, sidecar: Path) -> Path:
    """Fold the int8 weights to float32 (onnxruntime's basic graph optimizations), quantize
    that graph dynamically, then move the file and its hash into place atomically, so
    processes building at the same time each leave a complete, identical file."""
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    target.parent.mkdir(parents=True, exist_ok=True)
    log.info("deriving the fast MiniLM for step texts into %s (once)", target)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".build-") as tmp:
        folded, quantized = Path(tmp) / "folded.onnx", Path(tmp) / "quantized.onnx"
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(folded)
        options.log_severity_level = 3
        ort.InferenceSession(str(source), sess_options=options, providers=["CPUExecutionProvider"])
        previous = logging.root.manager.disable
        logging.disable(logging.WARNING)  # quantize_dynamic advises pre-processing on root
        try:
            quantize_dynamic(folded, quantized, weight_type=QuantType.QInt8, per_channel=True)
        finally:
            logging.disable(previous)
        digest = sha256_file(quantized)
        hashed = Path(tmp) / "quantized.sha256"
        hashed.write_text(digest + "\n", encoding="ascii")
        os.replace(quantized, target)
        os.replace(hashed, sidecar)
    return target
