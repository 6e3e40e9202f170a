"""The compact form of a tool step that is embedded at a decision point."""

from __future__ import annotations

import json

from dctx.retrieve.budget import SUMMARY_WORDS
from dctx.retrieve.context import step_summary

NEWS = json.dumps(
    {
        "results": [
            {"date": "2026-03-02", "source": "Bloomberg", "headline": "Parish sues Penhallow"},
            {"date": "2026-02-20", "source": "Chemical Week", "headline": "Penhallow misses"},
        ]
    }
)


def test_keys_are_said_once_and_values_whole() -> None:
    text = step_summary("search_news", json.dumps({"query": "Penhallow"}), NEWS)
    words = text.split()
    assert words.count("results") == 1 and words.count("headline") == 1  # not once per item
    assert "Parish sues Penhallow" in text and "Penhallow misses" in text  # names kept
    assert "Bloomberg" in words and "Chemical Week" in text


def test_values_without_a_letter_are_left_out() -> None:
    text = step_summary("search_news", json.dumps({"days": "60", "ticker": "PNHC"}), NEWS)
    assert "2026-03-02" not in text and "60" not in text.split()
    assert "PNHC" in text and "date" in text.split()  # the key stays; its value says nothing


def test_the_call_comes_first_and_the_summary_is_bounded() -> None:
    """The forward pass costs per word piece: a long listing is embedded by its call and
    the head of its result, not all of it."""
    listing = json.dumps(
        {"results": [{"headline": f"Story {i} about Penhallow"} for i in range(40)]}
    )
    text = step_summary("search_news", json.dumps({"query": "Penhallow"}), listing)
    assert text.startswith("search_news query Penhallow results headline Story 0")
    assert len(text.split()) == SUMMARY_WORDS
    plain = step_summary("read_file", json.dumps({"path": "notes"}), "word " * 100)
    assert plain.startswith("read_file path notes word") and len(plain.split()) == SUMMARY_WORDS
