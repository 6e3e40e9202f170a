"""The topic a correction names before a colon ("liability caps in general: twelve months'
fees is our floor", "namespaces: never create one yourself"): what the rule is about.

Framing before a colon ("before I forget: ...", "two things for my reports: ...") is dropped
from a rule's words (phrasing.drop_preamble), but a topic is not framing: without it "never
create one yourself" says nothing. A head is read as a topic when it is a short phrase with no
clause in it (no pronoun, auxiliary or command) and the conversation was about it (one of its
words is in the request, the situation or the tools used, or it names something as code
does: "rollout_status for prod"), which framing words are not, or when a pronoun after the
colon stands for it ("never create one yourself": one namespace), or when it names a kind of
thing in the bare plural before a command for it ("narrow streets: use the 7.5-tonne"): the
cases the command is for, whatever the conversation was about.
"""

from __future__ import annotations

import re

from dctx.capture.base import CorrectionSignal
from dctx.capture.cues import imperative_clause, strip_filler
from dctx.capture.verbs import FINITE_MARKERS
from dctx.grammar import names_a_class
from dctx.text import STOPWORDS, content_stems, words

_MAX_WORDS = 5
# words that make a head about people, not things ("for my reports", "for everyone")
_PERSONAL = frozenset(
    "me my mine us our ours your yours them their everyone everybody anyone anybody".split()
)
# words that open a time or condition, not a topic ("before the return: ...")
_ADVERBIAL = frozenset("before after until till since during while unless".split())


def topic_head(signal: CorrectionSignal) -> str | None:
    """The topic the correction's directive is stated under, or None when there is none: the
    head before the directive's own colon, or before the colon that opens the turn the
    directive sits in."""
    head = _head(signal)
    if head is None:
        return None
    head = strip_filler(head).strip(" ,.;-")
    said = [w.lower() for w in words(head)]
    if not said or len(said) > _MAX_WORDS or said[0] in STOPWORDS or said[0] in _ADVERBIAL:
        return None  # "when ...", "for every ...", "so ...": a condition or framing
    if any(w in FINITE_MARKERS or w in _PERSONAL or "'" in w for w in said):
        return None  # a clause or a person: framing, not a topic
    if imperative_clause(head):
        return None  # "put it all in a table from now on: ..." is the rule itself
    topic = set(content_stems(head))
    if not topic:
        return None
    if _refers_to_head(signal.directive.partition(": ")[2]):
        return head  # "namespaces: never create one yourself": the head is what "one" means
    if _IDENTIFIER.search(head):
        return head  # "rollout_status for prod: ...": framing never names a tool or a key
    if names_a_class(head) and imperative_clause(_after_colon(signal.directive)):
        return head  # "narrow streets: use the 7.5-tonne": the cases the command is for
    seen = " ".join([signal.query, signal.situation, *signal.tools_seen]).replace("_", " ")
    if not topic & set(content_stems(seen)):
        return None  # nothing the conversation was about
    return head


def _after_colon(directive: str) -> str:
    return re.split(r"[,;]", directive.partition(": ")[2].strip(), maxsplit=1)[0]


# pronouns that stand for a thing named before them; "it" and "that" are left out, since
# they also point at what the agent just did ("small thing: don't do that again")
_ANAPHORS = frozenset("one ones them they these those".split())


def _refers_to_head(tail: str) -> bool:
    """Does the first clause after the directive's own colon stand for its things by a
    pronoun? Then the head is its antecedent, a topic, whatever the conversation was about."""
    said = [w.lower() for w in words(re.split(r"[,.;!?]", tail, maxsplit=1)[0])]
    if not said:
        return False
    return any(
        w in _ANAPHORS and not (w == "one" and nxt in _ONE_AS_NUMBER)  # "one of the pumps"
        for w, nxt in zip(said, [*said[1:], ""], strict=True)
    )


# a name written as code (snake_case, camelCase): a tool, a parameter, a key
_IDENTIFIER = re.compile(r"[a-z0-9]_[a-z0-9]|[a-z][A-Z]")
_ONE_AS_NUMBER = frozenset("of more last other".split())


def _head(signal: CorrectionSignal) -> str | None:
    head, colon, tail = signal.directive.partition(": ")
    if colon and len(tail.split()) >= 2:
        return head
    head, colon, tail = signal.raw.partition(": ")
    opening = " ".join(signal.directive.split()[:6]).lower()
    if colon and opening and opening in " ".join(tail.split()).lower():
        return head
    return None


def under_topic(topic: str, text: str) -> str:
    """ "Namespaces: never create one yourself.": the rule's words under their topic."""
    if text.lower().startswith(topic.lower()):
        return text
    first = text.split(maxsplit=1)[0] if text.split() else ""
    lowered = text if first[1:] != first[1:].lower() else text[:1].lower() + text[1:]
    return f"{topic[:1].upper()}{topic[1:]}: {lowered}"
