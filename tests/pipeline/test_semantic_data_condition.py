"""A data condition met in other words: "the news turns up litigation" by a headline that
says a parish sues the company; and rules that share one stated condition."""

from __future__ import annotations

from pathlib import Path

import pytest

from dctx.memory import Memory
from dctx.providers.base import Embedder
from dctx.providers.fakes import FakeEmbedder
from dctx.store.sqlite import SQLiteStore


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


def test_rules_of_one_stated_condition_are_delivered_together(tmp_path: Path) -> None:
    """One rule reaches the query by its own words; its sibling (same stated condition, same
    person) comes with it although its words do not. A bag-of-words embedder makes the
    similarities exact."""
    mem = Memory(SQLiteStore(tmp_path / "m.db"), embedder=FakeEmbedder(256))
    mem.capture(
        [
            {"role": "user", "content": "Compare Quillstone Foods and Brightmere Brands."},
            {"role": "assistant", "content": "Quillstone has the higher margins."},
            {
                "role": "user",
                "content": "Whenever I ask you to compare companies: side-by-side table, one "
                "column per company, metrics down the rows, and bold whichever is better in "
                "each row.",
            },
        ],
        actor="marcus",
        skill="analyst",
        conversation_id="s1",
    )
    assert len(mem.rules()) == 2
    run = mem.start(
        actor="marcus",
        skill="analyst",
        query="side-by-side table, one column per company, metrics down the rows",
    )
    texts = " ".join(u.text for u in run.units)
    assert "table" in texts and "bold" in texts
    other = mem.start(actor="ines", skill="analyst", query="side-by-side table per company")
    assert other.units == []  # marcus's condition, not ines's
