"""Run approaches over scenarios, in-process or on a process pool.

The unit of work is one (scenario, approach) pair. Workers are spawned processes that build
the embedder (and any LLMs) once each, receive the scenario as JSON text and send the result
back as JSON text: nothing is pickled but plain strings.
"""

from __future__ import annotations

import functools
import json
import multiprocessing
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, BrokenExecutor, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, TypeVar

from dctx.bench import approaches as registry
from dctx.bench.embedcache import CachedEmbedder
from dctx.bench.guard_coverage import coverage
from dctx.bench.loader import LoadedScenario
from dctx.bench.replay import replay
from dctx.bench.results import BenchResult, ScenarioResult
from dctx.bench.schema import Scenario
from dctx.bench.scoring import score_delivery
from dctx.errors import ConfigError, RuntimeFailure
from dctx.providers.base import LLM, Embedder
from dctx.providers.usage import metering

Mode = Literal["delivery", "live"]
T = TypeVar("T")


@dataclass(slots=True)
class BenchConfig:
    """Everything a worker needs to rebuild the run's resources (plain data only)."""

    approaches: list[str] = field(default_factory=registry.names)
    mode: Mode = "delivery"
    jobs: int = 1
    embedder: str = "auto"
    llm: str | None = None  # capture-time LLM for approaches that use one (expel, forge_dc)
    agent: str | None = None  # live mode: the agent model
    judge: str | None = None  # live mode: the judge model
    runs: int = 5  # live mode: runs per (scenario, approach)
    max_turns: int = 12  # live mode: model calls per run
    keep_units: bool = False  # put the delivered units into each result
    options: dict[str, Any] = field(default_factory=dict)  # passed to every approach

    def validate(self) -> None:
        if self.mode not in ("delivery", "live"):
            raise ConfigError(f"--mode must be delivery or live, got {self.mode!r}")
        if self.jobs < 1:
            raise ConfigError("--jobs must be at least 1")
        if not self.approaches:
            raise ConfigError("no approach selected")
        for name in self.approaches:
            registry.spec(name)
        if self.mode == "live":
            if not self.agent or not self.judge:
                raise ConfigError("--mode live needs --agent and --judge provider strings")
            if self.runs < 1:
                raise ConfigError("--runs must be at least 1")


@dataclass(slots=True)
class Resources:
    """Per-process resources, built lazily and once."""

    config: BenchConfig
    embedder_override: Embedder | None = None
    llm_override: LLM | None = None
    _cache: dict[str, Any] = field(default_factory=dict)

    def embedder(self) -> Embedder:
        """The run's embedder behind a per-process cache (built on first use)."""
        if "embedder" not in self._cache:
            inner = self.embedder_override
            if inner is None:
                from dctx.providers.embedders import get_embedder

                inner = get_embedder(self.config.embedder)
            self._cache["embedder"] = CachedEmbedder(inner)
        emb: Embedder = self._cache["embedder"]
        return emb

    def cached(self, key: str, factory: Callable[[], T]) -> T:
        """Build a per-process resource once (live agent, judge)."""
        if key not in self._cache:
            self._cache[key] = factory()
        value: T = self._cache[key]
        return value

    def llm(self) -> LLM | None:
        if self.llm_override is not None:
            return self.llm_override
        if not self.config.llm:
            return None
        if "llm" not in self._cache:
            from dctx.providers.llm import resolve_llm

            self._cache["llm"] = resolve_llm(self.config.llm)
        llm: LLM = self._cache["llm"]
        return llm


def run_pair(scenario: Scenario, approach: str, res: Resources) -> ScenarioResult:
    """Score one approach on one scenario in the configured mode."""
    t0 = time.perf_counter()
    if res.config.mode == "live":
        from dctx.bench.live import run_live

        result = run_live(scenario, approach, res)
        result.seconds = time.perf_counter() - t0
        return result
    llm = res.llm()
    guards: list[Any] | None = None

    def grab_guards(system: Any) -> None:
        nonlocal guards
        if callable(getattr(system, "guards", None)):
            guards = system.guards()

    with metering() as meter:
        dps = replay(
            scenario,
            approach,
            embedder_factory=res.embedder,
            llm=llm,
            options=res.config.options,
            inspect=grab_guards,
        )
    sc = score_delivery(scenario, dps)
    return ScenarioResult(
        scenario=scenario.id,
        dimension=scenario.dimension,
        domain=scenario.domain,
        approach=approach,
        score=sc.score,
        tokens=sc.tokens,
        units=sc.units,
        items=sc.items,
        seconds=time.perf_counter() - t0,
        delivered=(
            [[{"channel": u.channel, "text": u.text} for u in dp] for dp in dps]
            if res.config.keep_units
            else None
        ),
        usage=meter.totals().to_dict() if llm is not None else None,
        guards=None
        if guards is None
        else coverage(
            scenario.checks,
            guards,
            [(st.call.name, st.call.arguments) for st in scenario.test.steps],
        ),
    )


def _failed(scenario: Scenario, approach: str, exc: BaseException) -> ScenarioResult:
    return ScenarioResult(
        scenario=scenario.id,
        dimension=scenario.dimension,
        domain=scenario.domain,
        approach=approach,
        score=0.0,
        tokens=0,
        units=0,
        error=f"{type(exc).__name__}: {exc}",
    )


def _guarded(scenario: Scenario, approach: str, res: Resources) -> ScenarioResult:
    """run_pair, turning any failure but a configuration error into an error result."""
    try:
        return run_pair(scenario, approach, res)
    except ConfigError:
        raise
    except Exception as exc:  # an approach's bug must not end the benchmark
        return _failed(scenario, approach, exc)


# --------------------------------------------------------------------------- workers

_WORKER: Resources | None = None


def _worker_init(config_json: str, targets: dict[str, str]) -> None:
    global _WORKER
    for name, target in targets.items():
        if name not in registry.REGISTRY or registry.REGISTRY[name].target != target:
            registry.register(registry.ApproachSpec(name, target, ""))
    _WORKER = Resources(BenchConfig(**json.loads(config_json)))


def _worker_task(scenario_json: str) -> str:
    """All selected approaches on one scenario, so they share the process's embedding cache."""
    assert _WORKER is not None
    scenario = Scenario.model_validate_json(scenario_json)
    out = []
    for name in _WORKER.config.approaches:
        try:
            out.append(_guarded(scenario, name, _WORKER).to_dict())
        except ConfigError as exc:
            return json.dumps({"fatal": str(exc)})
    return json.dumps({"results": out})


def _cost(ls: LoadedScenario) -> int:
    return sum(len(str(m.get("content") or "")) for s in ls.scenario.seed for m in s.messages)


def run_bench(
    scenarios: Sequence[LoadedScenario],
    config: BenchConfig,
    *,
    on_result: Callable[[ScenarioResult], None] | None = None,
    embedder: Embedder | None = None,
    llm: LLM | None = None,
) -> BenchResult:
    """Run every selected approach on every scenario.

    `embedder` / `llm` instances, when given, are used in-process (jobs is then ignored);
    otherwise `config.jobs` > 1 runs scenarios on that many spawned processes, largest seeds
    first.
    """
    config.validate()
    t0 = time.perf_counter()
    ordered = sorted(scenarios, key=_cost, reverse=True)
    notify = on_result or (lambda r: None)
    results: list[ScenarioResult] = []
    if config.jobs == 1 or embedder is not None or llm is not None or len(ordered) < 2:
        res = Resources(config, embedder_override=embedder, llm_override=llm)
        for ls in ordered:
            for name in config.approaches:
                r = _guarded(ls.scenario, name, res)
                results.append(r)
                notify(r)
    else:
        results = _run_pool(ordered, config, notify)
    results.sort(key=lambda r: (config.approaches.index(r.approach), r.scenario))
    return BenchResult(
        mode=config.mode,
        approaches=list(config.approaches),
        results=results,
        seconds=time.perf_counter() - t0,
        meta=_meta(config, embedder),
    )


def _run_pool(
    scenarios: Sequence[LoadedScenario],
    config: BenchConfig,
    notify: Callable[[ScenarioResult], None],
) -> list[ScenarioResult]:
    targets = {name: registry.spec(name).target for name in config.approaches}
    results: list[ScenarioResult] = []
    with ProcessPoolExecutor(
        max_workers=min(config.jobs, len(scenarios)),
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_worker_init,
        initargs=(json.dumps(asdict(config)), targets),
    ) as pool:
        pending: set[Future[str]] = {
            pool.submit(_worker_task, ls.scenario.model_dump_json()) for ls in scenarios
        }
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                try:
                    data = json.loads(fut.result())
                except BrokenExecutor as exc:
                    raise RuntimeFailure(f"a benchmark worker process died: {exc}") from exc
                if "fatal" in data:
                    for f in pending:
                        f.cancel()
                    raise ConfigError(data["fatal"])
                for item in data["results"]:
                    r = ScenarioResult.from_dict(item)
                    results.append(r)
                    notify(r)
    return results


@functools.cache
def _tokenizer_name() -> str:
    from dctx.tokens import TOKENIZER_NAME

    return TOKENIZER_NAME


def _meta(config: BenchConfig, embedder: Embedder | None) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "tokenizer": _tokenizer_name(),
        "embedder": embedder.id if embedder is not None else config.embedder,
    }
    if config.llm:
        meta["llm"] = config.llm
    if config.mode == "live":
        meta.update(agent=config.agent, judge=config.judge, runs=config.runs)
    return meta


__all__ = ["BenchConfig", "Resources", "run_bench", "run_pair"]
