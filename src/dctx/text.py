"""Small text helpers shared by capture, compile and retrieve: words, stems, sentences.

Stemming uses the Snowball English stemmer (`snowballstemmer`), so "segments" in a rule
matches "segment" in tool data.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

import snowballstemmer

_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_'\-]*|\d+(?:\.\d+)?")
_ACRONYM_PLURAL = re.compile(r"[A-Z]{2,}s")
# no split after "i.e." / "e.g." / "vs." / "etc.": they continue the sentence; nor at ";",
# which joins clauses of one thought (a rule ladder "NRR < 100 -> at-risk; otherwise ...")
_SENT_SPLIT = re.compile(
    r"(?<=[.!?])(?<!\bi\.e\.)(?<!\be\.g\.)(?<!\bvs\.)(?<!\betc\.)(?<!\bapprox\.)\s+"
    r"(?=[\"'(\[]?[A-Za-z0-9])|\n+"
)

STOPWORDS = frozenset(
    """a an the and or but if then else when whenever while for to of in on at by with from into
    onto about as is are was were be been being it its this that these those there here i me my we
    our us you your he she they them their his her do does did done doing have has had having not
    no yes so such than too very can could would should will shall may might must just also only
    any all each every some more most other same own again further once up down out over under
    what which who whom whose why how where s t don dont please ok okay oh hey hi btw well thanks
    thank let lets get got go going make sure really actually now next time always never""".split()
)

# Words that name the kind of subject or data rather than a condition on it.
GENERIC_WORDS = frozenset(
    """company companies customer customers client clients user users account accounts business
    businesses firm firms org organization organizations subject subjects vendor vendors entity
    entities person people one ones thing things case cases data result results report reports
    reporting output answer answers response responses value values number numbers item items
    has have shows show showing contains contain include includes includes having gets get
    someone anyone something anything""".split()
)


@functools.lru_cache(maxsize=1)
def _stemmer() -> Any:
    return snowballstemmer.stemmer("english")


@functools.lru_cache(maxsize=65536)
def stem(word: str) -> str:
    return str(_stemmer().stemWord(word.lower()))


def words(text: str) -> list[str]:
    """Lower-cased word tokens (identifiers split on underscores and hyphens too)."""
    out: list[str] = []
    for tok in _WORD.findall(text):
        if _ACRONYM_PLURAL.fullmatch(tok):
            tok = tok[:-1]  # "RMAs" is "RMA"s: the stemmer cannot tell, as "rmas" has no suffix
        low = tok.lower().strip("'-")
        if not low:
            continue
        out.append(low)
        if "_" in low or "-" in low:
            out.extend(p for p in re.split(r"[_\-]", low) if p)
    return out


def content_stems(text: str, *, drop_generic: bool = False) -> list[str]:
    """Stems of the content words of `text`, in order, without duplicates."""
    seen: dict[str, None] = {}
    for w in words(text):
        if w in STOPWORDS or len(w) < 2:
            continue
        if drop_generic and w in GENERIC_WORDS:
            continue
        seen.setdefault(stem(w), None)
    return list(seen)


def sentences(text: str) -> list[str]:
    """Split a message into sentences (and lines); keeps the punctuation."""
    parts = [p.strip() for p in _SENT_SPLIT.split(text or "")]
    return [p for p in parts if p]


def flatten_json_text(text: str) -> str:
    """Keys and values of a JSON payload as plain words, so "runway_months": 8 reads as words.
    Non-JSON text is returned unchanged."""
    try:
        data = json.loads(text)
    except (ValueError, TypeError, RecursionError):
        return text
    parts: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                parts.append(str(k))
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)
        elif node is not None:
            parts.append(str(node))

    walk(data)
    return " ".join(parts)


def json_fields(text: str) -> list[tuple[list[str], float | str]]:
    """(key-path words, value) for every number and string leaf of a JSON payload; empty for
    non-JSON text. Booleans and nulls are skipped."""
    try:
        data = json.loads(text)
    except (ValueError, TypeError, RecursionError):
        return []
    out: list[tuple[list[str], float | str]] = []

    def walk(node: Any, path: list[str]) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, [*path, str(k)])
        elif isinstance(node, list):
            for v in node:
                walk(v, path)
        elif isinstance(node, bool) or node is None:
            return
        elif isinstance(node, int | float):
            out.append((words(" ".join(path)), float(node)))
        elif isinstance(node, str):
            out.append((words(" ".join(path)), node))

    walk(data, [])
    return out


def numeric_fields(text: str) -> list[tuple[list[str], float]]:
    """(key-path words, number) pairs found in a JSON payload; empty for non-JSON text."""
    return [(path, v) for path, v in json_fields(text) if isinstance(v, float)]
