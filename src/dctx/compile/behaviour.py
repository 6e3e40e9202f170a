"""What a rule governs (its behaviour identity), and whether two rules contradict.

Two rules may share many words and still govern different things: "Always use --namespace
staging for test deploys" sets a parameter of a deploy; "never scale deployments in production
namespaces without a change ticket" forbids an action. Putting them in one conflict group would
let one suppress the other, so a conflict needs the same *slot* with incompatible values.

A slot is read from structure first: a parameter the rule sets (`--flag value`, `key=value`,
`` `key`="value" ``). Two rules that set the same parameter conflict exactly when the values
differ; a rule that sets parameters conflicts with one that sets none only when the other names
that parameter and says nearly the same thing (cosine >= SAME_SLOT). Rules with no structure
are compared by meaning: the same behaviour (cosine >= SAME_SLOT), or a turn that explicitly
contrasts ("instead", "rather than", "switch to") with a lower bar. Agreement (duplicates) is
decided before this, by `maintain.DUPLICATE`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dctx.capture.revisions import quantities
from dctx.models import Rule
from dctx.text import content_stems, stem

SAME_SLOT = 0.72  # cosine at which two unstructured rules govern the same behaviour
SAME_SLOT_CONTRASTED = 0.45  # ... when the newer rule's turn says what it replaces

# syntax, not phrases: a command-line flag with its value, or a key = value assignment
_FLAG = re.compile(r"(?<![\w-])--(?P<key>[A-Za-z][\w-]*)(?:=|\s+)(?P<value>[^\s,;]+)")
# the value a rule says it replaces: "not $12", "instead of 25%", "up from 30 days"
_REPLACED_VALUE = re.compile(
    r"\b(?:not|instead of|rather than|up from|down from|no longer)\s+(?:the\s+)?[$€£]?\d[\d.,]*%?",
    re.IGNORECASE,
)
_ASSIGN = re.compile(
    r"`?(?P<key>[A-Za-z_][\w.-]*)`?\s*(?:=|:=)\s*(?P<value>\"[^\"]*\"|'[^']*'|`[^`]*`|[^\s;,]+)"
)


@dataclass(frozen=True, slots=True)
class Identity:
    """A rule's behaviour identity: the parameters it sets, and the words it is about."""

    settings: dict[str, str]  # parameter -> value, both lower-case
    stems: frozenset[str]

    def describe(self) -> str:
        if self.settings:
            return ", ".join(f"{k}={v}" for k, v in sorted(self.settings.items()))
        return "behaviour: " + " ".join(sorted(self.stems)[:6])


def identity(text: str) -> Identity:
    """The slots `text` governs (parameters it sets) and its content stems."""
    settings: dict[str, str] = {}
    for rx in (_FLAG, _ASSIGN):
        for m in rx.finditer(text):
            key = m.group("key").lower().strip("-")
            value = m.group("value").strip("\"'`").rstrip(".!").lower()
            if key and value:
                settings.setdefault(key, value)
    return Identity(settings, frozenset(content_stems(text, drop_generic=True)))


def contradicts(a: Rule, b: Rule, similarity: float, *, contrasted: bool = False) -> bool:
    """Whether `a` and `b` govern the same slot with incompatible values. `similarity` is the
    cosine of their texts; `contrasted`, that the newer rule's turn names what it replaces."""
    ia, ib = identity(a.text), identity(b.text)
    shared = ia.settings.keys() & ib.settings.keys()
    if shared:
        return any(ia.settings[k] != ib.settings[k] for k in shared)
    if ia.settings and ib.settings:
        return False  # each sets its own parameters: different slots
    if ia.settings or ib.settings:
        setter, other = (ia, ib) if ia.settings else (ib, ia)
        names_key = any(_key_stems(k) <= other.stems for k in setter.settings)
        return names_key and similarity >= SAME_SLOT
    if ia.stems == ib.stems:
        return False  # the same words: nothing differs
    return similarity >= (SAME_SLOT_CONTRASTED if contrasted else SAME_SLOT)


def restate(old: str, new: str) -> str | None:
    """`old` with the value of a parameter it sets replaced by the one `new` gives in words
    ("Always use --region eu-west for the site." + "we use the us-east region now" ->
    "Always use --region us-east for the site."): a replacement said in passing keeps the
    form and reach of the rule it replaces. None when `new` sets no such parameter."""
    if identity(new).settings:
        return None
    said = new.split()
    for rx in (_FLAG, _ASSIGN):
        for m in rx.finditer(old):
            key = _key_stems(m.group("key").lower().strip("-"))
            for k, word in enumerate(said):
                if stem(word.strip(".,;:!?").lower()) not in key:
                    continue
                for near in (said[k - 1] if k else "", said[k + 1] if k + 1 < len(said) else ""):
                    value = near.strip(".,;:!?\"'`")
                    if content_stems(value, drop_generic=True) and value.lower() not in old.lower():
                        return old[: m.start("value")] + value + old[m.end("value") :]
    return None


def resets(a: Rule, b: Rule) -> bool:
    """Both set a parameter, or a quantity of one kind, to different values: never the same
    rule, however alike their words ("use --retries 3 ..." / "use --retries 5 ...", "Lane
    rentals are $12 an hour" / "Lane rentals are $14 an hour now, not $12")."""
    ia, ib = identity(a.text), identity(b.text)
    if any(ia.settings[k] != ib.settings[k] for k in ia.settings.keys() & ib.settings.keys()):
        return True
    va, vb = amounts(a.text), amounts(b.text)
    return any(va[k] != vb[k] for k in va.keys() & vb.keys())


def amounts(text: str) -> dict[str, frozenset[str]]:
    """The numbers a rule sets, by kind of quantity (capture/revisions.py: the currency sign,
    "%", the unit), without the values it says it replaces ("$14 now, not $12": $ -> 14)."""
    out: dict[str, set[str]] = {}
    for kind, number in quantities(_REPLACED_VALUE.sub(" ", text)):
        out.setdefault(kind, set()).add(number)
    return {kind: frozenset(numbers) for kind, numbers in out.items()}


def different_slots(a: Rule, b: Rule) -> bool:
    """Both rules set parameters, and none in common: neither can replace the other."""
    ia, ib = identity(a.text), identity(b.text)
    return bool(ia.settings and ib.settings) and not (ia.settings.keys() & ib.settings.keys())


def _key_stems(key: str) -> set[str]:
    return {stem(p) for p in re.split(r"[_.\-]", key) if p}
