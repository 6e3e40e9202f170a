"""A turn that takes back one of its speaker's rules.

"Drop the review link from my texts. Three customers complained." after the rule "Add our
review link to the end of my customer texts from now on" takes that rule back. Read alone, the
turn is a one-off fix (the turn reader gives it p 0.03, and a first turn is never read as a
correction), so the link stayed in every text. Capture reads each turn the reader does not
admit against its speaker's rules, as it does for revisions (capture/revisions.py): a sentence
whose command takes something away (a verb of removal, a cessation or a prohibition:
cues.takes_away) and that speaks of a rule's subject (shares at least two of its content
words) revokes that rule, unless the rule itself takes the same thing away ("remove unused
imports" is not revoked by "remove the unused imports"). Compile finds the rule the sentence
revokes among the speaker's (Rulebook.withdraw) and learns the sentence as what holds now.
"""

from __future__ import annotations

from collections.abc import Iterable

from dctx.capture.cues import SentenceKind, classify_sentence, command_words, takes_away
from dctx.capture.revisions import subject_words
from dctx.text import sentences, stem

_SHARED_WORDS = 2  # what a sentence must share with a rule to speak of its subject


def revocation(text: str, rules: Iterable[str]) -> str | None:
    """The sentence of the turn that takes back the latest of `rules` it speaks of, or None."""
    known = list(rules)
    for sentence in sentences(text):
        if "?" in sentence or classify_sentence(sentence) is SentenceKind.ONE_OFF:
            continue
        if not takes_away(sentence):
            continue
        words = subject_words(sentence)
        verb = stem(command_words(sentence)[0])
        for rule in reversed(known):
            if takes_away(rule) or verb in subject_words(rule):
                continue  # "remove the unused imports" does not take back "remove unused ones"
            if len(words & subject_words(rule)) >= _SHARED_WORDS:
                return sentence
    return None
