"""Capturing twice learns once (issue 11, item 5).

Re-capturing a conversation already captured (same namespace, conversation id, actor, skill and
messages) is a no-op; other content under the same id is refused before anything is written.
One rule text reaches a run once, and dctx's own stage-1 pair in a transcript is never a
correction or support.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dctx.capture.parse import load_sessions
from dctx.errors import ConflictError
from dctx.memory import Memory
from dctx.models import (
    Rule,
    RuleSource,
    RuleStatus,
    RuleType,
    Scope,
    Trigger,
    TriggerKind,
)
from dctx.store.base import CaptureBatch

SCENARIOS = Path(__file__).parents[2] / "src" / "dctx" / "bench" / "scenarios"
MANY_CORRECTIONS = SCENARIOS / "financial_analyst" / "persistence" / "50_corr.yaml"


def _correction(text: str) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Summarize Acme's quarter."},
        {"role": "assistant", "content": "Acme grew revenue 12% to $40M."},
        {"role": "user", "content": text},
        {"role": "assistant", "content": "Acme grew revenue 12% to EUR 37M."},
    ]


def _state(mem: Memory) -> list[tuple[str, str, int, int]]:
    return sorted((r.id, r.status.value, r.support, len(r.evidence_ids)) for r in mem.rules())


def test_twenty_reruns_of_a_captured_file_change_nothing(backend_mem: Memory) -> None:
    backend_mem.capture_file(MANY_CORRECTIONS)
    before, rows = _state(backend_mem), backend_mem.store.count_rows()
    assert len(before) > 20
    for _ in range(20):
        report = backend_mem.capture_file(MANY_CORRECTIONS)
        assert report.added == [] and report.changed == []
        assert len(report.unchanged) == len(load_sessions(MANY_CORRECTIONS))
    assert _state(backend_mem) == before
    assert backend_mem.store.count_rows() == rows


def test_other_content_under_a_captured_id_is_refused(backend_mem: Memory) -> None:
    said = "Company policy for everyone: always show revenue in EUR."
    backend_mem.capture(_correction(said), actor="alice", skill="fa", conversation_id="s1")
    before, rows = _state(backend_mem), backend_mem.store.count_rows()
    with pytest.raises(ConflictError, match=r"'s1'.*other messages"):
        backend_mem.capture(
            _correction("Always show revenue in GBP."),
            actor="alice",
            skill="fa",
            conversation_id="s1",
        )
    with pytest.raises(ConflictError, match="as actor 'alice'"):
        backend_mem.capture(_correction(said), actor="bob", skill="fa", conversation_id="s1")
    assert _state(backend_mem) == before
    assert backend_mem.store.count_rows() == rows


def test_one_session_captured_alternately_as_two_actors_leaves_no_duplicates(
    backend_mem: Memory,
) -> None:
    said = "I prefer revenue in EUR."
    for i, actor in enumerate(["alice", "bob", "alice", "bob", "alice"]):
        backend_mem.capture(_correction(said), actor=actor, skill="fa", conversation_id=f"s{i}")
    for actor in ("alice", "bob"):
        mine = backend_mem.rules(actor=actor, status=RuleStatus.ACTIVE)
        assert len({r.text for r in mine}) == len(mine) == 1


def test_one_rule_text_is_delivered_once_per_run(backend_mem: Memory) -> None:
    team = "Company policy for everyone: always show revenue in EUR."
    backend_mem.capture(_correction(team), actor="alice", skill="fa", conversation_id="a1")
    backend_mem.capture(
        _correction("Always show revenue in EUR."), actor="bob", skill="fa", conversation_id="b1"
    )
    assert len(backend_mem.rules(status=RuleStatus.ACTIVE)) == 2  # team's and bob's own
    run = backend_mem.start(actor="bob", skill="fa", query="Summarize Beta's quarter")
    assert [u.text for u in run.units] == ["RULE: Always show revenue in EUR."]


def test_an_injected_stage1_pair_is_no_support(backend_mem: Memory) -> None:
    team = "Company policy for everyone: always show revenue in EUR."
    backend_mem.capture(_correction(team), actor="alice", skill="fa", conversation_id="a1")
    run = backend_mem.start(actor="bob", skill="fa", query="Summarize Beta's quarter")
    assert run.messages, "the team rule is delivered to bob"
    before = _state(backend_mem)
    transcript = [
        *run.messages,
        {"role": "user", "content": "Summarize Beta's quarter."},
        {"role": "assistant", "content": "Beta grew revenue 3% to EUR 10M."},
        {"role": "user", "content": "thanks"},
    ]
    report = backend_mem.capture(transcript, actor="bob", skill="fa", conversation_id="b1")
    assert report.corrections == 0
    assert _state(backend_mem) == before


def test_a_rule_text_delivered_at_stage1_is_not_sent_again_later(backend_mem: Memory) -> None:
    text = "Quote every amount in EUR."
    rules = [
        Rule(
            id="team",
            text=text,
            type=RuleType.FORMAT,
            trigger=Trigger(kind=TriggerKind.ALWAYS, text="every run"),
            scope=Scope(skill="fa"),
            source=RuleSource.MANUAL,
            actor=None,
            group="g1",
        ),
        Rule(
            id="bobs",
            text=text.lower(),
            type=RuleType.CONTENT,
            trigger=Trigger(
                kind=TriggerKind.TOOL, text="after get_prices", after_tool="get_prices"
            ),
            scope=Scope(skill="fa", actor="bob"),
            source=RuleSource.CORRECTION,
            actor="bob",
            group="g2",
        ),
    ]
    vecs = backend_mem.embedder.embed([t for r in rules for t in (r.text, r.trigger.text)])
    batch = CaptureBatch(rules=rules)
    for i, rule in enumerate(rules):
        batch.rule_vectors[rule.id] = (vecs[2 * i], vecs[2 * i + 1])
    backend_mem.store.write(batch)
    run = backend_mem.start(actor="bob", skill="fa", query="Price check")
    assert [d.rule.id for d in run.deliveries] == ["team"]
    assert run.observe({"name": "get_prices", "arguments": {}}, {"price": 1}) == []
