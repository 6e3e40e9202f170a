"""A free-text condition means what was said: "when the invoice is overdue" is met when the
query or a step says an invoice is overdue (in those words or others), never by a step or a
query that only mentions an invoice. Examples of their own, not DC-Bench wording."""

from __future__ import annotations

from pathlib import Path

import pytest

from dctx.memory import Memory
from dctx.models import TriggerKind
from dctx.providers.base import Embedder
from dctx.providers.fakes import FakeEmbedder
from dctx.retrieve.condition_match import WORDS_ONLY, alternatives, condition_model
from dctx.store.sqlite import SQLiteStore

SESSION = [
    {"role": "user", "content": "Go through the Harlow account's billing."},
    {"role": "assistant", "content": "Harlow has three open invoices and one credit note."},
    {
        "role": "user",
        "content": "From now on, when an invoice is overdue, phone the accounts contact "
        "before sending any written reminder.",
    },
]
DRAFT = {"id": "INV-5001", "customer": "Harlow", "status": "draft"}
LATE = {"id": "INV-4471", "customer": "Harlow", "status": "overdue"}


def _memory(tmp_path: Path, embedder: Embedder) -> Memory:
    mem = Memory(SQLiteStore(tmp_path / "m.db"), embedder=embedder)
    mem.capture(SESSION, actor="ines", skill="billing", conversation_id="c1")
    (rule,) = mem.rules()
    pred = rule.trigger.predicate  # free text: at most a soft predicate no result here tests
    assert rule.trigger.kind is TriggerKind.DATA and (pred is None or pred.soft)
    assert set(rule.trigger.keywords) >= {"invoic", "overdu"}
    return mem


def _delivered(mem: Memory, query: str, result: dict[str, str]) -> tuple[bool, bool]:
    """(delivered before the run, delivered after the invoice step)"""
    run = mem.start(actor="ines", skill="billing", query=query)
    before = bool(run.units)
    after = bool(run.observe({"name": "get_invoice", "arguments": {"id": result["id"]}}, result))
    return before, after


@pytest.fixture(params=["words", "minilm"])
def cond_embedder(request: pytest.FixtureRequest, embedder: Embedder) -> Embedder:
    """The words-only model (an embedder without a fit) and MiniLM's fitted one."""
    if request.param == "words":
        return FakeEmbedder(256)
    if not embedder.id.startswith("minilm"):
        pytest.skip("MiniLM is not installed")
    return embedder


def test_one_word_of_the_condition_does_not_meet_it(
    tmp_path: Path, cond_embedder: Embedder
) -> None:
    mem = _memory(tmp_path, cond_embedder)
    assert _delivered(mem, "Update Harlow's billing address.", DRAFT) == (
        False,
        False,
    )


def test_the_condition_stated_by_the_data_meets_it(tmp_path: Path, cond_embedder: Embedder) -> None:
    mem = _memory(tmp_path, cond_embedder)
    assert _delivered(mem, "Update Harlow's billing address.", LATE) == (
        False,
        True,
    )


def test_the_condition_stated_by_the_query_meets_it(
    tmp_path: Path, cond_embedder: Embedder
) -> None:
    mem = _memory(tmp_path, cond_embedder)
    assert _delivered(mem, "Chase up the overdue invoice from Harlow.", DRAFT)[0] is True


def test_minilm_meets_it_in_other_words(tmp_path: Path, embedder: Embedder) -> None:
    if not embedder.id.startswith("minilm"):
        pytest.skip("MiniLM is not installed")
    mem = _memory(tmp_path, embedder)
    run = mem.start(
        actor="ines", skill="billing", query="Harlow's bill was due last month and is still unpaid."
    )
    assert run.units


@pytest.mark.parametrize(
    ("condition", "groups"),
    [
        ("the invoice is overdue", [{"invoic", "overdu"}]),
        # the head noun is shared: webhook problems or API problems
        ("webhook or API problems", [{"webhook"}, {"api"}]),
        (
            "hardware RMAs (dead batteries, faults)",
            [{"hardwar", "rma"}, {"dead", "batteri"}, {"fault"}],
        ),
        ("repairs of heating, leaks or mould", [{"repair", "heat"}, {"leak"}, {"mould"}]),
        ("webhook and API problems", [{"webhook"}, {"api"}]),
        # "and" before a determiner joins the subjects of one condition: both must be said
        (
            "the lab results and the referral letter disagree",
            [{"lab", "referr", "letter", "disagre"}],
        ),
    ],
)
def test_listed_alternatives_are_counted_apart(condition: str, groups: list[set[str]]) -> None:
    from dctx.compile.triggers import data_trigger

    keywords = data_trigger(condition).keywords
    assert [set(g) for g in alternatives(condition, keywords)] == groups


def test_an_alternative_seen_whole_meets_it_a_word_of_one_does_not() -> None:
    cond = "repairs of heating, leaks or mould"
    keywords = ["repair", "heat", "leak", "mould"]
    assert WORDS_ONLY.met(0.0, cond, keywords, {"leak", "kitchen"})
    assert not WORDS_ONLY.met(0.0, cond, keywords, {"repair", "parking"})
    assert not WORDS_ONLY.met(0.0, "the invoice is overdue", ["invoic", "overdu"], {"invoic"})


def test_an_embedder_without_a_fit_is_judged_on_words() -> None:
    assert condition_model("no-such-embedder") is WORDS_ONLY
    assert condition_model("minilm-l6-v2-int8") is not WORDS_ONLY


@pytest.mark.parametrize(
    ("condition", "keywords"),
    [
        ("anything about a specific order", ["order"]),
        ("a subscription business like this", ["subscript"]),
        ("you tell a customer about a refund", ["refund"]),
    ],
)
def test_words_that_carry_no_condition_are_no_keywords(condition: str, keywords: list[str]) -> None:
    from dctx.compile.triggers import data_trigger

    assert data_trigger(condition).keywords == keywords


def test_an_acronym_in_the_plural_is_the_acronym() -> None:
    from dctx.text import content_stems

    assert content_stems("hardware RMAs") == content_stems("hardware RMA") == ["hardwar", "rma"]


def test_weighing_words_for_the_touched_conditions_alone_decides_as_for_all() -> None:
    import random

    import numpy as np

    from dctx.retrieve.condition_match import NOTHING_SEEN, Lexical

    model = condition_model("minilm-l6-v2-int8")
    rng = random.Random(11)
    slots = np.array(sorted(rng.sample(range(500), 200)), dtype=np.int64)
    cosines = np.array([rng.uniform(-0.1, 0.8) for _ in slots], dtype=np.float32)
    seen = {
        int(i): Lexical(
            all_seen=rng.random() < 0.5, two_seen=rng.random() < 0.5, share=rng.random()
        )
        for i in rng.sample(slots.tolist(), 60)
    }
    full = model.fires(cosines, [seen.get(int(i), NOTHING_SEEN) for i in slots])
    assert 0 < full.sum() < len(slots)
    assert (model.fires_among(cosines, slots, seen) == full).all()
