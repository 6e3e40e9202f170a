"""Deterministic cues for aftermath classification (the paper's classifier is keyword-first).

Each user sentence that follows an assistant output is read as one of: a directive (a
correction), an acceptance, a new request, a withdrawal of an earlier rule, or a one-off ask.
The cue lists are data; `classify_sentence` scores a sentence against them.
"""

from __future__ import annotations

import enum
import re

from dctx.capture.base import Aftermath
from dctx.capture.condition_words import class_subject
from dctx.capture.subjects import IDENTIFIER_PATTERN
from dctx.capture.verbs import (
    CESSATIONS,
    CONTINUATIONS,
    IMPERATIVE_PREFIX,
    IMPERATIVE_VERBS,
    NEGATIONS,
    REMOVALS,
)
from dctx.grammar import (
    continues_a_statement,
    negates_with_no,
    open_case,
    opens_command,
    said_of_the_past,
    tells_of_the_past,
)
from dctx.text import STOPWORDS, quoted_spans, words


def _rx(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns), re.IGNORECASE)


# Strong signs that a sentence states a standing behavior.
STRONG_DIRECTIVE = _rx(
    r"\balways\b",
    r"\bnever\b",
    r"\bfrom now on\b",
    r"\bgoing forward\b",
    r"\bin (the )?future\b",
    r"\bnext time\b",
    r"\bevery time\b",
    r"\bwhenever\b",
    r"\b(don'?t|do not|doesn'?t|shouldn'?t|should not|mustn'?t|must not)\b",
    r"\binstead\b",
    r"\brather than\b",
    r"\bmake sure\b",
    r"\bbe sure to\b",
    r"\bremember (to|that)\b",
    r"\byou (should|need to|must|have to|ought to)\b",
    r"\b(should|must) (always|be|have|use|include|show|report|list|call|check|go|come)\b",
    r"\bi (prefer|want you to|'d prefer|would prefer|'d like you to|would like you to|"
    r"'d rather|would rather|like it when)\b",
    r"\bwe (always|never|prefer|use|need|require|want)\b",
    r"\b(policy|rule of thumb|standard practice)\b",
    r"\b(wrong|incorrect|not right|mistake)\b",
    r"\bactually\b",
    r"\bstop\b",
    r"\bavoid\b",
    r"\bno need to\b",
    r"\bplease (use|include|add|show|put|format|report|list|give|keep|round|express|call|check|"
    r"skip|escalate|convert|flag|mention|start|lead|present|cite|write|limit|verify|confirm|ask|"
    r"send|cc|avoid|make|state|note|break|split|label|sort|group|separate|compute|calculate|use)\b",
)

# A sentence that starts with a behavior verb is a directive even without other cues.
DIRECTIVE_START = _rx(
    r"^(please\s+)?(also\s+)?(use|include|add|format|put|keep|round|express|report|present|list|"
    r"flag|mention|cite|call|check|verify|escalate|skip|lead with|start with|begin with|convert|"
    r"write|limit|cap|give|state|note|break|split|label|sort|group|separate|compute|calculate|"
    r"bold|highlight|attach|cc|send|ask|confirm|prefer|express|show (the |all |amounts|numbers|"
    r"values|figures|prices|percent|dates)|denote|quote|exclude|ignore|omit|drop|leave out|"
    r"refer to|call them|say|stick to|switch to|go with)\b",
    r"^(when|whenever|if|for|once|where|in case)\b[^,]{2,120},\s*\w+",
)

# A question that asks the agent to do something ("could you ...").
ASKING = r"(?:can|could|would|will) you"
# that form anywhere in a sentence, with its "please" ("could you please mask account numbers")
ASKS_AGENT = re.compile(rf"\b{ASKING}\b(?:\s+please\b)?", re.IGNORECASE)

# Signs of a new task rather than a standing behavior.
REQUEST = _rx(
    r"\?\s*$",
    rf"^{ASKING}\b",
    r"^(what|how|why|who|where|which|is|are|does|do|did)\b",
    r"^(now|next|then)\b(?!\s+time)",
    r"^(let'?s|let us)\b(?!\s+(stop|not|never|always|drop|skip|no longer|keep))",
    r"^(please\s+)?(redo|re-do|rerun|re-run|retry|try again|fix (it|that|this)|regenerate|resend|"
    r"re-send|re-file|refile|send it|ship it|go ahead)\b",
    r"^(please\s+)?(summari[sz]e|analy[sz]e|look up|look into|pull|find|fetch|get me|compare|"
    r"tell me|give me|show me|draft|prepare|handle|help|process|open|create a|review|assess|"
    r"investigate|check on|run)\b",
)

ACCEPTANCE = _rx(
    r"^(thanks|thank you|thx|ty|great|good|perfect|nice|awesome|excellent|cool|lovely|brilliant|"
    r"looks good|lgtm|ok(ay)?|alright|all right|correct|exactly|yes|yep|yeah|sure|fine|"
    r"got it|that works|that'?s (right|it|perfect|better|great|good|fine|correct)|much better|"
    r"well done|spot on|works for me|sounds good)\b[\s,.!:;)-]*",
    r"^(that'?s|this is|it'?s|now that'?s)\b.{0,40}\b(want|wanted|need|needed|like|after|"
    r"looking for|version|shape|format|right|better)\b[\s.!]*$",
)

WITHDRAWAL = _rx(
    r"\bforget (about )?(the|that|my|what|this|those|it)\b",
    r"\bnever ?mind\b",
    r"\bignore (what i said|my (earlier|previous|last)|the (earlier|previous|old))\b",
    r"\bno longer (need|want|necessary|required|needed|have to|apply|applies)\b",
    r"\b(you can|please|let'?s|we can) (stop|drop|scrap|remove|retire|discard)\b",
    r"\bstop doing (that|this|it)\b",
    r"\b(drop|scrap|remove|retire|discard|cancel|undo|revert|lift) (the|that|this|my) .{0,60}?"
    r"\b(rule|requirement|instruction|preference|policy|thing|convention|habit)\b",
    r"\bdisregard\b",
    r"\b(don'?t|do not|no need to) .{0,80}\b(anymore|any more|any longer)\b",
    r"\b(anymore|any more|any longer)\b",
    r"\bscratch that\b",
)

ONE_OFF = _rx(
    r"\bjust (for|this) (this|one|once|time|report|ticket|call|email|case|request|customer|client|"
    r"company|analysis|memo|summary|one)\b",
    r"\bonly (this|for this) (once|time|one|report|ticket|case|request)\b",
    r"\bonly this once\b",
    r"\bthis time only\b",
    r"\bjust this (once|time)\b",
    r"\bfor this (one|report|ticket|case|request|memo|analysis|summary|email) only\b",
    r"\b(one-off|one off|exception this time)\b",
    r"\bfor now\b",
    r"\b(for|on) this one\b",
    r"\b(don'?t|do not) make (a habit|it a habit|this a habit)\b",
    r"\bback to normal\b",
    r"\bthis time\b",
    # "cc me on anything from them today" is a one-off; "the restructure that went live today"
    # dates a standing change
    r"\btoday\b(?<!live today)(?<!as of today)(?<!from today)(?<!starting today)"
    r"(?<!effective today)(?<!since today)",
    r"\bthis (morning|afternoon|week)\b(?<!as of this week)(?<!from this week)"
    r"(?<!starting this week)",
    r"\b(today|this time) (only|just)\b",
)

# Leading filler removed from a directive before it is compiled.
LEADING_FILLER = re.compile(
    r"^(?:(?:oh|ah|hmm+|hm|um+|uh|well|so|and|also|plus|btw|by the way|one more thing|"
    r"quick note|side note|fyi|ps|p\.s\.|hey|ok(?:ay)?|alright|right|yeah|yes|no|nope|nah|wait|"
    r"(?:hold|hang) on|hold up|"
    r"actually|also|good|great|thanks|thank you|perfect|nice|but|however|though|anyway|oh and|"
    r"and also|one thing|honestly|frankly|seriously|cool|fine|sure|listen|"
    r"close(?=[,.:;!])|look(?=[,.:;!])|"
    r"(?:one )?(?:small|minor|quick|last) (?:thing|one|note)|one last thing|while i think of it|"
    r"before i forget|while i'?m at it|for the record)(?:[,.:;!]+\s*|\s+[-–—]+\s*|\s+))+",
    re.IGNORECASE,
)


class SentenceKind(enum.StrEnum):
    DIRECTIVE = "directive"
    ACCEPTANCE = "acceptance"
    REQUEST = "request"
    WITHDRAWAL = "withdrawal"
    ONE_OFF = "one_off"
    OTHER = "other"


_LAST_NO = re.compile(r"\bno\s+$", re.IGNORECASE)


def strip_filler(sentence: str) -> str:
    """The sentence without the interjections and discourse words that open it ("ok, so
    ..."). A "no" that negates something of the sentence is its own: "No emojis in commit
    messages" forbids them, and without it would ask for them."""
    text = sentence.strip()
    filler = LEADING_FILLER.match(text)
    if filler is None:
        return text
    said = _LAST_NO.search(filler.group(0))
    if said is not None and negates_with_no(text[said.start() :]):
        return text[said.start() :].strip()
    return text[filler.end() :].strip()


_CLAUSE_SPLIT = re.compile(r"\s*(?:[,;:]|\s[-–—]\s|\bbut\b|\band\b)\s*", re.IGNORECASE)
_LEAD_CONDITION = re.compile(
    r"^(?:when(?:ever)?|if|for|once|where|in case|any ?time|each time|every time|with|on|"
    r"anything|everything|whatever|any \w+|all \w+)\b[^,:]{1,120}?(?:,|:)\s*",
    re.IGNORECASE,
)
# the words that say an instruction holds from now on, or each time its case comes up
_AHEAD = r"\b(from now on|going forward|in (the )?future|next time|every time|whenever)\b"
MODAL = _rx(
    r"\byou (should|need to|must|have to|ought to|'?ll want to|can just)\b",
    r"\b(make sure|be sure to|remember to)\b",
    r"\bi (want|need|'d like|would like|expect) you to\b",
    r"\bi (prefer|'d prefer|would prefer|'d rather|would rather|like it when)\b(?! not to be)",
    r"\bwe (always|never|use|need|prefer|require|want|expect|call|say|write|spell|give|offer|"
    r"issue|charge)\b",
    r"\b(not |never )?supposed to\b",
    # not after a subject other than the agent, nor in a relative clause ("I'm the one who has
    # to explain the price": the speaker's lot, no instruction)
    r"(?<!\bi )(?<!\bthere )(?<!\bit )(?<!\bthat )(?<!\bthis )(?<!\bshe )(?<!\bhe )(?<!\bthey )"
    r"(?<!\band )(?<!\bwho )(?<!\bwhich )\b(should|must|needs? to|has to|"
    r"have to|ought to) (always |never |not |only |also )?(?!be (some|a|an)\b)(?!have\b)\w+",
    r"\b(no need to|there'?s no point|no point (in )?\w+ing|is pointless|not worth \w+ing)\b",
    r"\bstop [\w']+ing\b",
    _AHEAD,
    r"\b((our|the|company|team|house) policy (is|says)|(it'?s|that'?s|this is) (our |company |"
    r"team )?policy|policy is to|as a policy|house style|rule of thumb|"
    r"(that'?s|it'?s|this is) the rule|standing rule)\b",
    # a stated correction of a fact the agent works by: "the window is 14 days, not 30"
    r"\b(is|are) (now )?[^.,;!?]{1,40}, not [^.,;!?]{1,30}",
    # routing stated as fact: "webhook and API problems go to the platform_eng queue"
    r"(?<!\bi )(?<!\bwe )(?<!\bthey )(?<!\bhe )(?<!\bshe )(?<!\byou )(?<!\bit )"
    r"\b(go|goes|belong|belongs|get routed|gets routed|are routed|is routed)\s+"
    r"(?:straight\s+|directly\s+)?(?:to|in|into)\s+(?:the\s+)?[\w-]+",
)


def imperative_clause(clause: str, *, general: bool = False) -> bool:
    """Does the clause open with a command? A verb of IMPERATIVE_VERBS does unless the parser
    reads it as a noun ("change of plan", "report cards go home"); any other verb the parser
    reads as a command only in a clause said as standing (`general`: a standing cue or a
    leading condition in its sentence) or one that says when it holds ("grab the previous
    logs when a pod crashloops"). Agents are told to do things all the time; a command whose
    verb is not one people correct agents with needs a sign that it holds beyond this task
    ("implement the plan" does not: on real sessions, taking every parsed command stored more
    task requests than corrections)."""
    toks = re.findall(r"[a-zA-Z'’-]+", clause.lower())
    i = 0
    while i < len(toks) and toks[i] in IMPERATIVE_PREFIX:
        if toks[i] == "never":
            # "never value a REIT on EPS"; not "never missed a payment", which tells (the
            # small tagger calls a lower-case "never cc them" past too: a command verb is none)
            after = toks[i + 1] if i + 1 < len(toks) else ""
            return after in IMPERATIVE_VERBS or not tells_of_the_past(clause)
        i += 1
    if i < len(toks) and toks[i] in NEGATIONS:
        return True
    if i + 1 < len(toks) and toks[i] == "do" and toks[i + 1] == "not":
        return True
    if i >= len(toks):
        return False
    if toks[i] not in IMPERATIVE_VERBS and not (general or _GENERAL.search(clause)):
        return False  # decided without the parser, which reads the rest
    return opens_command(_after_prefix(clause), IMPERATIVE_VERBS)


# a clause that says when it holds ("grab the logs when a pod crashloops")
_GENERAL = re.compile(r"\b(whenever|when|unless|every time|each time|any time)\b", re.IGNORECASE)


def _after_prefix(clause: str) -> str:
    """The clause from its first word that is not an imperative prefix ("please also ...")."""
    rest = clause.strip()
    while True:
        m = re.match(r"[\W_]*([A-Za-z'’-]+)[\s,]*", rest)
        if not m or m.group(1).lower() not in IMPERATIVE_PREFIX:
            return rest
        rest = rest[m.end() :]


# "anything under 12 months of runway, I want a red-flag line"; "you need a change ticket on
# anything going into prod": a requirement, standing where the sentence speaks of any case
_WANT_STANDING = re.compile(
    r"\b(?:i (?:want|need|'d like|would like)|you(?:'ll| will)? need)\b.{0,80}$", re.IGNORECASE
)
_STANDING_CONTEXT = re.compile(
    r"\b(always|never|every|anything|whenever|going forward|from now on|each|any time)\b|"
    r"^\W*(when|if|for)\b",
    re.IGNORECASE,
)


# an identifier mixes digits with capitals or underscores ("GH-75112", "credit_card_7334"),
# unlike a measure ("5-year", "12-month")
_TASK_BOUND = re.compile(
    IDENTIFIER_PATTERN + r"|\b(my|mine)\b|"
    # one person in view: "use the old template for her, she negotiated against it"
    r"\bfor (her|him)\b|"
    r"\bi(\s+\w+){0,2}\s+(need|have|must|should|want)\b|"
    r"^(?:please\s+)?(?:transfer|connect|put|get|book|find|search|send)\s+"
    r"(?:me\b|.{0,40}\bfor me\b)|"
    r"(?:^|,\s*)(?:please\s+)?(?:open|create|file|raise|book|schedule|set up)\s+(?:a|an|one)\b|"
    # a time for this task: "book the chat at 2", "screen both next week", "move it to Friday"
    r"\b(at \d{1,2}(:\d\d)?\s*(am|pm)?\b|next week|tomorrow|tonight|(on |to )?(monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday)( morning| afternoon| evening)?\b)",
    re.IGNORECASE,
)


_CASE_ID = re.compile(IDENTIFIER_PATTERN)


def names_case(sentence: str) -> bool:
    """Does the sentence name one case by its identifier ("First one's for Ilona Varga,
    RX-605522"), outside quoted text and "like ..." examples (a format's 'OUT-89811')?"""
    return bool(_CASE_ID.search(_EXAMPLES.sub(" ", sentence)))


def commands_in(text: str) -> bool:
    """Does some clause of the text open with a command ("whenever a parcel holds lithium
    cells, don't ship it by air")?"""
    return any(imperative_clause(strip_filler(c)) for c in _CLAUSE_SPLIT.split(text) if c.strip())


def _tells_how_it_went(sentence: str) -> bool:
    """Is every modal cue of the sentence a word of recurrence said of what has happened
    ("The confirmation email has been different every time")? A complaint, not an
    instruction."""
    return all(
        _AHEAD_ONLY.fullmatch(hit.group(0)) and said_of_the_past(sentence, hit.start())
        for hit in MODAL.finditer(sentence)
    )


_AHEAD_ONLY = re.compile(_AHEAD, re.IGNORECASE)


def is_directive(sentence: str) -> bool:
    """Imperative or modal: some clause starts with a command verb, or the sentence states an
    obligation/preference ("X needs to go to Y", "I want a red-flag line at the top")."""
    core = strip_filler(sentence)
    if _NOT_ADDRESSED.match(core):
        return False  # "I'll make sure to find my user ID", "take care!": not for the agent
    if _FOR_CLASS_VERB.match(core) and imperative_clause(
        _FOR_CLASS_VERB.sub("", core, count=1), general=True
    ):
        return True  # "For P3s also page the secondary on-call"
    led = _LEAD_CONDITION.match(core)
    # "Before any DELETE or UPDATE, clone the table": a clause of time about any case says
    # when the command holds, as a condition does (grammar.open_case; not "before you send it")
    general = bool(led) or _standing(sentence) or open_case(core, universal=True)
    core = _LEAD_CONDITION.sub("", core, count=1)
    if imperative_clause(core, general=general):
        return True
    if led and _REQUIREMENT.search(core):
        return True  # "For Staff and above, the loop needs a system design round"
    if MODAL.search(sentence) and not _tells_how_it_went(sentence):
        return True
    if _states_class_policy(core):
        return True  # "Gold members now also get the 1-hour priority callback"
    if _VERBLESS_FORMAT.match(core) and _standing(sentence):
        return True  # "Dates as YYYY-MM-DD please, always."
    if _WANT_STANDING.search(sentence) and _STANDING_CONTEXT.search(strip_filler(sentence)):
        return True
    clauses = [
        (strip_filler(core[cut.end() : end]), cut)
        for cut, end in _clause_cuts(core)
        if core[cut.end() : end].strip()
    ]
    return any(
        (imperative_clause(c, general=general) and not _goes_on_saying(core, cut))
        or _states_class_policy(c)
        for c, cut in clauses
    )


def _goes_on_saying(text: str, cut: re.Match[str]) -> bool:
    """Is the clause after an "and" the next verb of a statement about someone ("Half of
    them never make that call and end up off their meds")? A comma splice ("we're on 3.11,
    use builtin generics") is left alone: the small parser joins a command after a comma to
    the statement before it."""
    return cut.group(0).strip().lower() == "and" and continues_a_statement(text, cut.end())


def _clause_cuts(text: str) -> list[tuple[re.Match[str], int]]:
    """Each clause break of the text, with where the clause after it ends."""
    cuts = list(_CLAUSE_SPLIT.finditer(text))
    ends = [c.start() for c in cuts[1:]] + [len(text)]
    return list(zip(cuts, ends[: len(cuts)], strict=True))


def classify_sentence(
    sentence: str, *, first_turn: bool = False, announced: bool = False
) -> SentenceKind:
    """Classify one user sentence. In the session's first user turn (no assistant output yet)
    only strongly marked standing directives count as directives; `announced` says an earlier
    sentence of the turn already marked it as standing ("Update for everyone: ...")."""
    text = sentence.strip()
    if not text:
        return SentenceKind.OTHER
    core = strip_filler(text)
    if marks_one_off(text):
        return SentenceKind.ONE_OFF
    if WITHDRAWAL.search(text):
        return SentenceKind.WITHDRAWAL
    standing = _standing(text) or announced
    if first_turn:
        return SentenceKind.DIRECTIVE if standing and is_directive(text) else SentenceKind.REQUEST
    if REQUEST.search(core) and not standing and not _REDIRECTS_HABIT.search(core):
        return SentenceKind.REQUEST
    if (
        not standing
        and _TASK_BOUND.search(_EXAMPLES.sub(" ", text))
        and not _LEAD_CONDITION.match(core)
    ):
        return SentenceKind.REQUEST  # "Cancel XEHM4B", "I really need to change my flight"
    if ACCEPTANCE.match(core) and not ACCEPTANCE.sub("", core, count=1).strip():
        return SentenceKind.ACCEPTANCE
    if is_directive(text):
        return SentenceKind.DIRECTIVE
    if ACCEPTANCE.match(core) or ACCEPTANCE.match(text):
        rest = ACCEPTANCE.sub("", core if ACCEPTANCE.match(core) else text, count=1).strip()
        if not rest:
            return SentenceKind.ACCEPTANCE
        if len(rest) >= len(text):  # nothing was taken off: reading it again would not end
            return SentenceKind.OTHER
        return classify_sentence(rest)
    return SentenceKind.OTHER


# "Compare to the current peer median instead, like you originally did": a command verb that
# usually opens a request, correcting how the agent works
_REDIRECTS_HABIT = re.compile(
    r"^(?:please\s+)?(?:compare|review|pull|run|check on)\b(?!.*\?\s*$).*\b(instead|rather than)\b",
    re.IGNORECASE,
)


# quoted text and "like ..." examples show a format; an id inside them is not the task's
_EXAMPLES = re.compile(
    r"'[^']{2,80}'|\"[^\"]{2,80}\"|[‘“][^’”]{2,80}[’”]|\b(?:like|e\.g\.|for example|such as)\s+\S+",
    re.IGNORECASE,
)


# the speaker's own plans, closings and acknowledgements of a rule are not directives
_NOT_ADDRESSED = re.compile(
    r"^(?:i'?ll|i will|i'?m going to|i am going to|we'?ll|we will|i understand|i get it|"
    r"take care|have a (?:nice|good|great) (?:day|one|weekend)|bye|goodbye)\b",
    re.IGNORECASE,
)


# "for <class> <verb> ...": a class qualifier with no comma before the command
_FOR_CLASS_VERB = re.compile(
    r"^(?:for|with|on)\s+(?:[\w/&'-]+\s+){1,4}?(?=(?:also|always|just|only)?\s*(?:"
    + "|".join(sorted(IMPERATIVE_VERBS, key=len, reverse=True))
    + r")\b)",
    re.IGNORECASE,
)
_REQUIREMENT = re.compile(
    r"\b(needs?|requires?|must have|should have|gets?) (a|an|the|one|two|three)\b", re.I
)


_VERBLESS_FORMAT = re.compile(r"^[a-z][\w-]*(?:\s+[a-z][\w-]*)?\s+(?:as|in)\s+\S+", re.IGNORECASE)


def _states_class_policy(text: str) -> bool:
    return class_subject(text) is not None


def announces(sentence: str) -> bool:
    """Does the sentence mark what follows in its turn as standing ("FYI for everyone: ...")?"""
    return _standing(sentence) and bool(_ANNOUNCEMENT.search(sentence))


_ANNOUNCEMENT = re.compile(
    r"\b(for (everyone|the whole team|all of us)|update|this replaces|(new|the) rule|policy)\b",
    re.IGNORECASE,
)


def _standing(text: str) -> bool:
    return bool(
        re.search(
            r"\b(always|never|from now on|going forward|in (the )?future|every time|whenever|"
            r"next time|(our|company|team|house) policy|policy is|make sure|remember|"
            r"as a (general )?rule|by default|"
            r"standing (things?|rules?|instructions?|orders?|requests?|preferences?)|"
            r"for (everyone|the whole team|all of us)|this replaces|(new|the) rule|"
            # "this one's for good:", "drop it for good." (not "for good measure")
            r"for good(?=\s*(?:[:.,;!)]|$)))\b",
            text,
            re.IGNORECASE,
        )
    )


def turn_aftermath(kinds: list[SentenceKind]) -> Aftermath:
    """The aftermath of a whole user turn from its sentence kinds (used for chain splitting)."""
    if SentenceKind.WITHDRAWAL in kinds:
        return Aftermath.WITHDRAWAL
    if SentenceKind.DIRECTIVE in kinds:
        return Aftermath.CORRECTION
    if SentenceKind.ONE_OFF in kinds:
        return Aftermath.ONE_OFF
    if SentenceKind.ACCEPTANCE in kinds:
        return Aftermath.ACCEPTANCE
    return Aftermath.NEW_REQUEST


# adverbials that carry a practice past the task at hand: "from now on", "going forward",
# "next time", "(not) anymore". Unlike "always" or "make sure", which real coding turns use
# for this task's instructions too, they mark standing corrections (measured on the labelled
# real turns, README "Real conversations"); "in the future" does not, it is as often when
# something may happen ("components that might be added in the future")
_FROM_NOW_ON = re.compile(
    r"\b(from now on|going forward|moving forward|from here on|next time|any ?more)\b",
    re.IGNORECASE,
)


# what a one-off marker is joined to: "today and for good", "this week and after"
_AND_THEN = re.compile(r"\s*,?\s*(?:and|&)\s+(?P<rest>.{0,40})", re.IGNORECASE)
_EXCLUSIVE = re.compile(r"\b(?:just|only|once|one[- ]off|exception)\b", re.IGNORECASE)
_ON_FROM_THEN = re.compile(r"(?:after|beyond|onwards?)\b", re.IGNORECASE)


def marks_one_off(text: str) -> bool:
    """Does the text mark what it says as for this case or this time only ("just this once",
    "cc me on anything from them today")? A marker joined to a standing one ("today and for
    good", "today and from now on", "for all of today and after") marks no one-off: it says
    when the practice starts. A quoted marker is a value ("how urgent it is, 'today' or
    'within 48h'"), not said of the case."""
    markers = list(ONE_OFF.finditer(text))
    quoted = quoted_spans(text) if markers else []
    for marker in markers:
        if any(a <= marker.start() < b for a, b in quoted):
            continue
        joined = _AND_THEN.match(text, marker.end())
        if joined is None or _EXCLUSIVE.search(marker.group(0)):
            return True  # "just this once and never again" is one case all the same
        rest = joined.group("rest")
        if not (_standing(rest) or looks_ahead(rest) or _ON_FROM_THEN.match(rest)):
            return True
    return False


def looks_ahead(text: str) -> bool:
    """Does the text say its practice holds from now on ("going forward, hold a seat")?"""
    return _FROM_NOW_ON.search(text) is not None


def standing_cue(text: str) -> bool:
    """Does the text carry a persistence cue ("always", "from now on", "our policy")?"""
    return _standing(text)


def command_words(text: str) -> list[str]:
    """The words of a command after leading filler and adverbs ("please also stop ...")."""
    toks = re.findall(r"[a-z'’-]+", strip_filler(text).lower())
    while toks and toks[0] in IMPERATIVE_PREFIX and toks[0] != "never":
        toks.pop(0)
    return toks


def ceases(text: str) -> bool:
    """Does the command end a practice ("stop adding the disclaimer")? Said while a rule asks
    for that practice, it revokes the rule rather than adding its negation."""
    toks = command_words(text)
    return len(toks) > 1 and toks[0] in CESSATIONS and toks[1].endswith("ing")


def takes_away(text: str) -> bool:
    """Does the command take something out of what the agent does: a verb of removal ("drop
    the emojis") or a prohibition, cessations included ("stop adding the footer", "never cc
    them")? Only such a command can take back an earlier rule; one that asks for more ("tell
    them no soil in the brown bin") adds to it."""
    toks = command_words(text)
    return (bool(toks) and toks[0] in REMOVALS) or prohibits(text)


def continues(text: str) -> bool:
    """Does the command keep a practice as it is ("keep the rest")?"""
    toks = command_words(text)
    return bool(toks) and toks[0] in CONTINUATIONS


def prohibits(text: str) -> bool:
    """Is the rule a prohibition ("Never add ...", "Stop adding ...")?"""
    toks = command_words(text)
    return bool(toks) and (
        toks[0] in NEGATIONS or toks[0] in CESSATIONS or toks[:2] == ["do", "not"]
    )


def only_marks_one_off(sentence: str) -> bool:
    """Is the sentence only a one-off marker ("Don't make a habit of it.", "Just this once.",
    "It's a one-off."), saying nothing of its own and asking nothing ("Do it for this one"
    applies the rule before to this case too), so that it marks the directive before it? A
    reason after a colon does not change that ("Just them, just this once: her grandmother's
    making the cake"); a command there is a one-off of its own ("Just this once: convert the
    totals to EUR"), and marks nothing before it."""
    if not marks_one_off(sentence):
        return False  # "for ...'." says nothing either, and marks nothing
    head, colon, why = sentence.partition(":")
    if colon and why.strip() and not _asks_something(why):
        sentence = head
    rest = ONE_OFF.sub(" ", sentence).strip(" ,.!;:")
    if [w for w in words(rest) if w.lower() not in STOPWORDS]:
        return False
    # "Do it for this one": the rule before, applied here too
    return not _asks_something(rest)


def _asks_something(text: str) -> bool:
    """Does the text, beside a one-off marker, open with a command or state a directive?"""
    said = text.strip()
    return bool(said) and (opens_command(said) or is_directive(said))
