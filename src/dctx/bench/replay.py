"""Offline replay: drive one approach through one scenario's reference run.

Decision points: DP0 = `start(actor, skill, query, tools)`; DPk = `observe(call_k, result_k)`
after the k-th step. The approach is built fresh with its own scratch folder, captures a deep
copy of the seed only (never `test` or `expect`), and is closed afterwards.
"""

from __future__ import annotations

import copy
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dctx.bench.approaches import ApproachContext, build
from dctx.bench.schema import Scenario
from dctx.errors import DctxError
from dctx.models import Unit
from dctx.providers.base import LLM, Embedder


def checked_units(value: object, who: str) -> list[Unit]:
    """The units an approach returned, verified (a wrong type is the approach's bug)."""
    if not isinstance(value, list | tuple):
        raise DctxError(f"approach {who} returned {type(value).__name__}, not a list of Units")
    out: list[Unit] = []
    for u in value:
        if not isinstance(u, Unit) or u.channel not in ("user", "system"):
            raise DctxError(f"approach {who} returned a bad unit: {u!r}")
        out.append(u)
    return out


def replay(
    scenario: Scenario,
    approach: str,
    *,
    embedder_factory: Callable[[], Embedder],
    llm: LLM | None = None,
    options: dict[str, Any] | None = None,
    inspect: Callable[[Any], None] | None = None,
) -> list[list[Unit]]:
    """Return the units delivered at DP0..DPn for `approach` on `scenario`. `inspect`, when
    given, sees the approach after the last decision point, before it is closed."""
    seed = [s.model_copy(deep=True) for s in scenario.seed]
    test = scenario.test
    with tempfile.TemporaryDirectory(prefix="dctx-bench-") as tmp:
        ctx = ApproachContext(
            workdir=Path(tmp),
            embedder_factory=embedder_factory,
            llm=llm,
            options=dict(options or {}),
        )
        system = build(approach, ctx)
        try:
            system.capture(seed)
            dps = [
                checked_units(
                    system.start(test.actor, test.skill, test.query, scenario.tool_names()),
                    approach,
                )
            ]
            for step in test.steps:
                call = {"name": step.call.name, "arguments": copy.deepcopy(step.call.arguments)}
                dps.append(checked_units(system.observe(call, step.result), approach))
            if inspect is not None:
                inspect(system)
        finally:
            system.close()
    return dps
