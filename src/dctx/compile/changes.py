"""Compile a condition that states a change into a predicate over a numeric field's values.

"If deposits drop quarter on quarter" is not a state a field holds: it compares two values
of one metric, the latest two periods of a series in one result (`deposits` beside
`deposits_prior_q`, a list of monthly items). "If the price went up since the last check"
compares the field in the latest result with an earlier result of the run. The condition's
structure says which: a direction (a verb of motion, or a comparative with a reference such as
"than the prior year"), period words (a period noun: "quarter on quarter", "prior year") or a
reference to an earlier step ("since the last check", "the previous run's"), and an amount
after "by" ("drop by more than 5%"). The metric is what the condition's other words name;
retrieval matches it to result keys by their stems (retrieve/series.py).

"If the price and the financials come back in different currencies" compares no numbers:
it holds when one field (the currency) carries different values in the run's results
(`change="differ"`).

Without a direction, or with a comparative and no reference ("higher than 4"), the condition is
a threshold or a state: None, so it compiles as before.
"""

from __future__ import annotations

import dataclasses

from dctx.capture.condition_words import Condition, condition_keywords
from dctx.grammar import subject_of
from dctx.models import NumericCondition, Predicate
from dctx.text import content_stems, stem
from dctx.units import PERCENT, PERCENT_WORDS

__all__ = ["as_change", "change_predicate"]

# Directions: closed classes of the verbs of motion and the comparatives of English.
_MOTION_UP = frozenset(
    """rise rises rose risen rising increase increases increased increasing grow grows grew
    grown growing climb climbs climbed climbing jump jumps jumped gain gains gained spike
    spikes spiked surge surges surged""".split()
)
_MOTION_DOWN = frozenset(
    """fall falls fell fallen falling drop drops dropped dropping decline declines declined
    declining decrease decreases decreased decreasing shrink shrinks shrank shrunk shrinking
    slip slips slipped dip dips dipped sink sinks sank sunk slide slides slid plunge plunges
    plunged contract contracts contracted""".split()
)
_COMPARE_UP = frozenset({"higher", "more", "greater", "bigger", "larger", "above"})
_COMPARE_DOWN = frozenset({"lower", "less", "fewer", "smaller", "below"})
# "went up", "is down": a particle of direction after a verb of motion or a copula
_PARTICLE = {"up": "up", "down": "down"}
_PARTICLE_VERBS = frozenset(
    """go goes went gone going come comes came is are was were be been move moves moved
    trend trends trended tick ticks ticked""".split()
)
# Period nouns and their abbreviations, and the words that point back to an earlier value.
_PERIOD = frozenset(
    """day days daily week weeks weekly month months monthly quarter quarters quarterly year
    years yearly annual annually period periods fy qoq mom yoy wow dod sequential
    sequentially yesterday""".split()
)
_REFERENCE = frozenset({"prior", "previous", "last", "earlier", "preceding", "since", "ago"})
_FILLER = frozenset({"the", "a", "an", "one", "ones", "that", "this", "its", "their", "our"})
_FRAME = frozenset({"than", "by", "on", "over", "from", "to", "vs", "versus", "compared"})
_REACH = 3  # how far after a reference word its noun may come ("since the last check")


def change_predicate(
    condition: str, keywords: list[str], numeric: NumericCondition | None = None
) -> Predicate | None:
    """The change predicate `condition` states, or None when it states no change. A
    threshold (`numeric`) is the amount of the change only when "by" introduces it."""
    words = _words(condition)
    differing = _differing(words)
    if differing:
        return Predicate(key=[differing], soft=True, change="differ")
    direction, at = _direction(words)
    if direction is None:
        return None
    period, step, said = _reference(words)
    if not period and not step and words[at] in _COMPARE_UP | _COMPARE_DOWN:
        return None  # "higher than 4": a threshold, not a change
    by, percent, unit = _amount(words, at, numeric)
    if numeric is not None and by is None:
        return None  # "drops below 5000": a threshold the field reaches
    said |= {words[at], unit} - {""}
    metric = _metric(condition, keywords, said)
    if not metric:
        return None
    return Predicate(
        key=metric,
        soft=True,
        change="step" if step and not period else "period",
        direction=direction,
        by=by,
        percent=percent,
    )


# "in different currencies", "the dates don't match", "the totals differ"
_DIFFERENT = frozenset({"different", "differing", "mismatched", "mismatching"})
_DIFFER = frozenset({"differ", "differs", "disagree", "disagrees", "mismatch"})
_NOT_MATCH = ("don't match", "doesn't match", "dont match", "do not match", "does not match")


def _differing(words: list[str]) -> str:
    """The stem of the field whose values differ between results, or "": the noun after
    "different" ("in different currencies"), or the subject of "differ" / "don't match"
    ("the dates on the two invoices don't match")."""
    said = " ".join(words)
    if any(w in _DIFFERENT for w in words):
        at = next(k for k, w in enumerate(words) if w in _DIFFERENT)
        rest = [x for x in words[at + 1 :] if x not in _FILLER]
    elif any(w in _DIFFER for w in words) or any(p in said for p in _NOT_MATCH):
        rest = [subject_of(said, _DIFFER | {"match"})]
    else:
        return ""
    return stem(rest[0]) if rest and rest[0].isalpha() else ""


def as_change(cond: Condition) -> tuple[Condition, Predicate] | None:
    """`cond` as a change condition (no threshold: an amount is the change's, and keywords
    to find it by) with its predicate, or None when it states no change."""
    if cond.excluded or cond.about_query:
        return None
    pred = change_predicate(cond.text, cond.keywords, cond.numeric)
    if pred is None:
        return None
    keywords = cond.keywords or condition_keywords(cond.text)
    return dataclasses.replace(cond, numeric=None, keywords=keywords), pred


def _words(text: str) -> list[str]:
    out: list[str] = []
    for token in text.lower().replace("-", " ").split():
        word = token.strip(".,;:!?()\"'`")
        if word.endswith("'s"):
            word = word[:-2]
        if word.endswith("%") and len(word) > 1:
            out += [word[:-1], "%"]
        elif word:
            out.append(word)
    return out


def _direction(words: list[str]) -> tuple[str | None, int]:
    """("up" / "down", the index of the word that says it), or (None, -1)."""
    for i, word in enumerate(words):
        if word in _MOTION_UP or word in _COMPARE_UP:
            return "up", i
        if word in _MOTION_DOWN or word in _COMPARE_DOWN:
            return "down", i
        if word in _PARTICLE and i and words[i - 1] in _PARTICLE_VERBS:
            return _PARTICLE[word], i
    return None, -1


def _reference(words: list[str]) -> tuple[bool, bool, set[str]]:
    """(a period is named, an earlier step is named, the words that said so)."""
    said = {w for w in words if w in _PERIOD or w in _REFERENCE or w in _FRAME}
    period = any(w in _PERIOD for w in words)
    step = False
    for i, word in enumerate(words):
        if word not in _REFERENCE:
            continue
        for noun in words[i + 1 : i + 1 + _REACH]:
            if noun in _FILLER or noun in _REFERENCE:
                continue
            if noun not in _PERIOD:
                step = True  # "since the last check", "the previous run's count"
                said.add(noun)
            break
    return period, step, said


def _amount(
    words: list[str], at: int, numeric: NumericCondition | None
) -> tuple[float | None, bool, str]:
    """The amount after "by" ("drop by more than 5%", "rose by 2 kg") or right after the verb
    ("fell more than 5%"), whether it is a percentage, and the word of its unit (not a word
    of the metric)."""
    if "by" in words:
        start = words.index("by")
    elif words[at] not in _COMPARE_UP | _COMPARE_DOWN and words[at + 1 : at + 2] == ["more"]:
        start = at + 1
    else:
        return None, False, ""
    for i in range(start + 1, min(start + 5, len(words))):
        try:
            value = float(words[i].replace(",", ""))
        except ValueError:
            continue
        after = words[i + 1] if i + 1 < len(words) else ""
        percent = after in PERCENT_WORDS or (numeric is not None and numeric.unit == PERCENT)
        unit = after if after and after not in _FRAME and after not in _PERIOD else ""
        return value, percent, unit
    return None, False, ""


def _metric(condition: str, keywords: list[str], said: set[str]) -> list[str]:
    """The stems that name the metric: the condition's keywords without the words of its
    direction, periods and references; a hyphenated word also as one ("sign-ups": signup)."""
    dropped = {s for w in said for s in content_stems(w)} | {stem(w) for w in said}
    words = keywords or condition_keywords(condition)
    metric = [k for k in words if k not in dropped and not k.isdigit()]
    joined = [
        stem(t.strip(".,;:!?()").replace("-", "").lower()) for t in condition.split() if "-" in t
    ]
    return list(dict.fromkeys(metric + [j for j in joined if j and j not in dropped]))
