"""Turn a user's correction sentence into one imperative RULE sentence, and type it.

Deterministic rewrites: drop the speaker framing ("you should", "I'd like you to", "from now
on"), prefer the positive form for "don't X, Y instead", keep qualifiers, never add a reason
(Finding 4: justifications invite the model to second-guess the rule).
"""

from __future__ import annotations

import re

from dctx.capture.cues import imperative_clause, is_directive, looks_ahead, standing_cue
from dctx.capture.specs import opens_spec
from dctx.capture.verbs import IMPERATIVE_VERBS
from dctx.compile.branches import says_otherwise
from dctx.grammar import names_nothing, names_without_verb
from dctx.models import RuleType
from dctx.text import QUOTED, quoted_spans

_FRAMING = [
    # (pattern, replacement) applied in order, case-insensitive, at the start
    (
        r"^(from now on|going forward|in (the )?future|next time|moving forward|henceforth)"
        r"\b[,:]?\s*",
        "",
    ),
    (
        r"^(?:i (?:want|need) you to|i'?d like you to|i would like you to|can you|could you|"
        r"would you|please|pls|plz|kindly|remember to|make sure (?:that )?(?:you )?(?:to )?|"
        r"be sure to|you (?:should|need to|must|have to|ought to)(?: always)?|"
        r"(?:we|you) (?:should|must|need to) always)\s+",
        "",
    ),
    (r"^i'?d (?:prefer|rather)(?: (?:if )?you)?\s+", "Prefer "),
    (r"^i (?:prefer|like)\s+(?:it )?(?:when you\s+)?", "Prefer "),
    (r"^(?:we|i) (?:always )?(?:use|prefer)\s+", "Use "),
    (r"^i (?:want|need|'d like|would like|expect)\s+(?!you\b)", "Include "),
    (r"^(?:it|that|this) (?:should|must|needs to) (?:be|have been)\s+", "Use "),
    (r"^(?:that'?s|this is|it'?s) (?:wrong|incorrect|not right)[,:;.!-]*\s*", ""),
]
_TRAILING = re.compile(  # a whole word at the end: "rebook." ends in no "ok"
    r"[\s,;]*\b(?:from now on|going forward|in (?:the )?future|next time|moving forward|"
    r"please|thanks|thank you|ok\??|okay\??|got it\??|,?\s*yeah\??)[\s.!]*$",
    re.IGNORECASE,
)
_NEG_THEN_POS = re.compile(
    r"^(?:don'?t|do not|never|stop)\s+(?:use|using)\s+(?P<a>[^,;.]+?)\s*[,;.\-–—]+\s*"
    r"(?:but\s+)?(?:use|go with|switch to)\s+(?P<b>[^,;.]+?)(?:\s+instead)?\s*[.!]?$",
    re.IGNORECASE,
)
_NOT_BUT = re.compile(
    r"^(?:use|report|show)\s+(?P<b>[^,;.]+?)[,;]?\s+not\s+(?P<a>[^,;.]+?)\s*[.!]?$", re.IGNORECASE
)

FORMAT_CUES = re.compile(
    r"\b(format|formatting|formatted|table|tables|tabular|bullet|bullets|bulleted|bold|italic|"
    r"heading|headings|header|headers|markdown|font|decimal|decimals|round|rounded|rounding|"
    r"digits|currency|usd|eur|gbp|dollar|dollars|euro|symbol|\$|€|£|percent|percentage|%|"
    r"sentence|sentences|words? long|length|short|shorter|concise|brief|briefly|verbose|paragraph|"
    r"paragraphs|tone|emoji|emojis|capitali[sz]e|uppercase|lowercase|caps|phrase|phrasing|"
    r"wording|word|terminology|term|greeting|greet|sign[- ]?off|salutation|date format|"
    r"iso|yyyy|units?|millions|thousands|billions|abbreviat\w*|separator|code block|chart|"
    r"summary at the top|tl;?dr|one line|one-line|lead with|start with|begin with|open with|"
    r"end with|close with|numbered|list|lists|columns?|rows?|order of|section|sections|"
    r"headline|layout|style|spell|label|labels|formal|informal|casual|first person|voice)\b",
    re.IGNORECASE,
)
CONTENT_CUES = re.compile(
    r"\b(call|calling|check|verify|escalate|look up|lookup|query|fetch|use the .{0,20} tool|"
    r"compute|calculate|metric|ratio|instead of the|source|endpoint|api|database|before|after|"
    r"first|skip|refund|ticket|policy|flag|score|risk)\b",
    re.IGNORECASE,
)


# a quoted phrase of two or more words in a directive is wording to use or avoid
_QUOTED_WORDING = re.compile(
    r"(?<!\w)['\"‘“`][^'\"’”`]*?\s[^'\"’”`]*?['\"’”`](?!\w)|\b(titles?|subject lines?|"
    r"brackets?|prefix(ed)?|summar(y|ies)|handovers?|sign-?offs?|one[- ]liners?)\b",
    re.IGNORECASE,
)


def says_only_that_it_stands(head: str) -> bool:
    """A head that names nothing and is no directive ("this one is for always")."""
    return not is_directive(head) and names_nothing(head)


_HEAD_RULE = re.compile(
    r"\b(should|must|needs? to|has to|have to|always|never)\b|^\s*(anything|everything|any|all)\b",
    re.IGNORECASE,
)


def drop_preamble(sentence: str) -> str:
    """'I need this in our format: open with a score' -> 'open with a score'. A condition before
    the colon is kept as a leading clause ('Whenever I ask you to compare: table' ->
    'Whenever I ask you to compare, table'); a head that only says the rule stands ('this one
    is for always: whenever a flight goes off late, log the delay') is dropped, so the
    condition after it leads."""
    parts = re.split(r":(?=\s)", sentence, maxsplit=1)  # "12:15Z" is a time, not a colon
    if len(parts) < 2:
        return sentence
    head, tail = parts
    if len(tail.split()) < 2 or len(head.split()) > 14:
        return sentence
    if re.match(r"^\s*(when(ever)?|if|for|once|any ?time|each time|every time)\b", head, re.I):
        return f"{head.strip()}, {tail.strip()}"
    if (_HEAD_RULE.search(head) or opens_spec(sentence) or _acts_on_its_own(head)) and not (
        says_only_that_it_stands(head) and is_directive(tail)
    ):
        # "summaries should always be a markdown table: metric | value | YoY" - the head is
        # the rule and the tail its detail; "anything over $200 needs approval: call X" - the
        # head is the condition; "every delay report like this: ..." - what the spec is for
        return f"{head.strip()}: {tail.strip()}"
    return _with_rejected(head, tail.strip())


def _with_rejected(head: str, rule: str) -> str:
    """The rule after a head that rejects what was done ("Not support_general, that's the
    wrong queue: data requests go to privacy_ops"), with what it rejects kept as the rule's
    contrast ("... go to privacy_ops, not support_general."): the head's reason goes, the
    thing not to use stays. A rule that already says what it is not stays as it is."""
    rejected = re.split(r"[,;]", head, maxsplit=1)[0].strip()
    if not _names_what_not(rejected) or re.search(r"\b(?:not|never|instead)\b", rule, re.I):
        return rule
    body, end = rule.rstrip(".!"), rule[len(rule.rstrip(".!")) :] or "."
    return f"{body}, {rejected[0].lower()}{rejected[1:]}{end}"


def _acts_on_its_own(head: str) -> bool:
    """Is the head a standing command on something it names ("Add a question from now on:
    would you rehire them?")? What follows its colon is that thing, not the rule; a command
    on what follows ("Use this from now on: ...") names nothing of its own. Without a word
    that it stands, the colon more often opens pasted output ("Contact Support at <url> for
    more info: npm warn deprecated ...") than a command's object."""
    return (
        imperative_clause(_after_framing(head)) and standing_cue(head) and not names_nothing(head)
    )


def _after_framing(head: str) -> str:
    """The head without a leading phrase that only says when it holds ("From now on, check
    the service log before you quote a tuning"): the command comes after it."""
    framing, comma, rest = head.partition(",")
    return rest.strip() if comma and rest.strip() and looks_ahead(framing) else head


_DASH = re.compile(r"\s+[-–—]+\s+")


def drop_reasons(sentence: str) -> str:
    """Drop dash-separated asides that are not directives: the reason after a rule ("round to
    one decimal - two decimals is false precision") is not part of it (Finding 4), and an aside
    like "- once it's paid the order unlocks" must not be read as the rule's condition."""
    parts = _unquoted_split(_DASH, sentence)
    if len(parts) < 2:
        return sentence
    kept = [parts[0]] + [
        p for p in parts[1:] if is_directive(p) or not _CLAUSE.search(QUOTED.sub(" ", p))
    ]
    return " - ".join(kept)


# a finite clause (the aside says something), unlike an appositive noun phrase that elaborates
# the rule ("P/E on forward earnings - consensus EPS for the next twelve months")
_CLAUSE = re.compile(
    r"\b(i|we|they|it|he|she|this|that|there|people|nobody|everyone|is|are|was|were|isn'?t|"
    r"aren'?t|doesn'?t|don'?t|can'?t|won'?t|because|since|otherwise)\b|\w'(s|re)\b",
    re.IGNORECASE,
)


def _unquoted_split(pattern: re.Pattern[str], text: str) -> list[str]:
    """`text` split where `pattern` matches outside quoted text: a dash inside a quoted
    subject line ("'Interview confirmed: <role> - <date>'") is part of the value."""
    quoted = quoted_spans(text)
    parts: list[str] = []
    start = 0
    for m in pattern.finditer(text):
        if any(a <= m.start() < b for a, b in quoted):
            continue
        parts.append(text[start : m.start()])
        start = m.end()
    return [*parts, text[start:]]


def imperative(sentence: str) -> str:
    """Rewrite a correction sentence as an imperative directive ending in a period."""
    text = sentence.strip().strip('"“”').strip()
    for pattern, repl in _FRAMING:
        new = re.sub(pattern, repl, text, count=1, flags=re.IGNORECASE)
        if new != text:
            text = new.strip()
    text = _TRAILING.sub("", text).strip()
    text = _returns_to(text)
    m = _NEG_THEN_POS.match(text)
    if m:
        text = f"Use {m.group('b').strip()} instead of {m.group('a').strip()}"
    else:
        m = _NOT_BUT.match(text)
        if m:
            text = f"Use {m.group('b').strip()} instead of {m.group('a').strip()}"
    text = re.sub(r"^(?:always\s+)?(?:just\s+)", "", text, flags=re.IGNORECASE)
    text = re.sub(r"\s+", " ", text).strip(" ,;:-")
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    if text[-1] not in ".!?":
        text += "."
    if text.endswith("?"):
        text = text[:-1] + "."
    return text


def _returns_to(text: str) -> str:
    """ "go back to '3pm' style in letters" -> "Use '3pm' style in letters": a command to
    return to a former way says what to use; the rule must read without the history."""
    head = text.split(maxsplit=3)
    if len(head) < 4 or head[0].lower() not in IMPERATIVE_VERBS or head[1:3] != ["back", "to"]:
        return text
    verb, _, rest = head[3].partition(" ")
    base = _base_form(verb.lower())
    if base is not None:
        return f"{base} {rest}".strip()  # "go back to offering callbacks" -> "offer callbacks"
    return f"Use {head[3]}"


def _base_form(gerund: str) -> str | None:
    """The imperative verb a gerund is made from ("offering" -> "offer", "adding" -> "add",
    "making" -> "make"), when it is one of the command verbs."""
    if not gerund.endswith("ing"):
        return None
    stem = gerund[:-3]
    for base in (stem, stem + "e", stem[:-1]):
        if base in IMPERATIVE_VERBS:
            return base
    return None


def rule_type(text: str) -> RuleType:
    """FORMAT when the directive is about the form of the output, else CONTENT."""
    fmt = len(FORMAT_CUES.findall(text)) + len(_QUOTED_WORDING.findall(text))
    content = len(CONTENT_CUES.findall(text))
    return RuleType.FORMAT if fmt > content else RuleType.CONTENT


def split_directives(sentence: str) -> list[str]:
    """Split a compound directive into atomic ones so each can be withdrawn on its own
    ("put it in a table and bold the totals" -> two rules). A spec's items stay with their
    head (capture/specs.py)."""
    if opens_spec(sentence):
        return [sentence]
    verbs = (
        r"(?:use|include|add|format|put|keep|round|express|report|present|list|flag|mention|"
        r"cite|call|check|verify|escalate|skip|convert|write|limit|give|state|note|bold|"
        r"highlight|attach|cc|send|ask|confirm|show|sort|label|always|never|don'?t|do not|"
        r"avoid|start|lead|end|sign)"
    )
    parts = re.split(
        rf"\s*(?:;|,?\s+and also\s+|,?\s+and then\s+|,?\s+and\s+(?={verbs}\b)|"
        rf",?\s+plus\s+(?={verbs}\b)|,\s+also\s+(?={verbs}\b))\s*",
        sentence,
        flags=re.IGNORECASE,
    )
    out = [
        c.strip(" ,.")
        for p in parts
        for c in _split_commands(p)
        if c and len(c.strip(" ,.").split()) >= 2
    ]
    if (
        any(says_otherwise(p) or p.lower().startswith("unless ") for p in out[1:])
        or "->" in sentence
        or "→" in sentence
    ):
        return [sentence]  # a ladder ("X -> a; otherwise Y -> b; everything else c") is one rule
    merged: list[str] = []
    for part in out:
        if merged and _REFERS_BACK.search(part):
            # "lead with CET1 and always show it against the minimum": "it" is the CET1 of
            # the part before, so the two stay one rule
            merged[-1] = f"{merged[-1]} and {part}"
        else:
            merged.append(part)
    return merged or [sentence]


def _split_commands(part: str) -> list[str]:
    """ "go back to '3pm' in letters, keep 24-hour times in the rota": commands side by side,
    each opening with its own imperative verb, are separate rules. A part whose head is not a
    command ("for P3s, page the secondary") stays whole, and so does one whose later command
    replaces what the one before takes away ("scratch the phone call for 2+ day delays, send
    an SMS instead")."""
    pieces = [p.strip() for p in part.split(",")]
    if len(pieces) < 2 or not all(p and imperative_clause(p) for p in pieces):
        return [part]
    if any(_INSTEAD.search(p) for p in pieces[1:]):
        return [part]
    joined: list[str] = []
    for piece in pieces:
        if joined and _names_what_not(piece):
            # "sign off 'Office of the Registrar', never a personal name": a verbless "never
            # ..." is the other half of the command before it; alone it names no behaviour
            joined[-1] = f"{joined[-1]}, {piece}"
        else:
            joined.append(piece)
    return joined


_INSTEAD = re.compile(r"\binstead\b", re.IGNORECASE)


def _names_what_not(piece: str) -> bool:
    """ "never a personal name", "not the legal name": a negation and a thing, no verb."""
    head, _, rest = piece.partition(" ")
    return head.lower() in ("never", "not") and names_without_verb(rest)


_REFERS_BACK = re.compile(r"^\w+(?:\s+\w+)?\s+(it|them)\b", re.IGNORECASE)


def lower_first(text: str) -> str:
    """Lower-case the first letter unless the first word is an acronym or a name."""
    first = text.split()[0] if text.split() else ""
    if len(first) > 1 and (first[1:].lower() != first[1:] or first in {"I"}):
        return text
    return text[:1].lower() + text[1:]
