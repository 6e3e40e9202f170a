"""Compile a data condition into a predicate over the items of tool results.

"When a pod is in CrashLoopBackOff" is met when some pod's field says CrashLoopBackOff, not
when the word "pod" is seen (the query "check its pods") nor by a healthy Running pod. The
value is read from the shape of its token, as people write values: CamelCase inside a word
(`CrashLoopBackOff`), an identifier with `_` or digits and letters (`us_east_1`), or a quoted
or backticked string. "If a listing has no price" is met by a listing item without a price
field. Everything else stays a free-text condition, matched by retrieval on the cosine and
the words seen, with a fitted threshold (retrieve/condition_match.py).
"""

from __future__ import annotations

from itertools import pairwise, takewhile

from dctx.models import Predicate
from dctx.text import content_stems

# the determiners and prepositions of negation that say a field is absent ("has no price",
# "without an owner", "is missing a tracking number"): a closed grammatical class
_ABSENCE = frozenset({"no", "without", "missing", "lacks", "lacking"})
_QUOTES = "\"'`"


def is_value_token(token: str) -> bool:
    """A token written the way data values are: `CrashLoopBackOff`, `us_east_1`, `p1`,
    or quoted. Ordinary words, names (one capital), acronyms and their plurals are not."""
    word = token.strip(".,;:!?()[]")
    if len(word) >= 2 and word[0] in _QUOTES and word[-1] == word[0]:
        return True
    word = word.strip(_QUOTES)
    if len(word) < 2 or not word.replace("_", "").replace("-", "").isalnum():
        return False
    has_digit = any(c.isdigit() for c in word) and any(c.isalpha() for c in word)
    return _camel(word) or "_" in word or has_digit


def _camel(word: str) -> bool:
    """A capital after a lower-case letter (`CrashLoopBackOff`), or an acronym that runs into
    a word (`OOMKilled`); an acronym's plural (`RMAs`, `IDs`) is not a value."""
    if any(a.islower() and b.isupper() for a, b in pairwise(word)):
        return True
    upper = sum(1 for _ in takewhile(str.isupper, word))
    return upper >= 2 and sum(c.islower() for c in word[upper:]) >= 2


def compile_predicate(condition: str, keywords: list[str]) -> Predicate | None:
    """The predicate a condition states, or None when it names no value and no absence."""
    tokens = condition.split()
    values: list[str] = []
    absent: list[str] = []
    for i, token in enumerate(tokens):
        if is_value_token(token):
            values.append(token.strip(".,;:!?()[]").strip(_QUOTES))
        elif token.lower() in _ABSENCE and i + 1 < len(tokens):
            rest = [t for t in tokens[i + 1 : i + 4] if content_stems(t, drop_generic=True)]
            if rest:
                absent.extend(content_stems(rest[0], drop_generic=True))
    if not values and not absent:
        return None
    named = {s for v in values for s in content_stems(v)} | set(absent)
    terms = [k for k in keywords if k not in named]
    return Predicate(terms=terms, values=values, absent=[] if values else absent)
