"""Fit the words of a step summary into a budget of the embedder's word pieces.

A decision point's cost is the forward pass over the summary, and that pass costs per word
piece, not per word: an identifier such as "10-Q/123" or a timestamp is five to fifteen
pieces, a plain word one or two. So the summary is bounded in pieces when the embedder can
count them (`query_pieces` in providers/base.py), and in words when it cannot.

Over budget, words with a digit go first, the last of them first: dates, versions, ids and
hosts differ on every call and say little an embedder matches in words (values with no
letter at all are already left out), while they cost the most pieces. Then the head of
what is left is kept, in order. The first word (the tool name) always stays.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

__all__ = ["SUMMARY_CHARS", "SUMMARY_PIECES", "SUMMARY_WORDS", "PieceCounter", "fit"]

#: Counts the word pieces of each word (None: this embedder cannot say).
PieceCounter = Callable[[Sequence[str]], "list[int] | None"]

SUMMARY_CHARS = 400
# Word pieces embedded of a step ([CLS] and [SEP] aside). The quantized MiniLM pass costs
# ~0.13 ms per piece over ~0.8 ms fixed, and it is most of a decision point. At 24, every
# DC-Bench decision point delivers what it did with the 16-word summary (half the steps
# are cut); at 20, the unrelated-news step of test_semantic_data_condition.py loses its
# last words and rises over the data floor.
SUMMARY_PIECES = 24
# Words embedded of a step when the embedder cannot count its pieces (the same order of
# cost: a word is ~1.5 pieces in DC-Bench steps, far more in ids and timestamps).
SUMMARY_WORDS = 16


def fit(words: Sequence[str], pieces: PieceCounter | None = None) -> str:
    """The words that fit the budget, joined: SUMMARY_PIECES pieces when `pieces` counts
    them, else SUMMARY_WORDS words; never more than SUMMARY_CHARS characters."""
    head = _within_chars(words) if pieces is not None else []
    counts = pieces(head) if pieces is not None and head else None
    if counts is None:
        return " ".join(words[:SUMMARY_WORDS])[:SUMMARY_CHARS]
    total = sum(counts)
    dropped: set[int] = set()
    for i in range(len(head) - 1, 0, -1):
        if total <= SUMMARY_PIECES:
            break
        if any(c.isdigit() for c in head[i]):
            dropped.add(i)
            total -= counts[i]
    out: list[str] = []
    used = 0
    for i, word in enumerate(head):
        if i in dropped:
            continue
        used += counts[i]
        if used > SUMMARY_PIECES and out:
            break
        out.append(word)
    return " ".join(out)[:SUMMARY_CHARS]


def _within_chars(words: Sequence[str]) -> list[str]:
    """The leading words whose joined text stays within SUMMARY_CHARS (at least one), so a
    long plain-text result is never split or counted whole."""
    out: list[str] = []
    length = -1
    for word in words:
        length += len(word) + 1
        if length > SUMMARY_CHARS and out:
            break
        out.append(word)
    return out
