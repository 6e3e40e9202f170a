"""A threshold is read on the field that holds what it measures, even when no key names it
in the condition's words: a percentage on a fraction, an amount on the money fields of the
items the condition names, a forecast on the numbers the forecast call returned. Examples of
their own (a print shop, a sailing school), not DC-Bench wording."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dctx.capture.condition_words import parse_numeric
from dctx.inject.why import condition_text
from dctx.memory import Memory
from dctx.models import NumericCondition
from dctx.providers.fakes import FakeEmbedder
from dctx.retrieve.context import RunContext, data_condition_met, threshold_fields
from dctx.retrieve.engine import VECTOR_DTYPE, Snapshot, View
from dctx.store.base import RuleIndex
from dctx.store.packed import PackedRules
from dctx.store.sqlite import SQLiteStore
from dctx.text import number_in
from dctx.units import MONEY, PERCENT
from one_turn import exchange


def _memory(tmp_path: Path, said: str) -> Memory:
    mem = Memory(SQLiteStore(tmp_path / "m.db"), embedder=FakeEmbedder(256))
    mem.capture(
        exchange(
            "Get the Kessler brochure job moving.",
            "Ordered the paper and booked the proof run.",
            said,
        ),
        actor="ola",
        skill="press",
        conversation_id="c1",
    )
    assert all(r.trigger.numeric is not None for r in mem.rules())
    return mem


def _delivered_after(mem: Memory, tool: str, arguments: dict[str, Any], result: Any) -> bool:
    run = mem.start(actor="ola", skill="press", query="Run the Kessler brochure job.")
    assert not run.units  # a threshold on data: nothing before the data is seen
    return bool(run.observe({"name": tool, "arguments": arguments}, result))


@pytest.mark.parametrize(
    ("said", "unit"),
    [
        ("the misprint rate is over 2%", PERCENT),
        ("spoilage above 3 percent", PERCENT),
        ("the jam rate is over 2 pct", PERCENT),
        ("every supplier quotes more than $300", MONEY),
        ("a reprint costing over 40 dollars", MONEY),
        ("a pallet over 600 pounds", "pound"),  # a weight, not pounds sterling
    ],
)
def test_a_threshold_keeps_what_its_number_counts(said: str, unit: str) -> None:
    numeric = parse_numeric(said)
    assert numeric is not None and numeric.unit == unit


MISPRINTS = "From now on, if the misprint rate on a proof run is over 2%, hold the job."


@pytest.mark.parametrize(("fraction", "held"), [(0.031, True), (0.012, False)])
def test_a_percentage_is_met_by_a_fraction_over_it(
    tmp_path: Path, fraction: float, held: bool
) -> None:
    mem = _memory(tmp_path, MISPRINTS)
    result = {"job": "KB-12", "misprint_rate": fraction}
    assert _delivered_after(mem, "get_proof_run", {"job": "KB-12"}, result) is held


def test_a_field_kept_in_percent_is_read_as_percent(tmp_path: Path) -> None:
    mem = _memory(tmp_path, MISPRINTS)
    result = {"job": "KB-12", "misprint_rate_pct": 0.9}  # 0.9%, under 2%
    assert not _delivered_after(mem, "get_proof_run", {"job": "KB-12"}, result)


QUOTES = "Going forward, when every supplier quotes more than $300 a ream, ask me before ordering."


def _quotes(*prices: float) -> dict[str, Any]:
    return {
        "paper": "silk 170gsm",
        "offers": [
            {"supplier": name, "supplier_id": 88231, "ream_price": price, "minimum_reams": 500}
            for name, price in zip(("Inkwell", "Papermill North"), prices, strict=False)
        ],
    }


def test_an_amount_is_read_on_the_money_of_the_items_it_names(tmp_path: Path) -> None:
    mem = _memory(tmp_path, QUOTES)
    assert _delivered_after(mem, "find_paper", {"stock": "silk"}, _quotes(340, 355))


def test_an_amount_is_never_read_on_counts_or_identifiers(tmp_path: Path) -> None:
    # no price is over $300; the minimum order (500) and the supplier id (88231) are
    mem = _memory(tmp_path, QUOTES)
    assert not _delivered_after(mem, "find_paper", {"stock": "silk"}, _quotes(120, 150))


INK = "From now on, if a job's ink bill is over $200, ask me before you print."


def _job(ink_bill: float) -> dict[str, Any]:
    return {"job": {"code": "KB-12", "sheets": 6500, "ink_bill": ink_bill}}


@pytest.mark.parametrize(("ink_bill", "asked"), [(240, True), (150, False)])
def test_a_threshold_is_read_on_the_fields_that_say_what_it_measures(
    tmp_path: Path, ink_bill: float, asked: bool
) -> None:
    # "job" names the sheet count too; "job", "ink" and "bill" name the bill
    mem = _memory(tmp_path, INK)
    assert _delivered_after(mem, "get_job", {"job": "KB-12"}, _job(ink_bill)) is asked


def test_an_amount_is_read_on_the_money_fields_its_terms_name() -> None:
    cond = NumericCondition(["tast"], ">", 40.0, MONEY)
    ctx = RunContext.start("book the tasting")
    ctx.add_step("get_tasting", {}, '{"tasting": {"guests": 60, "fee": 35}}')
    assert [value for _, value in threshold_fields(cond, ctx)] == [35.0]


GUSTS = "From now on, if any morning is forecast over 25, cancel the dinghy lessons."


def _forecast(*gusts: float) -> dict[str, Any]:
    return {
        "harbour": "Westcove",
        "days": [{"date": f"2027-05-0{i + 1}", "gust_kt": g} for i, g in enumerate(gusts)],
    }


@pytest.mark.parametrize(("gusts", "cancelled"), [((18, 27, 22), True), ((18, 21, 22), False)])
def test_a_forecast_is_read_on_the_numbers_the_forecast_returned(
    tmp_path: Path, gusts: tuple[float, ...], cancelled: bool
) -> None:
    mem = _memory(tmp_path, GUSTS)
    assert _delivered_after(mem, "get_forecast", {"harbour": "Westcove"}, _forecast(*gusts)) is (
        cancelled
    )


def test_a_field_the_terms_name_is_read_alone() -> None:
    """Once some numeric field is named by the condition's words, the numbers of the items
    around it are not read: the named field says what is measured."""
    cond = NumericCondition(["misprint", "rate"], ">", 2.0, PERCENT)
    ctx = RunContext.start("run the job")
    ctx.add_step("get_misprint_report", {}, '{"misprint_rate": 0.01, "sheets": 4000}')
    assert [value for _, value in threshold_fields(cond, ctx)] == [0.01]


def test_the_explanation_names_the_fields_that_were_read(tmp_path: Path) -> None:
    mem = _memory(tmp_path, QUOTES)
    (rule,) = mem.rules()
    ctx = RunContext.start("order the paper")
    ctx.add_step("find_paper", {"stock": "silk"}, json.dumps(_quotes(340, 120)))
    met, why = condition_text(rule, ctx)
    assert met and "price.ream.ream_pric=340" in why and "price.ream.ream_pric=120" in why
    assert "88231" not in why and "500" not in why  # the id and the count were not read


RUN_LENGTH = "From now on, if a job's run is over 5000 sheets, book it on the big press."


@pytest.mark.parametrize(("run", "big"), [("6500 sheets", True), ("2500 sheets", False)])
def test_a_number_written_out_with_its_unit_is_read(tmp_path: Path, run: str, big: bool) -> None:
    mem = _memory(tmp_path, RUN_LENGTH)
    result = {"job": "KB-12", "run": run, "stock": "silk 170"}
    assert _delivered_after(mem, "get_job", {"job": "KB-12"}, result) is big


@pytest.mark.parametrize(
    ("value", "number"),
    [
        ("Fast 200", 200.0),
        ("350 lb", 350.0),
        ("$55.00", 55.0),
        ("PRJ-2231", None),  # an identifier
        ("2027-05-03", None),  # a date
        ("07:00", None),  # a time
        ("Zone 1 - Old Town", None),  # not words and a number alone
        ("aisle 4 bay 12", None),  # two numbers
    ],
)
def test_a_string_holds_a_number_only_as_words_and_one_number(
    value: str, number: float | None
) -> None:
    assert number_in(value) == number


@pytest.mark.parametrize(
    ("said", "tool", "result"),
    [
        (QUOTES, "find_paper", _quotes(340, 120)),
        (QUOTES, "find_paper", _quotes(120, 150)),
        (GUSTS, "get_forecast", _forecast(18, 27)),
        (GUSTS, "get_forecast", _forecast(18, 21)),
        (MISPRINTS, "get_proof_run", {"misprint_rate": 0.031}),
        (MISPRINTS, "get_proof_run", {"misprint_rate_pct": 0.9}),
        (RUN_LENGTH, "get_job", {"run": "6500 sheets"}),
        (INK, "get_job", _job(150)),
        (INK, "get_job", _job(240)),
    ],
)
def test_the_snapshot_meets_a_threshold_as_the_full_test_does(
    tmp_path: Path, said: str, tool: str, result: dict[str, Any]
) -> None:
    (rule,) = _memory(tmp_path, said).rules()
    ctx = RunContext.start("run the job")
    ctx.add_step(tool, {}, json.dumps(result))
    pack = PackedRules.from_rules([rule], [1])
    zeros = np.zeros((1, 8), dtype=VECTOR_DTYPE)
    snap = Snapshot.build(RuleIndex(1, [], zeros, zeros.copy(), packed=pack))
    in_snapshot = snap.met_data(View.build(snap.pack, np.arange(1)), ctx) == [0]
    assert in_snapshot is data_condition_met(rule.trigger, ctx)
