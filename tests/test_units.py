"""Which words after a threshold's number are units (dctx.units, over pint's registry)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dctx import units
from dctx.units import seconds_in, time_unit, unit_of


@pytest.mark.parametrize(
    ("word", "name"),
    [
        ("kg", "kilogram"),
        ("days", "day"),
        ("h", "hour"),
        ("km", "kilometer"),
        ("mph", "mile_per_hour"),
        ("kWh", "kilowatt_hour"),  # energy: pint states it in base dimensions
        ("kW", "kilowatt"),
        ("GB", "gigabyte"),  # information: dimensionless to pint, still a measure
        ("degC", "degree_Celsius"),
    ],
)
def test_units_a_field_may_carry(word: str, name: str) -> None:
    unit = unit_of(word)
    assert unit is not None and unit.name == name and unit.written == word


@pytest.mark.parametrize("word", ["retries", "needs", "mb", "k", "C", "30", "per-day", ""])
def test_words_that_are_no_measure_of_a_field(word: str) -> None:
    # count nouns, verbs, the millibarn, the Boltzmann constant, the coulomb, numbers
    assert unit_of(word) is None


def test_time_units_convert_to_seconds() -> None:
    assert time_unit("day") and time_unit("hours") and not time_unit("kilogram")
    assert seconds_in("day") == 86_400.0
    assert seconds_in("hour") * 24 == seconds_in("day")


def test_pint_caches_its_definitions_in_dctx_s_cache_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DCTX_CACHE_DIR", str(tmp_path))
    units._registry.cache_clear()
    try:
        assert units._registry().Quantity(1, "hour").to("second").magnitude == 3600
        assert any((tmp_path / "pint").iterdir())  # nowhere else: one folder to delete
    finally:
        units._registry.cache_clear()
