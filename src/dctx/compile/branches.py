"""The other branch of a data condition: "If a tenant's file says they keep a pet, add the
pet clause. Tenants without pets, use the standard lease." The second command applies where
the first condition does NOT hold, so it carries the condition's negation: a true/false
field the other way round, the complementary comparison of a threshold, "some other value"
for a field equal to a value (and the reverse). A condition with no safe negation (a
free-text condition, which the free-text match would meet on the very words it negates; an
item with a value or without a field; a subject's name) gives no data trigger at all.

A negated condition keeps no keywords but a field's name: it is tested on the fields it
names, never met by resemblance to the words of the condition it negates.
"""

from __future__ import annotations

import copy
import re
from typing import Literal

from dctx.models import NumericCondition, Predicate, Trigger
from dctx.text import content_stems

__all__ = ["negated_trigger", "says_negated", "says_otherwise", "threshold_side"]

# the words that open the other branch of the case before ("Otherwise, one translator is
# fine", "everything else: standard lease"): a closed class of English
_OTHERWISE = re.compile(r"^(otherwise|else|if not|everything else|anything else)\b", re.I)

# the words that negate what follows them ("doesn't need", "not on hold", "without a
# permit", "no pets"): a closed grammatical class, as in compile/predicates.py
_NEGATION = frozenset({"not", "no", "never", "nor", "without"})
# how far after a negation its content word may come ("isn't on the waitlist")
_REACH = 3

# the comparatives that put a number's side ("3 or more", "under 10x", "at least 4"): a
# closed class of English, read within a few words of the threshold's number
_ABOVE = frozenset(
    {
        "more",
        "above",
        "over",
        "higher",
        "greater",
        "larger",
        "bigger",
        "longer",
        "older",
        "least",
        "plus",
        "exceeds",
        "exceed",
        "up",
        "+",
    }
)
_BELOW = frozenset(
    {"fewer", "less", "below", "under", "lower", "smaller", "shorter", "younger", "most"}
)
_SIDE_REACH = 3

Op = Literal["<", "<=", ">", ">="]
_COMPLEMENT: dict[str, Op] = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}


def says_otherwise(text: str) -> bool:
    """Does the command open with "otherwise" (or "else", "if not"): the case the condition
    before it names does not hold?"""
    return _OTHERWISE.match(text.strip()) is not None


def says_negated(text: str, keywords: list[str]) -> bool:
    """Whether `text` negates one of the condition's `keywords`: a negation word whose next
    content word is one of them ("anyone who doesn't need sponsorship", "not on hold"). A
    negation that governs something else ("don't email the held ones") does not count."""
    wanted = set(keywords)
    raw = text.split()
    tokens = [t.strip(".,;:!?()\"'`").lower() for t in raw]
    for i, token in enumerate(tokens):
        if token not in _NEGATION and not token.endswith(("n't", "n’t")):
            continue
        after = content_stems(" ".join(tokens[i + 1 : i + 1 + _REACH]))
        if after and after[0] in wanted:
            return True
        if _after_its_subject(raw, i) and wanted & set(after):
            # "when the reject doesn't list any alternative": the negation of a case's verb
            # reaches the word the condition tests through that verb
            return True
    return False


def _after_its_subject(raw: list[str], i: int) -> bool:
    """Does the negation at `i` follow a subject in its clause ("the reject doesn't list"),
    rather than open a command ("Don't email", "please don't", ", don't")?"""
    if i == 0 or raw[i - 1][-1:] in ",;:.!?":
        return False
    return raw[i - 1].lower().strip("\"'`(") not in _BEFORE_COMMAND


# what may stand before a command's "don't" in its clause: a closed class
_BEFORE_COMMAND = frozenset({"please", "and", "but", "so", "then", "just", "also"})


def threshold_side(text: str, numeric: NumericCondition) -> Literal["same", "other"] | None:
    """Which side of `numeric`'s threshold `text` states: "fewer than 4 X: do A; 4 or more:
    do B" says the threshold's number with a comparative of the other side ("other"), "under
    4, also ..." the same side; None when the number is not said with a comparative."""
    tokens = [t.strip(".,;:!?()\"'`").lower() for t in text.replace("+", " + ").split()]
    below = numeric.op in ("<", "<=")
    for i, token in enumerate(tokens):
        try:
            said = float(token.lstrip("$€£").rstrip("x%").replace(",", ""))
        except ValueError:
            continue
        if said != numeric.value:
            continue
        near = tokens[max(0, i - _SIDE_REACH) : i] + tokens[i + 1 : i + 1 + _SIDE_REACH]
        up, down = any(w in _ABOVE for w in near), any(w in _BELOW for w in near)
        if up != down:
            return "same" if down == below else "other"
    return None


def negated_trigger(trigger: Trigger) -> Trigger | None:
    """The DATA trigger met exactly where `trigger`'s condition is not, or None when the
    condition cannot be negated safely."""
    out = copy.deepcopy(trigger)
    out.text = f"not ({trigger.text})"
    out.keywords = []
    if trigger.numeric is not None:
        out.numeric = _complement(trigger.numeric)
        window = trigger.predicate
        if window is not None and window.op in _COMPLEMENT:
            out.predicate = copy.deepcopy(window)
            out.predicate.op = _COMPLEMENT[window.op]
        return out
    if trigger.excluded:  # "the currency isn't USD" -> a field of that kind equals USD
        out.excluded = []
        out.predicate = Predicate(
            key=list(trigger.keywords), values=list(trigger.excluded), soft=True
        )
        return out
    pred = trigger.predicate
    if pred is None or not pred.soft:
        return None
    if pred.flag is not None:
        out.predicate = copy.deepcopy(pred)
        out.predicate.flag = not pred.flag
        return out
    if pred.values and pred.key and not pred.unit:
        # "a shipment whose status is delayed" -> the status field holds another value
        out.predicate = None
        out.excluded = list(pred.values)
        out.keywords = list(pred.key)
        return out
    return None


def _complement(numeric: NumericCondition) -> NumericCondition:
    """runway < 12 -> runway >= 12."""
    negated = copy.deepcopy(numeric)
    negated.op = _COMPLEMENT[numeric.op]
    return negated
