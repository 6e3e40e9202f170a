"""Performance benchmark: injection latency against rulebook size, capture throughput, memory.

For each rulebook size (default 5, 500, 5,000, 50,000 rules) a synthetic but realistic rulebook
is written straight into a real SQLite store through `CaptureBatch`: rules of every trigger
kind (always / query / data keywords / data thresholds / tool, up front and after a tool),
spread over several actors and skills, with a few conflict groups. Vectors are real embedder
vectors: a few hundred distinct texts are embedded once and reused with a small perturbation
per rule, so building 50,000 rules does not mean 100,000 forward passes.

Measured (p50 / p95 in milliseconds, query/step embedding included):
- stage 1: `Memory.start` (embed the query, select the up-front rules, pack them);
- stage 2: one decision point, `Run.observe` of a tool result;
each in four states: `cold` (first call after a store change, on a new text: the changed
rules are applied to the snapshot and the text embedded), `reload` (the snapshot is built
from scratch, as for a new process), `new_text` (snapshot warm, text not seen before) and
`cached` (the same text again: everything warm). Peak RSS is recorded after each size, for
this process (which also embeds the text bank and captures) and for a fresh child process
that only runs decision points on the same store (`perf_serving.py`: the serving case).

Capture throughput is messages per second over generated sessions with corrections, failing
and retried tool calls, with `embed_nodes=False`: one `Memory.capture` call per session (how an
agent integration captures) and all sessions in one call (how `dctx capture FILE` does). Peak
RSS is the process's high-water mark (`resource.getrusage`). The data is in `perf_data.py`.
"""

from __future__ import annotations

import math
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from dctx.bench.perf_data import (
    ACTOR,
    SKILL,
    TOOLS,
    FreshTexts,
    TextBank,
    bank_texts,
    synthetic_rules,
    synthetic_sessions,
    write_rules,
)
from dctx.bench.perf_parallel import ParallelCaptureResult, measure_parallel_capture
from dctx.bench.perf_serving import decision_point_rss
from dctx.capture.parse import parse_messages
from dctx.errors import ConfigError
from dctx.memory import Memory
from dctx.models import Rule, RuleStatus
from dctx.providers.base import Embedder, forget_texts
from dctx.providers.embedders import get_embedder
from dctx.store.registry import open_store, scheme_of

DEFAULT_SIZES = (5, 500, 5_000, 50_000, 100_000)
BASE_SIZE = 500  # ratios are against this run
WRITE_CHUNK = 10_000  # rules generated and written at a time (the data's own memory)
TARGETS = {
    "stage2_cached_p50_ms@500": 2.0,
    "stage2_cached_p50_ms@50000": 20.0,
    "stage2_new_text_p50_ms@500": 5.0,
    "stage2_new_text_p50_ms@100000": 15.0,
    "capture_messages_per_s": 2000.0,
}
PEAK_RSS_TARGET_MB = (100_000, 400.0)
COLD_TARGET_SIZE = 100_000  # cold (changes applied) within 2x of new_text here

# --------------------------------------------------------------------------- measurement


@dataclass(slots=True)
class Stat:
    p50_ms: float
    p95_ms: float
    n: int

    @classmethod
    def of(cls, samples_ns: Sequence[int]) -> Stat:
        ms = np.asarray(samples_ns, dtype=np.float64) / 1e6
        return cls(
            round(float(np.percentile(ms, 50)), 3), round(float(np.percentile(ms, 95)), 3), len(ms)
        )


@dataclass(slots=True)
class SizeResult:
    rules: int
    visible: int  # rules whose scope admits the measured actor and skill
    write_s: float
    stage1: dict[str, Stat] = field(default_factory=dict)  # cold / reload / new_text / cached
    stage2: dict[str, Stat] = field(default_factory=dict)
    delivered_stage1: int = 0
    delivered_stage2: int = 0
    peak_rss_mb: float = math.nan  # the process's high-water mark after this size
    # a fresh process that only runs decision points on this store (perf_serving.py)
    decision_rss_mb: float = math.nan
    decision_models: list[str] = field(default_factory=list)  # embedder copies it loaded


@dataclass(slots=True)
class CaptureResult:
    mode: str  # per_session | batch
    sessions: int
    messages: int
    seconds: float
    messages_per_s: float
    rules: int


@dataclass(slots=True)
class PerfResult:
    embedder: str
    python: str
    sizes: list[SizeResult]
    capture: list[CaptureResult]
    peak_rss_mb: float
    ratios: dict[str, float]
    targets: list[dict[str, Any]]
    seconds: float
    backend: str = "sqlite"
    namespaces: int = 1
    parallel_capture: ParallelCaptureResult | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def peak_rss_mb() -> float:
    """The process's peak RSS in MB; NaN where `resource` does not exist (Windows)."""
    try:
        import resource  # Unix only
    except ImportError:
        return math.nan
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return round(peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024, 1)


STEP_CALL = {"name": "get_segments", "arguments": {"company": "Corvid", "period": "FY2025"}}
STEP_RESULT = (
    '{"company": "Corvid", "period": "FY2025", "segments": [{"name": "Data Center", '
    '"revenue": 2985.0, "revenue_prior": 2301.2}, {"name": "Automotive", "revenue": 1425.0, '
    '"revenue_prior": 1569.4}], "runway_months": 9, "operating_margin": 22.9}'
)
# Close to the situations QUERY rules were learned in, so stage 1 takes its full path
# (similarity, then BM25 full-text search and fusion) in every state, cached included.
QUERY = "Summarize Corvid Semiconductor's quarterly results."


def _series(count: int, setup: Callable[[int], Callable[[], Any]]) -> tuple[Stat, Any]:
    """Time `count` calls; `setup(i)` prepares one (untimed) and returns the call to time."""
    samples, out = [], None
    for i in range(count):
        call = setup(i)
        t0 = time.perf_counter_ns()
        out = call()
        samples.append(time.perf_counter_ns() - t0)
    return Stat.of(samples), out


def measure_size(
    mem: Memory, size: int, write_s: float, *, iterations: int, cold: int, texts: FreshTexts
) -> SizeResult:
    snap = mem.retriever.snapshot(mem.namespace)
    # the oldest injectable rule, from the snapshot: `mem.rules()` would load every rule again
    # (at 100,000 rules a few hundred MB of the benchmark's own in the peak RSS)
    toggle = snap.rule(int(snap.live_slots()[0])).id
    visible = len(mem.retriever.visible(snap, skill=SKILL, actor=ACTOR))
    del snap  # held here, it would sit beside every reloaded one in the peak RSS
    out = SizeResult(rules=size, visible=visible, write_s=round(write_s, 2))

    def start(query: str) -> Any:
        return mem.start(  # retrieval and injection latency, not the delivery record
            actor=ACTOR, skill=SKILL, query=query, tools=list(TOOLS[:8]), record=False
        )

    def touch(i: int) -> None:  # any change to the namespace's rules invalidates the snapshot
        status = RuleStatus.DISABLED if i % 2 == 0 else RuleStatus.ACTIVE
        mem.store.set_rule_status(toggle, status, note="perf benchmark")

    def unseen() -> None:  # a new text is embedded, even where its summary says what an
        forget_texts(mem.embedder)  # earlier one said (ids are the first words budgeted out)

    def stage1(fresh_store: bool, fresh_text: bool) -> Callable[[int], Callable[[], Any]]:
        def setup(i: int) -> Callable[[], Any]:
            if fresh_store:
                touch(i)
            if fresh_text:
                unseen()
            return partial(start, texts.query() if fresh_text else QUERY)

        return setup

    def stage2(fresh_store: bool, fresh_text: bool) -> Callable[[int], Callable[[], Any]]:
        def setup(i: int) -> Callable[[], Any]:
            run = start(QUERY)  # a fresh run each time: its first decision point is timed
            if fresh_store:
                touch(i + 1)
            if fresh_text:
                unseen()
            return partial(run.observe, STEP_CALL, texts.result() if fresh_text else STEP_RESULT)

        return setup

    def reloaded(setup: Callable[[int], Callable[[], Any]]) -> Callable[[int], Callable[[], Any]]:
        def wrapped(i: int) -> Callable[[], Any]:
            call = setup(i)
            mem.retriever._snapshots.clear()  # as a process that has never read the rules
            return call

        return wrapped

    out.stage1["cold"], _ = _series(cold, stage1(True, True))
    out.stage1["reload"], _ = _series(max(2, cold // 2), reloaded(stage1(False, True)))
    start(QUERY)  # warm the snapshot again
    out.stage1["new_text"], _ = _series(iterations, stage1(False, True))
    out.stage1["cached"], run = _series(iterations, stage1(False, False))
    out.delivered_stage1 = len(run.units)
    out.stage2["cold"], _ = _series(cold, stage2(True, True))
    out.stage2["reload"], _ = _series(max(2, cold // 2), reloaded(stage2(False, True)))
    start(QUERY)
    out.stage2["new_text"], _ = _series(iterations, stage2(False, True))
    out.stage2["cached"], units = _series(iterations, stage2(False, False))
    out.delivered_stage2 = len(units)
    out.peak_rss_mb = peak_rss_mb()
    return out


def measure_capture(
    embedder: Embedder, folder: Path, sessions: int, *, batch: bool, db: str | None = None
) -> CaptureResult:
    """Capture generated sessions into a fresh store (or, with `db`, a fresh namespace of
    it): one `Memory.capture` call per session (how an agent integration captures), or all
    at once (`capture_sessions`, how `dctx capture FILE` does). Parsing is included in both."""
    data = synthetic_sessions(sessions)
    _cold_caches(embedder)
    name = "capture-batch.db" if batch else "capture.db"
    namespace = "perf-capture-batch" if batch else "perf-capture"
    mem = Memory(
        open_store(db or str(folder / name)),
        embedder=embedder,
        embed_nodes=False,
        namespace=namespace if db else "default",
    )
    stamps = [f"2026-02-{1 + i % 28:02d}T{i % 24:02d}:00:00Z" for i in range(len(data))]
    with mem:
        messages = sum(len(m) for _, _, m in data)
        t0 = time.perf_counter()
        if batch:
            parsed = [
                parse_messages(
                    msgs,
                    actor=actor,
                    skill=SKILL,
                    conversation_id=conv,
                    timestamp=ts,
                    namespace=mem.namespace,
                )
                for (actor, conv, msgs), ts in zip(data, stamps, strict=True)
            ]
            mem.capture_sessions(parsed)
        else:
            for (actor, conv, msgs), ts in zip(data, stamps, strict=True):
                mem.capture(msgs, actor=actor, skill=SKILL, conversation_id=conv, timestamp=ts)
        seconds = time.perf_counter() - t0
        rules = len(mem.rules())
    return CaptureResult(
        mode="batch" if batch else "per_session",
        sessions=len(data),
        messages=messages,
        seconds=round(seconds, 2),
        messages_per_s=round(messages / seconds, 1),
        rules=rules,
    )


def _cold_caches(embedder: Embedder) -> None:
    """Each capture mode starts with empty embedder caches (the capture's and the turn
    reader's), so the second mode does not find the first one's texts; within a mode, texts
    that recur across its sessions are embedded once, as in any long-lived process."""
    from dctx.capture.reading.default import default_reader

    forget_texts(embedder)
    reader_embedder = getattr(default_reader(), "embedder", None)
    if isinstance(reader_embedder, Embedder):
        forget_texts(reader_embedder)


# --------------------------------------------------------------------------- driver


@contextmanager
def _workdir(path: str | None) -> Iterator[Path]:
    if path is not None:
        Path(path).mkdir(parents=True, exist_ok=True)
        yield Path(path)
        return
    with tempfile.TemporaryDirectory(prefix="dctx-perf-") as tmp:
        yield Path(tmp)


def run_perf(
    sizes: Sequence[int] = DEFAULT_SIZES,
    *,
    embedder: str | Embedder | None = "minilm",
    iterations: int = 40,
    cold: int = 8,
    capture_sessions: int = 250,
    workdir: str | None = None,
    progress: Callable[[str], None] | None = None,
    db: str | None = None,
    namespaces: int = 1,
    writers: int = 0,
) -> PerfResult:
    """Run the whole benchmark; `progress` receives one line per phase. With `db` (a URL
    such as postgresql://...) everything is written into that store, which must be empty;
    `namespaces` spreads the rulebook over that many tenants (the measured one is
    `default`); `writers` > 0 adds capture throughput of that many parallel processes."""
    if not sizes or any(s < 1 for s in sizes):
        raise ConfigError("--sizes needs positive rule counts, e.g. 5,500,5000")
    if namespaces < 1 or writers < 0:
        raise ConfigError("--namespaces must be at least 1 and --writers at least 0")
    say = progress or (lambda _msg: None)
    started = time.perf_counter()
    emb = get_embedder(embedder)
    emb_name = embedder if isinstance(embedder, str) else emb.id.split("-")[0]
    results: list[SizeResult] = []
    texts = FreshTexts()  # one counter for the whole run: a "new" text is never seen twice
    with _workdir(workdir) as folder:
        say("embedding the text bank")
        bank = TextBank.build(emb, bank_texts())
        store = open_store(db or str(folder / "rulebook.db"))
        if store.count_rows()["rules"]:
            store.close()
            raise ConfigError(f"the benchmark needs an empty store; {db} holds rules already")
        mem = Memory(store, embedder=emb, embed_nodes=False)
        with mem:
            have = 0
            for size in sorted(set(sizes)):
                say(f"writing {size:,} rules")
                t0 = time.perf_counter()
                while have < size:
                    count = min(WRITE_CHUNK, size - have)
                    write_rules(mem, bank, _spread(synthetic_rules(count, start=have), namespaces))
                    have += count
                write_s = time.perf_counter() - t0
                say(f"measuring at {size:,} rules")
                big = size >= 20_000
                result = measure_size(
                    mem,
                    size,
                    write_s,
                    iterations=max(10, iterations // 2) if big else iterations,
                    cold=max(3, cold // 2) if big else cold,
                    texts=texts,
                )
                say(f"peak RSS of a decision-point process at {size:,} rules")
                serving = decision_point_rss(db or str(folder / "rulebook.db"), emb_name)
                result.decision_rss_mb, result.decision_models = serving.peak_rss_mb, serving.models
                results.append(result)
        capture: list[CaptureResult] = []
        if capture_sessions > 0:
            for batch in (False, True):
                say(f"capturing {capture_sessions} sessions ({'batch' if batch else 'one by one'})")
                capture.append(measure_capture(emb, folder, capture_sessions, batch=batch, db=db))
        parallel = None
        if writers and capture_sessions > 0:
            say(f"capturing with {writers} parallel writer processes")
            parallel = measure_parallel_capture(
                db or str(folder / "parallel.db"),
                emb_name,
                writers,
                capture_sessions,
            )
    return PerfResult(
        embedder=emb.id,
        python=sys.version.split()[0],
        sizes=results,
        capture=capture,
        peak_rss_mb=peak_rss_mb(),
        ratios=_ratios(results),
        targets=_targets(results, capture),
        seconds=round(time.perf_counter() - started, 1),
        backend=scheme_of(db) if db else "sqlite",
        namespaces=namespaces,
        parallel_capture=parallel,
    )


def _spread(rules: list[Rule], namespaces: int) -> list[Rule]:
    """Rule i goes to tenant i mod `namespaces`; tenant 0 is `default`, the measured one."""
    if namespaces > 1:
        for rule in rules:
            k = int(rule.id.rsplit("_", 1)[1]) % namespaces
            rule.scope.namespace = "default" if k == 0 else f"tenant-{k:05d}"
    return rules


def _ratios(results: list[SizeResult]) -> dict[str, float]:
    """Every p50 (and peak RSS) of the largest run against the BASE_SIZE run (or the smallest);
    `ratio_table` gives them for every size."""
    if len(results) < 2:
        return {}
    table = ratio_table(results)
    hi = results[-1].rules
    base = _base(results).rules
    if hi == base:
        return {}
    return {f"{name} {hi}/{base}": row[-1] for name, row in table.items()}


def _base(results: list[SizeResult]) -> SizeResult:
    return next((r for r in results if r.rules == BASE_SIZE), results[0])


def figures(result: SizeResult) -> dict[str, float]:
    """Every figure of one size: p50 per stage and state, and peak RSS."""
    out = {
        f"{stage} {state} p50 ms": stat.p50_ms
        for stage, stats in (("stage1", result.stage1), ("stage2", result.stage2))
        for state, stat in stats.items()
    }
    out["peak RSS MB"] = result.peak_rss_mb
    out["decision-point process peak RSS MB"] = result.decision_rss_mb
    return out


def ratio_table(results: list[SizeResult]) -> dict[str, list[float]]:
    """figure -> its ratio against the base run, per size (in the order of `results`)."""
    base = figures(_base(results))
    table: dict[str, list[float]] = {}
    for result in results:
        for name, value in figures(result).items():
            ref = base.get(name, math.nan)
            ratio = round(value / ref, 2) if ref and not math.isnan(ref) else math.nan
            table.setdefault(name, []).append(ratio)
    return table


def _targets(results: list[SizeResult], capture: list[CaptureResult]) -> list[dict[str, Any]]:
    by_size = {r.rules: r for r in results}
    out = []
    for name, limit in TARGETS.items():
        if name.startswith("stage2"):
            size = int(name.rsplit("@", 1)[1])
            if size not in by_size:
                continue
            state = "new_text" if "new_text" in name else "cached"
            value = by_size[size].stage2[state].p50_ms
            out.append({"target": name, "limit": limit, "measured": value, "ok": value <= limit})
        else:
            for cap in capture:
                value = cap.messages_per_s
                out.append(
                    {
                        "target": f"{name} ({cap.mode})",
                        "limit": limit,
                        "measured": value,
                        "ok": value >= limit,
                    }
                )
    for result in results:
        warm = result.stage2["new_text"].p50_ms
        if result.rules == COLD_TARGET_SIZE:
            value = result.stage2["cold"].p50_ms
            out.append(
                {
                    "target": f"stage2_cold_p50 <= 2x new_text @{result.rules}",
                    "limit": round(2 * warm, 3),
                    "measured": value,
                    "ok": value <= 2 * warm,
                }
            )
    size, limit = PEAK_RSS_TARGET_MB
    if size in by_size:
        for name, value in (
            ("decision_point_process", by_size[size].decision_rss_mb),
            ("bench_process (also embeds and writes the rulebook)", by_size[size].peak_rss_mb),
        ):
            out.append(
                {
                    "target": f"peak_rss_mb@{size} {name}",
                    "limit": limit,
                    "measured": value,
                    "ok": value <= limit,
                }
            )
    return out
