"""Validation of every bundled DC-Bench scenario file against DCBENCH.md and the authoring
guide: schema, counts per dimension and domain, regexes, rubric examples, timing, traces."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from dctx.bench.loader import load_file, load_scenarios
from dctx.bench.schema import DIMENSIONS, BeforeCall, Scenario
from dctx.bench.validate import example_problems

ROOT = Path(__file__).resolve().parents[2] / "src" / "dctx" / "bench" / "scenarios"
FILES = sorted(p for p in ROOT.rglob("*") if p.suffix in (".yaml", ".yml"))
EXPECTED = {
    "behavioral_change": 7,
    "conditional_activation": 12,
    "exception": 3,
    "generalization": 3,
    "implicit_learning": 10,
    "persistence": 10,
    "recall": 9,
    "scope_precision": 8,
    "temporal_coherence": 9,
}
DOMAINS = {"financial_analyst": "fin", "customer_support": "cs"}


def _ids(paths: list[Path]) -> list[str]:
    return [str(p.relative_to(ROOT)) for p in paths]


@pytest.fixture(scope="module")
def loaded() -> dict[Path, Scenario]:
    return {p: load_file(p) for p in FILES}


def test_counts_per_dimension_and_domain() -> None:
    scenarios = [ls.scenario for ls in load_scenarios()]
    assert sum(EXPECTED.values()) == 71
    assert Counter(s.dimension for s in scenarios) == Counter(EXPECTED)
    assert len(scenarios) == 71
    for dim in DIMENSIONS:
        domains = {s.domain for s in scenarios if s.dimension == dim}
        assert domains == set(DOMAINS), f"{dim} has domains {sorted(domains)}"


@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_file_layout_and_id(path: Path, loaded: dict[Path, Scenario]) -> None:
    sc = loaded[path]
    domain, dimension = path.relative_to(ROOT).parts[:2]
    assert sc.domain == domain
    assert sc.dimension == dimension
    assert sc.id == f"{DOMAINS[domain]}.{dimension}.{path.stem}"
    assert sc.description.strip(), "every scenario needs a one-line description"
    assert path.stat().st_size < 400_000


@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_rubric(path: Path, loaded: dict[Path, Scenario]) -> None:
    sc = loaded[path]
    assert 3 <= len(sc.expect) <= 8
    n_steps = len(sc.test.steps)
    for item in sc.expect:
        assert 1 <= item.weight <= 3
        pat = item.pattern
        for rx in [*pat.all, *pat.any, *pat.none]:
            re.compile(rx, re.IGNORECASE)
        if isinstance(item.by, BeforeCall):
            assert item.by.before_call - 1 <= n_steps, f"{item.id}: before_call past the run"
        # a non-empty pattern: an empty one would match (or forbid) every unit
        assert pat.all or pat.any, f"{item.id}: pattern needs `all` or `any`"


@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_rubric_examples(path: Path, loaded: dict[Path, Scenario]) -> None:
    sc = loaded[path]
    for item in sc.expect:
        assert item.examples is not None, f"{item.id}: no examples"
        assert len(item.examples.good) >= 2, f"{item.id}: fewer than 2 good examples"
        assert len(item.examples.bad) >= 1, f"{item.id}: no bad example"
    assert example_problems(sc) == []


@pytest.mark.parametrize("path", FILES, ids=_ids(FILES))
def test_traces(path: Path, loaded: dict[Path, Scenario]) -> None:
    sc = loaded[path]
    tools = set(sc.tool_names())
    for step in sc.test.steps:
        assert step.call.name in tools, f"test step calls unknown tool {step.call.name}"
    for session in sc.seed:
        open_ids: set[str] = set()
        for i, msg in enumerate(session.messages):
            for call in msg.get("tool_calls") or []:
                args = call["function"].get("arguments", "{}")
                assert isinstance(args, str), (
                    f"{session.conversation_id}[{i}]: arguments not JSON text"
                )
                assert isinstance(json.loads(args), dict)
                open_ids.add(call["id"])
            if msg["role"] == "tool":
                assert msg["tool_call_id"] in open_ids, (
                    f"{session.conversation_id}[{i}]: answers an unknown tool call"
                )
