"""No conflict group whose rules do not contradict, over every rule pair the bundled DC-Bench
seeds and benchmarks/holdout produce (each scenario's seed captured into a fresh memory).

The oracle is a person's label per pair (data/conflict_pairs.yaml), not the pipeline's own
contradiction test: a grouped pair labelled as not contradicting fails, and so does a grouped
pair nobody has labelled yet.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations
from pathlib import Path

import pytest
import yaml

from dctx.bench.loader import load_scenarios
from dctx.memory import Memory
from dctx.models import RuleStatus
from dctx.providers.base import Embedder

ROOT = Path(__file__).resolve().parents[2]
LABELS = Path(__file__).parent / "data" / "conflict_pairs.yaml"
SETS = (None, ROOT / "benchmarks" / "holdout")  # bundled, held-out (never the blind set)


def _key(a: str, b: str) -> frozenset[str]:
    return frozenset({" ".join(a.lower().split()), " ".join(b.lower().split())})


def _grouped_pairs(tmp: Path, embedder: Embedder) -> list[tuple[str, str, str]]:
    """(scenario id, text, text) for every two active rules of different authors that share a
    conflict group and say different things."""
    out: list[tuple[str, str, str]] = []
    for n, loaded in enumerate(s for root in SETS for s in load_scenarios(root)):
        sc = loaded.scenario
        with Memory(str(tmp / f"{n}.db"), embedder=embedder, embed_nodes=False) as mem:
            for seed in sc.seed:
                mem.capture(
                    [dict(m) for m in seed.messages],
                    actor=seed.actor,
                    skill=seed.skill,
                    conversation_id=seed.conversation_id,
                    timestamp=seed.timestamp,
                )
            groups = defaultdict(list)
            for rule in mem.rules(status=RuleStatus.ACTIVE):
                groups[rule.group].append(rule)
        for members in groups.values():
            for a, b in combinations(members, 2):
                if a.actor != b.actor and a.text.strip().lower() != b.text.strip().lower():
                    out.append((sc.id, a.text, b.text))
    return out


@pytest.mark.slow
def test_conflict_groups_hold_only_contradicting_rules(tmp_path: Path, embedder: Embedder) -> None:
    labels = {
        _key(p["a"], p["b"]): bool(p["contradict"]) for p in yaml.safe_load(LABELS.read_text())
    }
    pairs = _grouped_pairs(tmp_path, embedder)
    unlabelled = [p for p in pairs if _key(p[1], p[2]) not in labels]
    wrong = [p for p in pairs if labels.get(_key(p[1], p[2])) is False]
    assert not wrong, f"rules that do not contradict share a conflict group: {wrong}"
    assert not unlabelled, f"label these grouped pairs in {LABELS.name}: {unlabelled}"
