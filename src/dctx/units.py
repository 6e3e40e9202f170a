"""Units of measure named in conditions ("over 30 kg", "older than 90 days", "above 2 GB").

A condition's threshold is matched against a numeric field whose key names what is measured;
a unit written after the number says that too (`weight_kg`, `age_days`, `size_gb`), so the
unit's names join the field terms. Which words are units is `pint`'s registry, not a list
kept here. The registry loads once, on the first word asked about (it takes about a second).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from dctx.cache_dir import default_cache_dir

# the measures a tool field plausibly carries, each named by a unit of it (pint states a
# dimension in base dimensions: energy is "[mass] * [length] ** 2 / [time] ** 2"); others that
# pint knows ("k": the Boltzmann constant, "mb": the millibarn) are never what a condition
# means after a number
_MEASURES = ("second", "gram", "metre", "kelvin", "metre / second", "ampere", "watt", "joule")
_INFORMATION = ("byte", "bit")  # dimensionless to pint, but a measure a field is named by

# a threshold's unit when it is no measure of pint's: "over 1%" and "more than $15"
PERCENT = "percent"
MONEY = "money"
# the word after a number that makes it a percentage ("2%", "2 percent", "2 pct"); both readers
# take one word, so "per cent" is no entry: it would never match
PERCENT_WORDS = frozenset({"%", "percent", "pct"})
# stems of the keys an amount of money is kept under ("loan_fee", "total_price")
MONEY_TERMS = ("amount", "total", "price", "cost", "valu", "balanc", "fee", "charg")


@dataclass(frozen=True, slots=True)
class UnitName:
    """A unit as written ("kg") and its registry name ("kilogram")."""

    written: str
    name: str
    dimension: str


@functools.lru_cache(maxsize=1)
def _registry() -> Any:
    import pint

    # parsed definitions are cached with dctx's other derived files, not in pint's own folder
    return pint.UnitRegistry(cache_folder=default_cache_dir() / "pint")


@functools.lru_cache(maxsize=1)
def _dimensions() -> frozenset[str]:
    registry = _registry()
    return frozenset(str(registry.get_dimensionality(unit)) for unit in _MEASURES)


def forget_unit_words() -> None:
    """Empty the cache of words read as units (words of the texts read), after a forget."""
    unit_of.cache_clear()


@functools.lru_cache(maxsize=4096)
def unit_of(word: str) -> UnitName | None:
    """The unit `word` names, or None for a word that is not one (a count noun: "retries")."""
    token = word.strip(".,;:!?()")
    if not token.isalpha():
        return None
    registry = _registry()
    try:
        readings = registry.parse_unit_name(token)
    except Exception:  # pint raises its own errors (undefined unit, syntax): not a unit
        return None
    if len(readings) != 1:  # none, or ambiguous
        return None
    prefix, unit, _ = readings[0]
    name = prefix + unit
    dimension = str(registry.get_dimensionality(name))
    if dimension in _dimensions() or name.endswith(_INFORMATION):
        return UnitName(token, name, dimension)
    return None


def time_unit(name: str) -> bool:
    """Is this registry name a unit of time ("day", "hour")?"""
    unit = unit_of(name)
    return unit is not None and unit.dimension == "[time]"


@functools.lru_cache(maxsize=64)
def seconds_in(name: str) -> float:
    """Seconds in one `name` (a unit of time: "month" is pint's mean month)."""
    return float(_registry().Quantity(1, name).to("second").magnitude)
