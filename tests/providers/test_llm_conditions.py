"""A data condition the LLM compiler writes is read as the offline compiler reads one: a
value of an item's field is a predicate ("a barrel's status is leaking": some barrel whose
status is leaking, not any result that says "barrel"), a threshold keeps its unit ("over 5%"
meets the fraction 0.07, "over $40" only money fields). The model says what the condition
is; how the run tests it is the same for every rule. A winery's cellar desk, not DC-Bench
wording; the real OpenAI SDK against the local wire server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dctx.memory import Memory
from dctx.models import Rule, TriggerKind
from dctx.providers.fakes import FakeEmbedder
from dctx.store.sqlite import SQLiteStore
from dctx.units import MONEY, PERCENT
from pipeline.traces import assistant, call, result, user
from providers.step_model import StepModel, compiled
from providers.wire_server import WireServer

LEAKING = "Move a leaking barrel to the quarantine rack before racking."
SULFITE = "Re-dose sulfite before bottling when the sulfite loss is over 5%."
TASTING = "Ask the manager before booking a tasting whose fee is over $40."
TOPPING = "Top up a barrel whose topping loss runs high."
TRACE: list[dict[str, Any]] = [
    user("Rack the 2025 Syrah barrels today."),
    call("c1", "list_barrels", vintage=2025, variety="Syrah"),
    result("c1", [{"barrel": "B-12", "status": "sound"}, {"barrel": "B-14", "status": "sound"}]),
    assistant("Racked B-12 and B-14."),
    user(
        "When a barrel shows a leak, quarantine it before racking anything. If the sulfite "
        "loss is over 5%, re-dose before bottling. Tastings over $40 need the manager's ok."
    ),
    assistant("Understood."),
]


def _data(text: str, **numeric: Any) -> dict[str, Any]:
    return {
        "kind": "data",
        "text": text,
        "keywords": [] if numeric else text.split()[1:3],
        "tool": None,
        "after_tool": None,
        "numeric": numeric or None,
    }


@pytest.fixture
def cellar(srv: WireServer, tmp_path: Path) -> Iterator[Memory]:
    model = StepModel()
    model.answers = {
        **model.answers,
        "self_assessment": {"patterns": []},
        "compile": {
            "rules": [
                compiled(LEAKING, group="leaks", trigger=_data("a barrel's status is leaking")),
                compiled(
                    SULFITE,
                    group="sulfite",
                    trigger=_data(
                        "the sulfite loss is over 5%", terms=["sulfite loss"], op=">", value=5
                    ),
                ),
                compiled(
                    TOPPING,
                    group="topping",
                    trigger=_data(
                        "a barrel's topping loss runs high", terms=["topping loss"], op=">", value=2
                    ),
                ),
                compiled(
                    TASTING,
                    group="tastings",
                    trigger=_data("a tasting fee over $40", terms=["tasting"], op=">", value=40),
                ),
            ]
        },
    }
    model.install(srv)
    mem = Memory(
        SQLiteStore(tmp_path / "m.db"),
        embedder=FakeEmbedder(256),
        llm=f"openai:gpt-4o-mini@{srv.openai_url}",
    )
    mem.capture(TRACE, actor="ines", skill="cellar", conversation_id="s1")
    yield mem
    mem.close()


def _rule(mem: Memory, text: str) -> Rule:
    return next(r for r in mem.rules() if r.text == text)


def _delivered(mem: Memory, rule: str, tool: str, payload: Any) -> bool:
    run = mem.start(actor="ines", skill="cellar", query="Rack the 2024 Grenache barrels.")
    units = [*run.units, *run.observe({"name": tool, "arguments": {}}, payload)]
    return any(rule in u.text for u in units)


def test_a_value_the_model_names_is_a_predicate_over_items(cellar: Memory) -> None:
    trigger = _rule(cellar, LEAKING).trigger
    assert trigger.kind is TriggerKind.DATA and trigger.predicate is not None
    assert trigger.predicate.values == ["leaking"]
    sound = [{"barrel": "B-3", "status": "sound"}, {"barrel": "B-4", "status": "topped up"}]
    leaking = [{"barrel": "B-3", "status": "sound"}, {"barrel": "B-4", "status": "leaking"}]
    assert not _delivered(cellar, LEAKING, "list_barrels", sound)  # "barrel" alone is no leak
    assert _delivered(cellar, LEAKING, "list_barrels", leaking)


def test_a_percentage_the_model_names_keeps_its_unit(cellar: Memory) -> None:
    numeric = _rule(cellar, SULFITE).trigger.numeric
    assert numeric is not None and (numeric.op, numeric.value, numeric.unit) == (">", 5, PERCENT)
    assert _delivered(cellar, SULFITE, "get_lot", {"lot": "L-7", "sulfite_loss": 0.07})
    assert not _delivered(cellar, SULFITE, "get_lot", {"lot": "L-8", "sulfite_loss": 0.03})


def test_an_amount_the_model_names_is_read_on_money_fields(cellar: Memory) -> None:
    numeric = _rule(cellar, TASTING).trigger.numeric
    assert numeric is not None and numeric.unit == MONEY
    booking = {"tasting": {"guests": 60, "fee": 35}}
    assert not _delivered(cellar, TASTING, "get_tasting", booking)  # 60 guests is no fee
    assert _delivered(cellar, TASTING, "get_tasting", {"tasting": {"guests": 6, "fee": 55}})


def test_a_threshold_only_the_model_states_stands_alone(cellar: Memory) -> None:
    # the words carry no number: the model's threshold is the condition, and no reading of
    # "runs high" as a true/false state stands beside it
    trigger = _rule(cellar, TOPPING).trigger
    assert trigger.predicate is None and trigger.numeric is not None
    assert (trigger.numeric.op, trigger.numeric.value) == (">", 2)
    assert _delivered(cellar, TOPPING, "get_barrel", {"barrel": "B-9", "topping_loss": 3.5})
    high = {"barrel": "B-9", "topping_loss": 1.0, "topping_loss_high": True}
    assert not _delivered(cellar, TOPPING, "get_barrel", high)
