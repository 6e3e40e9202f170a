"""The labelled pairs that fit the free-text condition match (benchmarks/conditions) are
sentences of their own: none shares a run of words with a DC-Bench scenario of the dev sets,
so the fit cannot have learned a scenario's wording."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
LABELLED = ROOT / "benchmarks" / "conditions" / "labelled.yaml"
DEV_SETS = ("src/dctx/bench/scenarios", "benchmarks/holdout", "benchmarks/blind_2026_12")
RUN = 6  # words in a row: longer than stock phrases ("at the end of the" is 5)


def _strings(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        for value in node.values():
            yield from _strings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _strings(value)
    elif isinstance(node, str):
        yield node


def _runs(text: str) -> set[tuple[str, ...]]:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {tuple(words[i : i + RUN]) for i in range(len(words) - RUN + 1)}


def test_no_labelled_text_shares_a_run_of_words_with_a_scenario() -> None:
    scenario_runs: dict[tuple[str, ...], str] = {}
    for folder in DEV_SETS:
        for path in sorted((ROOT / folder).rglob("*.yaml")):
            for text in _strings(yaml.safe_load(path.read_text("utf-8"))):
                for run in _runs(text):
                    scenario_runs.setdefault(run, str(path.relative_to(ROOT)))
    assert len(scenario_runs) > 10_000  # the scenarios were read
    shared = [
        f"{' '.join(run)!r} ({scenario_runs[run]})"
        for entry in yaml.safe_load(LABELLED.read_text("utf-8"))
        for text in _strings(entry)
        for run in _runs(text)
        if run in scenario_runs
    ]
    assert not shared, "labelled pairs in scenario wording:\n" + "\n".join(shared)
