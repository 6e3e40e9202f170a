"""Small text helpers shared by capture, compile and retrieve: words, stems, sentences.

Stemming uses the Snowball English stemmer (`snowballstemmer`), so "segments" in a rule
matches "segment" in tool data.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from typing import Any

import snowballstemmer

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'\-]*|\d+(?:\.\d+)?")
_ACRONYM_PLURAL = re.compile(r"[A-Z]{2,}s")
# no split after "i.e." / "e.g." / "vs." / "etc.": they continue the sentence; nor after the
# abbreviated title before a name ("Dr. Brink", "St. Paul's", "Mt. Hood"), a closed class; nor
# at ";", which joins clauses of one thought (a rule ladder "NRR < 100 -> at-risk; otherwise")
_TITLES = ("Dr", "Mr", "Mrs", "Ms", "Mx", "St", "Mt", "Ft", "Prof", "Rev", "Sgt", "Capt")
_SENT_SPLIT = re.compile(
    r"(?<=[.!?])(?<!\bi\.e\.)(?<!\be\.g\.)(?<!\bvs\.)(?<!\betc\.)(?<!\bapprox\.)"
    + "".join(rf"(?<!\b{t}\.)" for t in _TITLES)
    + r"\s+(?=[\"'(\[]?[A-Za-z0-9])|\n+"
    # after a closing quote that ends with a stop, where a new sentence begins ('the line
    # "No contract." Half our calls ...'; not 'add "Bring your ID." before the Reply part')
    r"|(?<=[.!?][\"\u201d])\s+(?=[A-Z0-9])"
)

# a quoted span, straight or curly, single or double: what a sentence quotes ('Ask "would you
# work with them again?" instead') is data of the sentence, not a clause or a question of it
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|‘[^’]*’|“[^”]*”")
# the same, where an apostrophe inside a word ("here's", "don't") opens none: a value quoted
# in a sentence that has apostrophes of its own ("don't write 'today', write the date")
QUOTED_VALUE = re.compile(r"(?<!\w)'[^']*'(?!\w)|\"[^\"]*\"|‘[^’]*’|“[^”]*”")


def quoted_spans(text: str) -> list[tuple[int, int]]:
    """Where the text quotes a value (`QUOTED_VALUE`)."""
    return [m.span() for m in QUOTED_VALUE.finditer(text)]


STOPWORDS = frozenset(
    """a an the and or but if then else when whenever while for to of in on at by with from into
    onto about as is are was were be been being it its this that these those there here i me my we
    our us you your he she they them their his her do does did done doing have has had having not
    no yes so such than too very can could would should will shall may might must just also only
    any all each every some more most other same own again further once up down out over under
    what which who whom whose why how where s t don dont please ok okay oh hey hi btw well thanks
    thank let lets get got go going make sure really actually now next time always never""".split()
)

# Words that name the kind of subject or data rather than a condition on it.
GENERIC_WORDS = frozenset(
    """company companies customer customers client clients user users account accounts business
    businesses firm firms org organization organizations subject subjects vendor vendors entity
    entities person people one ones thing things case cases data result results report reports
    reporting output answer answers response responses value values number numbers item items
    has have shows show showing contains contain include includes includes having gets get
    someone anyone something anything""".split()
)


@functools.lru_cache(maxsize=1)
def _stemmer() -> Any:
    return snowballstemmer.stemmer("english")


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    return str(_stemmer().stemWord(word.lower()))


def forget_words() -> None:
    """Empty the word caches (stems, key stems, key-path words: keyed by the words of every
    text read), after a forget."""
    for cache in (stem, key_stems, _path_words):
        cache.cache_clear()


def words(text: str) -> list[str]:
    """Lower-cased word tokens (identifiers split on underscores and hyphens too)."""
    out: list[str] = []
    for tok in _WORD.findall(text):
        if _ACRONYM_PLURAL.fullmatch(tok):
            tok = tok[:-1]  # "RMAs" is "RMA"s: the stemmer cannot tell, as "rmas" has no suffix
        low = tok.lower().strip("'-")
        if not low:
            continue
        out.append(low)
        if "_" in low or "-" in low:
            out.extend(p for p in re.split(r"[_\-]", low) if p)
    return out


def content_stems(text: str, *, drop_generic: bool = False) -> list[str]:
    """Stems of the content words of `text`, in order, without duplicates."""
    seen: dict[str, None] = {}
    for w in words(text):
        if w in STOPWORDS or len(w) < 2:
            continue
        if drop_generic and w in GENERIC_WORDS:
            continue
        seen.setdefault(stem(w), None)
    return list(seen)


@functools.lru_cache(maxsize=16384)
def key_stems(key: str) -> tuple[str, ...]:
    """`content_stems` of a JSON key, remembered: every result of a tool repeats its keys."""
    return tuple(content_stems(key))


def sentences(text: str) -> list[str]:
    """Split a message into sentences (and lines); keeps the punctuation. A stop inside
    brackets or double quotes ends no sentence: "(late baggage? no, it's 'processing'... use
    18)" is an aside of the sentence around it, and 'Then: "Need to reschedule? Reply to this
    email."' one line of a template, not sentences of their own."""
    out: list[str] = []
    open_brackets = 0
    in_quotes = False
    for line in (text or "").splitlines():
        for part in (p.strip() for p in _SENT_SPLIT.split(line)):
            if not part:
                continue
            if open_brackets > 0 or in_quotes:  # only after a part was kept
                out[-1] = f"{out[-1]} {part}"
            else:
                out.append(part)
            open_brackets = max(0, open_brackets + _depth(part))
            in_quotes = _opens_quote(part, in_quotes)
        open_brackets, in_quotes = 0, False  # a line break ends a sentence, closed or not
    return out


def _opens_quote(part: str, in_quotes: bool) -> bool:
    """Is a double quote open after the text, given whether one was open before it? Straight
    quotes toggle; a curly one says which way it goes."""
    straight = part.count('"') % 2 == 1
    curly = part.count("\u201c") - part.count("\u201d")
    if curly:
        return curly > 0
    return in_quotes != straight


def _depth(part: str) -> int:
    """How many brackets the text opens and leaves open."""
    return part.count("(") + part.count("[") - part.count(")") - part.count("]")


# punctuation and coordinating conjunctions: a closed class, where a list of alternatives
# divides; a condition without them is one alternative. "and" before a determiner joins the
# subjects of one condition ("the lab results and the referral letter disagree": both must
# be said), not kinds of one thing ("webhook and API problems", "heating, leaks and mould")
_ALTERNATIVES = re.compile(
    r"[,;()\[\]/]|\b(?:or|nor)\b|"
    r"\band\b(?!\s+(?:the|a|an|this|that|these|those|its|their|our|your|his|her|my)\b)",
    re.IGNORECASE,
)


def alternatives(condition: str, keywords: Sequence[str]) -> list[frozenset[str]]:
    """A condition's keyword stems grouped by the alternatives it lists ("repairs of heating,
    leaks or mould": repair heating, leaks, mould), so each can be met apart. One group when
    it lists none, or when a part's words cannot be told apart from the keywords."""
    wanted = set(keywords)
    parts = [
        frozenset(s for s in content_stems(p.replace("-", " ")) if s in wanted)
        for p in _ALTERNATIVES.split(condition)
    ]
    groups = [g for g in dict.fromkeys(parts) if g]
    if not groups or set().union(*groups) != wanted:
        return [frozenset(wanted)]
    return _shared_head(groups, condition, keywords)


def lists_alternatives(condition: str) -> bool:
    """Can `alternatives` give more than one group (a cheap test before it)?"""
    return _ALTERNATIVES.search(condition) is not None


def _shared_head(
    groups: list[frozenset[str]], condition: str, keywords: Sequence[str]
) -> list[frozenset[str]]:
    """ "webhook or API problems" lists webhook problems and API problems: when each earlier
    alternative is one modifier and the last ends in the condition's final noun, that noun
    is the class they share, and the modifiers tell the alternatives apart."""
    *earlier, last = groups
    head = keywords[-1] if keywords else None
    if not earlier or len(last) < 2 or head not in last or any(len(g) != 1 for g in earlier):
        return groups
    if not _ALTERNATIVES.split(condition)[-1].strip():
        return groups  # the list ends in a bracket or comma: no head follows it
    return [*earlier, last - {head}]


NOT_JSON: Any = object()  # what `decode_json` gives for text that is not JSON


def decode_json(text: str) -> Any:
    """The decoded JSON value of `text`, or NOT_JSON: parse once, read it several ways."""
    try:
        return json.loads(text)
    except (ValueError, TypeError, RecursionError):
        return NOT_JSON


def flatten_json_text(text: str) -> str:
    """Keys and values of a JSON payload as plain words, so "runway_months": 8 reads as words.
    Non-JSON text is returned unchanged."""
    data = decode_json(text)
    return text if data is NOT_JSON else flatten_json(data)


def flatten_json(data: Any) -> str:
    """`flatten_json_text` of an already decoded value."""
    parts: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                parts.append(str(k))
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
        elif node is not None:
            parts.append(str(node))

    walk(data)
    return " ".join(parts)


def json_fields(text: str) -> list[tuple[list[str], float | str]]:
    """(key-path words, value) for every number and string leaf of a JSON payload; empty for
    non-JSON text. Booleans and nulls are skipped."""
    data = decode_json(text)
    return [] if data is NOT_JSON else leaf_fields(data)


_NUMBER_WORD = re.compile(r"[$€£]?\d+(?:\.\d+)?%?")
_PLAIN_WORD = re.compile(r"[A-Za-z]+\.?")


def number_in(value: str) -> float | None:
    """The one number of a short string that is words and a number ("Fast 200", "350 lb",
    "DOCSIS 3.0"): a measure a tool wrote out with its unit or name. None for an identifier,
    a date or a time ("PRJ-2231", "2026-03-06", "07:00"), or several numbers."""
    said = value.split()
    numbers = [w for w in said if _NUMBER_WORD.fullmatch(w)]
    if len(numbers) != 1 or not all(_PLAIN_WORD.fullmatch(w) for w in said if w not in numbers):
        return None
    return float(numbers[0].strip("$€£%"))


def leaf_fields(data: Any) -> list[tuple[list[str], float | str]]:
    """`json_fields` of an already decoded value."""
    out: list[tuple[list[str], float | str]] = []

    def walk(node: Any, path: tuple[str, ...]) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, (*path, str(k)))
        elif isinstance(node, list):
            for v in node:
                walk(v, path)
        elif isinstance(node, bool) or node is None:
            return
        elif isinstance(node, int | float):
            out.append((_words_of(path), float(node)))
        elif isinstance(node, str):
            out.append((_words_of(path), node))

    walk(data, ())
    return out


def _words_of(path: tuple[str, ...]) -> list[str]:
    """The words of a key path; the same few short paths recur in every result of a tool, so
    those are remembered (long ones, rare, are split each time)."""
    if len(path) <= 8 and sum(len(k) for k in path) <= 200:
        return list(_path_words(path))
    return words(" ".join(path))


@functools.lru_cache(maxsize=16384)
def _path_words(path: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(words(" ".join(path)))


def numeric_fields(text: str) -> list[tuple[list[str], float]]:
    """(key-path words, number) pairs found in a JSON payload; empty for non-JSON text."""
    return [(path, v) for path, v in json_fields(text) if isinstance(v, float)]


# an argument or field name that picks a source or a setting ("source", "region", "api_version"),
# not an entity: a tool failure may be blamed on its value (capture/recurring.py) and a rule may
# name it (compile/tool_rules.py)
SOURCE_KEY = re.compile(
    r"(source|feed|provider|endpoint|api|region|version|format|mode|channel|queue|team|method|"
    r"type|dataset|index|database|\bdb\b|server|host|url|vendor|service|exchange|market|backend)",
    re.IGNORECASE,
)
