"""Capture stores the same rulebook whether the embedder answers from its cache or runs the
model on every text, and whether a batch's turns are read up front in one pass or session by
session: both change what is computed, never what is stored."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from dctx.bench.perf_data import SKILL, synthetic_sessions
from dctx.capture.parse import parse_messages
from dctx.capture.reading.base import TurnInput, TurnVerdict
from dctx.capture.reading.learned import LearnedTurnClassifier
from dctx.capture.turns import user_turn_inputs
from dctx.memory import Memory
from dctx.models import Session
from dctx.providers.minilm import MiniLMEmbedder, missing_minilm_dependencies
from dctx.store.sqlite import SQLiteStore

pytestmark = pytest.mark.skipif(
    bool(missing_minilm_dependencies()), reason="MiniLM dependencies are not installed"
)


class CountingReader:
    """The learned reader, recording the turns of each call."""

    def __init__(self, inner: LearnedTurnClassifier) -> None:
        self.inner = inner
        self.model = inner.model  # its calibrated bands
        self.calls: list[int] = []

    @property
    def id(self) -> str:
        return self.inner.id

    def read(self, turns: Sequence[TurnInput]) -> list[TurnVerdict]:
        self.calls.append(len(turns))
        return self.inner.read(turns)


def _sessions() -> list[Session]:
    return [
        parse_messages(
            msgs,
            actor=actor,
            skill=SKILL,
            conversation_id=conv,
            timestamp=f"2026-02-{1 + i:02d}T00:00:00Z",
            namespace="default",
        )
        for i, (actor, conv, msgs) in enumerate(synthetic_sessions(12))
    ]


def _rulebook(
    path: Path, embedder: MiniLMEmbedder, *, batch: bool = False, reader: object = None
) -> list[tuple[object, ...]]:
    mem = Memory(
        SQLiteStore(path),
        embedder=embedder,
        reader=reader or LearnedTurnClassifier(embedder=embedder),  # type: ignore[arg-type]
    )
    with mem:
        if batch:
            mem.capture_sessions(_sessions())
        for session in [] if batch else _sessions():
            mem.capture_sessions([session])
        rules = mem.rules()
        vectors = mem.store.rule_index("default", [r.status for r in rules])
        by_id = dict(zip([r.id for r in vectors.rules], vectors.text_vectors, strict=True))
        rows = [  # ids are random: everything else, the rule's vector last
            (
                r.text,
                r.type.value,
                r.status.value,
                r.actor,
                repr(r.scope),
                repr(replace(r.trigger, node_id=None)),
                r.supporters,
                by_id.get(r.id),
            )
            for r in rules
        ]
        return sorted(rows, key=lambda row: repr(row[:-1]))


def test_a_cached_embedder_captures_the_same_rulebook(tmp_path: Path) -> None:
    uncached = _rulebook(tmp_path / "a.db", MiniLMEmbedder(cache_size=0))
    warm = MiniLMEmbedder()
    _rulebook(tmp_path / "warmup.db", warm)  # the same texts again: mostly cache hits
    hits = warm.cache_hits
    cached = _rulebook(tmp_path / "b.db", warm)
    assert warm.cache_hits > hits and len(uncached) >= 5
    assert [row[:-1] for row in cached] == [row[:-1] for row in uncached]
    for a, b in zip(cached, uncached, strict=True):
        assert (a[-1] is None) == (b[-1] is None)
        if a[-1] is not None:
            np.testing.assert_allclose(a[-1], b[-1], atol=1e-5)


def test_a_batch_reads_its_turns_in_one_pass_and_stores_the_same_rulebook(
    tmp_path: Path,
) -> None:
    embedder = MiniLMEmbedder(cache_size=0)
    one_by_one = _rulebook(tmp_path / "a.db", embedder)
    counting = CountingReader(LearnedTurnClassifier(embedder=embedder))
    batched = _rulebook(tmp_path / "b.db", embedder, batch=True, reader=counting)
    user_turns = {t for s in _sessions() for _, t in user_turn_inputs(s)}
    assert counting.calls[0] == len(user_turns)  # every session's turns, at once
    assert [row[:-1] for row in batched] == [row[:-1] for row in one_by_one]
    for a, b in zip(batched, one_by_one, strict=True):
        if a[-1] is not None:
            np.testing.assert_allclose(a[-1], b[-1], atol=1e-5)
