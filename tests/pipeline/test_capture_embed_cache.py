"""Capture reads the same rulebook whether the embedder answers from its cache or runs the
model on every text: the cache changes what is computed, never what is stored."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from dctx.bench.perf_data import SKILL, synthetic_sessions
from dctx.capture.reading.learned import LearnedTurnClassifier
from dctx.memory import Memory
from dctx.providers.minilm import MiniLMEmbedder, missing_minilm_dependencies
from dctx.store.sqlite import SQLiteStore

pytestmark = pytest.mark.skipif(
    bool(missing_minilm_dependencies()), reason="MiniLM dependencies are not installed"
)


def _rulebook(path: Path, embedder: MiniLMEmbedder) -> list[tuple[object, ...]]:
    mem = Memory(
        SQLiteStore(path), embedder=embedder, reader=LearnedTurnClassifier(embedder=embedder)
    )
    with mem:
        for i, (actor, conv, msgs) in enumerate(synthetic_sessions(12)):
            stamp = f"2026-02-{1 + i:02d}T00:00:00Z"
            mem.capture(msgs, actor=actor, skill=SKILL, conversation_id=conv, timestamp=stamp)
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
