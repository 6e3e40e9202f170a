"""The step summary is bounded in the word pieces the embedder's query pass costs."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pytest

from dctx.errors import ProviderError
from dctx.memory import Memory
from dctx.providers.base import query_pieces
from dctx.providers.fakes import FakeEmbedder
from dctx.providers.minilm import MiniLMEmbedder, missing_minilm_dependencies
from dctx.retrieve.budget import SUMMARY_PIECES, SUMMARY_WORDS, fit
from dctx.retrieve.context import step_summary
from dctx.store.sqlite import SQLiteStore


def by_length(words: Sequence[str]) -> list[int]:
    """A stand-in tokenizer: one piece per three characters (ids and dates cost most)."""
    return [1 + len(w) // 3 for w in words]


FILING = json.dumps(
    {
        "filing": "10-Q/2026-000123",
        "filed": "2026-04-17T17:00:00-07:00",
        "company": "Corvid Semiconductor",
        "segments": [{"name": "Data Center", "revenue": 2985.0}, {"name": "Automotive"}],
        "note": "restated prior quarter after the audit committee review of segment revenue",
    }
)


def pieces_of(text: str) -> int:
    return sum(by_length(text.split()))


def test_a_summary_is_bounded_in_pieces_not_words() -> None:
    text = step_summary("get_filing", json.dumps({"ticker": "CRVD"}), FILING, by_length)
    assert pieces_of(text) <= SUMMARY_PIECES
    words_only = step_summary("get_filing", json.dumps({"ticker": "CRVD"}), FILING)
    assert pieces_of(words_only) > SUMMARY_PIECES  # 16 words of ids and dates cost more


def test_words_with_a_digit_go_first_and_the_call_stays() -> None:
    text = step_summary("get_filing", json.dumps({"ticker": "CRVD"}), FILING, by_length)
    words = text.split()
    assert words[:3] == ["get_filing", "ticker", "CRVD"]
    assert not any(c.isdigit() for w in words for c in w)  # ids and timestamps dropped
    assert words[-2:] == ["company", "Corvid"]  # and the words they made room for kept


def test_under_budget_nothing_is_dropped_and_the_word_cap_no_longer_applies() -> None:
    words = ["search", "v2", *["a"] * 18]  # 20 one-piece words: over 16 words, within budget
    assert fit(words, lambda ws: [1] * len(ws)).split() == words
    assert len(fit(words).split()) == SUMMARY_WORDS  # an embedder that cannot count pieces


def test_the_first_word_stays_even_alone_over_budget() -> None:
    name = "x" * 100
    assert fit([name, "more"], by_length) == name


def test_an_embedder_without_piece_counts_keeps_the_word_budget() -> None:
    assert query_pieces(FakeEmbedder(), ["a", "b"]) is None
    mem = Memory(SQLiteStore(":memory:"), embedder=FakeEmbedder())
    run = mem.start(actor="ann", skill="fin", query="review the filing", record=False)
    run.observe({"name": "read", "arguments": {}}, "word " * 40)
    assert len(run.ctx.summaries[-1].split()) == SUMMARY_WORDS


class CountingEmbedder(FakeEmbedder):
    def query_pieces(self, words: Sequence[str]) -> list[int]:
        return by_length(words)


def test_a_run_budgets_its_steps_with_the_embedders_pieces() -> None:
    mem = Memory(SQLiteStore(":memory:"), embedder=CountingEmbedder())
    run = mem.start(actor="ann", skill="fin", query="review the filing", record=False)
    run.observe({"name": "get_filing", "arguments": {"ticker": "CRVD"}}, FILING)
    summary = run.ctx.summaries[-1]
    assert pieces_of(summary) <= SUMMARY_PIECES and "2026" not in summary
    assert "audit" not in summary  # the note is past the budget, yet keyword conditions
    assert {"restat", "audit", "committe"} <= run.ctx.stems  # still read the whole result
    assert any(value == 2985.0 for _, value in run.ctx.numbers)  # and thresholds too


@pytest.mark.skipif(bool(missing_minilm_dependencies()), reason="MiniLM absent")
def test_minilm_counts_the_pieces_its_query_pass_reads() -> None:
    emb = MiniLMEmbedder()
    words = "get_segments company Corvid filing 10-Q/123 revenue".split()
    counts = emb.query_pieces(words)
    _, tokenizer = emb._ensure_loaded(fast=True)
    read = tokenizer.encode(" ".join(words)).ids  # what embed_query feeds the model
    assert sum(counts) == len(read) - 2  # [CLS] and [SEP] aside
    assert all(c >= 1 for c in counts) and counts[4] > counts[5]  # the id costs more
    assert np.isfinite(emb.embed_query([" ".join(words)])).all()
    emb._tokenizer = None  # every word is known now: none is tokenized again
    assert emb.query_pieces(words[::-1]) == counts[::-1]
    emb.forget_texts()  # a forget empties the words too
    with pytest.raises(ProviderError):
        emb.query_pieces(words)
