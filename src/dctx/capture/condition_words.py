"""The words of a condition: the threshold it states, the stems that name it, and a policy
stated about a class of things ("Insider bugs need to go to insider_feedback").

Capture reads them to tell a standing policy from a description (cues.py); compile builds a
rule's DATA trigger from them (compile/conditions.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from dctx.capture.verbs import IMPERATIVE_PREFIX, IMPERATIVE_VERBS
from dctx.grammar import spans_an_action
from dctx.models import NumericCondition
from dctx.text import STOPWORDS, content_stems
from dctx.units import MONEY, MONEY_TERMS, PERCENT, PERCENT_WORDS, unit_of

__all__ = [
    "CLASS_NOUNS",
    "MONEY_TERMS",
    "NUMERIC",
    "Condition",
    "class_subject",
    "condition_keywords",
    "opens_imperative",
    "parse_numeric",
]

CLASS_NOUNS = re.compile(
    r"\b(clients?|customers?|compan(y|ies)|accounts?|users?|tickets?|orders?|cases?|firms?|"
    r"startups?|businesses|business|vendors?|merchants?|members?|subscribers?|plans?|tiers?|"
    r"deals?|contracts?|reports?|filings?|quarters?|segments?|regions?|markets?|sectors?|"
    r"industr(y|ies)|products?|requests?|issues?|incidents?|claims?|transactions?|payments?|"
    r"invoices?|loans?|portfolios?|funds?|stocks?|bonds?|banks?|items?|goods|packages?|"
    r"shipments?|devices?|bookings?|reservations?|subscriptions?|licen[cs]es?|refunds?|bugs?|"
    r"emails?|messages?|calls?|chats?|returns?|companies|startups?|deals?)\b",
    re.IGNORECASE,
)
# "Insider bugs need to go to insider_feedback", "Webhook and API problems go to platform_eng":
# the subject's modifiers are the condition, the whole sentence stays the rule
_CLASS_SUBJECT = re.compile(
    r"^(?P<cond>(?:[\w'/&-]+\s+|\([^)]{1,120}\)\s+){0,8}?[\w'/&-]*?(?:bugs?|problems?|issues?|"
    r"requests?|tickets?|cases?|orders?|accounts?|customers?|clients?|users?|companies|"
    r"businesses|refunds?|returns?|complaints?|questions?|disputes?|chargebacks?|rmas?|"
    r"incidents?|claims?|leads?|prospects?|deals?|invoices?|payments?|members?|subscribers?|"
    r"tiers?|plans?)(?:\s+\([^)]{1,120}\))?)"
    r"\s+(?:now\s+)?(?:also\s+)?(?:still\s+|always\s+|all\s+)?(?P<verb>need to|needs to|should|"
    r"must|have to|has to|go|goes|get|gets|belong|belongs|are routed|is routed)\b",
    re.IGNORECASE,
)
_REQUIREMENT = re.compile(
    r"\b(has to|have to|must|should|needs? to|ought to) (be|stay|remain|come in)\s*$", re.IGNORECASE
)
_DIGIT_LED = re.compile(r"\b\d+[A-Za-z]+\b")  # "1h", "30d": a window as keys spell it
_VIOLATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}
_MONEY = re.compile(r"[$€£]|\b(usd|eur|gbp|dollars?|euros?|pounds?)\b", re.IGNORECASE)
_DETERMINER = re.compile(r"^(the|a|an|this|that|these|those|any|every|each|all|our|your)\b", re.I)
NUMERIC = re.compile(
    # what is compared ("runway under 12 months"), or nothing: "fewer than 3 sensors online"
    # names it after the number
    r"(?:(?P<terms>[a-z][a-z_ \-']{1,60}?)\s+(?:is|are|was|were|falls?|drops?|goes|gets|comes in|"
    r"stays?|sits?|runs?)?\s*|^\s*)(?P<op>at or (?:above|over|below|under)|below|under|less than|"
    r"lower than|fewer than|shorter than|younger than|newer than|"
    r"<=|<|above|over|more than|greater than|higher than|longer than|older than|exceeds?|>=|>|"
    r"at least|"
    r"at most|no more than|no less than)\s*[$€£]?\s*(?P<num>\d+(?:[.,]\d+)?)\s*"
    # the word after the number: a scale ("k", "million"), a unit ("kg", "days": units.py) or
    # what is counted ("retries"); never a preposition or conjunction that goes on the clause
    r"(?P<unit>%|(?!(?:of|in|on|at|to|for|and|or|but|then|the|a|an)\b)[A-Za-z]+\b)?"
    r"(?:\s+(?:of|in)\s+(?P<after>[a-z][a-z_ \-]{1,40}))?"
    # or the measure it is read on ("10x on the 1h window", "95% for the p99 latency")
    r"(?:\s+(?:on|for)\s+(?:the\s+)?(?P<measure>[a-z0-9][a-z0-9_\-]*(?:\s+[a-z][a-z_\-]*)?))?",
    re.IGNORECASE,
)
_COND_VERBS = frozenset(
    """come comes came coming back go goes went show shows say says said return returns returned
    get gets got look looks seem seems turn turns appear appears happen happens make makes take
    takes use uses come status there""".split()
)
_OPS = {
    "below": "<",
    "under": "<",
    "less than": "<",
    "lower than": "<",
    "fewer than": "<",
    "shorter than": "<",
    "younger than": "<",
    "newer than": "<",
    "<": "<",
    "<=": "<=",
    "at most": "<=",
    "no more than": "<=",
    "above": ">",
    "over": ">",
    "more than": ">",
    "greater than": ">",
    "higher than": ">",
    "longer than": ">",
    "older than": ">",
    "exceed": ">",
    "exceeds": ">",
    ">": ">",
    ">=": ">=",
    "at least": ">=",
    "at or above": ">=",
    "at or over": ">=",
    "at or below": "<=",
    "at or under": "<=",
    "no less than": ">=",
}
_SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mm": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}


@dataclass(slots=True)
class Condition:
    text: str  # the condition as the user said it ("enterprise clients")
    main: str  # the directive without the condition
    qualifier: str  # the qualifier phrase kept in the rule ("for enterprise clients")
    keywords: list[str]
    numeric: NumericCondition | None
    about_query: bool = False  # "when I ask you to compare", "for every assessment"
    excluded: list[str] = field(default_factory=list)  # "isn't USD" -> ["USD"]


def class_subject(text: str) -> Condition | None:
    """ "Insider bugs need to go to insider_feedback": a policy stated about a class, whose
    modifiers are the condition; the whole sentence stays the rule. None if not that form."""
    m = _CLASS_SUBJECT.match(text.strip())
    if not m or opens_imperative(text):
        return None
    # the modifiers are specific by construction ("data requests"), so generic words stay
    keywords = condition_keywords(CLASS_NOUNS.sub(" ", m.group("cond")), generic=True)
    if not keywords and not _DETERMINER.match(m.group("cond")):
        keywords = condition_keywords(m.group("cond"))  # "Chargebacks go to disputes"
    # "The ticket has to carry the passport name": a definite subject is no condition
    if not keywords or parse_numeric(m.group("cond")) is not None:
        return None
    return Condition(m.group("cond"), text.strip().rstrip(".!"), "", keywords, None)


def opens_imperative(text: str) -> bool:
    """Does the text open with a command ("escalate ...", "please don't ...")?"""
    words = re.findall(r"[a-z'-]+", text.lower())
    while words and words[0] in IMPERATIVE_PREFIX:
        words.pop(0)
    return bool(words) and (words[0] in IMPERATIVE_VERBS or words[0] in {"don't", "never"})


# stems that carry no condition: asking and telling, "every/kind of", and words that only
# point at some instance ("a specific order", "a business like this")
_NOT_KEYWORDS = frozenset(
    "ask request want tell everi each all kind thing stuff specif particular certain like".split()
)


# "the news mentions an acquisition": what must be seen is the object, not the source
_SOURCE_SAYS = re.compile(
    r"^(?:the\s+|a\s+|an\s+|any\s+)?[\w/ -]{1,30}?\s+(?:mentions?|mentioned|turns? up|shows?|"
    r"says?|reports?|includes?|contains?|lists?|comes? back with|flags?)\s+(?P<obj>.+)$",
    re.IGNORECASE,
)


def condition_keywords(cond: str, *, generic: bool = False) -> list[str]:
    """Stems that name what the condition is about (verbs of saying/being dropped)."""
    said = _SOURCE_SAYS.match(cond.strip())
    if said is not None and condition_keywords(said.group("obj"), generic=generic):
        cond = said.group("obj")
    # a hyphenated compound counts through its parts ("non-payment" -> "payment"), so one
    # concept does not weigh three keywords in the word counts of `retrieve/condition_match.py`
    parts = re.sub(r"\b\w{1,3}-(?=\w)", " ", cond).replace("-", " ")  # "non-payment" -> "payment"
    return list(
        dict.fromkeys(
            k
            for k in content_stems(parts, drop_generic=not generic)
            if k not in _COND_VERBS and k not in _NOT_KEYWORDS
        )
    )


# "net burn is negative": a sign is a threshold at zero
_NEGATIVE = re.compile(r"\b(is|are|was|were|turns?|goes|stays?)\s+negative\b", re.IGNORECASE)


def parse_numeric(cond: str) -> NumericCondition | None:
    """The threshold a condition states ("runway under 12 months", "orders older than 30
    days", "net burn is negative"), or None."""
    cond = _NEGATIVE.sub(r"\1 below 0", cond)
    # "spread it over 6 months" says how far the action goes: no threshold, look further on
    m = next((m for m in NUMERIC.finditer(cond) if not spans_an_action(cond, m.start("op"))), None)
    if not m:
        return None
    op = _OPS.get(m.group("op").lower())
    if op is None:
        return None
    if _REQUIREMENT.search(cond[: m.start("op")]):
        op = _VIOLATED[op]  # "burn multiple has to be under 1.5x": the rule is about breaches
    value = float(m.group("num").replace(",", ""))
    unit = (m.group("unit") or "").lower()
    value *= _SCALE.get(unit, 1.0)
    terms = content_stems(m.group("terms") or "", drop_generic=True)
    if m.group("after"):
        terms.extend(content_stems(m.group("after"), drop_generic=True))
    money = _MONEY.search(m.group(0)) is not None
    terms.extend(_unit_terms(m.group("unit") or "", counted=not money))
    if not terms and not money and m.group("measure"):
        terms = _measure_terms(m.group("measure"))
    if not terms and _MONEY.search(m.group(0)):
        terms = list(MONEY_TERMS)  # "anything over $200": an amount, whatever its field is called
    if not terms:
        return None
    return NumericCondition(terms, op, value, _unit_name(unit, money=money))  # type: ignore[arg-type]


def _unit_name(word: str, *, money: bool) -> str:
    """A threshold's unit: a percentage, a unit of pint's registry ("600 pounds" is a
    weight), an amount of money, or "" (a scale or any other word)."""
    if word in PERCENT_WORDS:
        return PERCENT
    named = unit_of(word) if word and word not in _SCALE else None
    if named is not None:
        return named.name
    return MONEY if money else ""


def _measure_terms(measure: str) -> list[str]:
    """What a threshold is read on, as field keys name it: a window or a percentile keeps
    its digits ("the 1h window" -> 1h, window; a field `burn_rate_1h`)."""
    spans = [w.lower() for w in _DIGIT_LED.findall(measure)]
    return list(dict.fromkeys([*spans, *content_stems(measure, drop_generic=True)]))


def _unit_terms(word: str, *, counted: bool) -> list[str]:
    """What the word after a threshold's number says the field is called: a unit's names
    ("kg": kg, kilogram; "days": day) or a counted noun, plural after a number ("3 retries");
    nothing for a scale, a percentage or another word ("under 12 gets flagged"). After an
    amount of money (`counted` False) the word is the clause's verb ("over $200 needs ...")."""
    low = word.lower()
    if not low or low in _SCALE or low in PERCENT_WORDS:
        return []
    unit = unit_of(word)
    if unit is not None:
        return list(dict.fromkeys(content_stems(f"{unit.written} {unit.name.replace('_', ' ')}")))
    if counted and len(low) > 3 and low.endswith("s") and low not in STOPWORDS:
        return content_stems(low, drop_generic=True)
    return []
