"""A subject's name meets a data trigger whole: one word of a name of several ("sky" of
"Big Sky Ranch") names other things too, so it is never enough alone."""

from __future__ import annotations

import numpy as np

from dctx.models import Rule, RuleSource, RuleType, Scope, Trigger, TriggerKind
from dctx.retrieve.context import RunContext, data_condition_met
from dctx.retrieve.engine import VECTOR_DTYPE, Snapshot, View
from dctx.store.base import RuleIndex
from dctx.store.packed import PackedRules

NAME = "Big Sky Ranch"


def _named() -> Rule:
    return Rule(
        id="r1",
        text="Quote Big Sky Ranch in euros.",
        type=RuleType.FORMAT,
        trigger=Trigger(TriggerKind.DATA, NAME, keywords=["big", "sky", "ranch"]),
        scope=Scope(subject=NAME),
        source=RuleSource.CORRECTION,
        actor="lea",
        group="g1",
    )


def _seen(text: str) -> RunContext:
    ctx = RunContext.start("price the feed order")
    ctx.add_step("lookup", {}, text)
    return ctx


def _met_in_snapshot(rule: Rule, ctx: RunContext) -> bool:
    pack = PackedRules.from_rules([rule], [1])
    zeros = np.zeros((1, 8), dtype=VECTOR_DTYPE)
    snap = Snapshot.build(RuleIndex(1, [], zeros, zeros.copy(), packed=pack))
    return snap.met_data(View.build(snap.pack, np.arange(1)), ctx) == [0]


def test_one_word_of_the_name_does_not_meet_it() -> None:
    ctx = _seen('{"forecast": "clear sky all week", "buyer": "Hollow Creek"}')
    assert not data_condition_met(_named().trigger, ctx)
    assert not _met_in_snapshot(_named(), ctx)


def test_the_whole_name_meets_it() -> None:
    ctx = _seen('{"buyer": "Big Sky Ranch", "bales": 40}')
    assert data_condition_met(_named().trigger, ctx)
    assert _met_in_snapshot(_named(), ctx)
