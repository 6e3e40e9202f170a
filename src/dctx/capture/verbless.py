"""Verbless standing corrections ("metric units, always", "backups first, always, then the
upgrade"): the verb is elided, so no imperative cue finds them and the turn reader, trained on
full sentences, reads them as information. Said with a standing adverb and no verb at all,
such a fragment means "use ..." (or "do ... first, then ..." for a sequence); `as_imperative`
writes that reading out, so the reader and the compiler see the rule that was meant.
"""

from __future__ import annotations

import re

from dctx.capture.cues import (
    _CLAUSE_SPLIT,
    ACCEPTANCE,
    imperative_clause,
    looks_ahead,
    marks_one_off,
    strip_filler,
)
from dctx.capture.verbs import FINITE_MARKERS, STANDING_ADVERBS
from dctx.grammar import about_what_came_before, without_relative_clauses

_TOKEN = re.compile(r"[\w'’-]+")
_MAX_WORDS = 16  # a fragment longer than this is a description, not an elided command
_LEADS = ("always", "never")  # adverbs that open the imperative; the others close it


def _tokens(text: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(text)]


def _finite(token: str) -> bool:
    """A word only a clause has: a subject, an auxiliary, a contraction ("that's", "can't").
    A noun's possessive ("the customer's own timezone") is not one."""
    if token in FINITE_MARKERS:
        return True
    if "'" not in token and "’" not in token:
        return False
    base, _, ending = token.replace("’", "'").rpartition("'")
    return ending != "s" or not base or base in FINITE_MARKERS or base in _CONTRACTED


# words whose "'s" is "is" or "us", not a possessive ("what's", "let's", "here's")
_CONTRACTED = frozenset("what who where how here let everything nothing".split())


def _topic(core: str) -> tuple[str, str]:
    """ "customer notices: tracking link plus the ETA, always": a short verbless head before a
    colon names what the fragment after it is about; (head, rest), head empty when none."""
    head, colon, rest = core.partition(": ")
    toks = _tokens(head)
    if not colon or not toks or len(toks) > _MAX_TOPIC or any(_finite(t) for t in toks):
        return "", core
    return head.strip(), rest.strip()


_MAX_TOPIC = 4


def _is_contrast(part: str) -> bool:
    """The second half of "digest, not tag" or "the small van, never the big one": "not" and
    the thing the topic's value is not, or "never" and it, with no verb ("never tag it" is a
    command of its own)."""
    said = part.split()
    return len(said) > 1 and (said[0] == "not" or _verbless_contrast(part))


def standing_fragment(sentence: str) -> bool:
    """A short sentence with no verb (no finite clause, no imperative) and a standing adverb
    that stands apart from its noun phrase: first, last, or set off by commas ("as always" and
    "thanks, always a pleasure" are courtesies). A relative clause is no verb of the fragment's
    own ("Always 45 on anything I send you"). A topic before a colon does not count, but a
    topic whose value is one thing against another ("image refs: digest, not tag") states a
    convention for that topic as the adverb would."""
    topic, core = _topic(strip_filler(sentence).strip())
    toks = _tokens(core)
    if not toks or len(toks) > _MAX_WORDS or core.endswith("?") or marks_one_off(core):
        return False
    if ACCEPTANCE.match(sentence.strip()):
        return False
    if any(_finite(t) for t in toks) and any(
        _finite(t) for t in _tokens(without_relative_clauses(core))
    ):
        return False  # the parse only where a finite word may sit in a relative clause
    apart = [p.strip().lower() for p in core.rstrip(".!").split(",")]
    if topic and len(apart) == 2 and _verbless(apart[0]) and _is_contrast(apart[1]):
        return True
    if any(
        imperative_clause(c, general=_tokens(c)[:1] == ["always"])
        for c in _CLAUSE_SPLIT.split(core)
        if _tokens(c)
    ):
        # after an opening "always", any verb the parser reads as a command opens one
        # ("always laminate the labels"; "always oat milk" has none)
        return False
    placed = {toks[0], toks[-1], *(p for p in apart if " " not in p)}
    return any(
        t in STANDING_ADVERBS and t in placed and (k == 0 or toks[k - 1] != "as")
        for k, t in enumerate(toks)
    )


def as_imperative(sentence: str) -> str | None:
    """The imperative a standing fragment means, or None when `sentence` is not one:
    "metric units, always" -> "Always use metric units."; "backups first, always, then the
    upgrade" -> "Always do backups first, then the upgrade."; a replacement named without a
    verb, "Stereo plus a separate M&E instead, sales need it" -> "Use stereo plus a separate
    M&E instead, sales need it."."""
    if not standing_fragment(sentence):
        return _as_replacement(sentence)
    topic, core = _topic(strip_filler(sentence).strip().rstrip(".!"))
    parts = [p.strip() for p in core.split(",") if p.strip()]
    opening = parts[0].split(maxsplit=1)
    if len(opening) == 2 and opening[0].lower() in _LEADS:
        parts[:1] = opening  # "always bullet points": the adverb opens the command
    lead = next((p.lower() for p in parts if p.lower() in _LEADS), "")
    body = [
        " ".join(w for w in p.split() if w.lower() != "please")
        for p in parts
        if p.lower() not in _LEADS
    ]
    body = [p for p in body if p]
    if not body:
        return None
    sequence = "first" in _tokens(body[0]) and any(p.lower().startswith("then ") for p in body[1:])
    verb = "do" if sequence else "use"
    text = _lower_opening(", ".join(body))
    head = f"{lead.capitalize()} {verb}" if lead else verb.capitalize()
    if topic:
        return f"{topic[:1].upper()}{topic[1:]}: {head[:1].lower()}{head[1:]} {text}."
    return f"{head} {text}."


def with_lone_adverbs(parts: list[str]) -> list[str]:
    """ "available, not on-hand. always.": a sentence that is only a standing adverb belongs
    to the fragment before it ("available, not on-hand, always"), which it makes standing;
    so does a verbless one that opens with a frequency adverbial ("do a dry run first. every
    time, even for a one-line change"): it says how often the sentence before holds. A
    verbless "never ..." or "not ..." after a verbless sentence ("Fuel: kilograms. Never
    litres.") is the other half of its convention: apart, "Never litres." names too little to
    be a rule."""
    out: list[str] = []
    for part in parts:
        toks = _tokens(part)
        head, colon, reason = part.partition(":")
        if out and len(toks) == 1 and toks[0] in STANDING_ADVERBS:
            out[-1] = f"{out[-1].rstrip(' .!')}, {toks[0]}."
        elif out and colon and reason.strip() and _only_how_often(head):
            # "Run it with the bibliography excluded. Every time, please: the reference lists
            # inflate the score": how often the sentence before holds, then why
            said = " ".join(t for t in _tokens(head) if t != "please")
            out[-1] = f"{out[-1].rstrip(' .!')}, {said}."
            out.append(reason.strip())
        elif (
            out
            and not out[-1].rstrip().endswith("?")
            and looks_ahead(part)
            and about_what_came_before(part)
        ):
            # "Anything over 500 goes on the status page. That's the standard from now on.":
            # the remark makes the sentence before standing, and says nothing apart from it
            said = part.strip().rstrip(" .!")
            out[-1] = f"{out[-1].rstrip(' .!')}, {said[:1].lower()}{said[1:]}."
        elif out and (
            (_says_how_often(part) and not imperative_clause(part))
            or (_verbless_contrast(part) and _verbless(out[-1]))
        ):
            said = part.strip().rstrip(" .!")
            out[-1] = f"{out[-1].rstrip(' .!')}, {said[:1].lower()}{said[1:]}."
        else:
            out.append(part)
    return out


# adverbials of frequency that open a sentence and are set off from the rest by a comma
# ("every time, even for ...", "no exceptions"); "always" opens commands too ("always log it")
_HOW_OFTEN = (
    ("always",),
    ("every", "time"),
    ("each", "time"),
    ("every", "single", "time"),
    ("without", "exception"),
    ("no", "exceptions"),
    ("no", "exception"),
)


def _only_how_often(head: str) -> bool:
    """Is the text only an adverbial of frequency or a standing adverb, perhaps with "please"
    ("Every time, please", "Always")?"""
    toks = tuple(t for t in _tokens(head) if t != "please")
    return toks in _HOW_OFTEN or (len(toks) == 1 and toks[0] in STANDING_ADVERBS)


def _says_how_often(part: str) -> bool:
    """A short verbless sentence that opens with an adverbial of frequency set off by a
    comma, or is only one ("every time, even for a one-liner"; "no exceptions")."""
    head = part.strip().rstrip(" .!").partition(",")[0]
    toks = _tokens(part)
    if not toks or len(toks) > _MAX_WORDS or any(_finite(t) for t in toks):
        return False
    return tuple(_tokens(head)) in _HOW_OFTEN


_CONTRASTS = ("never", "not")


def _verbless(part: str) -> bool:
    """A short sentence with no clause and no command ("Fuel: kilograms.")."""
    core = strip_filler(part).strip()
    toks = _tokens(core)
    if not toks or len(toks) > _MAX_WORDS or core.endswith("?") or any(_finite(t) for t in toks):
        return False
    return not any(imperative_clause(c) for c in _CLAUSE_SPLIT.split(core) if _tokens(c))


def _verbless_contrast(part: str) -> bool:
    """ "Never litres.", "not the local time": a contrast that opens with its negation and
    has no verb after it ("Never send it." is a command of its own)."""
    toks = _tokens(part)
    if len(toks) < 2 or toks[0] not in _CONTRASTS:
        return False
    return _verbless(part.strip().split(maxsplit=1)[1])


def _as_replacement(sentence: str) -> str | None:
    """ "the words High / Medium / Low instead, first line of the memo": a verbless phrase
    closed by "instead" names what replaces what the agent used; it means "use ... instead".
    Whatever follows its comma (where, or why) is kept."""
    core = strip_filler(sentence).strip()
    head, comma, rest = core.partition(",")
    head = head.rstrip(" .!")
    toks = _tokens(head)
    if len(toks) < 2 or toks[-1] != "instead" or core.endswith("?") or not _verbless(head):
        return None
    if ACCEPTANCE.match(core) or marks_one_off(core):
        return None
    said = _lower_opening(head.strip())
    tail = f", {rest.strip().rstrip('.!')}" if comma and rest.strip() else ""
    return f"Use {said}{tail}."


def _lower_opening(text: str) -> str:
    """The text with a capital that only opened the sentence lowered ("Stereo plus ..." ->
    "stereo plus ..."); an acronym or a mixed-case name ("M&E", "iPhone") keeps its case."""
    first = text.split()[0]
    if first[1:] == first[1:].lower():
        return text[:1].lower() + text[1:]
    return text
