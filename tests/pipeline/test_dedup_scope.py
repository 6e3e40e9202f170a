"""Dedup never crosses scope (issue 11, item 4): a lesson merges only into a rule of the same
namespace, skill, actor scope and subject; the same lesson elsewhere is a rule of its own."""

from __future__ import annotations

import json
from typing import Any

from dctx.memory import Memory
from dctx.models import RuleSource, RuleStatus


def _retry(skill_tool: str) -> list[dict[str, Any]]:
    """A retry the agent worked out itself: `format` was wrong, "csv" worked."""

    def call(i: int, fmt: str) -> dict[str, Any]:
        args = json.dumps({"format": fmt, "report": "weekly"})
        fn = {"name": skill_tool, "arguments": args}
        return {
            "role": "assistant",
            "tool_calls": [{"id": f"c{i}", "type": "function", "function": fn}],
        }

    return [
        {"role": "user", "content": "Export the weekly report."},
        call(1, "xls"),
        {"role": "tool", "tool_call_id": "c1", "content": '{"error": "unsupported"}'},
        call(2, "csv"),
        {"role": "tool", "tool_call_id": "c2", "content": '{"status": "ok"}'},
        {"role": "assistant", "content": "Exported."},
    ]


def _correction(text: str) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Summarize Acme's quarter."},
        {"role": "assistant", "content": "Acme grew revenue 12% to $40M."},
        {"role": "user", "content": text},
        {"role": "assistant", "content": "Acme grew revenue 12% to EUR 37M."},
    ]


def _active(mem: Memory, **kw: Any) -> list[Any]:
    return mem.rules(status=RuleStatus.ACTIVE, **kw)


def test_a_tool_lesson_of_another_skill_is_not_merged(backend_mem: Memory) -> None:
    backend_mem.capture(_retry("export"), actor="alice", skill="skill_a", conversation_id="a1")
    backend_mem.capture(_retry("export"), actor="bob", skill="skill_b", conversation_id="b1")
    rules = [r for r in _active(backend_mem) if r.source is RuleSource.SELF_ASSESSMENT]
    assert sorted(r.scope.skill for r in rules) == ["skill_a", "skill_b"]
    assert [r.support for r in rules] == [1, 1]
    for skill in ("skill_a", "skill_b"):
        run = backend_mem.start(actor="carol", skill=skill, query="Export it", tools=["export"])
        [delivered] = run.rules
        assert delivered.scope.skill == skill


def test_a_personal_duplicate_is_not_merged_into_another_persons_rule(
    backend_mem: Memory,
) -> None:
    said = "I prefer revenue in EUR."
    backend_mem.capture(_correction(said), actor="alice", skill="fa", conversation_id="a1")
    backend_mem.capture(_correction(said), actor="bob", skill="fa", conversation_id="b1")
    rules = _active(backend_mem)
    assert sorted((r.actor, r.scope.actor, r.support) for r in rules) == [
        ("alice", "alice", 1),
        ("bob", "bob", 1),
    ]


def test_a_personal_duplicate_of_a_team_rule_stays_personal(backend_mem: Memory) -> None:
    team = "Company policy for everyone: always show revenue in EUR."
    backend_mem.capture(_correction(team), actor="alice", skill="fa", conversation_id="a1")
    [team_rule] = _active(backend_mem)
    assert team_rule.scope.actor is None
    backend_mem.capture(
        _correction("I want revenue in EUR, always."), actor="bob", skill="fa", conversation_id="b1"
    )
    assert backend_mem.rule(team_rule.id).support == 1  # bob's preference is no team support
    # bob sees the lesson once, whichever rule carries it
    run = backend_mem.start(actor="bob", skill="fa", query="Summarize Beta's quarter")
    texts = [" ".join(d.rule.text.lower().split()) for d in run.deliveries]
    assert len(texts) == len(set(texts))


def test_the_same_lesson_in_another_namespace_is_its_own_rule(backend_mem: Memory) -> None:
    for ns in ("acme", "globex"):
        backend_mem.capture(
            _retry("export"), actor="alice", skill="ops", conversation_id="c1", namespace=ns
        )
    for ns in ("acme", "globex"):
        [rule] = backend_mem.rules(namespace=ns)
        assert rule.scope.namespace == ns and rule.support == 1


def test_a_team_policy_is_not_merged_into_its_authors_personal_rule(backend_mem: Memory) -> None:
    mine = "Always show revenue in EUR for me."
    backend_mem.capture(_correction(mine), actor="alice", skill="fa", conversation_id="a1")
    team = "Company policy for everyone: always show revenue in EUR."
    backend_mem.capture(_correction(team), actor="alice", skill="fa", conversation_id="a2")
    run = backend_mem.start(actor="bob", skill="fa", query="Summarize Beta's quarter")
    assert [d.rule.scope.actor for d in run.deliveries] == [None]
