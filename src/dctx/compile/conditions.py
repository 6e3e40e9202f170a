"""Find the condition under which a directive applies ("for enterprise clients", "when a
company reports segments", "if runway is under 12 months").

A condition becomes a DATA trigger: the rule fires at the first decision point whose context
(query, tool calls, tool results) meets it. Numeric thresholds are checked against numbers in
JSON tool results.
"""

from __future__ import annotations

import dataclasses
import re

from dctx.capture.condition_words import (
    CLASS_NOUNS,
    NUMERIC,
    Condition,
    class_subject,
    condition_keywords,
    opens_imperative,
    parse_numeric,
)
from dctx.capture.subjects import name_variants
from dctx.capture.verbs import IMPERATIVE_VERBS
from dctx.grammar import leading_clause, says_anything
from dctx.models import NumericCondition
from dctx.text import content_stems, sentences

_LEADING = re.compile(
    r"^(?P<kw>when(?:ever)?|if|once|in case|any ?time|each time|every time|where|for|on|with)"
    r"\s+(?P<cond>[^,]{2,160}?),\s*(?:then\s+)?(?P<main>.+)$",
    re.IGNORECASE,
)
# A trailing "with ..." completes the verb ("end every brief with a bottom line"): no condition.
_TRAILING = re.compile(
    r"^(?P<main>.+?)\s+(?P<kw>when(?:ever)?|if|once|in case|any ?time|each time|every time|"
    r"for|on)\s+(?P<cond>[^,;]{2,160}?)[.!]?$",
    re.IGNORECASE,
)
# "when the status comes back suspended there's no point touching the order": no comma, the
# condition ends where the main clause's subject or verb begins
_LEADING_NO_COMMA = re.compile(
    r"^(?P<kw>when(?:ever)?|if|once|any ?time|each time|every time)\s+(?P<cond>[^,;]{3,120}?)\s+"
    r"(?P<main>(?:there'?s|there is|you|we|just|please|don'?t|do not|never|no need|no point|"
    r"always|skip|use|send|route|escalate|flag|call|check)\b.+)$",
    re.IGNORECASE,
)
# the words that open a class described by a clause after them ("anything", "all invoices")
_CLASS_HEAD = r"(?:anything|everything|any(?:one| \w+)?|all \w+|those|ones|whatever)"
_PARTICIPLE = r"[a-z]{3,}(?:ing|ed)"
# "anything that pays a dividend", and reduced to a participle: "anything crossing a border",
# "any orders shipped abroad"
_RELATIVE_CLASS = re.compile(
    rf"^(?:{_CLASS_HEAD}|names)\s+(?:that|which|who|with|where|{_PARTICIPLE})\b", re.IGNORECASE
)
# the participle of a reduced relative ("anything flagged hazmat class 3"), taken off the words
# the condition tests
_PARTICIPLE_CLASS = re.compile(rf"^({_CLASS_HEAD}\s+){_PARTICIPLE}\s+", re.IGNORECASE)
# a short plural noun phrase names a kind of entity; possessives, quantifiers and deictics
# ("my replies", "all of them", "these") name the output or everything, not a class
# "the customer's node", "the patient's chart": a definite possessive names what belongs to
# the one in view
_DEFINITE_POSSESSIVE = re.compile(r"^the\s+[a-z][\w-]*'s\b", re.IGNORECASE)
_PLURAL_CLASS = re.compile(r"^(?:[\w/&'-]+\s+){0,3}[A-Za-z][\w/&-]*[a-z0-9]s$|^[A-Z]{2,}s$")
_NOT_A_CLASS = re.compile(
    r"^(my|our|your|his|her|their|me|us|them|these|those|this|that|all|every|each|any|some|"
    r"both|now|example|instance|comparisons?|reports?|summaries|updates?|replies|answers?)\b",
    re.IGNORECASE,
)
# "for insurers flag ...", "on delay notices cc ...": a class qualifier with no comma before
# the command, which may itself hold the commas ("..., and always put the new ETA in")
_NO_COMMA_NP = re.compile(
    r"^(?P<kw>for|on)\s+(?P<cond>(?:[\w/&'-]+\s+){0,3}?(?:[A-Za-z][\w/&-]*[a-z0-9]s|[A-Z]{2,}s))\s+"
    r"(?P<main>(?:also\s+|always\s+|just\s+|only\s+|never\s+)?(?:"
    + "|".join(sorted(IMPERATIVE_VERBS, key=len, reverse=True))
    + r")\b.+)$",
    re.IGNORECASE,
)
_PHRASAL_FOR = re.compile(
    r"\b(check|look|search|scan|screen|test|ask|wait|watch|account|allow|adjust|control|"
    r"correct|compensate|prepare|plan|pay|apply|listen|call|go|reach|hunt|fish|probe)$",
    re.IGNORECASE,
)
_ASKS_WHETHER = re.compile(
    r"\b(say|tell (?:me|them|us)|check|ask|note|see|know|confirm|mention|state|show|indicate|"
    r"flag|find out|figure out|verify)$",
    re.IGNORECASE,
)
_QUERY_CONDITION = re.compile(
    r"\b(i|we|you|they|someone|anyone|the user|a user|people)\b.{0,20}\b(ask|asks|asked|request|"
    r"requests|want|wants)\b|\b(every|(?<!\bat )all|any|each)\b",
    re.IGNORECASE,
)
# a first-person possessive ("my flights", "my cases") names the work of the one who said it:
# the rule is theirs alone already, so the phrase restricts nothing a run could test
_SPEAKERS_OWN = re.compile(r"my\b", re.IGNORECASE)
_NO_COMMA = re.compile(
    r"^(?P<kw>for|with|on)\s+(?P<cond>(?:[\w'/&-]+\s+){0,5}?(?:clients?|customers?|compan(?:y|ies)|"
    r"accounts?|users?|tickets?|orders?|cases?|firms?|startups?|businesses|vendors?|merchants?|"
    r"members?|subscribers?|deals?|filings?|requests?|issues?|bugs?))\s+(?P<main>.+)$",
    re.IGNORECASE,
)


# "the currency isn't USD", "anything other than USD", "non-EUR": the value that leaves the
# condition unmet
_NEGATED_VALUE = re.compile(
    r"\b(?:isn'?t|is not|aren'?t|are not|(?:any(?:thing)?|something) (?:other than|but|except)|"
    r"other than|not in|except(?: for)?)\s+(?:in\s+)?(?:the\s+|a\s+|an\s+)?"
    r"(?P<val>[A-Za-z0-9$€£._-]*[A-Za-z0-9$€£])|\bnon-(?P<val2>[A-Z][A-Za-z0-9]+)\b",
    re.IGNORECASE,
)


# a comma inside brackets lists what the words before it cover ("if the study involves people
# (surveys, interviews, focus groups), ..."): it ends no clause, so it is hidden while clauses
# are found and given back in what is returned
_BRACKETED = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
_HIDDEN_COMMA = "\x00"
_CLAUSE_BREAK = re.compile(r",|:(?=\s)")


def split_condition(directive: str, subjects: list[str]) -> Condition | None:
    """Return the directive's condition, or None when it applies unconditionally."""
    said = directive.strip().rstrip(".!")
    found = _split(_hide_bracketed_commas(said), subjects)
    if found is None or not found.qualifier:
        opening = leading_clause(said)  # "If X (a, b, c) an ethics reference has to ...",
        if opening is not None:  # no comma where the clause ends: the parser finds its end
            found = _split(_hide_bracketed_commas(", ".join(opening)), subjects) or found
    if found is None:
        return None
    return dataclasses.replace(
        found,
        text=_shown(found.text),
        main=_shown(found.main),
        qualifier=_shown(found.qualifier),
    )


def _hide_bracketed_commas(text: str) -> str:
    return _BRACKETED.sub(lambda m: m.group(0).replace(",", _HIDDEN_COMMA), text)


def _shown(text: str) -> str:
    return text.replace(_HIDDEN_COMMA, ",")


def _first_break(text: str) -> tuple[str, str, str]:
    """The text before its first comma or colon, the mark, and the rest (as str.partition)."""
    m = _CLAUSE_BREAK.search(text)
    return (text[: m.start()], m.group(), text[m.end() :]) if m else (text, "", "")


def _split(text: str, subjects: list[str]) -> Condition | None:
    # a threshold before a comma or a colon opens the clause ("Anything at or above 10x on
    # the 1h window: open a SEV2 incident"); a colon inside a time ("10:30") is none
    head, sep, tail = _first_break(text)
    if sep and NUMERIC.search(head) and len(tail.split()) >= 2:
        numeric = parse_numeric(head)
        if numeric is not None:
            return Condition(head.strip(), tail.strip(), head.strip(), [], numeric)
    for rx, leading in (
        (_LEADING_NO_COMMA, True),
        (_NO_COMMA_NP, True),
        (_LEADING, True),
        (_NO_COMMA, True),
        (_TRAILING, False),
    ):
        m = rx.match(text)
        if not m:
            continue
        kw = m.group("kw").lower()
        cond = m.group("cond").strip()
        main = m.group("main").strip()
        if kw in {"for", "on"} and _SPEAKERS_OWN.match(cond):
            break  # "for my flights, send ... by SITA": the speaker's own work, not a class
        about_query = bool(_QUERY_CONDITION.search(cond))
        if (
            kw in {"for", "on", "with"}
            and not about_query
            and not _is_class_qualifier(cond, subjects)
        ):
            continue
        if not leading and kw in {"for", "on", "with"} and len(main.split()) < 2:
            continue
        if not leading and not says_anything(main):
            continue  # "From now on cc the account manager": "on" ends "from now on" here
        if kw.lower() == "with" and not CLASS_NOUNS.fullmatch(cond.split()[-1]):
            continue  # "with the tier restructure that went live today": an event, not a class
        if (
            not leading
            and kw in {"for", "on"}
            and not CLASS_NOUNS.search(" ".join(cond.split()[:4]))
        ):
            continue  # "put the link on the line under it so people can check incidents"
        if not leading and kw.lower() == "for" and _PHRASAL_FOR.search(main):
            continue  # "call get_filings to check for restatements": what to check, no condition
        if not leading and re.match(r"(i|i'?ve|i'?m|we'?ve|you'?ve)\b", cond, re.IGNORECASE):
            continue  # "only ticket once I've said which one": a step of the procedure
        if not leading and kw == "if" and _ASKS_WHETHER.search(main):
            continue  # "say if they clear 40": an embedded question, not a condition
        # "anything flagged hazmat class 3": the participle relates the class to what it
        # tests (the field is hazmat class, nothing is called "flagged")
        keywords, numeric, excluded = condition_parts(_PARTICIPLE_CLASS.sub(r"\1 ", cond))
        if not keywords and numeric is None and not excluded:
            continue
        return Condition(
            text=cond,
            main=main,
            qualifier=f"{m.group('kw')} {cond}",
            keywords=keywords,
            numeric=numeric,
            about_query=about_query and numeric is None and not excluded,
            excluded=excluded,
        )
    subject = class_subject(text)
    if subject is not None:
        return subject
    opening = sentences(text)[0].partition(":")[0] if text else ""
    numeric = parse_numeric(opening)
    if numeric is not None and not opens_imperative(opening):
        # "anything under 12 months of runway gets flagged" states a condition; "keep briefs
        # under 150 words" is a command whose object happens to hold a number, and so is a
        # number among a spec's items ("Estimate texts go like this: ... Keep it under 480
        # characters"): only the opening can say when the rule applies
        return Condition(text, text, "", [], numeric)
    return None


def condition_parts(cond: str) -> tuple[list[str], NumericCondition | None, list[str]]:
    """What a condition alone tests ("runway is under 12 months", "the currency isn't USD"):
    its keyword stems, numeric threshold and excluded values, as `split_condition` reads
    them from a directive's condition clause."""
    numeric = parse_numeric(cond)
    negated = _NEGATED_VALUE.search(cond) if numeric is None else None
    excluded = [negated.group("val") or negated.group("val2")] if negated else []
    keywords = [] if numeric else condition_keywords(_NEGATED_VALUE.sub(" ", cond))
    return keywords, numeric, excluded


def _is_class_qualifier(cond: str, subjects: list[str]) -> bool:
    """'for enterprise clients' qualifies; 'for revenue growth' names a topic, not a class."""
    low = cond.lower()
    if any(v.lower() in low for s in subjects for v in name_variants(s)):
        return True
    if _RELATIVE_CLASS.match(cond):
        return True  # "for anything that pays a dividend"
    if _DEFINITE_POSSESSIVE.match(cond):
        return False  # "for the customer's node": the one of the case in view, no class
    if _PLURAL_CLASS.match(cond) and not _NOT_A_CLASS.match(cond):
        return True  # "for insurers", "for REITs", "for restaurant chains": a kind of entity
    if not CLASS_NOUNS.search(cond):
        return False
    # "for the report" / "for each company" name the object, not a qualifier on it
    stems = content_stems(cond, drop_generic=True)
    return bool(stems) or bool(NUMERIC.search(cond))
