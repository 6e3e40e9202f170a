"""A data condition met in other words: "the news turns up litigation" by a headline that
says a parish sues the company. Needs the MiniLM embedder (the calibrated floor is its)."""

from __future__ import annotations

import pytest

from dctx.memory import Memory
from dctx.providers.base import Embedder


def _session(company: str) -> list[dict[str, object]]:
    return [
        {"role": "user", "content": f"Quarterly review of {company}."},
        {"role": "assistant", "content": f"{company} grew revenue 4% and margins held."},
        {
            "role": "user",
            "content": "When the news turns up litigation, don't stop at the headline - pull "
            "the legal proceedings section of the latest 10-K and size the exposure.",
        },
    ]


NEWS_SUIT = {
    "results": [
        {
            "headline": "Louisiana parish sues Penhallow over PFAS discharge",
            "summary": "Suit seeks remediation costs and punitive damages; class action filed.",
        }
    ]
}
NEWS_PLAIN = {"results": [{"headline": "Penhallow opens a new plant in Ohio", "summary": "Jobs."}]}


@pytest.fixture
def minilm_mem(mem: Memory, embedder: Embedder) -> Memory:
    if not embedder.id.startswith("minilm"):
        pytest.skip("the semantic floor is calibrated for MiniLM")
    mem.capture(_session("Quarry Chemicals"), actor="raj", skill="analyst", conversation_id="s1")
    return mem


def _news_units(mem: Memory, news: dict[str, object]) -> list[str]:
    run = mem.start(actor="raj", skill="analyst", query="Quarterly review of Penhallow.")
    assert run.units == []  # nothing known yet: the condition is about the news
    units = run.observe({"name": "search_news", "arguments": {"query": "Penhallow"}}, news)
    return [u.text for u in units]


def test_condition_met_in_other_words(minilm_mem: Memory) -> None:
    units = _news_units(minilm_mem, NEWS_SUIT)
    assert len(units) == 1 and "legal proceedings" in units[0]


def test_unrelated_news_does_not_meet_it(minilm_mem: Memory) -> None:
    assert _news_units(minilm_mem, NEWS_PLAIN) == []
