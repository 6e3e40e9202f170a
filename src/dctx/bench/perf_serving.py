"""Peak memory of a process that only runs decision points: the serving case.

An agent process calls `Memory.start` and `Run.observe` on a store that others capture into;
it embeds query and step texts, never rules. The benchmark process also embeds its text bank
and captures, so its own high-water mark includes models and buffers a serving process never
holds. `decision_point_rss` measures the serving case in a fresh child process: open the
store, run a few decision points on new texts, report the child's peak RSS and which copies
of the embedding model it loaded.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dctx.errors import RuntimeFailure

__all__ = ["ServingResult", "decision_point_rss"]

RUNS = 5  # decision points per stage, each on a new text
TIMEOUT_S = 600


@dataclass(slots=True)
class ServingResult:
    peak_rss_mb: float
    models: list[str] = field(default_factory=list)  # embedder copies loaded ("fast", "exact")
    delivered: int = 0  # rules delivered over all its decision points (it did retrieve)


def decision_point_rss(db: str, embedder: str, *, runs: int = RUNS) -> ServingResult:
    """Peak RSS of a fresh process that opens `db` and only runs decision points."""
    cmd = [sys.executable, "-m", "dctx.bench.perf_serving", db, embedder, str(runs)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
        raise RuntimeFailure(
            f"the decision-point process on {db} exited with {proc.returncode}: {tail[0]}"
        )
    data = json.loads(proc.stdout.strip().splitlines()[-1])
    return ServingResult(float(data["peak_rss_mb"]), list(data["models"]), int(data["delivered"]))


def _serve(db: str, embedder: str, runs: int) -> dict[str, Any]:
    from dctx.bench.perf import QUERY, STEP_CALL, peak_rss_mb
    from dctx.bench.perf_data import ACTOR, SKILL, TOOLS, FreshTexts
    from dctx.memory import Memory
    from dctx.store.registry import open_store

    texts = FreshTexts()
    delivered = 0
    with Memory(open_store(db), embedder=embedder, embed_nodes=False) as mem:
        for i in range(runs):
            query = QUERY if i == 0 else texts.query()
            run = mem.start(
                actor=ACTOR, skill=SKILL, query=query, tools=list(TOOLS[:8]), record=False
            )
            delivered += len(run.units) + len(run.observe(STEP_CALL, texts.result()))
        models = list(getattr(mem.embedder, "loaded_models", ()))
    return {"peak_rss_mb": _own_peak_mb(peak_rss_mb), "models": models, "delivered": delivered}


def _own_peak_mb(fallback: Callable[[], float]) -> float:
    """This process's own high-water mark: Linux's `VmHWM` belongs to the address space made
    at exec, whereas `ru_maxrss` of a spawned child starts at its parent's RSS."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return fallback()


if __name__ == "__main__":
    print(json.dumps(_serve(sys.argv[1], sys.argv[2], int(sys.argv[3]))))
