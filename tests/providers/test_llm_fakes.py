"""The shipped fakes: ScriptedLLM and FakeEmbedder behave as documented."""

from __future__ import annotations

import re
import threading

import numpy as np
import pytest

from dctx.errors import ProviderError
from dctx.providers.base import LLM, Embedder
from dctx.providers.fakes import FakeEmbedder, ScriptedLLM
from dctx.tokens import count_tokens


def test_protocols() -> None:
    assert isinstance(ScriptedLLM(), LLM)
    assert isinstance(FakeEmbedder(), Embedder)


def test_rules_win_over_queue_and_repeat() -> None:
    llm = ScriptedLLM(["first", "second"])
    llm.when("classify", {"aftermath": "acceptance"})
    llm.when(re.compile(r"comp\w+"), lambda s, u, schema: {"rules": [], "saw": u})
    assert llm.complete("sys", "please classify")[0] == '{"aftermath": "acceptance"}'
    assert llm.complete("sys", "please classify")[0] == '{"aftermath": "acceptance"}'
    assert llm.complete("sys", "compile this")[0] == '{"rules": [], "saw": "compile this"}'
    assert llm.complete("sys", "other")[0] == "first"
    assert llm.pending == 1
    assert llm.complete("sys", "other")[0] == "second"
    with pytest.raises(ProviderError, match="no scripted response"):
        llm.complete("sys", "other")


def test_default_and_predicate_rules_see_the_schema() -> None:
    llm = ScriptedLLM(default="fallback")
    llm.when(lambda s, u, schema: schema is not None, "{}")
    assert llm.complete("s", "u")[0] == "fallback"
    assert llm.complete("s", "u", schema={"type": "object"})[0] == "{}"


def test_exceptions_are_raised_and_calls_recorded() -> None:
    llm = ScriptedLLM([ProviderError("down"), "ok"])
    with pytest.raises(ProviderError, match="down"):
        llm.complete("s", "u1")
    assert llm.complete("s", "u2", schema={"type": "object"})[0] == "ok"
    assert [c.user for c in llm.calls] == ["u1", "u2"]
    assert llm.calls[0].text is None
    assert llm.calls[1].schema == {"type": "object"}


def test_usage_is_counted_with_the_documented_tokenizer() -> None:
    llm = ScriptedLLM(["a b c d"])
    _, usage = llm.complete("one two", "three, four")
    assert usage.input_tokens == count_tokens("one two") + count_tokens("three, four") == 5
    assert usage.output_tokens == 4
    assert llm.usage.input_tokens == 5 and llm.usage.output_tokens == 4


def test_scripted_llm_is_thread_safe() -> None:
    llm = ScriptedLLM([str(i) for i in range(200)])
    out: list[str] = []
    lock = threading.Lock()

    def worker() -> None:
        for _ in range(50):
            text = llm.complete("s", "u")[0]
            with lock:
                out.append(text)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(out, key=int) == [str(i) for i in range(200)]  # each answered exactly once
    assert len(llm.calls) == 200


def test_fake_embedder_is_deterministic_normalized_and_lexical() -> None:
    emb = FakeEmbedder(dim=128)
    texts = ["refund the order", "refund the order now", "quarterly revenue growth", ""]
    a = emb.embed(texts)
    b = FakeEmbedder(dim=128).embed(texts)
    assert a.dtype == np.float32 and a.shape == (4, 128)
    assert np.array_equal(a, b)
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-6)
    assert a[0] @ a[1] > a[0] @ a[2]  # shared words -> closer
    assert emb.embed([]).shape == (0, 128)
    assert emb.calls[0] == texts
    assert emb.id == "fake-bow-128"
    with pytest.raises(ValueError):
        FakeEmbedder(dim=1)
