"""Specs: a standing format or procedure set out as a head and its items ("Every delay report
like this: first line flight and date. Then STD -> ATD in UTC. ..."). The items are one rule
with their head, never a rule each: apart, "Then the out and back dates." says nothing of
what it is about.
"""

from __future__ import annotations

import re

from dctx.capture.cues import (
    ASKS_AGENT,
    SentenceKind,
    classify_sentence,
    command_words,
    commands_in,
    names_case,
    only_marks_one_off,
    standing_cue,
)
from dctx.grammar import for_a_kind, of_every_one, points_forward, says_when
from dctx.text import sentences, words

_HEAD_WORDS = 14  # a head longer than this is a sentence of its own, not a spec's title
# a one-word head is a label ("Note:", "Remember:", "yes-always: false"), not what a spec is for
_LABEL_WORDS = 1
# what ends a spec's items; not a request: "Then the open tasks." reads as one, and is an item
_ENDS = frozenset({SentenceKind.ONE_OFF, SentenceKind.ACCEPTANCE, SentenceKind.WITHDRAWAL})


# where a sentence's last clause begins: a colon or semicolon, or a comma before "so", "and" or
# "but" ("our confirmations are all over the place, so here's the format, every time: ...")
_CLAUSE_BREAK = re.compile(r"[:;]\s+|,\s+(?:so|and|but)\s+", re.IGNORECASE)


def _last_clause(text: str) -> str:
    """The text's last clause: what a spec's head is when a complaint or this task's step
    comes before it in the same sentence."""
    return _CLAUSE_BREAK.split(text.strip())[-1]


def _head_clause(text: str) -> str:
    """The clause of a sentence that heads a spec: its last clause (`_last_clause`) or, when
    that is longer than a head, the comma clause of it that says it stands and points at what
    follows, with an aside before it or a complaint after it ("And while I've got you, this
    is how every clear-to-close email should look from now on, I'm tired of rewriting
    yours")."""
    last = _last_clause(text)
    if len(last.split()) <= _HEAD_WORDS:
        return last
    for clause in last.split(", "):
        if standing_cue(clause) and points_forward(clause):
            return clause
    return last


def opens_spec(sentence: str) -> bool:
    """Does the sentence open a spec: a short head that says to what cases it applies (a
    universal determiner, a condition, a standing cue, "for" and a kind: "For owner
    reports: ...") or points at what follows ("For the weekly KPI note, this is the layout:
    ...") in more than a label's one word and gives no command itself but one to use what
    follows from now on, a colon, and something after it that is not a question ("before we
    accept anything: did anyone check the setbacks?")?
    A bare plural alone ("Transcript replies: ...") is no head: on real sessions it opened
    pasted logs ("Max frames: 7")."""
    head, colon, items = sentence.partition(":")
    head = _head_clause(head)
    if not colon or not items.strip() or not _LABEL_WORDS < len(head.split()) <= _HEAD_WORDS:
        return False
    if items.rstrip().endswith("?"):
        return False
    if commands_in(head):
        # "whenever X, don't ship it by air: book ground freight" is a command; "Use this
        # from now on: <template>" one that acts on what follows, for good
        return standing_cue(head) and points_forward(head, here=False, as_object=True)
    return (
        says_when(head)
        or standing_cue(head)
        or points_forward(head, here=False)
        or for_a_kind(head)
    )


def points_ahead(sentence: str) -> bool:
    """Does the sentence announce, without a colon, a standing spec that the sentences after
    it set out ("Recall notices to agencies, this is the format from now on. Subject: ...",
    "Here's how I want denial letters from now on. First sentence ...")? A short head with a
    standing cue that points at what follows (grammar.points_forward) and gives no command."""
    said = _head_clause(sentence)
    toks = words(said)
    if said.endswith("?") or ":" in said or not _LABEL_WORDS < len(toks) <= _HEAD_WORDS:
        return False
    return standing_cue(said) and not commands_in(said) and points_forward(said)


def spelled_out_spec(text: str) -> str:
    """The spec a turn sets out: the sentence that opens it and those after it, up to the
    first that asks, accepts, withdraws, is for this task only ("Can you send her a
    corrected one?", "Also just this once convert the revenue lines to EUR", or one a bare
    one-off marker follows: "For him only, add his gate code. Just this once."), names the
    case it is first used on ("First one: the Bosworth-Adair wedding, EV-3179.") or only
    acts on this output ("Redo it."). "" when none."""
    parts = [p for p in sentences(text) if p.strip()]
    for k, part in enumerate(parts):
        after = parts[k + 1] if k + 1 < len(parts) else ""
        # a head whose colon ends its line ("Use this from now on:"), the items in the
        # sentences after it: only one that says it stands (a colon before pasted code or a
        # rant's "THIS IS ALL INSANE:" is none)
        ends = part.rstrip().endswith(":") and standing_cue(part)
        head = f"{part} {after}" if ends else part
        if opens_spec(head):
            said, colon, items = part.partition(":")
            opening = f"{_head_clause(said)}{colon}{items}"
        elif after and points_ahead(part):
            opening = _head_clause(part)
        else:
            continue
        # from the head's clause on: a complaint before it in its sentence is no part of it
        spec = [opening]
        for j, later in enumerate(parts[k + 1 :], start=k + 1):
            # what follows an item's colon is its content ("sections: Done this week, Next
            # week"), not a word on how long the spec holds
            said = later.partition(":")[0]
            if later.rstrip().endswith("?") or classify_sentence(said) in _ENDS:
                break
            if j + 1 < len(parts) and only_marks_one_off(parts[j + 1]):
                break  # "For him only, add 'Bring your new ID card.' Just this once."
            if ASKS_AGENT.search(said) or names_case(later) or _redoes_this(later):
                break  # "Anyway, can you log a contact for AV-231170, ...": this task
            spec.append(later)
        return " ".join(spec)
    return ""


# the words by which a short command acts on the output in view ("Redo it.", "Fix that.")
_THIS_OUTPUT = frozenset({"it", "this", "that"})
_SHORT_COMMAND = 3  # words of a command that names nothing but the output it acts on


def _redoes_this(sentence: str) -> bool:
    """Is the sentence a short command on the output in view ("Redo it.", "Send it now.")?
    That is this task's step, not an item of the spec before it."""
    said = command_words(sentence)
    return (
        1 < len(said) <= _SHORT_COMMAND
        and said[1] in _THIS_OUTPUT
        and classify_sentence(sentence) in _ASKED
    )


_ASKED = frozenset({SentenceKind.REQUEST, SentenceKind.DIRECTIVE})


def stands(spec: str) -> bool:
    """Does the spec's head say it stands ("Every delivery note from now on: subject ...
    Body: ...")? Such a turn is a standing correction whatever its length: the reader,
    weighing a long list of items, takes it for a task."""
    head = spec.partition(":")[0]
    return bool(spec) and (standing_cue(head) or of_every_one(_last_clause(head)))


def standing_spec(text: str) -> str:
    """The spec a turn sets out when its head says it stands (`stands`), "" otherwise."""
    spec = spelled_out_spec(text)
    return spec if stands(spec) else ""
