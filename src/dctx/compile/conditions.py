"""Find the condition under which a directive applies ("for enterprise clients", "when a
company reports segments", "if runway is under 12 months").

A condition becomes a DATA trigger: the rule fires at the first decision point whose context
(query, tool calls, tool results) meets it. Numeric thresholds are checked against numbers in
JSON tool results.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from dctx.capture.verbs import IMPERATIVE_VERBS
from dctx.models import NumericCondition
from dctx.text import content_stems

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
_RELATIVE_CLASS = re.compile(
    r"^(?:anything|everything|any(?:one| \w+)?|all \w+|those|ones|names|whatever)\s+"
    r"(?:that|which|who|with|where)\b",
    re.IGNORECASE,
)
_REQUIREMENT = re.compile(
    r"\b(has to|have to|must|should|needs? to|ought to) (be|stay|remain|come in)\s*$", re.IGNORECASE
)
_VIOLATED = {"<": ">=", "<=": ">", ">": "<=", ">=": "<"}
_MONEY = re.compile(r"[$€£]|\b(usd|eur|gbp|dollars?|euros?|pounds?)\b", re.IGNORECASE)
MONEY_TERMS = ("amount", "total", "price", "cost", "valu", "balanc", "fee", "charg")
_DETERMINER = re.compile(r"^(the|a|an|this|that|these|those|any|every|each|all|our|your)\b", re.I)
# a short plural noun phrase names a kind of entity; possessives, quantifiers and deictics
# ("my replies", "all of them", "these") name the output or everything, not a class
_PLURAL_CLASS = re.compile(r"^(?:[\w/&'-]+\s+){0,3}[A-Za-z][\w/&-]*[a-z0-9]s$|^[A-Z]{2,}s$")
_NOT_A_CLASS = re.compile(
    r"^(my|our|your|his|her|their|me|us|them|these|those|this|that|all|every|each|any|some|"
    r"both|now|example|instance|comparisons?|reports?|summaries|updates?|replies|answers?)\b",
    re.IGNORECASE,
)
_NO_COMMA_NP = re.compile(
    r"^(?P<kw>for)\s+(?P<cond>(?:[\w/&'-]+\s+){0,3}?(?:[A-Za-z][\w/&-]*[a-z0-9]s|[A-Z]{2,}s))\s+"
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
_NUMERIC = re.compile(
    r"(?P<terms>[a-z][a-z_ \-']{1,60}?)\s+(?:is|are|was|were|falls?|drops?|goes|gets|comes in|"
    r"stays?|sits?|runs?)?\s*(?P<op>at or (?:above|over|below|under)|below|under|less than|"
    r"lower than|fewer than|shorter than|younger than|newer than|"
    r"<=|<|above|over|more than|greater than|higher than|longer than|older than|exceeds?|>=|>|"
    r"at least|"
    r"at most|no more than|no less than)\s*[$€£]?\s*(?P<num>\d+(?:[.,]\d+)?)\s*"
    r"(?P<unit>%|percent\b|million\b|billion\b|thousand\b|months?\b|days?\b|weeks?\b|years?\b|"
    r"hours?\b|mm\b|bn\b|k\b|m\b)?(?:\s+(?:of|in)\s+(?P<after>[a-z][a-z_ \-]{1,40}))?",
    re.IGNORECASE,
)
_QUERY_CONDITION = re.compile(
    r"\b(i|we|you|they|someone|anyone|the user|a user|people)\b.{0,20}\b(ask|asks|asked|request|"
    r"requests|want|wants)\b|\b(every|all|any|each)\b",
    re.IGNORECASE,
)
_NO_COMMA = re.compile(
    r"^(?P<kw>for|with|on)\s+(?P<cond>(?:[\w'/&-]+\s+){0,5}?(?:clients?|customers?|compan(?:y|ies)|"
    r"accounts?|users?|tickets?|orders?|cases?|firms?|startups?|businesses|vendors?|merchants?|"
    r"members?|subscribers?|deals?|filings?|requests?|issues?|bugs?))\s+(?P<main>.+)$",
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


# "the currency isn't USD", "anything other than USD", "non-EUR": the value that leaves the
# condition unmet
_NEGATED_VALUE = re.compile(
    r"\b(?:isn'?t|is not|aren'?t|are not|(?:any(?:thing)?|something) (?:other than|but|except)|"
    r"other than|not in|except(?: for)?)\s+(?:in\s+)?(?:the\s+|a\s+|an\s+)?"
    r"(?P<val>[A-Za-z0-9$€£._-]*[A-Za-z0-9$€£])|\bnon-(?P<val2>[A-Z][A-Za-z0-9]+)\b",
    re.IGNORECASE,
)


@dataclass(slots=True)
class Condition:
    text: str  # the condition as the user said it ("enterprise clients")
    main: str  # the directive without the condition
    qualifier: str  # the qualifier phrase kept in the rule ("for enterprise clients")
    keywords: list[str]
    numeric: NumericCondition | None
    about_query: bool = False  # "when I ask you to compare", "for every assessment"
    excluded: list[str] = field(default_factory=list)  # "isn't USD" -> ["USD"]


def split_condition(directive: str, subjects: list[str]) -> Condition | None:
    """Return the directive's condition, or None when it applies unconditionally."""
    text = directive.strip().rstrip(".!")
    head, sep, tail = text.partition(",")
    if sep and _NUMERIC.search(head) and len(tail.split()) >= 2:
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
        about_query = bool(_QUERY_CONDITION.search(cond))
        if (
            kw in {"for", "on", "with"}
            and not about_query
            and not _is_class_qualifier(cond, subjects)
        ):
            continue
        if not leading and kw in {"for", "on", "with"} and len(main.split()) < 2:
            continue
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
        keywords, numeric, excluded = condition_parts(cond)
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
    numeric = parse_numeric(text)
    if numeric is not None and not _opens_imperative(text):
        # "anything under 12 months of runway gets flagged" states a condition; "keep briefs
        # under 150 words" is a command whose object happens to hold a number
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


def class_subject(text: str) -> Condition | None:
    """ "Insider bugs need to go to insider_feedback": a policy stated about a class, whose
    modifiers are the condition; the whole sentence stays the rule. None if not that form."""
    m = _CLASS_SUBJECT.match(text.strip())
    if not m or _opens_imperative(text):
        return None
    # the modifiers are specific by construction ("data requests"), so generic words stay
    keywords = condition_keywords(CLASS_NOUNS.sub(" ", m.group("cond")), generic=True)
    if not keywords and not _DETERMINER.match(m.group("cond")):
        keywords = condition_keywords(m.group("cond"))  # "Chargebacks go to disputes"
    # "The ticket has to carry the passport name": a definite subject is no condition
    if not keywords or parse_numeric(m.group("cond")) is not None:
        return None
    return Condition(m.group("cond"), text.strip().rstrip(".!"), "", keywords, None)


def _opens_imperative(text: str) -> bool:
    from dctx.capture.verbs import IMPERATIVE_PREFIX, IMPERATIVE_VERBS

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
    # concept does not weigh three keywords in the one-third rule of `data_condition_met`
    parts = re.sub(r"\b\w{1,3}-(?=\w)", " ", cond).replace("-", " ")  # "non-payment" -> "payment"
    return list(
        dict.fromkeys(
            k
            for k in content_stems(parts, drop_generic=not generic)
            if k not in _COND_VERBS and k not in _NOT_KEYWORDS
        )
    )


def _is_class_qualifier(cond: str, subjects: list[str]) -> bool:
    """'for enterprise clients' qualifies; 'for revenue growth' names a topic, not a class."""
    from dctx.capture.subjects import name_variants

    low = cond.lower()
    if any(v.lower() in low for s in subjects for v in name_variants(s)):
        return True
    if _RELATIVE_CLASS.match(cond):
        return True  # "for anything that pays a dividend"
    if _PLURAL_CLASS.match(cond) and not _NOT_A_CLASS.match(cond):
        return True  # "for insurers", "for REITs", "for restaurant chains": a kind of entity
    if not CLASS_NOUNS.search(cond):
        return False
    # "for the report" / "for each company" name the object, not a qualifier on it
    stems = content_stems(cond, drop_generic=True)
    return bool(stems) or bool(_NUMERIC.search(cond))


# "net burn is negative": a sign is a threshold at zero
_NEGATIVE = re.compile(r"\b(is|are|was|were|turns?|goes|stays?)\s+negative\b", re.IGNORECASE)


def parse_numeric(cond: str) -> NumericCondition | None:
    """The threshold a condition states ("runway under 12 months", "orders older than 30
    days", "net burn is negative"), or None."""
    cond = _NEGATIVE.sub(r"\1 below 0", cond)
    m = _NUMERIC.search(cond)
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
    terms = content_stems(m.group("terms"), drop_generic=True)
    if m.group("after"):
        terms.extend(content_stems(m.group("after"), drop_generic=True))
    if unit and unit not in _SCALE and unit not in {"%", "percent"}:
        terms.extend(content_stems(unit))
    if not terms and _MONEY.search(m.group(0)):
        terms = list(MONEY_TERMS)  # "anything over $200": an amount, whatever its field is called
    if not terms:
        return None
    return NumericCondition(terms=terms, op=op, value=value)  # type: ignore[arg-type]
