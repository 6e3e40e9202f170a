"""A turn that changes the value of a rule its speaker already has.

"Update on shipping: it's $65 now. Badge for $65 and up." after the rule "badge only on $75
and up" updates that rule. Read alone, the turn is news or a question (the turn reader gives
it p 0.00, "can you tell me what RJ-1204 costs?" at its end), and the old value stays active.
Capture reads each turn the reader does not admit against its speaker's rules (the active
rules of the same actor and skill, and the directives admitted earlier in the session): a turn
that speaks of a rule's subject (shares at least two of its content words) and gives another
quantity of the same kind where the rule has one (a number after the same currency sign, or
before the same unit or noun, that the turn does not repeat) revises it. The turn's sentences
that hold the new quantity, questions, one-off fixes and pasted output aside, are the new rule (the
commands among them where some are: "Badge for $65 and up.", not "it's $65 now."), with those
that say again one of the rule's other values ("Keep the 90-day payment at 50%."): the new rule
supersedes the old one, so what the speaker keeps of it must be in the new one. Compile puts it
in the old rule's conflict group, where the newer one supersedes.

Only a quantity counts as a value: a changed word ("the qa namespace now") is what the turn
reader and compile's supersession already weigh, and a number inside an identifier ("GL-2210",
"v2") is a name, not a value.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from dctx.capture.cues import SentenceKind, classify_sentence, command_words, is_directive
from dctx.capture.pasted import code_token
from dctx.capture.verbs import REMOVALS
from dctx.grammar import opens_command, tells_of_the_past
from dctx.text import QUOTED, STOPWORDS, sentences, stem
from dctx.units import time_unit

# a number after a currency sign, or before a unit or noun ("$65", "15 working days", "30%"),
# joined to it as a compound adjective ("a 2-hour threshold"), or a rate ("30 a week", "2 per
# visit": the kind is what it is per); not part of an identifier ("GL-2210", "v2", "3.4.0-rc",
# "COVID-19")
_QUANTITY = re.compile(
    r"(?<![\w.\-])(?P<sign>[$€£])?\s?(?P<number>\d+(?:[.,]\d+)?)"
    r"(?:-(?P<joined>[A-Za-z]{2,})\b|(?![\w\-]|\.\d)"
    r"(?:\s?(?P<unit>%|(?:(?:an?|per)\s+)?[A-Za-z]+))?)"
)
# a number after a unit of time: a point on that scale ("on day 5", "in week 3"); which words
# are units of time is pint's registry (dctx/units.py), so "room 12" or "v2" is no quantity
_AFTER_UNIT = re.compile(r"(?<![\w.\-])(?P<unit>[A-Za-z]{3,})\s(?P<number>\d+)(?![\w\-]|[.,]\d)")
_AMOUNT = re.compile(r"[$€£]?\d[\d.,]*%?\W*$")  # "$65," is an amount, not code
_LETTERS = re.compile(r"[a-z]+")
_SHARED_WORDS = 2  # what a turn must share with a rule to speak of its subject


@dataclass(frozen=True, slots=True)
class Revision:
    """The rule a turn revises and the sentences that say its new value."""

    rule: str
    sentences: tuple[str, ...]


def forget_read_texts() -> None:
    """Empty the caches of quantities and subject words (keyed by rule and turn texts),
    after a forget."""
    quantities.cache_clear()
    _subject_words.cache_clear()


@functools.lru_cache(maxsize=4096)  # a speaker's rules are read against each of their turns
def quantities(text: str) -> frozenset[tuple[str, str]]:
    """(kind, number) of each quantity in `text`: the kind is the currency sign, "%", the
    stem of the word after the number ("15 working days" -> "work") or of the unit of time
    before it ("on day 5" -> "day"); a bare number has none."""
    out: set[tuple[str, str]] = set()
    for m in _QUANTITY.finditer(text):
        said = (m.group("unit") or m.group("joined") or "").lower().split()
        unit = said[-1] if said else ""  # "a week" -> week
        kind = m.group("sign") or (
            unit if unit == "%" else (stem(unit) if unit and unit not in STOPWORDS else "")
        )
        if kind:
            out.add((kind, m.group("number").replace(",", "")))
    for m in _AFTER_UNIT.finditer(text):
        if time_unit(m.group("unit").lower()):
            out.add((stem(m.group("unit").lower()), m.group("number")))
    return frozenset(out)


def numbers(text: str) -> list[tuple[slice, str, bool]]:
    """Where each number of `text` stands, with its currency sign and whether it is a
    percentage: the places a corrected number goes (capture/self_repair.py)."""
    return [
        (slice(*m.span("number")), m.group("sign") or "", m.group("unit") == "%")
        for m in _QUANTITY.finditer(text)
    ]


@functools.lru_cache(maxsize=4096)
def _subject_words(text: str) -> frozenset[str]:
    """Stems of the text's words, hyphenated ones split ("free-shipping": free, ship)."""
    return frozenset(
        stem(w) for w in _LETTERS.findall(text.lower()) if w not in STOPWORDS and len(w) > 2
    )


def _changed(
    turn: frozenset[tuple[str, str]], rule: frozenset[tuple[str, str]]
) -> set[tuple[str, str]]:
    """The turn's quantities that replace one of the rule's: of a kind the rule has, with a
    number it has not. The old number may be said too ("goes up to £150 a day, so the £120
    rate is gone"): the sentences that carry the new one are the new rule, whatever else
    they keep."""
    kinds = {kind for kind, _ in rule}
    return {(kind, number) for kind, number in turn - rule if kind in kinds}


def revision(text: str, rules: Iterable[str]) -> Revision | None:
    """The latest of `rules` whose value the turn changes, with the sentences of the turn
    that say the new value; None when it changes none."""
    said = quantities(text)
    if not said:
        return None
    words = _subject_words(text)
    parts = sentences(text)
    spoken: list[str] | None = None  # the sentences said for good, read once when first needed
    for rule in reversed(list(rules)):
        new = _changed(said, quantities(rule))
        if not new or len(words & _subject_words(rule)) < _SHARED_WORDS:
            continue
        if spoken is None:
            spoken = [s for s in parts if _said(s)]
        carrying = [s for s in spoken if quantities(s) & new]
        if not carrying:
            continue
        chosen = {s for value in new for s in _saying(value, carrying)}
        kept = _kept(spoken, quantities(rule) & said, carrying)
        return Revision(rule, tuple(s for s in parts if s in chosen or s in kept))
    return None


def _saying(value: tuple[str, str], carrying: list[str]) -> list[str]:
    """The sentences that say one new value: of those that carry it, the commands where some
    are, by the parser's reading first, then the cues' ("Quote 14 working days."), each of
    what follows a label ("Update on shipping: it's $65 now." commands nothing, "Badge for $65
    and up." does). Each new value keeps its own ("Back to 10 days on will-call. ... send it
    on day 5 instead of day 7.")."""
    said = [s for s in carrying if value in quantities(s)]
    parsed = [s for s in said if opens_command(_after_label(s))]
    listed = [s for s in said if is_directive(_after_label(s))]
    return parsed or listed or said


def _kept(spoken: list[str], held: frozenset[tuple[str, str]], carrying: list[str]) -> list[str]:
    """The turn's other sentences said for good (of `spoken`) that say again a value of the
    rule (`held`): what the speaker keeps beside the change ("Keep the 90-day payment at
    50%."), which the new rule, superseding the old one, must still say. A sentence that tells
    of the past names a value in a story or a reason ("The 14-day thing blew up our
    numbers."), not what holds."""
    return [
        s for s in spoken if s not in carrying and quantities(s) & held and not tells_of_the_past(s)
    ]


def withdrawal(text: str, rules: Iterable[str]) -> str | None:
    """The sentence of the turn that takes back what one of `rules` asks for: a command of
    removal ("Drop the review link from my texts.") that speaks of the rule's subject (shares
    at least two of its content words); None when there is none. Read alone the turn is a
    request for this task (the reader gives it p 0.08), and the rule stays active."""
    known = [_subject_words(rule) for rule in rules]
    for sentence in sentences(text):
        said = command_words(sentence)
        if not _said(sentence) or not said or said[0] not in REMOVALS:
            continue
        words = _subject_words(sentence)
        if any(len(words & rule) >= _SHARED_WORDS for rule in known):
            return sentence
    return None


def replacement(text: str, withdrawn: str) -> str | None:
    """The command after the withdrawing sentence that says what holds instead ("Drop the
    rehire question. Legal says it's risky. Ask 'would you work with them again?' instead."),
    if any: withdraw and replace in one turn, as a reply that the reader admits says it."""
    parts = sentences(text)
    after = parts[parts.index(withdrawn) + 1 :] if withdrawn in parts else []
    for sentence in after:
        unquoted = QUOTED.sub("''", sentence)  # a quoted question is what to ask, not one
        if _INSTEAD.search(unquoted) and _said(unquoted) and opens_command(unquoted):
            return sentence
    return None


_INSTEAD = re.compile(r"\b(?:instead|rather than)\b", re.IGNORECASE)


def _said(sentence: str) -> bool:
    """A sentence the speaker says for good: not a question, a fix of this one case ("make it
    14 days for this one") or a line of output pasted with it."""
    return (
        "?" not in sentence
        and not any(code_token(t) for t in sentence.split() if not _AMOUNT.match(t))
        and classify_sentence(_undated(sentence)) is not SentenceKind.ONE_OFF
    )


def _undated(sentence: str) -> str:
    """The sentence without a label that tells of the past ("District memo came in this
    morning: hold is 14 days now"): its "this morning" dates the news, it does not limit what
    follows to today."""
    head, colon, tail = sentence.partition(": ")
    return tail if colon and tail.strip() and tells_of_the_past(head) else sentence


def _after_label(sentence: str) -> str:
    return sentence.rsplit(":", 1)[-1].strip()
