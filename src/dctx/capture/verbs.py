"""Base-form verbs that open an imperative directive ("skip the KB", "open with a score").

A sentence is only read as a directive when a clause of it is imperative or modal: correction
cue words alone ("instead", "wrong") also appear in descriptions and reasons.
"""

from __future__ import annotations

IMPERATIVE_VERBS = frozenset(
    """accept acknowledge add address adjust advise alert allow annotate answer append apply
    archive ask assign attach avoid bcc begin bold break bring build bump calculate call cancel
    cap capitalize cc change check choose cite clarify classify clear close collect combine
    compare compute confirm consider contact convert copy correct create cross-check cut default
    defer delete denote describe disclose display do document double-check drop email emphasize
    end enter escalate estimate exclude expand explain express fetch file fill filter finish flag
    focus follow format forward frame get give go group hand handle highlight hold ignore include
    indicate keep label lead leave limit link list log look loop make mark mention merge message
    move note notify offer omit open order organize page pass paste phrase pick place point post
    prefer prefix present prioritize prioritise pull push put quote rank rate read recommend
    record redact refer refund reject remind remove rename reply report request reroute resolve
    respond restate return review round route run save say schedule search send separate set
    show sign skip sort specify split start state stick summarize summarise surface switch tag
    take tell treat trim try update use verify warn wrap write
    approve assign book bucket credit decline deny exclude grant issue normalize annualize
    ping quantify rebook reconcile reopen replace reship screen ship stress-test
    transfer value waive weight""".split()
)

# Adverbs and particles that may precede the verb of an imperative.
IMPERATIVE_PREFIX = frozenset(
    "please pls plz also always never just then first only still kindly definitely".split()
)

# Words that open a prohibition ("don't cc", "never add", "avoid emojis").
NEGATIONS = frozenset("don't dont don’t never avoid".split())

# Words that end a practice the agent has ("stop adding the footer").
CESSATIONS = frozenset("stop quit cease".split())

# Verbs that take something out of what the agent does ("drop the emojis", "remove the cc");
# each opens a command as the verbs above do ("Scrap the photo links in RFIs").
REMOVALS = frozenset("drop remove delete scrap scratch ditch omit cut lose strip".split())
IMPERATIVE_VERBS |= REMOVALS

# Verbs that keep a practice as it is ("keep the rest"): they replace nothing.
CONTINUATIONS = frozenset({"keep"})

# Words that only a finite clause has: subject pronouns, copulas, auxiliaries and modals. A
# sentence with none of them and no imperative verb is a verbless fragment ("metric units").
FINITE_MARKERS = frozenset(
    """i we you they he she it this that there is are was were be been am has have had do
    does did can could will would should must may might shall isn't aren't wasn't weren't
    doesn't don't didn't can't won't shouldn't""".split()
)

# Adverbs that make a verbless fragment standing ("metric units, always", "ISO everywhere").
STANDING_ADVERBS = frozenset("always never everywhere throughout".split())
