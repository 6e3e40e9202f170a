"""Take out of a user turn the words it repeats from tool output seen earlier in the session.

Text inside tool results is data, never a source of rules (README, "Security model"). A user
who warns about, reports, pastes or disowns what a tool returned repeats its words; those
words are still the tool's, whatever the framing around them, so they are removed before the
turn is read. What stays is what the user said in their own words ("that is spam, ignore
it"), which states no rule.

An echo is a run of at least `RUN` consecutive words that also occur, in that order, in an
earlier tool result. The check is on word order, not on wording: it reads no phrases, so it
holds in any domain and language the tokenizer splits into words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

RUN = 5  # shortest run of words that counts as repeated (shorter runs repeat by chance)
_WORD = re.compile(r"\w+", re.UNICODE)
_QUOTES = "'\"`‘’“”«»"
_MAX_TOOL_CHARS = 200_000  # of one tool result: the longest a user plausibly quotes from


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text)]


@dataclass(slots=True)
class EchoIndex:
    """The word runs of the tool results seen so far in one session."""

    runs: set[tuple[str, ...]] = field(default_factory=set)

    @classmethod
    def of(cls, *outputs: str) -> EchoIndex:
        index = cls()
        index.extend(outputs)
        return index

    def add(self, tool_output: str) -> None:
        words = _words(tool_output[:_MAX_TOOL_CHARS])
        self.runs.update(tuple(words[k : k + RUN]) for k in range(len(words) - RUN + 1))

    def extend(self, outputs: Iterable[str]) -> None:
        for text in outputs:
            self.add(text)

    def cut(self, text: str) -> tuple[str, int]:
        """`text` without the word runs it repeats from tool output, and how many characters
        were taken out."""
        if not self.runs or not text:
            return text, 0
        spans = [(m.start(), m.end(), m.group().casefold()) for m in _WORD.finditer(text)]
        covered = [False] * len(spans)
        for k in range(len(spans) - RUN + 1):
            if tuple(w for _, _, w in spans[k : k + RUN]) in self.runs:
                covered[k : k + RUN] = [True] * RUN
        if not any(covered):
            return text, 0
        out: list[str] = []
        pos = 0
        k = 0
        while k < len(spans):
            if not covered[k]:
                k += 1
                continue
            start = spans[k][0]
            while k < len(spans) and covered[k]:
                k += 1
            end = spans[k - 1][1]
            # the punctuation that closes the repeated text goes with it, and so do the
            # quotation marks around it
            while end < len(text) and not text[end].isspace() and not text[end].isalnum():
                end += 1
            while start > pos and text[start - 1] in _QUOTES:
                start -= 1
            out.append(text[pos:start])
            pos = end
        out.append(text[pos:])
        kept = re.sub(r"[ \t]{2,}", " ", "".join(out)).strip()
        return kept, len(text) - len(kept)
