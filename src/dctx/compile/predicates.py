"""Compile a data condition into a predicate over the items of tool results.

"When a pod is in CrashLoopBackOff" is met when some pod's field says CrashLoopBackOff, not
when the word "pod" is seen (the query "check its pods") nor by a healthy Running pod. The
value is read from the shape of its token, as people write values: CamelCase inside a word
(`CrashLoopBackOff`), an identifier with `_` or digits and letters (`us_east_1`), or a quoted
or backticked string. "If a listing has no price" is met by a listing item without a price
field.

A condition in ordinary words compiles to a soft predicate, tested only where a result has
the field it names: "a shipment whose status is delayed" (a relative or possessive subject,
a copula, a value) tests the `status` field for "delayed"; any other condition names a state
("the account is on hold", "the candidate needs sponsorship") that a true/false field may
carry (`on_hold: true`, `requires_sponsorship: true`). Where no result has such a field it
stays a free-text condition, matched by retrieval on the cosine and the words seen, with a
fitted threshold (retrieve/condition_match.py). A threshold in a unit of time ("an invoice
older than 90 days") is also a date window over a date field its other words name
(`invoice_date`: more than 90 days from now), beside its numeric fields (`age_days`).
"""

from __future__ import annotations

from itertools import pairwise, takewhile

from dctx.models import NumericCondition, Predicate
from dctx.text import content_stems
from dctx.units import time_unit

# the determiners and prepositions of negation that say a field is absent ("has no price",
# "without an owner", "is missing a tracking number"): a closed grammatical class
_ABSENCE = frozenset({"no", "without", "missing", "lacks", "lacking"})
_QUOTES = "\"'`"
# the relative and possessive markers that open a field name ("whose status", "a pod's
# phase") and the copulas that join it to its value: closed grammatical classes
_WHOSE = frozenset({"whose", "where"})
_COPULA = frozenset({"is", "are", "was", "were", "equals", "reads", "="})
_NEGATION = frozenset({"not", "never", "no"})
_MAX_VALUE_WORDS = 3


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
    """The predicate a condition states: a value or an absence, else a soft test of a named
    field or a state (None when the condition has no keyword to name one)."""
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
        return _soft_predicate(tokens, keywords)
    named = {s for v in values for s in content_stems(v)} | set(absent)
    terms = [k for k in keywords if k not in named]
    return Predicate(terms=terms, values=values, absent=[] if values else absent)


def _soft_predicate(tokens: list[str], keywords: list[str]) -> Predicate | None:
    """ "whose status is delayed" -> the status field equals "delayed"; otherwise the state
    the condition's keywords name, held by a true/false field (false when it is negated)."""
    named = _named_field(tokens)
    if named is not None:
        key, value = named
        terms = [k for k in keywords if k not in key and k not in content_stems(value)]
        return Predicate(terms=terms, values=[value], key=key, soft=True)
    state = [k for k in keywords if "'" not in k]  # "doesn't" says the polarity, not the state
    if not state:
        return None
    negated = any(t.lower() in _NEGATION or t.lower().endswith("n't") for t in tokens)
    return Predicate(key=state, flag=not negated, soft=True)


def _named_field(tokens: list[str]) -> tuple[list[str], str] | None:
    """(field stems, value) of "whose KEY is VALUE" / "a NOUN's KEY is VALUE", or None."""
    low = [t.lower().strip(".,;:!?()") for t in tokens]
    for i, word in enumerate(low):
        if word not in _WHOSE and not word.endswith("'s"):
            continue
        for j in range(i + 1, min(i + 4, len(low))):
            if low[j] not in _COPULA:
                continue
            key = content_stems(" ".join(low[i + 1 : j]))
            value = _value_after(tokens[j + 1 :])
            if key and value:
                return key, value
            break
    return None


def _value_after(tokens: list[str]) -> str:
    """The value after a copula: up to a few words, to the first punctuation mark."""
    out: list[str] = []
    for token in tokens[:_MAX_VALUE_WORDS]:
        word = token.strip(_QUOTES)
        stop = word[-1:] in ",;:.!?" if word else True
        word = word.strip(".,;:!?()").strip(_QUOTES)
        if word and (out or word.lower() not in {"a", "an", "the"}):
            out.append(word)
        if stop:
            break
    return " ".join(out)


def date_window(numeric: NumericCondition) -> Predicate | None:
    """The date window a threshold in a unit of time states, over a date field named by its
    other words; None for other units or when only the unit names the field."""
    if not numeric.unit or not time_unit(numeric.unit):
        return None
    said = set(content_stems(numeric.unit.replace("_", " ")))
    key = [t for t in numeric.terms if t not in said]
    if not key:
        return None
    return Predicate(key=key, op=numeric.op, number=numeric.value, unit=numeric.unit, soft=True)
