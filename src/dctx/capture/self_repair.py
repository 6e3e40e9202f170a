"""A number the speaker corrects as they type: "... with the reserve dropped 25%. No, 20%.",
"Unsold fee's $40. No, $50, sorry, it went up in January." The rule is the sentence with the
corrected number; the repair is no sentence of its own (read alone, "No, 20%." is nothing, and
the sentence before it said the wrong value).

A repair opens with a word that takes back what was just said ("no", "sorry", "I mean",
"make that") and gives a number; it replaces the last number of the same kind (the same
currency sign, or a percentage, or any number when it has neither) in the sentence before.
"""

from __future__ import annotations

import re

from dctx.capture.revisions import numbers
from dctx.text import sentences

_REPAIR = re.compile(
    r"^(?:no|nope|sorry|i mean|make that|correction|wait)\b[,:.]?\s*(?:it'?s\s+)?"
    r"(?P<value>(?P<sign>[$€£])?\d[\d.,]*(?<![.,])(?P<pct>\s?%)?)(?![\w$€£%])",
    re.IGNORECASE,
)


def repaired(text: str) -> str:
    """The turn with each number the speaker corrected replaced by the correction, and the
    repairing sentence left out; the text unchanged when there is none."""
    parts = sentences(text)
    kept: list[str] = []
    changed = False
    for part in parts:
        repair = _REPAIR.match(part.strip())
        if repair is not None and kept:
            before = kept[-1]
            kind = (repair.group("sign") or "", bool(repair.group("pct")))
            same = [at for at, sign, percent in numbers(before) if (sign, percent) == kind]
            if same:
                number = re.sub(r"[^\d.,]", "", repair.group("value"))
                kept[-1] = before[: same[-1].start] + number + before[same[-1].stop :]
                changed = True
                continue
        kept.append(part)
    return " ".join(kept) if changed else text
