"""Tenancy as a property: over random rulebooks with random scopes, on every backend, a run
is handed exactly the rules whose scope admits its namespace, actor and skill, at stage 1
(ALWAYS rules) and at a stage-2 decision point (rules triggered after a tool returned).

One store per backend serves all examples; each example uses namespaces of its own, so the
earlier examples' rules are still there as neighbours that must never leak in.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dctx.memory import Memory
from dctx.models import Rule, RuleSource, RuleType, Scope, Trigger, TriggerKind
from dctx.store.base import CaptureBatch

# Names that have tripped stores before: LIKE wildcards, quotes, unicode, a prefix of another.
NAMES = ["alice", "alice2", "bob", "o'neil", "%", "_", "zoë", "tenant-1", "tenant-10"]
NAMESPACES = ["ns", "ns2", "ns_", "tenant-ü"]
SKILLS = ["analyst", "support", "analyst%"]
TOOL = "get_data"
_example = itertools.count()


@dataclass(frozen=True)
class Spec:
    namespace: str
    skill: str | None
    actor: str | None
    stage2: bool  # an after-tool rule (stage 2) instead of an ALWAYS rule (stage 1)


specs = st.lists(
    st.builds(
        Spec,
        st.sampled_from(NAMESPACES),
        st.none() | st.sampled_from(SKILLS),
        st.none() | st.sampled_from(NAMES),
        st.booleans(),
    ),
    min_size=1,
    max_size=14,
)
runs = st.lists(
    st.tuples(st.sampled_from(NAMESPACES), st.sampled_from(NAMES), st.sampled_from(SKILLS)),
    min_size=1,
    max_size=6,
)


def _rule(i: int, spec: Spec, prefix: str) -> Rule:
    trigger = (
        Trigger(kind=TriggerKind.TOOL, text=f"after {TOOL}", tool="next_step", after_tool=TOOL)
        if spec.stage2
        else Trigger(kind=TriggerKind.ALWAYS, text="every run")
    )
    return Rule(
        id=f"{prefix}r{i}",
        text=f"Directive number {i} for this scope.",
        type=RuleType.FORMAT if not spec.stage2 else RuleType.CONTENT,
        trigger=trigger,
        scope=Scope(namespace=prefix + spec.namespace, skill=spec.skill, actor=spec.actor),
        source=RuleSource.CORRECTION,
        actor=spec.actor,
        group=f"{prefix}g{i}",  # no conflicts: every admitted rule must arrive
    )


@pytest.fixture
def memory(backend: Any, tmp_path: Path, embedder) -> Iterator[Memory]:  # type: ignore[no-untyped-def]
    store = backend.open(tmp_path)
    mem = Memory(store, embedder=embedder, token_budget=1_000_000, embed_nodes=False)
    yield mem
    mem.close()
    if backend.name == "postgres":
        import pg_server

        pg_server.get().drop_store(store.url)


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(specs=specs, runs=runs)
def test_injection_never_crosses_scope(
    memory: Memory, specs: list[Spec], runs: list[tuple[str, str, str]]
) -> None:
    prefix = f"x{next(_example)}-"
    rules = [_rule(i, s, prefix) for i, s in enumerate(specs)]
    texts = memory.embedder.embed([r.text for r in rules] + [r.trigger.text for r in rules])
    batch = CaptureBatch(rules=rules)
    for i, rule in enumerate(rules):
        batch.rule_vectors[rule.id] = (texts[i], texts[len(rules) + i])
    memory.store.write(batch)
    for ns, actor, skill in runs:
        namespace = prefix + ns
        admitted = {
            r.id: r.trigger.kind
            for r in rules
            if r.scope.namespace == namespace
            and r.scope.skill in (None, skill)
            and r.scope.actor in (None, actor)
        }
        memory.namespace = namespace
        run = memory.start(actor=actor, skill=skill, query="Prepare the weekly report.")
        stage1 = {i for u in run.units for i in u.rule_ids}
        stage2 = {i for u in run.observe({"name": TOOL, "arguments": {}}, "ok") for i in u.rule_ids}
        assert stage1 == {i for i, k in admitted.items() if k is TriggerKind.ALWAYS}
        assert stage2 == {i for i, k in admitted.items() if k is TriggerKind.TOOL}
