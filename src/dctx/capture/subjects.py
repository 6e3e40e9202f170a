"""Track the subjects a session is about (the company, customer, account...).

Subjects come from tool-call arguments whose names say they identify an entity, and from
proper names in the user's request. Compilation uses them to drop the seed subject's name from
behavior rules and to keep subject-specific rules scoped to their subject.
"""

from __future__ import annotations

import re
from typing import Any

_SUBJECT_KEY = re.compile(
    r"(company|customer|client|account|org|organi[sz]ation|vendor|entity|firm|ticker|symbol|"
    r"name|subject|issuer|merchant|tenant|brand|business|partner|supplier|user)",
    re.IGNORECASE,
)
_PROPER = re.compile(
    r"\b([A-Z][a-zA-Z0-9&]+(?:[ -](?:[A-Z][a-zA-Z0-9&]+|&|of))*(?:,? (?:Inc|Corp|Corporation|"
    r"Ltd|LLC|Co|Group|Holdings|Labs|Systems|Technologies|Industries|GmbH|plc|AG|SA)\.?)?)"
)
_NOT_NAMES = frozenset(
    """I I'm I'd I'll Please Summarize Summarise Analyze Analyse Give Show Tell What How Why When
    Where Which Who Can Could Would Should Now Next Then Also And But Use Include Compare Check
    Look Find Get Pull Draft Prepare Help The This That These Those Our My Your Good Great Thanks
    Thank Yes No Ok Okay Hi Hello Hey Dear Q1 Q2 Q3 Q4 FY USD EUR GBP JSON API KB FAQ SLA CEO CFO
    Write Create Review Assess Investigate Run Let Let's Please,
    January February March April May June July August September October November December
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday Morning Afternoon Evening
    FYI""".split()
)
GENERIC_BY_KEY = {
    "company": "the company",
    "ticker": "the company",
    "symbol": "the company",
    "issuer": "the company",
    "firm": "the company",
    "business": "the company",
    "brand": "the company",
    "customer": "the customer",
    "client": "the client",
    "user": "the customer",
    "account": "the account",
    "merchant": "the merchant",
    "vendor": "the vendor",
    "supplier": "the supplier",
    "partner": "the partner",
    "tenant": "the tenant",
    "org": "the organization",
    "organization": "the organization",
    "organisation": "the organization",
}


class SubjectTracker:
    """Accumulates subject names seen in a session and the argument key that named each."""

    def __init__(self) -> None:
        self._subjects: dict[str, str] = {}  # name -> key

    def observe_call(self, tool: str, arguments: dict[str, Any]) -> None:
        for key, value in arguments.items():
            if not isinstance(value, str) or not value.strip() or len(value) > 60:
                continue
            match = _SUBJECT_KEY.search(key)
            if not match:
                continue
            if re.fullmatch(r"[\d\W_]+", value):  # pure numbers/ids are not names
                continue
            if re.search(r"\d", value) and not re.search(r"[A-Za-z]{3,}", value):
                continue
            name = value.strip()
            if not self._subjects.get(name):  # a call says what a name seen in text is
                self._subjects[name] = match.group(1).lower()

    def observe_text(self, text: str) -> None:
        for m in _PROPER.finditer(text or ""):
            parts = m.group(1).strip().rstrip(".,").split()
            leading = 0
            while leading < len(parts) and parts[leading].rstrip("',") in _NOT_NAMES:
                leading += 1
            name = " ".join(parts[leading:]).removesuffix("'s")
            if len(name) < 3 or name in _NOT_NAMES:
                continue
            if re.match(r"[-_/#]?\d", text[m.end() : m.end() + 2]):
                continue  # "Order TM-448120": the prefix of an identifier, not a name
            sentence_start = (leading == 0) and (
                m.start() == 0 or text[max(0, m.start() - 2) : m.start()].strip() in {".", "!", "?"}
            )
            single = " " not in name and not re.search(r"(Inc|Corp|Ltd|LLC|Co)\.?$", name)
            if sentence_start and single:
                continue  # a capitalized first word is not a name unless it looks like one
            self._subjects.setdefault(name, "")

    def subjects(self) -> list[str]:
        return list(self._subjects)

    def keys(self) -> dict[str, str]:
        return dict(self._subjects)


def name_variants(name: str) -> list[str]:
    """Forms a subject may take in text: 'Acme Corp' -> ['Acme Corp', 'Acme']."""
    out = [name]
    core = re.sub(
        r",?\s+(Inc|Corp|Corporation|Ltd|LLC|Co|Group|Holdings|GmbH|plc|AG|SA)\.?$", "", name
    )
    if core != name and len(core) >= 3:
        out.append(core)
    first = core.split()[0] if " " in core else ""
    if len(first) >= 4 and first[0].isupper() and first not in out:
        out.append(first)
    return out


def generic_term(key: str) -> str:
    return GENERIC_BY_KEY.get(key.lower(), "the subject")


# an identifier of one instance mixes digits with capitals or underscores ("CLM-26-00511",
# "VB-31877", "us_east_1"), unlike a measure ("5-year") or an acronym ("RMA"); capitals are
# told apart even where the pattern is used without regard to case
IDENTIFIER_PATTERN = r"\b(?=[A-Za-z0-9_-]*\d)(?-i:(?=[A-Za-z0-9_-]*[A-Z_]))[A-Za-z0-9_-]{5,}\b"
_IDENTIFIER = re.compile(IDENTIFIER_PATTERN)


def mask_instances(text: str) -> str:
    """`mask_names`, and identifiers left out: what similarity between two requests reads.
    Two requests are not alike because their claim numbers share a format ("Hail claim
    CLM-26-00511" ~ "CLM-26-11820 is a total loss" only by the number)."""
    dropped = _IDENTIFIER.sub("", mask_names(text))  # a shared "X" would make them alike
    return re.sub(r"\s+([,.;:)])", r"\1", re.sub(r"\s{2,}", " ", dropped)).strip()


def mask_names(text: str) -> str:
    """Replace proper names with a neutral token so that similarity follows the task, not the
    subject ("Compare Acme and Globex" ~ "How do X and X stack up")."""
    tracker = SubjectTracker()
    tracker.observe_text(text)
    for name in sorted(tracker.subjects(), key=len, reverse=True):
        text = re.sub(rf"\b{re.escape(name)}\b(?:'s)?", "X", text)
    return text
